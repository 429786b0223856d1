#!/usr/bin/env python3
"""Issue 5's benchmark matrix: one file system, every device, workload and fill.

    .venv/bin/python scripts/bench-matrix.py [--fs steadyfs] [--devices a,b] [--workloads a,b]
                                             [--fills 0.25,0.75,0.90] [--param KEY=VALUE ...]
                                             [--json OUT]

Each cell is `steady bench --device D --workload W --fs FS --fill F` (typical
timing, seed 1, full-size workloads unless --param says otherwise).  Prints
the summary table, then the p99 and mean latencies, the fill as a fraction
of the raw device, and every failed run with its error -- a failure is a
result, never skipped.  With --json, writes every summary (and error) to OUT.
Wall time: ~1 min for steadyfs on the default matrix; littlefs takes far
longer (its 75 % random-write runs alone take minutes).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from steadyfs.benchrun import run_bench  # noqa: E402
from steadyfs.report import format_table, render_table  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--fs", default="steadyfs")
    ap.add_argument("--devices", default="mt29f1g01,em064lx,mt25q128")
    ap.add_argument("--workloads", default="log4k,seed000-random4k")
    ap.add_argument("--fills", default="0.25,0.75,0.90")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    params = dict(kv.split("=", 1) for kv in a.param)
    ok: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for dev in a.devices.split(","):
        for w in a.workloads.split(","):
            for fill in (float(f) for f in a.fills.split(",")):
                try:
                    res = run_bench(dev, w, fs=a.fs, fill_fraction=fill, params=params, seed=1)
                except Exception as e:  # a failed cell is reported, not hidden
                    failed.append({"device": dev, "workload": w, "fill": fill, "error": f"{type(e).__name__}: {e}"})
                    print(f"FAILED {dev} {w} fill {fill}: {e}", file=sys.stderr, flush=True)
                    continue
                s = res.summary
                s["fs"] = f"{a.fs} {fill:.0%}"
                ok.append(s)
                print(f"done {dev} {w} fill {fill} ({res.wall_s:.0f} s)", file=sys.stderr, flush=True)
    print(format_table(ok))
    rows = [[str(s["device"]), str(s["fs"]), str(s["workload"]),
             f"{s['latency_us']['p99'] / 1e3:.2f}", f"{s['latency_us']['mean'] / 1e3:.2f}",
             f"{s['fill']['fraction_of_device']:.0%}", ", ".join(s.get("notes", [])) or "-"] for s in ok]
    print()
    print(render_table(["Device", "FS", "Workload", "p99 (ms)", "mean (ms)", "fill of device", "notes"], rows,
                       [False, False, False, True, True, True, False]))
    for f in failed:
        print(f"FAILED: {f['device']} {f['workload']} fill {f['fill']}: {f['error']}")
    if a.json:
        a.json.write_text(json.dumps({"runs": ok, "failed": failed}, indent=1, allow_nan=False) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
