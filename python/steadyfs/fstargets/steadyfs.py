"""``--fs steadyfs``: the project's own file system (src/fs) over a device.

Every file call is the C call (``steadyfs.fs``, through src/host/fshost.c)
on the device the bench opened -- a simulated profile or, with
``--allow-write``, a real file or block device -- so the device's clock
times everything the file system does (GC copies, map and checkpoint
sectors, erases) inside the workload's call, exactly as for littlefs.

Configuration: the steadyfs defaults (include/steadyfs/steadyfs.h) with
``open_max = 1``, the configuration whose RAM the README states and whose
bounds ``steady bound`` prints; every workload keeps one file open at a
time; on a device with pages over 2048 bytes, ``sector_size`` = the page.
Override with ``--param fs.KEY=VALUE`` for any sh_fs_config field
(``open_max``, ``pending_max``, ``replay_max``, ``max_inodes``,
``fill_permille``, ``file_pages_log2``, ``dir_pages``, ``sector_size``,
``erase_mult``, ``ring_units``, ``ring_sectors``: the record ring that the
``ring4k`` workload appends to; ``hold``: 1 for the held sector,
steadyfs_config.hold_buf).  One option is the target's own: ``dsync``
(default 1) -- a workload's synced writes (``sync_writes``) are O_DSYNC
writes, a logger's records; ``fs.dsync=0`` makes them write + sync calls,
as an application that calls fsync writes them (with ``fs.hold=1`` the
sync then commits in the held sector).

``capacity()`` is steadyfs_info's capacity: the live data the format
allows (``fill_permille``, default 75 %, of the sectors outside the
reserve, lowered on small-unit media where collection needs the margin:
docs/DESIGN.md §6), so ``--fill 0.75`` fills 75 % of *that* (see ``describe()``'s
``capacity_fraction_of_device`` for what it is in raw device bytes).
``used()`` is steadyfs_info's used: live sectors, data and metadata.
A failing call raises FsError with steadyfs_strerror's text.
"""

from __future__ import annotations

from typing import Any

from steadyfs.fs import CONFIG_KEYS, MODE_FLAGS, O_DSYNC, O_NOMTIME, SteadyFs, SteadyFsError
from steadyfs.fstargets import MODES, File, FsError, FsRefused, FsTarget
from steadyfs.native import Device

AVAILABLE = True

DEFAULTS = {"open_max": 1}


class _SfsFile(File):
    def __init__(self, fs: SteadyFs, path: str, mode: int) -> None:
        self.fs = fs
        self.path = path
        try:
            self.fd: int | None = fs.open(path, mode)
        except SteadyFsError as e:
            raise FsError(f"{e.strerror}") from e

    def _fd(self) -> int:
        if self.fd is None:
            raise FsError(f"steadyfs: {self.path} is closed")
        return self.fd

    def _err(self, e: SteadyFsError) -> FsError:
        return FsError(f"steadyfs: {e.call} {self.path}: {str(e.strerror).split(': ', 2)[-1]}")

    def write(self, data: bytes) -> int:
        try:
            n = self.fs.write(self._fd(), data)
        except SteadyFsError as e:
            raise self._err(e) from e
        if n != len(data):
            # A short write means an error after some progress: writing the
            # rest returns that error, so the user sees why (ENOSPC, EIO).
            why = "no error on retry"
            try:
                self.fs.write(self._fd(), data[n:])
            except SteadyFsError as e:
                why = str(e.strerror).split(": ", 2)[-1]
            raise FsError(f"steadyfs: short write on {self.path} ({n} of {len(data)} bytes): {why}")
        return n

    def read(self, size: int) -> bytes:
        try:
            return self.fs.read(self._fd(), size)
        except SteadyFsError as e:
            raise self._err(e) from e

    def seek(self, offset: int) -> None:
        try:
            self.fs.seek(self._fd(), offset)
        except SteadyFsError as e:
            raise self._err(e) from e

    def sync(self) -> None:
        try:
            self.fs.sync(self._fd())
        except SteadyFsError as e:
            raise self._err(e) from e

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            try:
                self.fs.close(fd)
            except SteadyFsError as e:
                raise self._err(e) from e


