#!/usr/bin/env python3
"""Issue 16 item 2: steadyfs's erase unit on the MT25Q NOR, measured.

    .venv/bin/python scripts/nor-units.py [--seeds 1,2,3] [--workloads log4k,seed000-random4k]
                                          [--timing typical] [--rates 10k,50k,100k,150k]
                                          [--json OUT]

Each option is one format of steadyfs on mt25q128 (erase_mult = device
4 KiB blocks per erase unit) and the erase command that clears a unit:

* 64 KiB units, one 64 KiB sector erase (the default: erase_mult 16);
* 32 KiB units, one 32 KiB subsector erase (erase_mult 8);
* 32 KiB units, eight 4 KiB subsector erases: the same format on a copy of
  the profile without the 32 KiB command (``mt25q128-4k``, registered here
  from `steady devices --json` with mid_erase_blocks 0), what the part does
  when the driver only issues 4 KiB erases;
* 16 KiB units, four 4 KiB subsector erases (erase_mult 4: P = 8, the
  smallest unit the format takes with 2 KiB sectors).

For each: `steady bench --device D --workload W --fs steadyfs --fill 0.75
--seed S --param fs.erase_mult=M --rate R` on every seed (mean and range of
the average throughput, max latency and buffers), the stated worst case of
a 4 KiB write + sync (`steady bound --device D --timing T --param
erase_mult=M`) and the proven rate (`steady plan --device D --timing T
--param erase_mult=M`).  Then the raw device without a file system: the raw
log analogue (`--workload seed003-sweep --param sizes=4KiB --param
reads=false`, 64 KiB sector erases, and with big_erase=false, 4 KiB ones)
and `--workload seed000-random4k --fs raw`.  Virtual time only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from steadyfs import native, userprofile  # noqa: E402
from steadyfs.benchrun import run_bench  # noqa: E402
from steadyfs.cmd_bound import bound_ops, bounds_us  # noqa: E402
from steadyfs.cmd_plan import guarantee  # noqa: E402
from steadyfs.report import render_table  # noqa: E402
from steadyfs.units import parse_rate  # noqa: E402

NO_MID = "mt25q128-4k"
# (label, device, erase_mult)
OPTIONS: list[tuple[str, str, int]] = [
    ("64 KiB units, one 64 KiB erase (default)", "mt25q128", 16),
    ("32 KiB units, one 32 KiB erase", "mt25q128", 8),
    ("32 KiB units, eight 4 KiB erases", NO_MID, 8),
    ("16 KiB units, four 4 KiB erases", "mt25q128", 4),
]


def register_no_mid() -> None:
    """mt25q128 without its 32 KiB subsector erase command."""
    base = next(p for p in native.profiles() if p["name"] == "mt25q128")
    spec = {k: v for k, v in base.items() if k != "op_cost"}
    spec["name"] = NO_MID
    spec["geometry"] = {k: v for k, v in base["geometry"].items()
                        if k not in ("block_size", "capacity_bytes")}
    spec["geometry"]["mid_erase_blocks"] = 0
    spec["times"] = {k: v for k, v in base["times"].items() if k != "erase_mid"}
    spec["bus"] = {k: v for k, v in base["bus"].items() if k != "data_bytes_per_s"}
    spec["notes"] = ["mt25q128 with no 32 KiB subsector erase (scripts/nor-units.py)"]
    userprofile.register(spec)


def span(vals: list[float], fmt: str) -> str:
    lo, hi = min(vals), max(vals)
    mean = statistics.fmean(vals)
    return fmt.format(mean) if lo == hi else f"{fmt.format(mean)} ({fmt.format(lo)}-{fmt.format(hi)})"


def buf_cell(runs: list[dict[str, Any]], rate: float) -> str:
    key = str(int(rate)) if float(rate).is_integer() else str(rate)
    vals = [float(s["peak_buffer_bytes"][key]) for s in runs]
    unb = sum(1 for s in runs if key in s.get("unbounded_rates", []))
    if unb == len(runs):
        return "unbounded"
    hi = max(v for v, s in zip(vals, runs) if key not in s.get("unbounded_rates", []))
    cell = f"{hi / 1024:.1f} KiB" if hi else "0"
    return cell + (f" ({unb} of {len(runs)} seeds unbounded)" if unb else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--workloads", default="log4k,seed000-random4k")
    ap.add_argument("--timing", default="typical", choices=("typical", "tail", "worst"))
    ap.add_argument("--rates", default="10k,50k,100k,150k")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    seeds = [int(x) for x in a.seeds.split(",")]
    rates = [parse_rate(r) for r in a.rates.split(",")]
    register_no_mid()
    out: dict[str, Any] = {"seeds": seeds, "timing": a.timing, "rates_Bps": rates,
                           "options": [], "raw": []}
    head = ["option", "workload", "avg kB/s", "max ms", "p99.9 ms"] + \
        [f"buf @{r / 1000:g} kB/s" for r in rates]
    rows: list[list[str]] = []
    for label, dev, mult in OPTIONS:
        opt: dict[str, Any] = {"label": label, "device": dev, "erase_mult": mult, "runs": {}}
        for w in a.workloads.split(","):
            runs = []
            for seed in seeds:
                res = run_bench(dev, w, fs="steadyfs", timing=a.timing, seed=seed, rates=rates,
                                fill_fraction=0.75, params={"fs.erase_mult": str(mult)})
                runs.append(res.summary)
                print(f"done {label} {w} seed {seed} ({res.wall_s:.0f} s)", file=sys.stderr,
                      flush=True)
            opt["runs"][w] = runs
            rows.append([label, w, span([s["avg_throughput_kBps"] for s in runs], "{:.1f}"),
                         span([s["max_latency_us"] / 1e3 for s in runs], "{:.0f}"),
                         span([s["latency_us"]["p99.9"] / 1e3 for s in runs], "{:.0f}")] +
                        [buf_cell(runs, r) for r in rates])
        fmt = {"sector_size": 0, "erase_mult": mult}
        for timing in ("typical", "worst"):
            b = bounds_us(dev, timing, fmt)["write_4096_sync"]
            g = guarantee(dev, 4096, timing, 0.75, fmt)
            opt[f"bound_{timing}"] = {"write_4096_sync_ms": b / 1e3, "c_ms": g.c_s * 1e3,
                                      "max_rate_Bps": g.max_rate}
        opt["bound_ops"] = bound_ops(dev, fmt)["write_4096_sync"]
        out["options"].append(opt)
    print(f"steadyfs on mt25q128, 75 % full, {a.timing} timing, seeds {a.seeds} "
          "(mean (min-max); buffers: the largest over the seeds)")
    print(render_table(head, rows, [False, False] + [True] * (len(head) - 2)))
    print()
    brows = []
    for opt in out["options"]:
        o = opt["bound_ops"]
        brows.append([opt["label"], f"{o['erases']}", f"{o['progs']}",
                      f"{opt['bound_typical']['write_4096_sync_ms']:.0f}",
                      f"{opt['bound_worst']['write_4096_sync_ms']:.0f}",
                      f"{opt['bound_typical']['max_rate_Bps']:.0f}",
                      f"{opt['bound_worst']['max_rate_Bps']:.0f}"])
    print("stated 4 KiB write + sync (steady bound) and proven rate (steady plan), fill limit 75 %")
    print(render_table(["option", "erases", "programs", "bound typ ms", "bound worst ms",
                        "proven B/s typ", "proven B/s worst"], brows,
                       [False] + [True] * 6))
    print()
    raw_jobs = [("raw log, 64 KiB sector erases", "seed003-sweep",
                 {"sizes": "4KiB", "reads": "false"}),
                ("raw log, 4 KiB subsector erases", "seed003-sweep",
                 {"sizes": "4KiB", "reads": "false", "big_erase": "false"}),
                ("raw random 4 KiB (erase on rewrite)", "seed000-random4k", {})]
    rrows = []
    for label, w, params in raw_jobs:
        runs = []
        for seed in seeds:
            res = run_bench("mt25q128", w, fs="raw", timing=a.timing, seed=seed, rates=rates,
                            params=params)
            runs.append(res.summary)
        out["raw"].append({"label": label, "workload": w, "params": params, "runs": runs})
        rrows.append([label, span([s["avg_throughput_kBps"] for s in runs], "{:.1f}"),
                      span([s["max_latency_us"] / 1e3 for s in runs], "{:.0f}")] +
                     [buf_cell(runs, r) for r in rates])
    print(f"the raw mt25q128, no file system, {a.timing} timing")
    print(render_table(["raw", "avg kB/s", "max ms"] + head[5:], rrows,
                       [False] + [True] * (len(head) - 3)))
    if a.json:
        a.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
