"""`steady cat IMAGE:/path...`: write files of a steadyfs image to stdout."""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    return imgtool.run(["cat", *args.specs], args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("cat", help="print files of a steadyfs image", description=__doc__)
    p.add_argument("specs", nargs="+", metavar="IMAGE:/path", help=imgtool.SPEC_HELP)
    imgtool.add_profile_arg(p)
    p.set_defaults(func=_run)
