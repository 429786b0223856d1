"""`steady get [--salvage] IMAGE:/path LOCAL`: copy a file out of a steadyfs image.

Into an existing host directory it keeps the image's name.  Read-only.  If
part of the file cannot be read (a damaged sector), nothing is left at LOCAL
and the error says so; --salvage instead writes every sector that reads,
zeros for each one that does not, and reports the unreadable byte ranges
(one line each, then a summary; exit 1).
"""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    return imgtool.run(["get", *(["--salvage"] if args.salvage else []), args.spec, args.local], args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("get", help="copy a file out of a steadyfs image", description=__doc__)
    p.add_argument("spec", metavar="IMAGE:/path", help=imgtool.SPEC_HELP)
    p.add_argument("local", metavar="LOCAL", help="host file or directory")
    p.add_argument("--salvage", action="store_true",
                   help="write what reads (zeros elsewhere) and report the unreadable ranges")
    imgtool.add_profile_arg(p)
    p.set_defaults(func=_run)
