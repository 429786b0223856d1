"""`steady mount`: a steadyfs device through the VFS (FUSE, build/steady-mount).

    steady mount --fsoc tcp:HOST:PORT|unix:PATH MOUNTPOINT
        mount a File System On Chip: every call goes to its 9P2000.L server
        (`steady serve`, or any 9P2000.L server such as diod) through the
        p9cli host stub.
    steady mount IMAGE MOUNTPOINT [--format]
    steady mount IMAGE MOUNTPOINT --create --device PROFILE [--blocks N]
        mount a local steadyfs image: steadyfs's own 9P server runs on it in
        the FUSE process, reached through the same stub.  The image's header
        gives its profile and block count (--device and --blocks, if given,
        must agree).  Nothing is created or formatted unless asked: --create
        makes a new image file (refused if the file exists), formatted;
        --format makes a new file system on an existing image.

Returns once mounted (the FUSE process stays in the background unless -f);
unmount with `fusermount3 -u MOUNTPOINT`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from steadyfs import imgtool
from steadyfs.cmd_serve import add_image_options

REPO = Path(__file__).resolve().parents[2]


def binary() -> Path:
    """build/steady-mount of the build $STEADYFS_LIB points into."""
    lib = os.environ.get("STEADYFS_LIB")
    base = Path(lib).resolve().parent if lib else REPO / "build"
    return base / "steady-mount"


def _run(args: argparse.Namespace) -> int:
    exe = binary()
    if not exe.exists():
        print(f"steady mount: {exe} not found; build it with `make build`", file=sys.stderr)
        return 2
    paths: list[str] = args.paths
    if args.fsoc:
        if len(paths) != 1:
            print("steady mount: with --fsoc give only the MOUNTPOINT", file=sys.stderr)
            return 2
        argv = [str(exe), "--fsoc", args.fsoc, paths[0]]
    else:
        if len(paths) != 2:
            print("steady mount: give IMAGE MOUNTPOINT, or --fsoc SPEC MOUNTPOINT", file=sys.stderr)
            return 2
        pre = imgtool.profile_argv(args, "mount")
        if args.create and not args.device:
            print("steady mount: --create needs --device PROFILE (see `steady devices`) or "
                  "--profile-file FILE", file=sys.stderr)
            return 2
        argv = [str(exe), *pre, paths[0], paths[1]]
        if args.device:
            argv += ["--device", args.device]
    argv += ["--aname", args.aname, "--msize", str(args.msize)]
    if args.blocks:
        argv += ["--blocks", str(args.blocks)]
    if args.create:
        argv.append("--create")
    if args.format:
        argv.append("--format")
    if args.allow_other:
        argv.append("--allow-other")
    if args.options:
        argv += ["-o", args.options]
    if args.foreground:
        argv.append("-f")
    os.execv(str(exe), argv)
    return 0  # not reached


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("mount", help="mount a steadyfs device or FSOC through FUSE",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="[IMAGE] MOUNTPOINT")
    p.add_argument("--fsoc", metavar="tcp:HOST:PORT|unix:PATH",
                   help="9P2000.L server to mount")
    add_image_options(p, "IMAGE: ")
    p.add_argument("--aname", default="", help="export to attach (diod: the exported path)")
    p.add_argument("--msize", type=int, default=65536, help="9P message size to propose")
    p.add_argument("--allow-other", action="store_true",
                   help="let other users use the mount (FUSE allow_other; a non-root user needs "
                   "user_allow_other in /etc/fuse.conf); the kernel checks each caller against "
                   "the mode bits (default_permissions, always on)")
    p.add_argument("-o", dest="options", help="FUSE mount options")
    p.add_argument("-f", "--foreground", action="store_true", help="stay in the foreground")
    p.set_defaults(func=_run)
