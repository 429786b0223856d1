"""`steady rm [-r] IMAGE:/path`: remove a file or an empty directory from a
steadyfs image (-r: a directory and everything in it)."""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    return imgtool.run(["rm", *(["-r"] if args.recursive else []), args.spec], args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("rm", help="remove from a steadyfs image", description=__doc__)
    p.add_argument("-r", dest="recursive", action="store_true", help="directories recursively")
    p.add_argument("spec", metavar="IMAGE:/path", help=imgtool.SPEC_HELP)
    imgtool.add_profile_arg(p)
    p.set_defaults(func=_run)
