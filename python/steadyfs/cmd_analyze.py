"""`steady analyze`: latency and real-time buffer analysis of recorded traces.

    steady analyze TRACE... [--rate 100k,500k,1M,2M] [--ram 8KiB] [--json] [--out DIR]

TRACE is a steadyfs trace file or a CSV (see docs/TRACE-FORMAT.md).  Prints
the seed 001-style table (or JSON, docs/BENCH-JSON.md); ``--out`` also
writes plots (PNG + SVG), summary.json and an HTML report into DIR.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from steadyfs.analysis import summarize
from steadyfs.progress import Progress
from steadyfs.trace import Trace, TraceFormatError, load_trace, parse_op
from steadyfs.units import parse_rates, parse_size


def register(sub: Any) -> None:
    p = sub.add_parser(
        "analyze", help="analyse access traces: latency, throughput, RAM for an input rate",
        description="Latency percentiles, average and guaranteed throughput, and the peak buffer "
                    "needed for fixed input rates with no data loss (B_k = max(0, B_k-1 + d_k*w - S)), "
                    "for steadyfs trace files or CSV traces (columns duration_us, bytes; optional "
                    "start_us, op, index).")
    p.add_argument("traces", nargs="+", metavar="TRACE", help="trace file (.trace) or CSV")
    p.add_argument("--rate", default="100k,500k,1M,2M,4M",
                   help="input rates in bytes/s, comma-separated; k=1000, M=10^6 "
                        "(default 100k,500k,1M,2M,4M)")
    p.add_argument("--ram", default=None,
                   help="RAM budget(s), comma-separated (e.g. 8KiB, 8k = 8000): report the largest "
                        "input rate each sustains with no loss")
    p.add_argument("--ops", default=None,
                   help="analyse only these operations, e.g. write or write,erase (default: all)")
    p.add_argument("--json", action="store_true", help='print JSON {"runs": [summary, ...]}')
    p.add_argument("--plus-block", action="store_true",
                   help="table shows peak buffer including the block being written")
    p.add_argument("--out", type=Path, default=None,
                   help="write plots, summary.json and index.html into this directory")
    p.add_argument("--convert", type=Path, default=None, metavar="FILE",
                   help="also write the (single) trace to FILE: CSV if it ends in .csv, else binary")
    p.set_defaults(func=run)


def _fail(msg: str) -> int:
    print(f"steady analyze: error: {msg}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from steadyfs.report import Run, format_table, write_report

    try:
        rates = parse_rates(args.rate)
        budgets = [parse_size(b) for b in args.ram.split(",") if b.strip()] if args.ram else None
        ops = [parse_op(o) for o in args.ops.split(",") if o.strip()] if args.ops else None
    except ValueError as e:
        return _fail(str(e))
    if args.convert is not None and len(args.traces) != 1:
        return _fail("--convert needs exactly one trace")

    runs: list[Run] = []
    steps = len(args.traces) * (2 + (1 if args.out else 0))
    with Progress(steps, "analyze") as bar:
        for path in args.traces:
            bar.set(bar.done, f"load {Path(path).name}")
            try:
                tr: Trace = load_trace(path)
            except (OSError, TraceFormatError) as e:
                return _fail(str(e))
            if not tr.metadata.get("workload"):
                tr.metadata.setdefault("workload", Path(path).stem)
            bar.update()
            bar.set(bar.done, f"analyze {Path(path).name}")
            try:
                s = summarize(tr, rates, ram_bytes=budgets, ops=ops)
            except ValueError as e:
                return _fail(f"{path}: {e}")
            s["trace_file"] = str(path)
            bar.update()
            runs.append(Run(summary=s, trace=tr.select(ops) if ops else tr))
            if args.convert is not None:
                try:
                    if args.convert.suffix.lower() == ".csv":
                        tr.to_csv(args.convert)
                    else:
                        tr.save(args.convert)
                except (OSError, ValueError) as e:
                    return _fail(f"cannot write {args.convert}: {e}")
        if args.out is not None:
            bar.set(bar.done, "plots")
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "summary.json").write_text(
                json.dumps({"runs": [r.summary for r in runs]}, indent=1, allow_nan=False) + "\n")
            write_report(args.out, runs, title="steady analyze",
                         parameters={"traces": ", ".join(args.traces), "rates (B/s)": args.rate,
                                     "RAM budgets": args.ram or "-", "ops": args.ops or "all"},
                         rates_Bps=rates)
            bar.update(len(args.traces))

    summaries = [r.summary for r in runs]
    if args.json:
        print(json.dumps({"runs": summaries}, indent=1, allow_nan=False))
    else:
        print(format_table(summaries, plus_block=args.plus_block))
        if args.out is not None:
            print(f"report: {args.out / 'index.html'}")
    return 0
