"""`steady mv IMAGE:/from IMAGE:/to` (or `IMAGE:/from /to`): rename inside a
steadyfs image, atomically; replaces an existing file (or empty directory);
into an existing directory it keeps the name, like mv(1)."""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    return imgtool.run(["mv", args.src, args.dst], args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("mv", help="rename inside a steadyfs image", description=__doc__)
    p.add_argument("src", metavar="IMAGE:/from", help=imgtool.SPEC_HELP)
    p.add_argument("dst", metavar="IMAGE:/to", help="same image, or an absolute path")
    imgtool.add_profile_arg(p)
    p.set_defaults(func=_run)
