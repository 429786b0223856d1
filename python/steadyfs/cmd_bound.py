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
    except native.NativeLibraryMissing as e:
        print(f"steady bound: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"device": args.device, "timing": args.timing, "fs": "steadyfs",
                          "format": fmt, "bounds_us": b, "ops": ops}, indent=2))
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
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)
