"""`steady ls IMAGE[:/path] [-l] [-R]`: list a directory of a steadyfs image.

Names are sorted; directories end in '/'.  -l adds type, size in bytes and
inode number; -R lists subdirectories, with paths relative to the one given.
"""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    argv = ["ls", args.spec]
    if args.long:
        argv.append("-l")
    if args.recursive:
        argv.append("-R")
    return imgtool.run(argv, args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ls", help="list files in a steadyfs image", description=__doc__)
    p.add_argument("spec", metavar="IMAGE[:/path]", help=imgtool.SPEC_HELP + "; default /")
    p.add_argument("-l", dest="long", action="store_true", help="type, size, inode")
    p.add_argument("-R", dest="recursive", action="store_true", help="recurse")
    imgtool.add_profile_arg(p)
    p.set_defaults(func=_run)
