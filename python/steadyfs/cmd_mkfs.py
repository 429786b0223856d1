"""`steady mkfs`: create a device image file and format steadyfs on it.

The image is a simulated device (docs/SIM-IMAGE.md) whose header records the
device profile, so later commands need only the image path.  Refuses to
replace an existing file unless --force.
"""

from __future__ import annotations

import argparse

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    return imgtool.run(["mkfs", "--image", args.image, *imgtool.format_argv(args)])


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("mkfs", help="create and format a steadyfs image file",
                       description=__doc__)
    p.add_argument("--image", required=True, help="image file to create")
    imgtool.add_format_args(p)
    p.set_defaults(func=_run)
