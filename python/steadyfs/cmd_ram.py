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

from steadyfs.fs import CONFIG_KEYS, SteadyFs
from steadyfs.native import Device


def ram(device: str, blocks: int, config: dict[str, int]) -> dict[str, int]:
    with Device(device, blocks=blocks) as dev:
        fs = SteadyFs(dev, config)
        try:
            parts = fs.ram_parts()
            parts["total"] = fs.ram_bytes
        finally:
            fs.release()
    return parts


def _run(args: argparse.Namespace) -> int:
    cfg = {"open_max": args.open_max}
    for kv in args.param:
        k, _, v = kv.partition("=")
        if k not in CONFIG_KEYS or not v.isdigit():
            raise SystemExit(f"steady ram: --param {kv!r}: want KEY=NUMBER, KEY one of "
                             f"{', '.join(CONFIG_KEYS)}")
        cfg[k] = int(v)
    r = ram(args.device, args.blocks, cfg)
    if args.json:
        print(json.dumps({"device": args.device, "blocks": args.blocks or None, "config": cfg,
                          "ram_bytes": r}, indent=2))
        return 0
    print(f"steadyfs RAM on {args.device}"
          f"{f' ({args.blocks} blocks)' if args.blocks else ''}, {cfg}:")
    for k in ("context", "work", "sector_buffer", "total"):
        print(f"  {k:14s} {r[k]:6d} B")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ram", help="RAM the file system needs for a device and configuration",
                       description=__doc__)
    p.add_argument("--device", default="mt29f1g01")
    p.add_argument("--blocks", type=int, default=0, help="device blocks (default: the profile's)")
    p.add_argument("--open-max", type=int, default=1, help="open files (default 1)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="any other steadyfs_config field")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)
