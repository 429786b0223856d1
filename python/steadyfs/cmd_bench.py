"""`steady bench`: run a workload on a device (simulated or real) and analyse it.

    steady bench --device PROFILE|PATH --workload NAME [--fs raw|fat|littlefs|steadyfs]
                 [--timing typical|tail|worst] [--seed N] [--rate LIST] [--ram LIST]
                 [--fill F | --fill-device F] [--scale F] [--blocks N] [--param KEY=VALUE ...]
                 [--out DIR] [--json] [--allow-write] [--slowest N]
    steady bench --device all --workload NAME --fs steadyfs [--fill F] [...]
    steady bench --list            # the workloads and their parameters

Prints the seed 001-style table, or with --json the summary of
docs/BENCH-JSON.md plus "device", "fs", "workload", "timing", "seed",
"parameters".  --out DIR writes the trace (trace.sft and trace.csv),
summary.json, plots (PNG + SVG) and index.html.  PATH (a file or block
device) is overwritten: it needs --allow-write, and a mounted device is
refused.  Latencies are on the device's virtual clock (wall clock for real
devices).  --slowest N (simulated profiles): the device operations each of
the N slowest accesses was made of, grouped by their sequence (and in
--json "slowest", each access with its operations' blocks and offsets;
with --out a section of index.html: python/steadyfs/slowest.py).  --device all: the three media's default parts (mt29f1g01,
mt25q128, em064lx) side by side, each beside its raw device running the
workload's raw analogue (python/steadyfs/sidebyside.py): one table, or
with --json {"schema": "steadyfs-side-by-side/1", "rows": [...]}.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from steadyfs import userprofile
from steadyfs.fstargets import TARGETS, FsError
from steadyfs.native import TIMINGS, DeviceError, NativeLibraryMissing
from steadyfs.units import parse_rates, parse_size

DEFAULT_RATES = "100k,500k,1M,2M,4M"


def register(sub: Any) -> None:
    p = sub.add_parser(
        "bench", help="run a benchmark workload on a device and analyse its latency",
        description="Run a named workload (seed001-naive, seed003-sweep, log4k, ...) on a simulated "
                    "profile or a real device, record every workload-level call on the device clock, "
                    "and report max latency, percentiles, average and guaranteed throughput and the "
                    "RAM needed for fixed input rates.  `steady bench --list` describes the workloads.")
    p.add_argument("--device", help="profile name (see `steady devices`), PATH of a file / block device, "
                                    "or `all`: the three media side by side with the raw device")
    userprofile.add_argument(p)
    p.add_argument("--workload", help="workload name (see --list)")
    p.add_argument("--fs", choices=list(TARGETS), default=None,
                   help="file-system target (default: raw for raw workloads, fat on SD cards)")
    p.add_argument("--timing", choices=list(TIMINGS), default="typical", help="device timing mode")
    p.add_argument("--seed", type=int, default=1, help="seed of the device model and the workload")
    p.add_argument("--rate", default=DEFAULT_RATES,
                   help=f"input rates (bytes/s) for the buffer analysis (default {DEFAULT_RATES}; k=1000)")
    p.add_argument("--ram", default=None, help="RAM budget(s), e.g. 8KiB,64KiB: largest rate each sustains")
    p.add_argument("--fill", type=float, default=None, metavar="F",
                   help="fill the file system to this fraction of its capacity with static files first")
    p.add_argument("--fill-device", type=float, default=None, metavar="F",
                   help="static files holding this fraction of the device's bytes first (the same "
                        "bytes stored whatever the file system; refused if they do not fit)")
    p.add_argument("--scale", type=float, default=1.0, help="multiply total sizes / counts by F")
    p.add_argument("--blocks", type=int, default=0, help="simulated device with fewer blocks (0: profile)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="override a workload parameter (repeatable); fs.KEY=VALUE sets a target option, "
                        "e.g. fs.lookahead_size=128 for littlefs")
    p.add_argument("--out", type=Path, default=None, help="write trace, CSV, plots and index.html here")
    p.add_argument("--json", action="store_true", help="print the JSON summary")
    p.add_argument("--allow-write", action="store_true",
                   help="allow overwriting a real device or file given as --device PATH (destructive)")
    p.add_argument("--slowest", type=int, default=0, metavar="N",
                   help="explain the N slowest accesses: the device operations each was made of "
                        "(simulated profiles)")
    p.add_argument("--list", action="store_true", help="list the workloads and their parameters")
    p.set_defaults(func=run)


def _fail(msg: str) -> int:
    print(f"steady bench: error: {msg}", file=sys.stderr)
    return 2


def list_workloads() -> str:
    from steadyfs.workloads import workloads
    out = []
    for w in workloads().values():
        where = " and ".join(x for x, ok in (("raw", w.raw), ("file systems", w.files)) if ok)
        out.append(f"{w.name:18s} {w.summary}  [{where}]")
        for k, prm in w.params.items():
            out.append(f"{'':20s}{k}={prm.default!r} ({prm.kind}{', scaled' if prm.scaled else ''}): {prm.doc}")
    return "\n".join(out)


def write_outputs(out: Path, res: Any, rates: list[float], argv_text: str) -> Path:
    """trace.sft, trace.csv, summary.json, plots and index.html of one run."""
    from steadyfs import plots as pl
    from steadyfs.analysis import SizeStats
    from steadyfs.report import Run, insert_section, write_report
    from steadyfs.slowest import format_html as format_slowest_html
    from steadyfs.trace import Op

    out.mkdir(parents=True, exist_ok=True)
    res.trace.save(out / "trace.sft")
    res.trace.to_csv(out / "trace.csv")
    (out / "summary.json").write_text(json.dumps(res.summary, indent=1, allow_nan=False) + "\n")
    s = res.summary
    analysed = res.trace.select(s.get("analysed_ops") or [Op.WRITE])
    plots = pl.run_plots(analysed, rates, out / "plots", "run")
    if s.get("read", {}).get("by_size"):
        st = [SizeStats(e["size_bytes"], e["count"], e["max_latency_us"] * 1e3, e["p50_latency_us"] * 1e3,
                        e["p99_latency_us"] * 1e3, float(e["avg_throughput_kBps"] or 0) * 1e3,
                        float(e["guaranteed_throughput_kBps"] or 0) * 1e3) for e in s["read"]["by_size"]]
        fig = pl.plot_vs_size({res.trace.label: st}, "avg_throughput",
                              title=f"Read throughput vs access size: {res.trace.label}")
        plots["Read throughput vs access size"] = pl.save(fig, out / "plots", "run-read-throughput-vs-size")
    notes = [f"Command: {argv_text}"] + [f"Note: {n}" for n in res.notes]
    index = write_report(out, [Run(summary=s, trace=analysed, plots=plots)],
                        title=f"steady bench: {res.trace.label}", notes=notes, rates_Bps=rates,
                        parameters={"device": s["device"], "fs": s["fs"], "workload": s["workload"],
                                    "timing": s["timing"], "seed": s["seed"],
                                    "workload parameters": s.get("parameters", {}),
                                    "fs config": s.get("fs_config", {}), "fill": s.get("fill", "-"),
                                    "scale": s.get("scale", 1.0)})
    if "slowest" in s:
        insert_section(index, format_slowest_html(s["slowest"]), "slowest", "Slowest")
    return index


def _run_all(args: argparse.Namespace, rates: list[float], ram: list[int] | None,
             params: dict[str, str]) -> int:
    """--device all: the three media side by side with the raw device."""
    from steadyfs import sidebyside, workloads
    from steadyfs.benchrun import run_bench

    # what is wrong for every device is said once, before any runs
    workloads.get(args.workload)
    for opt, frac in (("--fill", args.fill), ("--fill-device", args.fill_device)):
        if frac is not None and not 0.0 <= frac < 1.0:
            return _fail(f"{opt} must be in [0, 1), not {frac}")
    for flag, given in (("--out", args.out is not None), ("--profile-file", bool(args.profile_file)),
                        ("--allow-write", args.allow_write)):
        if given:
            return _fail(f"--device all runs the three built-in media: drop {flag}")
    rows = sidebyside.run_all(args.workload, fs=args.fs, runner=run_bench, timing=args.timing,
                              seed=args.seed, rates=rates, ram=ram, fill_fraction=args.fill,
                              fill_device=args.fill_device, scale=args.scale, blocks=args.blocks,
                              params=params)
    if args.json:
        print(json.dumps(sidebyside.as_json(rows, args.workload), indent=1, allow_nan=False))
    else:
        print(f"{args.workload}, {args.timing} timing, seed {args.seed}"
              + (f", file system {args.fill:.0%} full" if args.fill else "")
              + "; kB = 1000 B; buf @R: peak RAM beyond the block being written at input rate R")
        print(sidebyside.render_text(rows))
    return 1 if any(r.errors for r in rows) else 0


def run(args: argparse.Namespace) -> int:
    from steadyfs.benchrun import BenchError, run_bench
    from steadyfs.report import format_table
    from steadyfs.slowest import format_text as format_slowest
    from steadyfs.workloads import WorkloadError

    try:
        if args.list:
            print(list_workloads())
            return 0
        try:
            userprofile.apply(args)
        except userprofile.ProfileFileError as e:
            return _fail(f"--profile-file {e}")
        if not args.device or not args.workload:
            return _fail("--device (or --profile-file) and --workload are required (see --list)")
        rates = parse_rates(args.rate)
        ram = [parse_size(b) for b in args.ram.split(",") if b.strip()] if args.ram else None
        params: dict[str, str] = {}
        for kv in args.param:
            if "=" not in kv:
                return _fail(f"--param {kv!r}: expected KEY=VALUE")
            k, v = kv.split("=", 1)
            params[k.strip()] = v.strip()
        if args.device == "all":
            if args.slowest:
                return _fail("--slowest explains one run: give one --device, not all")
            return _run_all(args, rates, ram, params)
        res = run_bench(args.device, args.workload, fs=args.fs, timing=args.timing, seed=args.seed,
                        rates=rates, ram=ram, fill_fraction=args.fill, fill_device=args.fill_device,
                        scale=args.scale,
                        blocks=args.blocks, params=params, allow_write=args.allow_write,
                        progress=not args.json, slowest=args.slowest)
    except NativeLibraryMissing as e:
        return _fail(str(e))
    except (BenchError, WorkloadError, FsError, DeviceError, ValueError) as e:
        return _fail(str(e))
    index = None
    if args.out is not None:
        index = write_outputs(args.out, res, rates, "steady bench " + " ".join(sys.argv[2:]))
        res.summary["report"] = str(index)
    if args.json:
        print(json.dumps(res.summary, indent=1, allow_nan=False))
    else:
        print(format_table([res.summary]))
        for n in res.notes:
            print(f"note: {n}")
        s = res.summary
        if "sweet_spot_bytes" in s:
            print(f"sweet spot: latency flat up to {s['sweet_spot_bytes']} B; "
                  f"best per-byte efficiency from {s.get('sweet_spot_efficiency_bytes')} B")
        if "slowest" in s:
            print(format_slowest(s["slowest"]))
        if index is not None:
            print(f"report: {index}")
    return 0
