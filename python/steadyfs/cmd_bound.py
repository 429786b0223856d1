"""`steady bound`: the stated worst-case duration of every file-system call.

steadyfs_bound() (src/fs/bound.c) counts the device operations a call may
perform whatever the fill level and history; steady_fs_bound_ns_default()
(src/host/fs_bound.c) prices them with the device model's own cost
arithmetic.  Derivation: docs/DESIGN.md section 7.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import sys

from steadyfs import native, userprofile

# steadyfs_call values (include/steadyfs/steadyfs.h) and the size argument
# each reported operation is computed with.
CALLS: dict[str, tuple[int, int]] = {
    "mount": (0, 0),
    "unmount": (1, 0),
    "open": (3, 2),
    "create": (4, 2),
    "close": (5, 0),
    "read_4096": (6, 4096),
    "write_4096": (7, 4096),
    "sync": (8, 0),
    "write_4096_sync": (9, 4096),
    "truncate": (10, 0),
    "stat": (12, 2),
    "unlink": (13, 2),
    "rename": (14, 2),
    "mkdir": (15, 2),
    "rmdir": (16, 2),
    "opendir": (17, 2),
    "readdir": (18, 1),
    "gc_step": (20, 1),
    "setattr": (21, 2),
    "write_4096_dsync": (22, 4096),
}
TIMING = {"typical": 0, "tail": 1, "worst": 2}
# configuration options a bound depends on (steadyfs_config; 0: the default)
FORMAT_KEYS = ("sector_size", "erase_mult", "pending_max", "replay_max", "ring_units",
               "ring_sectors", "hold")
# with a record ring (--param ring_units=N): its two calls too
RING_CALLS: dict[str, tuple[int, int]] = {
    "ring_append_4096": (23, 4096),
    "ring_read": (24, 0),
}


def calls_for(fmt: dict[str, int] | None) -> dict[str, tuple[int, int]]:
    """The call kinds a format has: the ring's only with a ring."""
    return {**CALLS, **(RING_CALLS if fmt and fmt.get("ring_units") else {})}


class Fmt(ctypes.Structure):
    """steady_fmt (src/host/fs_bound.h): FORMAT_KEYS, 0 for the default."""

    _fields_ = [(k, ctypes.c_uint32) for k in FORMAT_KEYS]


def fmt_struct(fmt: dict[str, int] | None) -> Fmt:
    f = fmt or {}
    return Fmt(*(int(f.get(k, 0)) for k in FORMAT_KEYS))


class FormatError(ValueError):
    """A --param the bound cannot take (the message says why)."""


def format_params(params: list[str] | None) -> dict[str, int]:
    """``--param KEY=VALUE`` pairs of FORMAT_KEYS (``fs.`` prefix allowed, as
    `steady bench` takes them) as integers; every key present (0: default)."""
    out = {k: 0 for k in FORMAT_KEYS}
    for item in params or []:
        key, sep, value = item.partition("=")
        key = key.removeprefix("fs.")
        if not sep or key not in FORMAT_KEYS:
            raise FormatError(f"--param {item}: want KEY=VALUE with KEY one of "
                              f"{', '.join(FORMAT_KEYS)}")
        try:
            out[key] = int(value, 0)
        except ValueError:
            raise FormatError(f"--param {item}: {value!r} is not an integer") from None
        if out[key] < 0:
            raise FormatError(f"--param {item}: want >= 0")
        if key == "hold" and out[key] > 1:
            raise FormatError(f"--param {item}: want 0 or 1")
    return out


def bounds_us(device: str, timing: str, fmt: dict[str, int] | None = None) -> dict[str, float]:
    """Stated worst case of each call in microseconds; ``fmt``: format_params."""
    lib = native.lib()
    fn = lib.steady_fs_bound_ns_fmt
    fn.restype = ctypes.c_uint64
    fn.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint64, ctypes.c_int, ctypes.POINTER(Fmt)]
    fs = fmt_struct(fmt)
    out: dict[str, float] = {}
    for name, (call, n) in calls_for(fmt).items():
        ns = int(fn(device.encode(), call, n, TIMING[timing], ctypes.byref(fs)))
        if name == "mount" and ns == 0:
            if fmt and any(fmt.values()):
                shown = " ".join(f"{k}={v}" for k, v in fmt.items() if v)
                raise SystemExit(f"steady bound: {device} with {shown}: unknown device or a "
                                 "configuration steadyfs refuses")
            raise SystemExit(f"steady bound: unknown device {device}")
        out[name] = round(ns / 1000.0, 1)
    return out