class SteadyFsTarget(FsTarget):
    name = "steadyfs"

    def __init__(self, dev: Device, format: bool, options: dict[str, Any]) -> None:
        super().__init__(dev)
        options = dict(options)
        try:
            self.dsync = int(options.pop("dsync", 1)) != 0
        except ValueError as e:
            raise ValueError(f"steadyfs options are integers: {e}") from e
        bad = [k for k in options if k not in CONFIG_KEYS]
        if bad:
            raise ValueError(f"unknown steadyfs option(s) {', '.join(bad)}: known "
                             f"{', '.join((*CONFIG_KEYS, 'dsync'))}")
        cfg = dict(DEFAULTS)
        page = int(dev.geometry["page_size"])
        if page > 2048:
            # a sector is a whole number of pages: the 2048-byte default does
            # not fit a larger page (a user's 4 KiB-page NAND), so one page
            cfg["sector_size"] = page
        try:
            cfg.update({k: int(v) for k, v in options.items()})
        except ValueError as e:
            raise ValueError(f"steadyfs options are integers: {e}") from e
        self.cfg = cfg
        try:
            self.fs = SteadyFs(dev, cfg)
            if format:
                self.fs.format()
            self.fs.mount()
        except SteadyFsError as e:
            raise FsError(f"{e.strerror} (on {dev.profile_name or 'the device'}, "
                          f"config {cfg})") from e
        self._mounted = True

    def _call(self, what: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except SteadyFsError as e:
            raise FsError(str(e.strerror)) from e

    def open(self, path: str, mode: str = "r", *, sync_writes: bool = False) -> File:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        # A logger's records carry their own time: O_NOMTIME keeps each
        # record at its two programs and the rotation's close free (without
        # it the close stores the old file's times: steadyfs.h).  littlefs
        # keeps no file times at all.
        # (fs.dsync=0: the caller's sync after each write does the commit)
        flags = MODE_FLAGS[mode] | ((O_DSYNC if self.dsync else 0) | O_NOMTIME if sync_writes else 0)
        return _SfsFile(self.fs, path, flags)

    def ring_append(self, data: bytes) -> int:
        if not int(self.cfg.get("ring_units", 0)):
            raise FsRefused("steadyfs: no record ring (--param fs.ring_units=N, fs.ring_sectors=K)")
        return int(self._call("ring_append", self.fs.ring_append, data))

    def unlink(self, path: str) -> None:
        self._call("unlink", self.fs.unlink, path)

    def mkdir(self, path: str) -> None:
        self._call("mkdir", self.fs.mkdir, path)

    def exists(self, path: str) -> bool:
        return bool(self._call("stat", self.fs.exists, path))

    def capacity(self) -> int:
        return int(self._call("info", self.fs.info).capacity)

    def used(self) -> int:
        return int(self._call("info", self.fs.info).used)

    def unmount(self) -> None:
        if self._mounted:
            self._mounted = False
            try:
                self.fs.unmount()
            except SteadyFsError as e:
                raise FsError(str(e.strerror)) from e
            finally:
                self.fs.release()

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"fs": "steadyfs", "implementation": "src/fs via src/host/fshost.c",
                               **self.cfg, "dsync": int(self.dsync)}
        if self._mounted:
            info = self.fs.info()
            dev_bytes = int(self.dev.block_count) * int(self.dev.block_size)
            out.update(info=info.as_dict(), ram_bytes=self.fs.ram_bytes,
                       capacity_fraction_of_device=round(info.capacity / dev_bytes, 4) if dev_bytes else None)
        return out

    def stats(self) -> dict[str, Any]:
        """The core's counters since mount (sectors written as data, GC
        copies, map and checkpoint sectors; erases; victims), fill included,
        plus steadyfs_info after the run."""
        if not self._mounted:
            return {}
        return {"sectors": self.fs.counters(), "info": self.fs.info().as_dict()}


def open_target(dev: Device, *, format: bool = True, options: dict[str, Any]) -> FsTarget:
    return SteadyFsTarget(dev, format, options)
