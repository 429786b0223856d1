"""`steady ram`: the RAM steadyfs needs for a device and configuration.

Everything the core uses is caller-provided: the context (sizeof
steadyfs), the work area (steadyfs_work_size of the configuration: block
table, map roots, pending changes, inode bitmap, open-file table) and one
sector buffer.  The formula is in include/steadyfs/steadyfs.h (above
steadyfs_work_size) and docs/DESIGN.md; this command evaluates it for a
profile, a block count and any --param KEY=VALUE of steadyfs_config
(open_max, pending_max, max_inodes, ...).  The figure is what firmware
reserves; the host build adds nothing to it.
"""

from __future__ import annotations

import argparse
import json
import sys

from steadyfs import native, userprofile
from steadyfs.fs import CONFIG_KEYS, SteadyFs, SteadyFsError
from steadyfs.native import Device, DeviceError, NativeLibraryMissing


class RamError(ValueError):
    """The device or configuration cannot hold steadyfs (message for the user)."""


def ram(device: str, blocks: int, config: dict[str, int]) -> dict[str, int]:
    with Device(device, blocks=blocks) as dev:
        fs = SteadyFs(dev, config)
        try:
            parts = fs.ram_parts()
            parts["total"] = fs.ram_bytes
        finally:
            fs.release()
    return parts


def _fits(device: str, blocks: int, config: dict[str, int]) -> bool:
    try:
        ram(device, blocks, config)
    except (SteadyFsError, ValueError):
        return False
    return True


def checked_ram(device: str, blocks: int, config: dict[str, int],
                flags: dict[str, str]) -> dict[str, int]:
    """ram(), or RamError naming what is wrong: the profile, the block count,
    or the option (``flags``: config key -> how the user wrote it) at fault."""
    prof = next((p for p in native.profiles() if p["name"] == device), None)
    if prof is None:
        raise RamError(f"--device {device}: no such device profile (see `steady devices`)")
    if int(prof["geometry"]["page_size"]) > 2048 and "sector_size" not in config:
        # a sector is a whole number of pages: the 2048-byte default does not
        # fit a larger page (a user's 4 KiB-page NAND), so one page per
        # sector; added to `config` so the caller shows what was used
        config["sector_size"] = int(prof["geometry"]["page_size"])
        flags["sector_size"] = "--param sector_size="
    if prof.get("kind") == "sd":
        raise RamError(f"--device {device}: an SD card; steadyfs runs on raw NAND, NOR and MRAM "
                       f"(on SD cards use --fs fat in `steady bench`)")
    most = int(prof["geometry"]["block_count"])
    if not 0 <= blocks <= most:
        raise RamError(f"--blocks {blocks}: want 0..{most} ({device} has {most} blocks; "
                       f"0: all)")
    try:
        return ram(device, blocks, config)
    except DeviceError as e:
        raise RamError(f"--blocks {blocks}: {e.strerror or e}") from e
    except (SteadyFsError, ValueError):
        pass
    where = f"{device}" + (f" with {blocks} blocks" if blocks else "")
    if not _fits(device, blocks, {}):
        raise RamError(f"--blocks {blocks}: steadyfs does not fit {where}" if blocks
                       else f"steadyfs does not fit {where}")
    for k, v in config.items():
        if not _fits(device, blocks, {k: v}):
            hint = ""
            if k == "open_max":   # bounded by the pending-change table (steadyfs.h)
                lo, hi = 0, v   # fits with lo (0: not even 1), not with hi
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    lo, hi = (mid, hi) if _fits(device, blocks, {**config, k: mid}) else (lo, mid)
                hint = f" (at most {lo} with the other settings)" if lo else ""
            raise RamError(f"{flags.get(k, k)}{v}: not a valid steadyfs configuration on "
                           f"{where}{hint}")
    given = " ".join(f"{flags.get(k, k)}{v}" for k, v in config.items())
    raise RamError(f"{given}: not a valid steadyfs configuration on {where} together")


def _run(args: argparse.Namespace) -> int:
    try:
        userprofile.apply(args, "mt29f1g01")
    except userprofile.ProfileFileError as e:
        return _fail(f"--profile-file {e}")
    cfg = {"open_max": args.open_max}
    flags = {"open_max": "--open-max "}
    if args.open_max < 1:
        return _fail(f"--open-max {args.open_max}: want a number >= 1")
    for kv in args.param:
        k, _, v = kv.partition("=")
        if k not in CONFIG_KEYS or not v.isdigit():
            return _fail(f"--param {kv!r}: want KEY=NUMBER, KEY one of {', '.join(CONFIG_KEYS)}")
        cfg[k] = int(v)
        flags[k] = f"--param {k}="
    try:
        r = checked_ram(args.device, args.blocks, cfg, flags)
    except (RamError, NativeLibraryMissing) as e:
        return _fail(str(e))
    if args.json:
        print(json.dumps({"device": args.device, "blocks": args.blocks or None, "config": cfg,
                          "ram_bytes": r}, indent=2))
        return 0
    print(f"steadyfs RAM on {args.device}"
          f"{f' ({args.blocks} blocks)' if args.blocks else ''}, {cfg}:")
    for k in ("context", "work", "sector_buffer", "hold_buffer", "total"):
        if k in r:
            print(f"  {k:14s} {r[k]:6d} B")
    return 0


def _fail(msg: str) -> int:
    print(f"steady ram: {msg}", file=sys.stderr)
    return 2


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ram", help="RAM the file system needs for a device and configuration",
                       description=__doc__)
    p.add_argument("--device", default=None, help="device profile (default mt29f1g01)")
    userprofile.add_argument(p)
    p.add_argument("--blocks", type=int, default=0, help="device blocks (default: the profile's)")
    p.add_argument("--open-max", type=int, default=1, help="open files (default 1)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="any other steadyfs_config field")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)
