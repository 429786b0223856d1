"""FAT on a native device: ChaN's FatFs (PyPI `fatfs-ng`) over a Device.

`DeviceDisk` adapts a `native.Device` with 512-byte pages (the SD card
profiles, or a real file/block device) to fatfs-ng's `Disk` interface, so a
real FAT implementation formats and writes the simulated card and every
sector access it makes is timed by the card model.  `FatVolume` formats and
mounts it; `seed001` runs the seed 001 workloads and returns the duration of
each file-system call, measured on the device clock (virtual time).
"""

from __future__ import annotations

from dataclasses import dataclass
import fatfs.wrapper as ffw
import numpy as np
import numpy.typing as npt
from fatfs import Partition
from fatfs.diskio import Disk

from steadyfs.native import Device

SECTOR = 512

# FatFs f_open mode bits (ff.h).  fatfs-ng's Partition.open() mode strings
# do not append (every "a" write lands at offset 0), so files are opened
# through its low-level pyf_* calls with these bits.
FA_READ, FA_WRITE = 0x01, 0x02
FA_CREATE_NEW, FA_CREATE_ALWAYS, FA_OPEN_ALWAYS, FA_OPEN_APPEND = 0x04, 0x08, 0x10, 0x30
MODES = {
    "r": FA_READ,
    "r+": FA_READ | FA_WRITE,
    "w": FA_WRITE | FA_CREATE_ALWAYS,
    "w+": FA_READ | FA_WRITE | FA_CREATE_ALWAYS,
    "a": FA_WRITE | FA_OPEN_APPEND,
    "a+": FA_READ | FA_WRITE | FA_OPEN_APPEND,
    "x": FA_WRITE | FA_CREATE_NEW,
}


class FatError(OSError):
    """A FatFs call failed (FRESULT code)."""

    def __init__(self, fr: int, what: str) -> None:
        super().__init__(fr, f"{what}: {ffw.fresult_to_name(fr)}")


def _ok(fr: int, what: str) -> None:
    if fr != 0:
        raise FatError(fr, what)


class FatFile:
    """An open FatFs file (f_open/f_write/f_read/f_lseek/f_sync/f_close)."""

    def __init__(self, path: str, mode: str) -> None:
        self.fh = ffw.FIL_Handle()
        self.path = path
        _ok(ffw.pyf_open(self.fh, path.encode(), MODES[mode]), f"open {path}")
        self.closed = False

    def write(self, data: bytes) -> int:
        fr, n = ffw.pyf_write(self.fh, data)
        _ok(fr, f"write {self.path}")
        if n != len(data):
            raise FatError(7, f"write {self.path}: short write (volume full?)")
        return int(n)

    def read(self, size: int) -> bytes:
        fr, data = ffw.pyf_read(self.fh, size)
        _ok(fr, f"read {self.path}")
        return bytes(data)

    def seek(self, offset: int) -> None:
        _ok(ffw.pyf_lseek(self.fh, offset), f"seek {self.path}")

    def sync(self) -> None:
        _ok(ffw.pyf_sync(self.fh), f"sync {self.path}")

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            _ok(ffw.pyf_close(self.fh), f"close {self.path}")

    def __enter__(self) -> FatFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DeviceDisk(Disk):  # type: ignore[misc]
    """fatfs-ng Disk over a Device whose page size is 512 bytes.

    FatFs passes byte counts; requests are split at device block
    boundaries (the sbd contract: no operation crosses a block).
    """

    def __init__(self, dev: Device) -> None:
        super().__init__()
        if dev.page_size != SECTOR:
            raise ValueError(f"FAT needs 512-byte sectors; this device has {dev.page_size}-byte pages")
        self.dev = dev
        self.spb = dev.pages_per_block
        self.sectors = dev.block_count * dev.pages_per_block
        self.reads = 0
        self.writes = 0

    def ioctl_get_sector_count(self) -> int:
        return int(self.sectors)

    def ioctl_get_sector_size(self) -> int:
        return SECTOR

    def ioctl_get_block_size(self) -> int:
        return 1

    def ioctl_sync(self) -> None:
        self.dev.sync()

    def read(self, sector: int, count: int) -> bytes:
        parts: list[bytes] = []
        while count > 0:
            block, page = divmod(sector, self.spb)
            n = min(count, (self.spb - page) * SECTOR)
            parts.append(self.dev.read(block, page * SECTOR, n)[0])
            self.reads += 1
            sector += n // SECTOR
            count -= n
        return b"".join(parts)

    def write(self, sector: int, count: int, buff: bytes) -> None:
        pos = 0
        while count > 0:
            block, page = divmod(sector, self.spb)
            n = min(count, (self.spb - page) * SECTOR)
            self.dev.prog(block, page * SECTOR, buff[pos:pos + n])
            self.writes += 1
            sector += n // SECTOR
            count -= n
            pos += n


class FatVolume:
    """A FAT volume on a device: mkfs (if asked) and mount."""

    def __init__(self, dev: Device, *, format: bool = True) -> None:
        self.dev = dev
        self.disk = DeviceDisk(dev)
        self.part = Partition(self.disk)
        if format:
            self.part.mkfs()
        self.part.mount()

    def open(self, path: str, mode: str = "r") -> FatFile:
        """Open a file; mode is one of MODES ("r", "w", "a", ...)."""
        return FatFile(path, mode)

    def unmount(self) -> None:
        """Unmount; fatfs-ng keeps one volume per drive, so a volume must be
        unmounted before another device is mounted."""
        self.part.unmount()

    def __enter__(self) -> FatVolume:
        return self

    def __exit__(self, *exc: object) -> None:
        self.unmount()


@dataclass
class CallTimes:
    """Per-call durations (ns, device clock) of one workload run."""

    workload: str
    block_bytes: int
    durations_ns: npt.NDArray[np.uint64]

    @property
    def total_bytes(self) -> int:
        return self.block_bytes * len(self.durations_ns)

    @property
    def max_latency_ms(self) -> float:
        return float(self.durations_ns.max()) / 1e6

    @property
    def avg_kBps(self) -> float:
        return self.total_bytes / (float(self.durations_ns.sum()) / 1e9) / 1000.0

    @property
    def guaranteed_kBps(self) -> float:
        return self.block_bytes / (float(self.durations_ns.max()) / 1e9) / 1000.0


SEED001 = {
    # name: (block bytes, reopen for every block, seed 001 total bytes)
    "seed001-naive": (512, True, 8 * 1000 * 1000),
    "seed001-open": (512, False, 8 * 1000 * 1000),
    "seed001-2k": (2048, False, 32 * 1024 * 1024),
}


def seed001(vol: FatVolume, workload: str, total_bytes: int | None = None,
            path: str = "/log.bin") -> CallTimes:
    """Run a seed 001 workload; each block's time covers every file-system
    call made for it (open + append + close for the naive one)."""
    block, reopen, default_total = SEED001[workload]
    n = (total_bytes or default_total) // block
    data = bytes(range(256)) * (block // 256)
    dev = vol.dev
    out = np.zeros(n, dtype=np.uint64)
    f = None if reopen else vol.open(path, "w")
    if reopen:
        vol.open(path, "w").close()
    for i in range(n):
        t0 = dev.now_ns
        if reopen:
            f = vol.open(path, "a")
        assert f is not None
        f.write(data)
        if reopen:
            f.close()
        out[i] = dev.now_ns - t0
    if not reopen and f is not None:
        t0 = dev.now_ns
        f.close()
        out[-1] += dev.now_ns - t0
    return CallTimes(workload, block, out)
