"""`steady put LOCAL IMAGE:/path`: copy a host file into a steadyfs image.

Creates or replaces the file (committed when the command ends); into an
existing directory it keeps the local name.
"""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    return imgtool.run(["put", args.local, args.spec], args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("put", help="copy a file into a steadyfs image", description=__doc__)
    p.add_argument("local", metavar="LOCAL", help="host file")
    p.add_argument("spec", metavar="IMAGE:/path", help=imgtool.SPEC_HELP)
    imgtool.add_profile_arg(p)
    p.set_defaults(func=_run)
