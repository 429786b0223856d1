"""`steady serve`: export a simulated steadyfs device over 9P2000.L (build/steady-serve).

The device is a profile's simulation on an image file that persists between
runs.  The image's header records its device profile and block count, so
serving an existing image needs only --image (--device and --blocks, if
given, must agree with it).  Nothing is created or formatted unless asked:
`--create --device P [--blocks N]` makes a new image file (refused if the
file exists) with a fresh file system; `--format` makes a fresh file system
on an existing image (its files are lost).  Endpoints: tcp:HOST:PORT
(loopback by default; any other address is served with a warning, since 9P
here has no authentication), unix:PATH, stdio, or tty:DEVICE (a raw serial
line, always with the CRC/retransmission framing of docs/P9.md; `--framed`
puts the same framing on the other endpoints).  TCP and Unix sockets serve
up to --max-clients clients at once (default 8), each with its own 9P
session on the one file system; one more is answered Rlerror EUSERS and
disconnected.  stdio and tty are one link; a framed socket serves one
client at a time (others are disconnected).  "listening on ..." is printed
when ready; SIGINT/SIGTERM commit every client's open files and unmount.  Clients: Linux `mount -t 9p -o
trans=tcp,port=PORT,version=9p2000.L`, diod's `diodls -a / -s HOST:PORT`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from steadyfs import imgtool

REPO = Path(__file__).resolve().parents[2]


def binary() -> Path:
    """build/steady-serve of the build $STEADYFS_LIB points into."""
    lib = os.environ.get("STEADYFS_LIB")
    base = Path(lib).resolve().parent if lib else REPO / "build"
    return base / "steady-serve"


def argv_for(args: argparse.Namespace) -> list[str]:
    """The steady-serve command line for parsed `steady serve` arguments."""
    argv = [str(binary()), *imgtool.profile_argv(args, "serve"), "--image", args.image,
            "--listen", args.listen, "--msize", str(args.msize), "--fids", str(args.fids),
            "--open-max", str(args.open_max), "--baud", str(args.baud)]
    if args.device:
        argv += ["--device", args.device]
    if args.blocks:
        argv += ["--blocks", str(args.blocks)]
    argv += ["--max-clients", str(args.max_clients), "--stall-timeout", str(args.stall_timeout)]
    argv += ["--access", args.access]
    for flag in ("create", "format", "read_only", "framed", "no_hold", "verbose"):
        if getattr(args, flag):
            argv.append("--" + flag.replace("_", "-"))
    return argv


def _run(args: argparse.Namespace) -> int:
    # one convention with mkfs, fsck, df: the image first (--image kept as an alias)
    if args.image_pos and args.image and args.image_pos != args.image:
        print(f"steady serve: two images given ({args.image_pos} and --image {args.image})",
              file=sys.stderr)
        return 2
    args.image = args.image_pos or args.image
    if not args.image:
        print("steady serve: which image? `steady serve IMAGE [--listen ...]`", file=sys.stderr)
        return 2
    exe = binary()
    if not exe.exists():
        print(f"steady serve: {exe} not found; build it with `make build`", file=sys.stderr)
        return 2
    imgtool.profile_argv(args, "serve")   # (a bad file: one line, exit 2)
    if args.create and not args.device:
        print("steady serve: --create needs --device PROFILE (see `steady devices`) or "
              "--profile-file FILE", file=sys.stderr)
        return 2
    argv = argv_for(args)
    os.execv(argv[0], argv)
    return 0  # not reached


def add_image_options(p: argparse.ArgumentParser, scope: str = "") -> None:
    """--device, --blocks, --create, --format: how serve and mount find or make
    an image (never created or formatted unasked; profile and blocks come from
    the image header).  ``scope`` prefixes the help (mount: "IMAGE: ")."""
    p.add_argument("--device", help=f"{scope}device profile: needed with --create; otherwise read "
                   "from the image (if given, it must agree)")
    p.add_argument("--blocks", type=int, default=0,
                   help=f"{scope}device blocks: with --create (0: the profile's); otherwise read "
                   "from the image (if given, it must agree)")
    p.add_argument("--create", action="store_true",
                   help=f"{scope}make a new image file (refused if it exists), formatted")
    p.add_argument("--format", action="store_true",
                   help=f"{scope}make a new file system on the image first (its files are lost)")
    imgtool.add_profile_arg(p)

def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="serve a device's files over 9P2000.L",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("image_pos", nargs="?", metavar="IMAGE", help="image file")
    p.add_argument("--image", help="the image file (alias of IMAGE)")
    add_image_options(p)
    p.add_argument("--read-only", action="store_true", help="refuse every change (EROFS)")
    p.add_argument("--access", choices=("user", "none"), default="user",
                   help="user: check mode bits for each client's attached uid (root "
                   "bypasses; docs/P9.md); none: no checks")
    p.add_argument("--listen", default="tcp:127.0.0.1:5640",
                   help="tcp:HOST:PORT | unix:PATH | stdio | tty:DEVICE")
    p.add_argument("--framed", action="store_true",
                   help="UART framing (COBS, CRC-32, retransmission) on the stream")
    p.add_argument("--baud", type=int, default=115200, help="tty line rate")
    p.add_argument("--msize", type=int, default=65536, help="largest 9P message offered")
    p.add_argument("--fids", type=int, default=256, help="fid table size")
    p.add_argument("--open-max", type=int, default=8, help="steadyfs open handles (shared by all clients)")
    p.add_argument("--max-clients", type=int, default=8,
                   help="clients served at once on a TCP/Unix socket (1..1024); one more is "
                   "refused with Rlerror EUSERS")
    p.add_argument("--stall-timeout", type=int, default=60,
                   help="seconds a client may take to finish sending a message or reading "
                   "its reply before it is dropped (0: never)")
    p.add_argument("--no-hold", action="store_true",
                   help="no held sector (steadyfs_config.hold_buf, configured by default: a "
                   "write's last sector waits in RAM for the next write, fsync or close)")
    p.add_argument("--verbose", action="store_true", help="log every message on stderr")
    p.set_defaults(func=_run)