class _Cost(ctypes.Structure):
    """steadyfs_cost (include/steadyfs/steadyfs.h)."""

    _fields_ = [("reads", ctypes.c_uint32), ("progs", ctypes.c_uint32), ("erases", ctypes.c_uint32),
                ("read_bytes", ctypes.c_uint64), ("prog_bytes", ctypes.c_uint64),
                ("per", ctypes.c_uint32)]


def bound_ops(device: str, fmt: dict[str, int] | None = None) -> dict[str, dict[str, int]]:
    """Device operations each call may perform (steadyfs_bound), by name."""
    lib = native.lib()
    fn = lib.steady_fs_bound_ops_fmt
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint64, ctypes.POINTER(Fmt),
                   ctypes.POINTER(_Cost)]
    fs = fmt_struct(fmt)
    out: dict[str, dict[str, int]] = {}
    for name, (call, n) in calls_for(fmt).items():
        c = _Cost()
        if fn(device.encode(), call, n, ctypes.byref(fs), ctypes.byref(c)) != 0:
            raise SystemExit(f"steady bound: unknown device {device}")
        out[name] = {f[0]: int(getattr(c, f[0])) for f in _Cost._fields_}
    return out


# the parts of a bound steadyfs_bound_without can leave out (STEADYFS_PART_*,
# include/steadyfs/steadyfs.h), in the order `--explain` prints them
PARTS: dict[str, int] = {
    "pace": 1,          # collection steps the pace runs
    "catch_up": 2,      # a host-head move's catch-up collection
    "rounds": 4,        # make-room rounds: merges a full pending table forces
    "checkpoints": 8,   # checkpoints and checkpoint-unit switches
    "erases": 16,       # every erase
    "upkeep": 32,       # trims, wear levelling, a light call's kill or cold merge
}
PARTS_ALL = 63
# the records whose guarantee --explain takes apart: (name, steadyfs_guarantee_of flags)
EXPLAIN_RECORDS = (("c: 4 KiB write + sync", 0), ("c: 4 KiB O_DSYNC, aligned", 1 | 2))


def _bound_without_us(device: str, call: int, n: int, timing: str, fs: Fmt, parts: int) -> float:
    fn = native.lib().steady_fs_bound_ns_without
    fn.restype = ctypes.c_uint64
    fn.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint64, ctypes.c_int, ctypes.POINTER(Fmt),
                   ctypes.c_uint32]
    return int(fn(device.encode(), call, n, TIMING[timing], ctypes.byref(fs), parts)) / 1000.0


def _guarantee_without_us(device: str, flags: int, timing: str, fs: Fmt, parts: int) -> float:
    fn = native.lib().steady_fs_guarantee_ns_without
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32, ctypes.POINTER(Fmt),
                   ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)]
    c_ns, d_ns = ctypes.c_uint64(), ctypes.c_uint64()
    if fn(device.encode(), 4096, TIMING[timing], flags, ctypes.byref(fs), parts, ctypes.byref(c_ns),
          ctypes.byref(d_ns)) != 0:
        return float("nan")
    return c_ns.value / 1000.0


