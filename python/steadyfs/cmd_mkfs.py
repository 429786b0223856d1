"""`steady mkfs IMAGE --device P`: create a device image file and format steadyfs on it.

The image is a simulated device (docs/SIM-IMAGE.md) whose header records the
device profile, so later commands need only the image path.  Refuses to
replace an existing file unless --force.  --raw OUT also writes the chip's
content in the layout a device programmer takes (docs/TOOLS.md, "Raw
images"); with --raw, IMAGE may be left out.
"""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    ok, image = imgtool.one_image(args, "mkfs", required=args.raw is None)
    if not ok:
        return 2
    argv = ["mkfs", *([image] if image else []), *imgtool.format_argv(args, "mkfs")]
    if args.raw:
        argv += ["--raw", args.raw]
    return imgtool.run(argv, args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("mkfs", help="create and format a steadyfs image file",
                       description=__doc__)
    imgtool.add_image_arg(p, "image file to create")
    p.add_argument("--raw", metavar="OUT", help="also write a raw image for a device programmer")
    imgtool.add_format_args(p)
    p.set_defaults(func=_run)
