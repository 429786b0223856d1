"""`steady fsck IMAGE`: verify a steadyfs image; never modifies it.

Checks every checksum the checkpoint can reach and every invariant of
docs/SPEC.md (anchor checkpoints, block table and live counts, every mapped
sector's tag, payload CRC and identity, no sector mapped twice, inode bitmap,
directory buckets, every inode named exactly once, file sizes).  Prints one
line per finding and a summary.  Exit status: 0 clean, 1 errors found,
2 the image cannot be read as a file system.  There is no repair: steadyfs
needs none after power loss, and what fsck reports is damaged data.
"""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    ok, image = imgtool.one_image(args, "fsck")
    if not ok or image is None:
        return 2
    argv = ["fsck", image]
    if args.device:
        argv += ["--device", args.device]
    if args.json:
        argv.append("--json")
    return imgtool.run(argv, args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("fsck", help="check a steadyfs image (read-only)", description=__doc__)
    imgtool.add_image_arg(p, "image file")
    p.add_argument("--device", help="expected device profile (default: the image header's)")
    p.add_argument("--json", action="store_true", help="report as JSON")
    imgtool.add_profile_arg(p)
    p.set_defaults(func=_run)
