"""Shared by the image-file commands (mkfs, fsck, ls, cat, put, get, rm, mkdir,
mv, image): they exec build/steady-img (src/host/main/img_main.c).

Convention (docs/TOOLS.md): an image file's header names its device profile,
so only creating an image needs --device.  Whole-image commands take the
image as their first word (mkfs IMAGE, fsck IMAGE, df IMAGE; --image F is
an alias); file commands name a place in an image as IMAGE:/path.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from steadyfs import userprofile

REPO = Path(__file__).resolve().parents[2]

SPEC_HELP = "IMAGE:/path (an image file and an absolute path in it)"


def binary() -> Path:
    """build/steady-img of the build $STEADYFS_LIB points into."""
    lib = os.environ.get("STEADYFS_LIB")
    base = Path(lib).resolve().parent if lib else REPO / "build"
    return base / "steady-img"


def add_profile_arg(p: argparse.ArgumentParser) -> None:
    """--profile-file FILE: an image of a chip we do not ship (its header
    names the profile; every command on the image needs the file)."""
    p.add_argument("--profile-file", type=Path, default=None, metavar="FILE",
                   help="the device profile of a chip from a JSON file (`steady devices --json` "
                        "shape), for an image made on it (docs/PORTING.md)")


def profile_argv(args: argparse.Namespace | None, cmd: str) -> list[str]:
    """The options that define --profile-file's profile in a program this
    one execs (``--profile-def KIND:NAME:N0,...``; none without a file).
    The file is read and checked here first; a bad one is a one-line
    error and exit 2.  An unset --device becomes the profile's name."""
    if args is None or getattr(args, "profile_file", None) is None:
        return []
    f: Path = args.profile_file
    try:
        spec = userprofile.load(f)
        name = userprofile.register(spec, str(f))
        vals = userprofile.numbers(spec, str(f))
    except userprofile.ProfileFileError as e:
        print(f"steady {cmd}: --profile-file {e}", file=sys.stderr)
        raise SystemExit(2) from None
    if getattr(args, "device", "") is None:
        args.device = name
    return ["--profile-def", f"{spec['kind']}:{name}:" + ",".join(str(v) for v in vals)]


def run(argv: list[str], args: argparse.Namespace | None = None) -> int:
    """Replace this process with steady-img and argv (its exit code is ours);
    with args, --profile-file's profile goes first (profile_argv)."""
    exe = binary()
    if not exe.exists():
        print(f"steady: {exe} not found; build it with `make build`", file=sys.stderr)
        return 2
    pre = profile_argv(args, argv[0] if argv else "")
    sys.stdout.flush()
    os.execv(str(exe), [str(exe), *pre, *argv])
    return 0  # not reached


def add_image_arg(p: argparse.ArgumentParser, what: str) -> None:
    """IMAGE as a positional word, with --image F as its alias."""
    p.add_argument("image", metavar="IMAGE", nargs="?", help=what)
    p.add_argument("--image", dest="image_opt", metavar="IMAGE", help="the same as IMAGE")


def one_image(args: argparse.Namespace, cmd: str, required: bool = True) -> tuple[bool, str | None]:
    """The image add_image_arg parsed: (True, path or None when absent and
    not required), or (False, None) after a one-line error (absent, or two
    different images given)."""
    pos: str | None = args.image
    opt: str | None = args.image_opt
    if pos and opt and pos != opt:
        print(f"steady {cmd}: two images given ({pos} and --image {opt})", file=sys.stderr)
        return False, None
    image = pos or opt
    if image is None and required:
        print(f"steady {cmd}: name the image: steady {cmd} IMAGE ...", file=sys.stderr)
        return False, None
    return True, image


def add_format_args(p: argparse.ArgumentParser) -> None:
    """Options of a new image: device, size and the file system's format fields."""
    p.add_argument("--device", default=None,
                   help="device profile (steady devices; required unless --profile-file)")
    add_profile_arg(p)
    p.add_argument("--blocks", type=int, default=0,
                   help="device blocks (0: the profile's full size; the file is sparse)")
    p.add_argument("--seed", type=int, default=0, help="factory bad-block placement seed")
    p.add_argument("--force", action="store_true", help="replace an existing image file")
    p.add_argument("--max-inodes", type=int, default=0, help="files + directories (0: default)")
    p.add_argument("--fill-permille", type=int, default=0,
                   help="live data limit, per mille (0: 750)")
    p.add_argument("--file-pages-log2", type=int, default=0,
                   help="max sectors per file, log2 (0: default)")
    p.add_argument("--dir-pages", type=int, default=0, help="buckets per directory (0: 8)")
    p.add_argument("--sector-size", type=int, default=0,
                   help="bytes (0: 2048, or the page where it is larger)")
    p.add_argument("--erase-mult", type=int, default=0,
                   help="device blocks per erase unit (0: per medium)")
    p.add_argument("--ring-units", type=int, default=0,
                   help="erase units at the device's end kept for the record ring (0: none)")
    p.add_argument("--ring-sectors", type=int, default=0,
                   help="sectors a ring record takes (0: 1)")


def format_argv(args: argparse.Namespace, cmd: str) -> list[str]:
    """The steady-img options add_format_args parsed (--profile-file's
    profile is checked here and names the device unless --device does)."""
    profile_argv(args, cmd)
    if args.device is None:
        print(f"steady {cmd}: --device PROFILE (see `steady devices`) or --profile-file FILE "
              "is required", file=sys.stderr)
        raise SystemExit(2)
    out = ["--device", args.device]
    for name in ("blocks", "seed", "max_inodes", "fill_permille", "file_pages_log2",
                 "dir_pages", "sector_size", "erase_mult", "ring_units", "ring_sectors"):
        v = getattr(args, name)
        if v:
            out += ["--" + name.replace("_", "-"), str(v)]
    if args.force:
        out.append("--force")
    return out
