"""`steady guest --port PORT`: Linux's v9fs client against a 9P server.

Boots the installed Debian kernel under qemu-system-x86_64 (TCG) with a
busybox initramfs built on the spot, mounts the 9P2000.L server listening on
the host's 127.0.0.1:PORT (`steady serve`, `steady firmware run --listen`,
diod, ...) with `mount -t 9p`, runs a script of file operations
(tests/interop/v9fs-ops.sh unless --script) and prints what it reported.
With --diod-check the tree is then read back through diod's clients
(diodls/diodcat) and compared with what the guest saw.  Exit status 0 when
every check passed.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from steadyfs import guest


def _run(args: argparse.Namespace) -> int:
    why = guest.missing_parts()
    if why:
        print(f"steady guest: cannot boot the guest: {why}", file=sys.stderr)
        return 2
    show = (lambda line: print(line, flush=True)) if args.verbose else None
    try:
        r = guest.run_guest_v9fs(args.port, Path(args.script), aname=args.aname,
                                 msize=args.msize, extra_opts=args.opts,
                                 timeout=args.timeout, on_output=show)
    except guest.GuestError as e:
        print(f"steady guest: {e}", file=sys.stderr)
        return 1
    for f in r.failed:
        print(f"FAIL {f}")
    times = ", ".join(f"{k} {v:.2f} s" for k, v in r.times.items())
    print(f"guest: boot {r.boot_s:.1f} s, total {r.total_s:.1f} s; {len(r.passed)} checks passed, "
          f"{len(r.failed)} failed; {len(r.tree)} entries in the tree; {times}")
    ok = r.ok
    if args.diod_check:
        try:
            tree = guest.diod_tree(f"127.0.0.1:{args.port}", args.aname or "")
        except guest.GuestError as e:
            print(f"steady guest: reading the server side: {e}", file=sys.stderr)
            return 1
        problems = guest.check_effects(r, tree,
                                       default_script=Path(args.script) == guest.DEFAULT_SCRIPT)
        for p in problems:
            print(f"SERVER {p}")
        print(f"server side (diodls/diodcat): {len(problems)} problems")
        ok = ok and not problems
    return 0 if ok else 1


def _port(text: str) -> int:
    n = int(text) if text.isdigit() else 0
    if not 1 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"a TCP port is 1..65535, not {text!r}")
    return n


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"seconds must be a positive number, not {text!r}")
    return v


def _msize(text: str) -> int:
    n = int(text) if text.isdigit() else 0
    if not 4096 <= n <= 1 << 24:
        raise argparse.ArgumentTypeError(f"msize is 4096..16777216 bytes, not {text!r}")
    return n


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("guest", help="Linux v9fs in a QEMU guest against a 9P server",
                       description=__doc__)
    p.add_argument("--port", type=_port, required=True, help="the server's port on 127.0.0.1")
    p.add_argument("--aname", default=None, help="attach name (diod: the export path)")
    p.add_argument("--msize", type=_msize, default=None, help="msize to ask for")
    p.add_argument("--opts", default="", help="more mount options (comma-separated)")
    p.add_argument("--script", default=str(guest.DEFAULT_SCRIPT), help="guest script")
    p.add_argument("--timeout", type=_seconds, default=240.0, help="seconds")
    p.add_argument("--diod-check", action="store_true",
                   help="afterwards read the tree through diodls/diodcat and compare")
    p.add_argument("-v", "--verbose", action="store_true", help="show the serial console")
    p.set_defaults(func=_run)
