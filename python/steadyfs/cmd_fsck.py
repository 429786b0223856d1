"""`steady fsck IMAGE [--repair]`: verify a steadyfs image.

Checks every checksum the checkpoint can reach and every invariant of
docs/SPEC.md (anchor checkpoints, block table and live counts, every mapped
sector's tag, payload CRC and identity, no sector mapped twice, inode bitmap,
directory buckets, every inode named exactly once, file sizes).  Prints one
line per finding and a summary.  Exit status: 0 clean, 1 errors found,
2 the image cannot be read as a file system.

Without --repair the image is never modified.  A power cut needs no repair
(mount replays).  Media damage may: with --repair, steadyfs_repair first
puts the namespace right (unreadable map sectors rebuilt, unreadable
directory buckets reset, files and directories whose inode sector is lost
given a new one from what their sectors tell, cut-off files and directories
linked into /lost+found as #<inode>, live counts set), keeping every byte
that still reads, then the check runs.  Pages whose bytes are gone stay listed (each reads EIO).
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
    if args.repair:
        argv.append("--repair")
    return imgtool.run(argv, args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("fsck", help="check a steadyfs image (--repair: after media damage)",
                       description=__doc__)
    imgtool.add_image_arg(p, "image file")
    p.add_argument("--device", help="expected device profile (default: the image header's)")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.add_argument("--repair", action="store_true",
                   help="first repair what media damage did to the namespace (writes the image)")
    imgtool.add_profile_arg(p)
    p.set_defaults(func=_run)
