"""`steady image create DIR IMAGE --device P` / `steady image extract IMAGE DIR`:
production images.

create formats a new image and copies a host directory tree into it (regular
files and directories only; anything else, or a name over 255 bytes, is an
error and no image is left behind).  extract copies a whole image's tree into
a host directory (created if missing).  --blocks sizes the device.
"""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _create(args: argparse.Namespace) -> int:
    return imgtool.run(["image", "create", args.dir, args.image, *imgtool.format_argv(args)])


def _extract(args: argparse.Namespace) -> int:
    return imgtool.run(["image", "extract", args.image, args.dir])


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("image", help="production images: create from / extract to a directory",
                       description=__doc__)
    isub = p.add_subparsers(dest="image_cmd", metavar="create|extract", required=True)
    c = isub.add_parser("create", help="new image from a host directory tree")
    c.add_argument("dir", metavar="DIR")
    c.add_argument("image", metavar="IMAGE")
    imgtool.add_format_args(c)
    c.set_defaults(func=_create)
    e = isub.add_parser("extract", help="copy an image's tree into a host directory")
    e.add_argument("image", metavar="IMAGE")
    e.add_argument("dir", metavar="DIR")
    e.set_defaults(func=_extract)