def explain(device: str, timing: str, fmt: dict[str, int] | None = None) -> dict[str, dict[str, float]]:
    """What each part adds to each call's bound and to the guarantee's c of
    4 KiB records, in microseconds: the bound less the bound without the
    part (steadyfs_bound_without); "own" is the bound without every part,
    "bound" the bound itself.  Parts overlap, so their costs do not add up
    to bound - own."""
    fs = fmt_struct(fmt)
    rows: dict[str, dict[str, float]] = {}
    for name, (call, n) in calls_for(fmt).items():
        full = _bound_without_us(device, call, n, timing, fs, 0)
        row = {"bound": full}
        for part, bit in PARTS.items():
            row[part] = full - _bound_without_us(device, call, n, timing, fs, bit)
        row["own"] = _bound_without_us(device, call, n, timing, fs, PARTS_ALL)
        rows[name] = row
    for name, flags in EXPLAIN_RECORDS:
        full = _guarantee_without_us(device, flags, timing, fs, 0)
        row = {"bound": full}
        for part, bit in PARTS.items():
            row[part] = full - _guarantee_without_us(device, flags, timing, fs, bit)
        row["own"] = _guarantee_without_us(device, flags, timing, fs, PARTS_ALL)
        rows[name] = row
    return {k: {f: round(v, 1) for f, v in r.items()} for k, r in rows.items()}


def _print_explain(device: str, timing: str, rows: dict[str, dict[str, float]]) -> None:
    print(f"what each part adds to a bound on {device} ({timing} timing), in ms: the bound less the "
          "bound without that part")
    print("(steadyfs_bound_without; parts overlap, so they add up to more than bound - own; "
          "own: the bound without every part)")
    heads = ["bound", *PARTS, "own"]
    print(f"  {'call':26s}" + "".join(f"{h:>12s}" for h in heads))
    for name, row in rows.items():
        print(f"  {name:26s}" + "".join(f"{row[h] / 1000.0:12.3f}" for h in heads))


def _run(args: argparse.Namespace) -> int:
    try:
        userprofile.apply(args, "mt29f1g01")
    except userprofile.ProfileFileError as e:
        print(f"steady bound: --profile-file {e}", file=sys.stderr)
        return 2
    try:
        fmt = format_params(args.param)
    except FormatError as e:
        print(f"steady bound: {e}", file=sys.stderr)
        return 2
    try:
        b = bounds_us(args.device, args.timing, fmt)
        ops = bound_ops(args.device, fmt)
        parts = explain(args.device, args.timing, fmt) if args.explain else None
    except native.NativeLibraryMissing as e:
        print(f"steady bound: {e}", file=sys.stderr)
        return 2
    if args.json:
        out = {"device": args.device, "timing": args.timing, "fs": "steadyfs",
               "format": fmt, "bounds_us": b, "ops": ops}
        if parts is not None:
            out["explain_us"] = parts
        print(json.dumps(out, indent=2))
        return 0
    if parts is not None:
        _print_explain(args.device, args.timing, parts)
        return 0
    shown = ", ".join(f"{k}={v}" for k, v in fmt.items() if v)
    print(f"steadyfs worst-case bounds on {args.device} ({args.timing} timing; "
          f"path calls: 2 components{'; ' + shown if shown else ''})")
    print(f"  {'call':16s} {'bound':>13s} {'reads':>7s} {'programs':>9s} {'erases':>7s}")
    for name, us in b.items():
        o = ops[name]
        print(f"  {name:16s} {us / 1000.0:10.3f} ms {o['reads']:7d} {o['progs']:9d} {o['erases']:7d}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("bound", help="worst-case duration of every file-system call",
                       description=__doc__)
    p.add_argument("--device", default=None, help="device profile (default mt29f1g01)")
    userprofile.add_argument(p)
    p.add_argument("--timing", choices=sorted(TIMING), default="worst")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="a configuration option the bound depends on (repeatable): "
                        "sector_size, erase_mult (device blocks per erase unit, e.g. "
                        "erase_mult=8 for 32 KiB units on mt25q128), pending_max, replay_max, "
                        "ring_units and ring_sectors (a record ring: its calls listed too), "
                        "hold=1 (the held sector, steadyfs_config.hold_buf); "
                        "fs.KEY as `steady bench` takes it")
    p.add_argument("--explain", action="store_true",
                   help="what each part of each bound adds (the pace's collection, the catch-up, "
                        "make-room rounds, checkpoints, erases, upkeep), and of the guarantee's c "
                        "for 4 KiB records: the bound less the bound without that part")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)
