"""``--fs fat``: ChaN's FatFs (PyPI ``fatfs-ng``) via ``steadyfs.fatdisk``.

Needs a device with 512-byte sectors (the SD card profiles, or a real
card).  fatfs-ng keeps one mounted volume per process, so only one FAT
target may be open at a time: ``unmount`` (or the context manager) before
opening another.
"""

from __future__ import annotations

from typing import Any

import fatfs.wrapper as ffw
from fatfs.partition_extended import PartitionExtended

from steadyfs.fatdisk import FatError, FatFile, FatVolume
from steadyfs.fstargets import MODES, File, FsError, FsRefused, FsTarget
from steadyfs.native import Device


class _FatFile(File):
    def __init__(self, f: FatFile) -> None:
        self.f = f

    def write(self, data: bytes) -> int:
        try:
            return self.f.write(data)
        except FatError as e:
            raise FsError(str(e)) from e

    def read(self, size: int) -> bytes:
        return self.f.read(size)

    def seek(self, offset: int) -> None:
        self.f.seek(offset)

    def sync(self) -> None:
        self.f.sync()

    def close(self) -> None:
        self.f.close()


class FatTarget(FsTarget):
    name = "fat"

    def __init__(self, dev: Device, format: bool) -> None:
        super().__init__(dev)
        try:
            self.vol = FatVolume(dev, format=format)
        except ValueError as e:
            raise FsRefused(f"--fs fat: {e}") from e
        self.ext = PartitionExtended(self.vol.part)
        self._mounted = True

    def open(self, path: str, mode: str = "r", *, sync_writes: bool = False) -> File:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        try:
            return _FatFile(self.vol.open(path, mode))
        except FatError as e:
            raise FsError(str(e)) from e

    def unlink(self, path: str) -> None:
        fr = ffw.pyf_unlink(path.encode())
        if fr != 0:
            raise FsError(f"fat: unlink {path}: {ffw.fresult_to_name(fr)}")

    def mkdir(self, path: str) -> None:
        fr = ffw.pyf_mkdir(path.encode())
        if fr != 0:
            raise FsError(f"fat: mkdir {path}: {ffw.fresult_to_name(fr)}")

    def exists(self, path: str) -> bool:
        return bool(self.ext.exists(path))

    def capacity(self) -> int:
        return int(self.dev.block_count) * int(self.dev.block_size)

    def used(self) -> int:
        """Sum of file sizes (FatFs's f_getfree is not exposed by fatfs-ng)."""
        total = 0
        for root, _dirs, files in self.ext.walk("/"):
            for fn in files:
                total += int(self.ext.stat(f"{root.rstrip('/')}/{fn}")["size"])
        return total

    def unmount(self) -> None:
        if self._mounted:
            self._mounted = False
            self.vol.unmount()

    def describe(self) -> dict[str, Any]:
        return {"fs": "fat", "implementation": "FatFs (fatfs-ng)", "sector_bytes": 512}


def open_target(dev: Device, *, format: bool = True, options: dict[str, Any]) -> FsTarget:
    if options:
        raise ValueError(f"--fs fat takes no options (got {', '.join(options)})")
    return FatTarget(dev, format)
