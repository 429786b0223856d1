"""`steady dev PROFILE --image FILE ...`: low-level poking of a device image.

Each operation prints its simulated duration.  The image file persists the
device between invocations (created and formatted on first use).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from steadyfs import native


def _num(text: str) -> int:
    return int(text, 0)


def _pattern(text: str) -> bytes:
    """hex:0011.., text:..., or byte:0xNN (repeated to the length)."""
    kind, _, val = text.partition(":")
    if kind == "hex":
        return bytes.fromhex(val)
    if kind == "text":
        return val.encode()
    if kind == "byte":
        return bytes([int(val, 0)])
    raise argparse.ArgumentTypeError("data is hex:..., text:... or byte:N")


def _us(ns: int) -> str:
    return f"{ns / 1000:.3f} us"


def _dump(data: bytes, base: int) -> str:
    lines = []
    for i in range(0, len(data), 16):
        chunk = data[i:i + 16]
        lines.append(f"{base + i:08x}  {chunk.hex(' ')}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        dev = native.Device(args.profile, image=args.image, blocks=args.blocks,
                            timing=args.timing, seed=args.seed, fresh=args.fresh)
    except (native.NativeLibraryMissing, native.DeviceError) as e:
        print(f"steady dev: {e}", file=sys.stderr)
        return 2
    with dev:
        try:
            return _op(dev, args)
        except native.DeviceError as e:
            print(f"steady dev: {e} (after {_us(dev.last_ns)})", file=sys.stderr)
            return 1


def _op(dev: native.Device, args: argparse.Namespace) -> int:
    op = args.op
    if op == "info":
        g = dev.geometry
        print(f"{args.profile}: {dev.block_count} blocks x {dev.pages_per_block} pages x "
              f"{dev.page_size}+{dev.spare_size} B")
        for k, v in g.items():
            print(f"  {k:18} {v}")
        bad = [b for b in range(dev.block_count) if dev.is_bad(b)]
        print(f"  bad blocks         {len(bad)} {bad[:20]}{' ...' if len(bad) > 20 else ''}")
        return 0
    if op == "read":
        res = dev.read(args.block, args.off, args.len, args.spare)
        print(_dump(res[0], args.off))
        if args.spare:
            print("spare:", res[2].hex(" "))  # type: ignore[misc]
        print(f"read block {args.block} off {args.off} len {args.len}: {_us(dev.last_ns)}"
              f" (ECC corrected {res[1]} bits)")
        return 0
    if op == "prog":
        data = (args.data * (args.len // len(args.data) + 1))[: args.len] if args.len else args.data
        spare = args.spare_data if args.spare_data else None
        dev.prog(args.block, args.off, data, spare)
        print(f"prog block {args.block} off {args.off} len {len(data)}: {_us(dev.last_ns)}")
        return 0
    if op == "erase":
        dev.erase(args.block, args.count)
        print(f"erase block {args.block} count {args.count}: {_us(dev.last_ns)}"
              f" (erase count now {dev.erase_count(args.block)})")
        return 0
    if op == "bad":
        print(f"block {args.block}: {'bad' if dev.is_bad(args.block) else 'good'}")
        return 0
    if op == "markbad":
        dev.mark_bad(args.block)
        print(f"block {args.block} marked bad")
        return 0
    return 2


def register(sub: Any) -> None:
    p = sub.add_parser("dev", help="low-level read/prog/erase on a device image, timed")
    p.add_argument("profile", help="device profile (see `steady devices`)")
    p.add_argument("--image", required=True, help="image file (created on first use)")
    p.add_argument("--blocks", type=int, default=0, help="block count (0: the profile's)")
    p.add_argument("--timing", choices=list(native.TIMINGS), default="typical")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--fresh", action="store_true", help="reformat the image")
    ops = p.add_subparsers(dest="op", metavar="OP", required=True)
    ops.add_parser("info", help="geometry and bad blocks")
    r = ops.add_parser("read", help="read bytes (hex dump)")
    r.add_argument("block", type=_num)
    r.add_argument("off", type=_num)
    r.add_argument("len", type=_num)
    r.add_argument("--spare", type=_num, default=0, help="also read N spare bytes")
    w = ops.add_parser("prog", help="program bytes")
    w.add_argument("block", type=_num)
    w.add_argument("off", type=_num)
    w.add_argument("data", type=_pattern, help="hex:..., text:... or byte:N")
    w.add_argument("--len", type=_num, default=0, help="repeat data to this length")
    w.add_argument("--spare-data", type=_pattern, default=None)
    e = ops.add_parser("erase", help="erase blocks")
    e.add_argument("block", type=_num)
    e.add_argument("--count", type=_num, default=1)
    b = ops.add_parser("bad", help="is the block bad?")
    b.add_argument("block", type=_num)
    m = ops.add_parser("markbad", help="mark a block bad")
    m.add_argument("block", type=_num)
    p.set_defaults(func=run)
