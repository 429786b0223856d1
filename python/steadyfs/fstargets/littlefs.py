"""``--fs littlefs``: littlefs v2 (PyPI ``littlefs-python``) over a device.

littlefs calls back into :class:`DeviceContext` for every block-device
operation, and each callback is a ``native.Device`` read/prog/erase, so the
device model times everything littlefs does.  Configuration per device
kind (override with ``options``: ``block_size``, ``read_size``,
``prog_size``, ``cache_size``, ``lookahead_size``, ``block_cycles``):

* NAND (mt29f1g01): littlefs block = the 128 KiB erase block; read and
  program size = the 2 KiB page, so every page is programmed at most once
  between erases (NAND program-once; littlefs never reprograms a prog unit).
* NOR (mt25q128): littlefs block = the 4 KiB subsector (the smallest erase
  unit), read/prog = the 256 B program page.
* MRAM (em064lx): littlefs blocks of 4 KiB inside the nominal 64 KiB device
  blocks; read/prog 256 B; erase is a no-op that costs nothing and leaves
  the data, exactly like the device.  That is safe because littlefs does
  not rely on erased blocks reading as 0xFF: lfs.h documents "The state of
  an erased block is undefined", and littlefs 2.x checks the erased state
  of a commit area with a checksum of what it found there (``fcrc``) rather
  than against a fixed value.  ``tests/py/test_workloads.py`` checks a
  round trip and a remount on MRAM with the no-op erase.  No wear levelling
  (``block_cycles = -1``): MRAM endurance is unlimited.
* SD cards (not a littlefs target in the demo): 16 KiB blocks, 512 B units.

lookahead_size 32 bytes (256 blocks per allocator window) and
block_cycles 500 are littlefs's usual small-RAM settings; cache_size is one
read/prog unit.  Device errors become LFS_ERR_CORRUPT for bad-block,
program, erase and ECC failures (littlefs then relocates the block, which
is how it handles NAND factory bad blocks) and LFS_ERR_IO otherwise.
"""

from __future__ import annotations

from typing import Any

from littlefs import LittleFS, LittleFSError
from littlefs.context import UserContext

from steadyfs.fstargets import MODES, File, FsError, FsTarget
from steadyfs.native import ERR_BAD_BLOCK, ERR_ECC, ERR_ERASE, ERR_PROG, Device, DeviceError

LFS_ERR_IO = -5
LFS_ERR_CORRUPT = -84
OPTION_KEYS = ("block_size", "read_size", "prog_size", "cache_size", "lookahead_size", "block_cycles",
               "metadata_max")


def default_config(dev: Device) -> dict[str, int]:
    """The littlefs configuration used for ``dev`` (see the module docstring)."""
    g = dev.geometry
    kind_nand = g["needs_erase"] and g["nop"] > 0
    if kind_nand:
        unit, block, cycles = dev.page_size, dev.block_size, 500
    elif g["needs_erase"]:                        # NOR: smallest erase unit
        unit, block, cycles = dev.page_size, dev.block_size, 500
    elif dev.page_size == 512:                    # SD card
        unit, block, cycles = 512, 16384, 500
    else:                                         # MRAM
        unit, block, cycles = dev.page_size, 4096, -1
    return {"block_size": block, "read_size": unit, "prog_size": unit, "cache_size": unit,
            "lookahead_size": 32, "block_cycles": cycles}


class DeviceContext(UserContext):
    """littlefs block-device callbacks on a native Device (virtual time)."""

    def __init__(self, dev: Device, block_size: int) -> None:
        # UserContext.__init__ would allocate a RAM image; the device is the image.
        self.dev = dev
        self.lfs_block = block_size
        self.dev_block = dev.block_size
        self.needs_erase = bool(dev.geometry["needs_erase"])
        if self.needs_erase and block_size % self.dev_block:
            raise ValueError(f"littlefs block_size {block_size} must be a multiple of the "
                             f"{self.dev_block}-byte erase block")
        if not self.needs_erase and self.dev_block % block_size and block_size % self.dev_block:
            raise ValueError(f"littlefs block_size {block_size} must divide or be a multiple of "
                             f"the device block {self.dev_block}")
        self.in_size = dev.block_count * dev.block_size
        self.errors = 0

    def _pieces(self, block: int, off: int, size: int) -> list[tuple[int, int, int, int]]:
        """(device block, offset, length, position in the buffer) pieces."""
        addr = block * self.lfs_block + off
        out = []
        pos = 0
        while pos < size:
            b, o = divmod(addr + pos, self.dev_block)
            n = min(size - pos, self.dev_block - o)
            out.append((b, o, n, pos))
            pos += n
        return out

    @staticmethod
    def _code(e: DeviceError) -> int:
        return LFS_ERR_CORRUPT if e.code in (ERR_BAD_BLOCK, ERR_PROG, ERR_ERASE, ERR_ECC) else LFS_ERR_IO

    def read(self, cfg: Any, block: int, off: int, size: int) -> bytearray:
        parts = []
        for b, o, n, _ in self._pieces(block, off, size):
            rc, data = self.dev.read_raw(b, o, n)
            if rc < 0 and rc != ERR_ECC:
                self.errors += 1
                raise DeviceError(rc, f"littlefs read block {block} off {off}")
            parts.append(data)
        return bytearray(b"".join(parts))

    def prog(self, cfg: Any, block: int, off: int, data: bytes) -> int:
        mv = memoryview(data)
        try:
            for b, o, n, pos in self._pieces(block, off, len(data)):
                self.dev.prog(b, o, mv[pos:pos + n])
        except DeviceError as e:
            self.errors += 1
            return self._code(e)
        return 0

    def erase(self, cfg: Any, block: int) -> int:
        if not self.needs_erase:
            return 0
        per = self.lfs_block // self.dev_block
        try:
            self.dev.erase(block * per, per) if per > 1 else self.dev.erase(block)
        except DeviceError as e:
            self.errors += 1
            return self._code(e)
        return 0

    def sync(self, cfg: Any) -> int:
        try:
            self.dev.sync()
        except DeviceError as e:
            return self._code(e)
        return 0


