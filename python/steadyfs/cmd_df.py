"""`steady df IMAGE [--json]`: space on a steadyfs image.

Prints the device (profile, blocks, bad blocks, bytes), the file system's
capacity (the bytes of file data its format allows: the fill limit of the
sectors outside its reserve) as bytes and as a share of the device, bytes
used and free, and the files and directories it holds against its
max_inodes.  Read-only.  --json: the same as one JSON object (fields in
docs/TOOLS.md).
"""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    ok, image = imgtool.one_image(args, "df")
    if not ok or image is None:
        return 2
    return imgtool.run(["df", image, *(["--json"] if args.json else [])], args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("df", help="capacity, used, free, files of a steadyfs image",
                       description=__doc__)
    imgtool.add_image_arg(p, "image file")
    p.add_argument("--json", action="store_true", help="as JSON")
    imgtool.add_profile_arg(p)
    p.set_defaults(func=_run)
