"""`steady mkdir [-p] IMAGE:/path`: make a directory in a steadyfs image
(-p: with its parents, and no error if it exists)."""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    return imgtool.run(["mkdir", *(["-p"] if args.parents else []), args.spec], args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("mkdir", help="make a directory in a steadyfs image",
                       description=__doc__)
    p.add_argument("-p", dest="parents", action="store_true", help="make parents as needed")
    p.add_argument("spec", metavar="IMAGE:/path", help=imgtool.SPEC_HELP)
    imgtool.add_profile_arg(p)
    p.set_defaults(func=_run)