class _LfsFile(File):
    def __init__(self, fs: LittleFS, path: str, mode: str) -> None:
        lmode = {"r": "rb", "r+": "r+b", "w": "wb", "a": "ab"}[mode]
        self.path = path
        try:
            # buffering=0: every write goes to littlefs now (its own cache
            # is the only buffer), so the device clock sees each call.
            self.fh: Any = fs.open(path, lmode, buffering=0)
        except (LittleFSError, OSError) as e:
            raise FsError(f"littlefs: open {path} ({mode}): {e}") from e
        self.closed = False

    def write(self, data: bytes) -> int:
        try:
            n = int(self.fh.write(data))
        except (LittleFSError, OSError) as e:
            raise FsError(f"littlefs: write {self.path}: {e}") from e
        if n != len(data):
            raise FsError(f"littlefs: short write on {self.path} ({n} of {len(data)} bytes: full?)")
        return n

    def read(self, size: int) -> bytes:
        return bytes(self.fh.read(size))

    def seek(self, offset: int) -> None:
        self.fh.seek(offset)

    def sync(self) -> None:
        try:
            self.fh.flush()
        except (LittleFSError, OSError) as e:
            raise FsError(f"littlefs: sync {self.path}: {e}") from e

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self.fh.close()
            except (LittleFSError, OSError) as e:
                raise FsError(f"littlefs: close {self.path}: {e}") from e


class LittleFsTarget(FsTarget):
    name = "littlefs"

    def __init__(self, dev: Device, format: bool, options: dict[str, Any]) -> None:
        super().__init__(dev)
        bad = [k for k in options if k not in OPTION_KEYS]
        if bad:
            raise ValueError(f"unknown littlefs option(s) {', '.join(bad)}: known {', '.join(OPTION_KEYS)}")
        cfg = default_config(dev)
        cfg.update({k: int(v) for k, v in options.items()})
        self.cfg = cfg
        self.ctx = DeviceContext(dev, cfg["block_size"])
        self.block_count = dev.block_count * dev.block_size // cfg["block_size"]
        kwargs: dict[str, Any] = dict(cfg)
        self.fs = LittleFS(context=self.ctx, mount=False, block_count=self.block_count, **kwargs)
        try:
            if format:
                self.fs.format()
            self.fs.mount()
        except LittleFSError as e:
            raise FsError(f"littlefs: {'format/' if format else ''}mount failed: {e}") from e
        self._mounted = True

    def open(self, path: str, mode: str = "r", *, sync_writes: bool = False) -> File:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        return _LfsFile(self.fs, path, mode)

    def unlink(self, path: str) -> None:
        try:
            self.fs.remove(path)
        except (LittleFSError, OSError) as e:
            raise FsError(f"littlefs: unlink {path}: {e}") from e

    def mkdir(self, path: str) -> None:
        try:
            self.fs.mkdir(path)
        except (LittleFSError, OSError) as e:
            raise FsError(f"littlefs: mkdir {path}: {e}") from e

    def exists(self, path: str) -> bool:
        try:
            self.fs.stat(path)
            return True
        except (LittleFSError, OSError):
            return False

    def capacity(self) -> int:
        return int(self.block_count) * int(self.cfg["block_size"])

    def used(self) -> int:
        """Blocks in use (littlefs walks its whole tree for this) x block size."""
        return int(self.fs.used_block_count) * int(self.cfg["block_size"])

    def unmount(self) -> None:
        if self._mounted:
            self._mounted = False
            self.fs.unmount()

    def describe(self) -> dict[str, Any]:
        c = self.cfg
        # littlefs's buffers: read and program caches and the lookahead
        # bitmap, plus one cache per open file (its lfs_t and lfs_file_t
        # structures, a few hundred bytes, are not counted here)
        return {"fs": "littlefs", "implementation": "littlefs-python", "block_count": self.block_count,
                **c, "buffer_ram_bytes": 2 * int(c["cache_size"]) + int(c["lookahead_size"]),
                "ram_per_open_file_bytes": int(c["cache_size"])}


def open_target(dev: Device, *, format: bool = True, options: dict[str, Any]) -> FsTarget:
    return LittleFsTarget(dev, format, options)
