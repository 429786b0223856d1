"""File-system targets: one small typed interface the workloads are written against.

A workload that needs files calls ``target.open(path, mode)`` and the
returned :class:`File`'s ``write/read/seek/sync/close``, plus the target's
``unlink/mkdir/exists`` and ``capacity/used``; it never knows which file
system is underneath.  Every call goes down to a ``native.Device``, whose
virtual clock times it.

Targets (``--fs``):

``raw``       no file system; workloads defined on the raw device only
              (``seed003-sweep``, ``seed004-sizes``, the raw form of
              ``seed000-random4k``).  Opening a file raises :class:`FsRefused`.
``fat``       ChaN's FatFs (PyPI ``fatfs-ng``) through ``fatdisk.py``:
              devices with 512-byte sectors (the SD card profiles).
``littlefs``  littlefs v2 (PyPI ``littlefs-python``) over the device:
              ``fstargets/littlefs.py`` says how it is configured per device.
``steadyfs``  the project's own file system (src/fs) through its host
              binding ``steadyfs.fs`` (``fstargets/steadyfs.py``).

Adding a target is one module here exposing
``open_target(dev, *, format, options) -> FsTarget`` and one line in
:data:`TARGETS`.

``mode`` strings: ``"r"`` read an existing file, ``"r+"`` read/write an
existing file (position 0), ``"w"`` create or truncate, ``"a"`` create or
append (position at the end).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any

from steadyfs.native import Device

MODES = ("r", "r+", "w", "a")


class FsError(OSError):
    """A file-system target failed (the message names the target and the call)."""


class FsRefused(FsError):
    """The combination asked for cannot run (e.g. files on the raw target)."""


class FsUnavailable(FsError):
    """The target exists as a name but cannot be used in this build."""


class File(ABC):
    """An open file of a target."""

    @abstractmethod
    def write(self, data: bytes) -> int:
        """Write at the current position; returns len(data) or raises FsError."""

    @abstractmethod
    def read(self, size: int) -> bytes:
        """Read up to ``size`` bytes from the current position."""

    @abstractmethod
    def seek(self, offset: int) -> None:
        """Set the position (bytes from the start)."""

    @abstractmethod
    def sync(self) -> None:
        """Make what was written durable (data and metadata)."""

    @abstractmethod
    def close(self) -> None:
        """Sync and release the file."""

    def __enter__(self) -> File:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class FsTarget(ABC):
    """A mounted file system (or the raw device) on ``dev``."""

    name: str = ""
    has_files: bool = True

    def __init__(self, dev: Device) -> None:
        self.dev = dev

    @abstractmethod
    def open(self, path: str, mode: str = "r", *, sync_writes: bool = False) -> File:
        """Open ``path`` with one of :data:`MODES`.

        ``sync_writes``: the caller syncs after every write (a logger's
        record must be durable when its call returns).  A file system that
        can make each write durable by itself (steadyfs's O_DSYNC, whose
        commit rides in the last data sector) does; the others ignore it,
        and the caller's sync does the work.  Same guarantee either way."""

    @abstractmethod
    def unlink(self, path: str) -> None: ...

    @abstractmethod
    def mkdir(self, path: str) -> None: ...

    @abstractmethod
    def exists(self, path: str) -> bool: ...

    @abstractmethod
    def capacity(self) -> int:
        """Bytes the file system can hold in all (its blocks, clusters)."""

    @abstractmethod
    def used(self) -> int:
        """Bytes in use now (blocks or clusters allocated, metadata included where known)."""

    def ring_append(self, data: bytes) -> int:
        """Append a record to a record ring (steadyfs formatted with
        ``ring_units``), durable on return; its number.  Others refuse."""
        raise FsRefused(f"{self.name or 'this target'} has no record ring")

    def unmount(self) -> None:
        """Release the file system (the device stays open)."""

    def describe(self) -> dict[str, Any]:
        """Configuration for the run's metadata."""
        return {"fs": self.name}

    def stats(self) -> dict[str, Any]:
        """The file system's own counters after a run ({} if it keeps none)."""
        return {}

    def __enter__(self) -> FsTarget:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.unmount()


class RawTarget(FsTarget):
    """No file system: the workload drives the device itself."""

    name = "raw"
    has_files = False

    def _refuse(self, what: str) -> FsRefused:
        return FsRefused(f"--fs raw has no file system, so it cannot {what}: this workload needs "
                         "files; pass --fs fat (SD cards), --fs littlefs or --fs steadyfs")

    def open(self, path: str, mode: str = "r", *, sync_writes: bool = False) -> File:
        raise self._refuse(f"open {path}")

    def unlink(self, path: str) -> None:
        raise self._refuse(f"unlink {path}")

    def mkdir(self, path: str) -> None:
        raise self._refuse(f"mkdir {path}")

    def exists(self, path: str) -> bool:
        raise self._refuse(f"look up {path}")

    def capacity(self) -> int:
        return int(self.dev.block_count) * int(self.dev.block_size)

    def used(self) -> int:
        return 0


#: --fs name -> module defining open_target (None: built in here).
TARGETS: dict[str, str | None] = {
    "raw": None,
    "fat": "steadyfs.fstargets.fat",
    "littlefs": "steadyfs.fstargets.littlefs",
    "steadyfs": "steadyfs.fstargets.steadyfs",
}


def open_target(name: str, dev: Device, *, format: bool = True,
                options: dict[str, Any] | None = None) -> FsTarget:
    """Mount (formatting first if asked) target ``name`` on ``dev``.

    ``options``: target-specific settings (e.g. littlefs ``lookahead_size``);
    unknown keys raise ValueError.  Raises FsUnavailable / FsRefused with a
    message for the user.
    """
    if name not in TARGETS:
        raise FsRefused(f"unknown file-system target {name!r}: one of {', '.join(TARGETS)}")
    mod = TARGETS[name]
    if mod is None:
        if options:
            raise ValueError(f"--fs raw takes no options (got {', '.join(options)})")
        return RawTarget(dev)
    m = importlib.import_module(mod)
    target: FsTarget = m.open_target(dev, format=format, options=dict(options or {}))
    return target
