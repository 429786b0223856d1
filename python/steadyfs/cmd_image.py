"""`steady image create DIR IMAGE --device P` / `extract IMAGE DIR` /
`export IMAGE --raw OUT` / `import RAW --device P OUT`: production images.

create formats a new image and copies a host directory tree into it (regular
files and directories only; anything else, or a name over 255 bytes, is an
error and no image is left behind).  extract copies a whole image's tree into
a host directory (created if missing).  --blocks sizes the device.  export
writes the chip's content in the layout a device programmer takes (NAND:
main area and spare bytes per page, bad blocks marked as the device marks
them; NOR, MRAM: the plain array; docs/TOOLS.md, "Raw images"); import
reads such a file back into an image of profile P.  Neither replaces an
existing file without --force.
"""

from __future__ import annotations

import argparse
import sys

from steadyfs import imgtool


def _create(args: argparse.Namespace) -> int:
    return imgtool.run(["image", "create", args.dir, args.image, *imgtool.format_argv(args, "image"),
                        *(["--raw", args.raw] if args.raw else [])], args)


def _extract(args: argparse.Namespace) -> int:
    return imgtool.run(["image", "extract", args.image, args.dir], args)


def _export(args: argparse.Namespace) -> int:
    return imgtool.run(["image", "export", args.image, "--raw", args.raw,
                        *(["--force"] if args.force else [])], args)


def _import(args: argparse.Namespace) -> int:
    imgtool.profile_argv(args, "image")   # (checks the file; names the device)
    if args.device is None:
        print("steady image: import needs --device PROFILE or --profile-file FILE",
              file=sys.stderr)
        return 2
    return imgtool.run(["image", "import", args.raw, "--device", args.device, args.out,
                        *(["--force"] if args.force else [])], args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("image", help="production images: create from / extract to a directory; "
                                     "export / import raw images for a device programmer",
                       description=__doc__)
    isub = p.add_subparsers(dest="image_cmd", metavar="create|extract|export|import", required=True)
    c = isub.add_parser("create", help="new image from a host directory tree")
    c.add_argument("dir", metavar="DIR")
    c.add_argument("image", metavar="IMAGE")
    c.add_argument("--raw", metavar="OUT", help="also write a raw image for a device programmer")
    imgtool.add_format_args(c)
    c.set_defaults(func=_create)
    e = isub.add_parser("extract", help="copy an image's tree into a host directory")
    e.add_argument("image", metavar="IMAGE")
    e.add_argument("dir", metavar="DIR")
    imgtool.add_profile_arg(e)
    e.set_defaults(func=_extract)
    x = isub.add_parser("export", help="the chip's content, raw, for a device programmer")
    x.add_argument("image", metavar="IMAGE")
    x.add_argument("--raw", metavar="OUT", required=True, help="raw image file to write")
    x.add_argument("--force", action="store_true", help="replace an existing OUT")
    imgtool.add_profile_arg(x)
    x.set_defaults(func=_export)
    m = isub.add_parser("import", help="a raw image (as export writes it) into an image file")
    m.add_argument("raw", metavar="RAW")
    m.add_argument("--device", default=None,
                   help="device profile the raw image is of (required unless --profile-file)")
    imgtool.add_profile_arg(m)
    m.add_argument("out", metavar="OUT", help="image file to create")
    m.add_argument("--force", action="store_true", help="replace an existing OUT")
    m.set_defaults(func=_import)
