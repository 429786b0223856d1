#!/usr/bin/env python3
"""Issue 5's benchmark matrix: one file system, every device, workload and fill.

    .venv/bin/python scripts/bench-matrix.py [--fs steadyfs] [--devices a,b] [--workloads a,b]
                                             [--fills 0.25,0.75,0.90] [--param KEY=VALUE ...]
                                             [--seeds 1,2,...] [--json OUT]

Each cell is `steady bench --device D --workload W --fs FS --fill F --seed S`
(typical timing, seed 1 unless --seeds, full-size workloads unless --param
says otherwise).  With several seeds, a last table gives each device,
workload and fill's range over them (a target met on one seed is not met).  Prints
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


def seed_ranges(runs: list[dict[str, Any]]) -> str:
    """One row per device, workload and fill: min-max over the seeds run."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for s in runs:
        groups.setdefault((str(s["device"]), str(s["workload"]), str(s["fs"])), []).append(s)

    def span(vals: list[float], fmt: str) -> str:
        return f"{fmt.format(min(vals))}-{fmt.format(max(vals))}"

    rows = []
    for (dev, w, fs), ss in groups.items():
        buf = [[float(s["peak_buffer_bytes"].get(str(r), float("nan"))) for s in ss]
               for r in (1000000, 2000000, 4000000)]
        rows.append([dev, w, fs, str(len(ss)),
                     span([s["max_latency_us"] / 1e3 for s in ss], "{:.2f}"),
                     span([s["avg_throughput_kBps"] for s in ss], "{:.0f}"),
                     span(buf[0], "{:.0f}"), span(buf[1], "{:.0f}"), span(buf[2], "{:.0f}")])
    return render_table(["Device", "Workload", "FS", "seeds", "max (ms)", "avg (kB/s)",
                         "buf@1M (B)", "buf@2M (B)", "buf@4M (B)"], rows,
                        [False, False, False, True, True, True, True, True, True])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--fs", default="steadyfs")
    ap.add_argument("--devices", default="mt29f1g01,em064lx,mt25q128")
    ap.add_argument("--workloads", default="log4k,seed000-random4k")
    ap.add_argument("--fills", default="0.25,0.75,0.90")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--seeds", default="1", help="bench seeds, comma-separated (e.g. 1,2,3)")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    params = dict(kv.split("=", 1) for kv in a.param)
    ok: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    try:
        seeds = [int(x) for x in a.seeds.split(",")]
    except ValueError:
        print(f"bench-matrix: --seeds takes whole numbers separated by commas, not {a.seeds!r}",
              file=sys.stderr)
        return 2
    for dev in a.devices.split(","):
        for w in a.workloads.split(","):
            for fill in (float(f) for f in a.fills.split(",")):
                for seed in seeds:
                    try:
                        res = run_bench(dev, w, fs=a.fs, fill_fraction=fill, params=params, seed=seed)
                    except Exception as e:  # a failed cell is reported, not hidden
                        failed.append({"device": dev, "workload": w, "fill": fill, "seed": seed,
                                       "error": f"{type(e).__name__}: {e}"})
                        print(f"FAILED {dev} {w} fill {fill} seed {seed}: {e}", file=sys.stderr, flush=True)
                        continue
                    s = res.summary
                    s["fs"] = f"{a.fs} {fill:.0%}"
                    ok.append(s)
                    print(f"done {dev} {w} fill {fill} seed {seed} ({res.wall_s:.0f} s)", file=sys.stderr,
                          flush=True)
    print(format_table(ok))
    rows = [[str(s["device"]), str(s["fs"]), str(s["workload"]),
             f"{s['latency_us']['p99'] / 1e3:.2f}", f"{s['latency_us']['mean'] / 1e3:.2f}",
             f"{s['fill']['fraction_of_device']:.0%}", ", ".join(s.get("notes", [])) or "-"] for s in ok]
    print()
    print(render_table(["Device", "FS", "Workload", "p99 (ms)", "mean (ms)", "fill of device", "notes"], rows,
                       [False, False, False, True, True, True, False]))
    if len(seeds) > 1:
        print()
        print(seed_ranges(ok))
    for f in failed:
        print(f"FAILED: {f['device']} {f['workload']} fill {f['fill']} seed {f['seed']}: {f['error']}")
    if a.json:
        a.json.write_text(json.dumps({"runs": ok, "failed": failed}, indent=1, allow_nan=False) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
