"""`steady plan`: the RAM that is proven to absorb an input rate with no loss.

Two proven curves bound how long a stream of records of RECORD bytes takes
(write + sync calls, or O_DSYNC writes each with a close after it; with
--dsync, O_DSYNC writes to a file kept open, a logger's records; with
--aligned, each starting at a multiple of the sector payload, as appends of
whole sectors do; with --ring, appends to the record ring, steadyfs_ring_append,
which no map, collection or checkpoint touches), whatever came before them and
whatever the fill level up to the format's fill limit, in the device's timing
mode:

* steadyfs_guarantee_of() (src/fs/bound.c), a rate-latency service curve
  for windows of records: any n consecutive records take at most n*c + d.
  An O_DSYNC record's commit rides in its last data sector, so it writes no
  inode sector and its c is smaller, and an aligned record touches one
  sector fewer; the output gives the other sync kind's curve beside the
  one asked for;
* steadyfs_bound() of one write + sync, b: each record alone takes at most
  b, so n records at most n*b.

So n records take at most T(n) = min(n*b, n*c + d).  A producer that
delivers RATE bytes per second and hands the file system a record as soon
as one is complete then never holds more than

    buffer = max over n >= 1 of  RECORD + RATE * T(n) - (n - 1) * RECORD

bytes (the record being written plus what arrives while it and the records
queued behind it are written; derivation in docs/DESIGN.md §7), a maximum
reached where the two lines cross (T is concave), if RATE * c <= RECORD.
Otherwise the backlog grows without bound: no finite RAM suffices, and the
largest sustainable rate is RECORD / c.  With --ram B the command answers
the other way round: the largest rate a buffer of B bytes absorbs.

Beside it, the same record stream written to the raw device with no file
system (pages programmed in sequence, one erase per erase unit, in the
cheaper of the part's erase sizes per byte): n records take at most
n * (pages * t_prog + RECORD / unit * t_erase) + t_erase, which is the
medium's own limit.  `--device all` prints the three default media side by
side (issue 16).

The figure is a proof from the stated bounds, not a measurement; `steady
bench` measures (the README shows both).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import math
import sys
from dataclasses import asdict, dataclass

from steadyfs import native, userprofile
from steadyfs.cmd_bound import Fmt, FormatError, fmt_struct, format_params
from steadyfs.native import NativeLibraryMissing
from steadyfs.units import format_bytes, format_rate, parse_rate, parse_size

TIMING = {"typical": 0, "tail": 1, "worst": 2}
RECORD_DSYNC = 1     # steadyfs.h STEADYFS_RECORD_DSYNC
RECORD_ALIGNED = 2   # steadyfs.h STEADYFS_RECORD_ALIGNED
RECORD_RING = 4      # steadyfs.h STEADYFS_RECORD_RING
RECORD_HELD = 8      # steadyfs.h STEADYFS_RECORD_HELD


class PlanError(ValueError):
    """Bad arguments or a device steadyfs cannot plan for (message for the user)."""


@dataclass(frozen=True)
class Guarantee:
    """c and d of steadyfs_guarantee and b, one record's own bound, in seconds:
    n records take at most min(n b, n c + d)."""

    device: str
    record: int
    timing: str
    fill: float
    c_s: float
    d_s: float
    b_s: float = math.inf
    dsync: bool = False     # records are O_DSYNC writes to a file kept open
    aligned: bool = False   # every record starts at a multiple of the sector payload
    ring: bool = False      # records are appends to the record ring (steadyfs_ring_append)
    held: bool = False      # write + sync to a file kept open, the held sector configured

    @property
    def max_rate(self) -> float:
        """Largest input rate (B/s) the guarantee sustains with finite RAM."""
        return self.record / self.c_s if self.c_s > 0 else math.inf

    def time_s(self, n: int) -> float:
        """The proven time of n consecutive records."""
        return min(n * self.b_s, n * self.c_s + self.d_s)


def buffer_for_rate(g: Guarantee, rate: float) -> float | None:
    """Bytes of buffer that provably absorb `rate` B/s, None if unsustainable."""
    if rate * g.c_s > g.record:
        return None
    # RECORD + RATE T(n) - (n - 1) RECORD is concave in n (T is a minimum of
    # two lines): its maximum over whole n is at n = 1 or beside the point
    # where the lines cross, n = d / (b - c)
    ns = {1}
    if g.b_s > g.c_s and math.isfinite(g.b_s):
        cross = g.d_s / (g.b_s - g.c_s)
        ns |= {max(1, math.floor(cross)), max(1, math.ceil(cross))}
    elif not math.isfinite(g.b_s):
        # one line, n c + d: the slope in n is RATE c - RECORD <= 0, so the
        # maximum is at n = 1
        return g.record + rate * (g.c_s + g.d_s)
    return max(g.record + rate * g.time_s(n) - (n - 1) * g.record for n in ns)


def rate_for_buffer(g: Guarantee, ram: float) -> float:
    """Largest rate (B/s) a buffer of `ram` bytes provably absorbs (0: none)."""
    if ram < g.record:
        return 0.0
    if not math.isfinite(g.b_s):
        by_ram = (ram - g.record) / (g.c_s + g.d_s) if g.c_s + g.d_s > 0 else math.inf
        return min(g.max_rate, by_ram)
    # the buffer grows with the rate: bisect between 0 and the largest rate
    top = g.max_rate
    need = buffer_for_rate(g, top)
    if need is not None and need <= ram:
        return top
    lo, hi = 0.0, top
    for _ in range(100):
        mid = (lo + hi) / 2
        need = buffer_for_rate(g, mid)
        if need is not None and need <= ram:
            lo = mid
        else:
            hi = mid
    return lo


def guarantee(device: str, record: int, timing: str, fill: float,
              fmt: dict[str, int] | None = None, *, dsync: bool = False,
              aligned: bool = False, ring: bool = False) -> Guarantee:
    """steadyfs_guarantee_of priced; ``fmt``: format options (cmd_bound.format_params);
    ``dsync``: records are O_DSYNC writes to a file kept open (else write + sync);
    ``aligned``: each starts at a multiple of the sector payload (else anywhere);
    ``ring``: records are appends to the record ring (neither of the others)."""
    prof = next((p for p in native.profiles() if p["name"] == device), None)
    if prof is None:
        raise PlanError(f"--device {device}: no such device profile (see `steady devices`)")
    if prof.get("kind") == "sd":
        raise PlanError(f"--device {device}: an SD card; steadyfs runs on raw NAND, NOR and MRAM")
    if not 1 <= record <= 1 << 24:
        raise PlanError(f"--record {record}: want 1 .. 16 MiB")
    if not 0.05 <= fill <= 0.95:
        raise PlanError(f"--fill {fill}: want the format's fill limit, 0.05 .. 0.95")
    lib = native.lib()
    fn = lib.steady_fs_guarantee_ns_kind
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32,
                   ctypes.POINTER(Fmt),
                   ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
                   ctypes.POINTER(ctypes.c_uint64)]
    c_ns, d_ns, b_ns = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_uint64()
    permille = int(round(fill * 1000))
    f = fmt or {}
    fs = fmt_struct(f)
    if ring and (dsync or aligned):
        raise PlanError("--ring records are ring appends: drop --dsync and --aligned")
    # with the held sector (--param hold=1) a write + sync record to a file
    # kept open commits in its last sector, as an O_DSYNC record does
    held = bool(f.get("hold")) and not dsync and not ring
    flags = RECORD_RING if ring else ((RECORD_DSYNC if dsync else 0) | (RECORD_ALIGNED if aligned else 0)
                                      | (RECORD_HELD if held else 0))
    if fn(device.encode(), record, permille, TIMING[timing], flags, ctypes.byref(fs),
          ctypes.byref(c_ns), ctypes.byref(d_ns), ctypes.byref(b_ns)) != 0 or c_ns.value == 0:
        shown = "".join(f" --param {k}={v}" for k, v in f.items() if v)
        raise PlanError(f"no guarantee for {device} with --record {record} --fill {fill}"
                        f"{shown}: not a valid steadyfs configuration")
    return Guarantee(device, record, timing, fill, c_ns.value / 1e9, d_ns.value / 1e9,
                     b_ns.value / 1e9, dsync, aligned, ring, held)


def record_words(dsync: bool, aligned: bool = False, ring: bool = False, held: bool = False) -> str:
    """What a record is, in the output's words."""
    if ring:
        return "appends to the record ring"
    return (("O_DSYNC writes to a file kept open" if dsync
             else "write+sync calls to a file kept open, the held sector configured" if held
             else "write+sync calls")
            + (" (at sector boundaries)" if aligned else ""))


