"""`steady get IMAGE:/path LOCAL`: copy a file out of a steadyfs image.

Into an existing host directory it keeps the image's name.  Read-only.
"""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    return imgtool.run(["get", args.spec, args.local])


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("get", help="copy a file out of a steadyfs image", description=__doc__)
    p.add_argument("spec", metavar="IMAGE:/path", help=imgtool.SPEC_HELP)
    p.add_argument("local", metavar="LOCAL", help="host file or directory")
    p.set_defaults(func=_run)
