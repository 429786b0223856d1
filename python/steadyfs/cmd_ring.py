"""`steady ring IMAGE`: the record ring of a steadyfs image (format 15).

A format made with `steady mkfs --ring-units N --ring-sectors K` keeps the
device's last N erase units for a ring of records of up to K sectors
(docs/DESIGN.md §13).  Without options: the ring's size and the record
numbers it holds.  --list prints each record's number and length (or
"absent": an append a power cut stopped, a unit gone bad); --dump OUT
writes the records' bytes in order to OUT (`-`: stdout), --from N and
--count K choosing which; --append FILE appends FILE as records of the
ring's record size (the last one shorter), as a logger would.
"""

from __future__ import annotations

import argparse
import sys

from steadyfs import imgtool


def _run(args: argparse.Namespace) -> int:
    for name, v in (("--from", args.from_), ("--count", args.count)):
        if v is not None and v < 0:
            print(f"steady ring: {name} {v}: want a number >= 0", file=sys.stderr)
            return 2
    ok, image = imgtool.one_image(args, "ring")
    if not ok or image is None:
        return 2
    argv = ["ring", image]
    if args.list:
        argv.append("--list")
    if args.dump is not None:
        argv += ["--dump", args.dump]
    if args.from_ is not None:
        argv += ["--from", str(args.from_)]
    if args.count is not None:
        argv += ["--count", str(args.count)]
    if args.append is not None:
        argv += ["--append", args.append]
    return imgtool.run(argv, args)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ring", help="the record ring of a steadyfs image: span, list, dump, append",
                       description=__doc__)
    imgtool.add_image_arg(p, "image file")
    p.add_argument("--list", action="store_true", help="each record's number and length")
    p.add_argument("--dump", metavar="OUT", help="the records' bytes, in order, to OUT (- for stdout)")
    p.add_argument("--from", dest="from_", type=int, help="the first record number to list or dump")
    p.add_argument("--count", type=int, help="at most this many records")
    p.add_argument("--append", metavar="FILE", help="append FILE as records")
    imgtool.add_profile_arg(p)
    p.set_defaults(func=_run)