MEDIA = ("mt29f1g01", "mt25q128", "em064lx")   # the default part of each medium


@dataclass
class RingSize:
    """What a ring of ``units`` erase units holds and how fast it wears."""

    units: int
    records_per_unit: int
    records_min: int            # the span holds at least this many (R - 2 units and one)
    records_max: int            # and at most (R - 1 units)
    retention_s: float | None   # the newest records_min at the rate
    erase_interval_s: float | None   # each unit is erased once a lap
    lifetime_days: float | None  # the part's endurance in laps (None: no wear)


def ring_size(device: str, record: int, units: int, rate: float | None,
              fmt: dict[str, int] | None = None) -> RingSize:
    """Sizing a record ring of ``units`` units for ``record``-byte records
    (steadyfs_geometry gives the sector payload and the sectors a unit)."""
    from steadyfs.fs import _Info
    prof = next((p for p in native.profiles() if p["name"] == device), None)
    if prof is None:
        raise PlanError(f"--device {device}: no such device profile (see `steady devices`)")
    if units < 2:
        raise PlanError(f"--ring-units {units}: want 2 or more")
    f = dict(fmt or {})
    f["ring_units"] = units
    f["ring_sectors"] = 1
    lib = native.lib()
    fn = lib.steady_fs_geometry_fmt
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char_p, ctypes.POINTER(Fmt), ctypes.POINTER(_Info)]
    info = _Info()
    if fn(device.encode(), ctypes.byref(fmt_struct(f)), ctypes.byref(info)) != 0:
        raise PlanError(f"--ring-units {units}: not a valid steadyfs format on {device}")
    k = -(-record // int(info.data_per_sector))
    if k > int(info.block_sectors):
        raise PlanError(f"--record {record}: larger than a unit of {device}")
    rpu = int(info.block_sectors) // k
    lo, hi = (units - 2) * rpu + 1, (units - 1) * rpu
    if rate is None or rate <= 0:
        return RingSize(units, rpu, lo, hi, None, None, None)
    per_s = rate / record
    lap = units * rpu / per_s
    endurance = int(prof.get("endurance", 0))
    wears = int(prof["geometry"]["needs_erase"]) and 0 < endurance < 2**32 - 1
    return RingSize(units, rpu, lo, hi, lo / per_s, lap, endurance * lap / 86400 if wears else None)


def raw_guarantee(device: str, record: int, timing: str) -> Guarantee:
    """The raw device's own rate-latency curve for the record stream: pages
    programmed in sequence, one erase per erase unit (amortised in c; one
    whole erase in d, for the window an erase falls into first)."""
    prof = next((p for p in native.profiles() if p["name"] == device), None)
    if prof is None:
        raise PlanError(f"--device {device}: no such device profile (see `steady devices`)")
    geo, cost = prof["geometry"], prof["op_cost"]
    key = "typical_bound_ns" if timing == "typical" else "max_ns"
    page = int(geo["page_size"])
    if int(geo["needs_erase"]):
        # flash programs a page at most per operation
        c_ns = -(-record // page) * float(cost["prog_page"][key])
    else:
        # MRAM writes any length in one operation; the model's cost is affine
        # in the length (through its page and 4 KiB figures)
        t1, t2 = float(cost["prog_page"][key]), float(cost["prog_4096"][key])
        per_byte = (t2 - t1) / (4096 - page)
        c_ns = t1 + per_byte * (record - page)
    d_ns = 0.0
    if int(geo["needs_erase"]):
        unit = int(geo["block_size"])
        per_byte = float(cost["erase_block"][key]) / unit
        erase = float(cost["erase_block"][key])
        big = int(geo.get("big_erase_blocks", 1))
        if big > 1 and "erase_big" in cost and float(cost["erase_big"][key]) / (unit * big) < per_byte:
            per_byte = float(cost["erase_big"][key]) / (unit * big)
            erase = float(cost["erase_big"][key])
        c_ns += record * per_byte
        d_ns = erase
    return Guarantee(device, record, timing, 1.0, c_ns / 1e9, d_ns / 1e9)


def _fs_ram(device: str, hold: bool) -> int | None:
    from steadyfs.cmd_ram import RamError, checked_ram
    try:
        return checked_ram(device, 0, {"open_max": 1, **({"hold": 1} if hold else {})}, {})["total"]
    except (RamError, NativeLibraryMissing):
        return None


def _rate(rate: float) -> str:
    return "unlimited" if math.isinf(rate) else format_rate(rate)


def _answer(g: Guarantee, rate: float | None, ram: float | None) -> tuple[str, str]:
    """The buffer for --rate and the rate for --ram, as table cells."""
    cells = ["", ""]
    if rate is not None:
        buf = buffer_for_rate(g, rate)
        cells[0] = "not sustainable" if buf is None else format_bytes(math.ceil(buf))
    if ram is not None:
        cells[1] = _rate(rate_for_buffer(g, ram))
    return cells[0], cells[1]


def _run_all(args: argparse.Namespace, record: int, rate: float | None, ram: float | None) -> int:
    """--device all: steadyfs and the raw device on each medium's default part."""
    rows: list[list[str]] = []
    out: list[dict[str, object]] = []
    for dev in MEDIA:
        for stack, g in (("steadyfs", guarantee(dev, record, args.timing, args.fill,
                                                dsync=args.dsync, aligned=args.aligned,
                                                ring=args.ring)),
                         ("raw device", raw_guarantee(dev, record, args.timing))):
            buf, r = _answer(g, rate, ram)
            rows.append([dev, stack, f"{g.c_s * 1e3:.3f}", f"{g.d_s * 1e3:.3f}",
                         f"{g.b_s * 1e3:.3f}" if math.isfinite(g.b_s) else "-", _rate(g.max_rate),
                         buf, r])
            out.append({"device": dev, "stack": stack, "c_ms": g.c_s * 1e3, "d_ms": g.d_s * 1e3,
                        "b_ms": g.b_s * 1e3 if math.isfinite(g.b_s) else None,
                        "max_rate_Bps": g.max_rate,
                        "buffer_bytes": None if rate is None or buffer_for_rate(g, rate) is None
                        else math.ceil(buffer_for_rate(g, rate) or 0),
                        "rate_for_ram_Bps": None if ram is None else rate_for_buffer(g, ram)})
    if args.json:
        print(json.dumps({"record": record, "dsync": args.dsync, "aligned": args.aligned,
                          "ring": args.ring,
                          "timing": args.timing,
                          "fill": args.fill, "rate_Bps": rate, "ram_bytes": ram, "rows": out},
                         indent=2))
        return 0
    head = ["device", "stack", "c (ms)", "d (ms)", "b (ms)", "largest rate",
            f"buffer for {_rate(rate)}" if rate is not None else "",
            f"rate for {format_bytes(int(ram))}" if ram is not None else ""]
    keep = [i for i, h in enumerate(head) if h]
    table = [[row[i] for i in keep] for row in [head] + rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(keep))]
    print(f"{record}-byte records, {record_words(args.dsync, args.aligned, args.ring)}; "
          f"{args.timing} timing, "
          f"steadyfs fill limit {args.fill:.0%}; n records take <= min(n b, n c + d):")
    for k, line in enumerate(table):
        print("  " + "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(line, widths))))
        if k == 0:
            print("  " + "  ".join("-" * w for w in widths))
    return 0


def _run(args: argparse.Namespace) -> int:
    try:
        if args.device == "all":
            if getattr(args, "profile_file", None):
                raise PlanError("--device all plans the default parts; drop --profile-file")
        else:
            userprofile.apply(args, "mt29f1g01")
        record = parse_size(args.record)
        rate = parse_rate(args.rate) if args.rate is not None else None
        ram = parse_size(args.ram) if args.ram is not None else None
        if rate is None and ram is None:
            return _fail("give --rate R (the RAM it needs) or --ram B (the rate it sustains)")
        fmt = format_params(args.param)
        if args.device == "all":
            if any(fmt.values()):
                raise PlanError("--device all plans each part's default format; drop --param")
            return _run_all(args, record, rate, ram)
        g = guarantee(args.device, record, args.timing, args.fill, fmt, dsync=args.dsync,
                      aligned=args.aligned, ring=args.ring)
        # beside it: the other sync kind, or for the ring a logger's file
        # records (O_DSYNC appends of whole sectors)
        other = guarantee(args.device, record, args.timing, args.fill, fmt,
                          dsync=True if args.ring else not args.dsync,
                          aligned=True if args.ring else args.aligned)
        raw = raw_guarantee(args.device, record, args.timing)
    except userprofile.ProfileFileError as e:
        return _fail(f"--profile-file {e}")
    except (PlanError, FormatError, ValueError, NativeLibraryMissing) as e:
        return _fail(str(e))
    fs_ram = _fs_ram(args.device, bool(fmt.get("hold")))
    out: dict[str, object] = {**asdict(g), "c_ms": g.c_s * 1e3, "d_ms": g.d_s * 1e3,
                              "b_ms": g.b_s * 1e3, "max_rate_Bps": g.max_rate,
                              "fs_ram_bytes": fs_ram}
    lines = [f"steadyfs on {g.device}, {g.record}-byte records, {g.timing} timing, "
             f"fill limit {g.fill:.0%}:",
             f"  guarantee: n consecutive {record_words(g.dsync, g.aligned, g.ring, g.held)} take <= n x "
             f"{g.c_s * 1e3:.3f} ms"
             f" + {g.d_s * 1e3:.3f} ms (steadyfs_guarantee_of), and each alone <= "
             f"{g.b_s * 1e3:.3f} ms (steadyfs_bound): n take <= min(n b, n c + d)",
             f"  largest sustainable rate: {_rate(g.max_rate)}"]
    out["other"] = {"dsync": other.dsync, "aligned": other.aligned, "c_ms": other.c_s * 1e3,
                    "d_ms": other.d_s * 1e3, "max_rate_Bps": other.max_rate}
    status = 0
    if rate is not None:
        buf = buffer_for_rate(g, rate)
        out["rate_Bps"] = rate
        out["buffer_bytes"] = None if buf is None else math.ceil(buf)
        if buf is None:
            lines.append(f"  {_rate(rate)}: NOT sustainable (the backlog grows without bound); "
                         f"the largest rate is {_rate(g.max_rate)}")
            status = 1
        else:
            lines.append(f"  {_rate(rate)}: a buffer of {format_bytes(math.ceil(buf))} absorbs it "
                         f"with no loss"
                         + (f" (+ {format_bytes(fs_ram)} for the file system itself)"
                            if fs_ram is not None else ""))
    if ram is not None:
        r = rate_for_buffer(g, ram)
        out["ram_bytes"] = ram
        out["rate_for_ram_Bps"] = r
        lines.append(f"  a buffer of {format_bytes(int(ram))} absorbs up to {_rate(r)}"
                     + ("" if r > 0 else f" (less than one {g.record}-byte record)"))
    o_buf, o_r = _answer(other, rate, ram)
    other_flags = ("--dsync --aligned, without --ring" if args.ring
                   else "--dsync" if other.dsync else "without --dsync")
    lines.append(f"  {record_words(other.dsync, other.aligned, held=other.held)} instead"
                 f" ({other_flags}): n x {other.c_s * 1e3:.3f} ms + "
                 f"{other.d_s * 1e3:.3f} ms; largest rate {_rate(other.max_rate)}"
                 + (f"; {_rate(rate)}: {o_buf}" if rate is not None else "")
                 + (f"; {format_bytes(int(ram))}: up to {o_r}" if ram is not None else ""))
    if args.ring:
        try:
            rs = ring_size(args.device, record, args.ring_units, rate, fmt)
        except PlanError as e:
            return _fail(str(e))
        out["ring_size"] = asdict(rs)
        line = (f"  a ring of {rs.units} units ({rs.records_per_unit} records a unit) holds the "
                f"newest {rs.records_min} to {rs.records_max} records")
        if rs.retention_s is not None and rate is not None:
            line += f": {rs.retention_s:.1f} s at {_rate(rate)}"
            if rs.lifetime_days is not None:
                line += (f"; each unit is erased every {rs.erase_interval_s:.2f} s, the part's "
                         f"endurance in {rs.lifetime_days:.1f} days (--ring-units sizes both)")
            else:
                line += (f"; each unit is rewritten every {rs.erase_interval_s:.2f} s (the part "
                         "does not wear)")
        lines.append(line)
    raw_buf, raw_r = _answer(raw, rate, ram)
    out["raw"] = {"c_ms": raw.c_s * 1e3, "d_ms": raw.d_s * 1e3, "max_rate_Bps": raw.max_rate}
    lines.append(f"  the raw device, same records, no file system: n x {raw.c_s * 1e3:.3f} ms + "
                 f"{raw.d_s * 1e3:.3f} ms; largest rate {_rate(raw.max_rate)}"
                 + (f"; {_rate(rate)}: {raw_buf}" if rate is not None else "")
                 + (f"; {format_bytes(int(ram))}: up to {raw_r}" if ram is not None else ""))
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print("\n".join(lines))
    return status


def _fail(msg: str) -> int:
    print(f"steady plan: {msg}", file=sys.stderr)
    return 2


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("plan", help="proven RAM for an input rate (or rate for a RAM budget)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default=None,
                   help="device profile (default mt29f1g01), or `all`: the three media side by side")
    userprofile.add_argument(p)
    p.add_argument("--record", default="4096", help="bytes per write + sync (default 4096)")
    p.add_argument("--rate", help="input rate, e.g. 300k (B/s; k = 1000, Ki = 1024)")
    p.add_argument("--ram", help="buffer budget, e.g. 16KiB: print the largest rate it absorbs")
    p.add_argument("--timing", choices=sorted(TIMING), default="worst")
    p.add_argument("--fill", type=float, default=0.75,
                   help="the format's fill limit (default 0.75, the format default)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="a configuration option (repeatable): sector_size, erase_mult, "
                        "pending_max, replay_max, as for `steady bound`")
    p.add_argument("--dsync", action="store_true",
                   help="records are O_DSYNC writes to a file kept open (a logger's; the commit "
                        "rides in the last data sector), not write + sync calls")
    p.add_argument("--aligned", action="store_true",
                   help="every record starts at a multiple of the sector payload (appends of "
                        "whole sectors, as a logger of 4 KiB records makes), not anywhere")
    p.add_argument("--ring", action="store_true",
                   help="records are appends to the record ring (steadyfs_ring_append; a format "
                        "with --ring-units), which no map, collection or checkpoint touches")
    p.add_argument("--ring-units", type=int, default=64, metavar="N",
                   help="with --ring: the ring's size, for what it holds and how fast it wears "
                        "at --rate (default 64)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)
