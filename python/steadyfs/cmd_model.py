"""`steady model`: the FSOC performance model (seed 002 §4, eqs. (1)-(4))
with parameters measured on steadyfs, and the paper's experiments
reproduced: traffic per operation (Fig. 15), elapsed times (Table 2),
model vs run (Fig. 11(b)), the run-time curves with phases and crossover
(Fig. 7).

It runs build/steady-fsocexp, which performs the operations twice on
identical simulated devices: conventional (the host runs steadyfs over a
block link) and FSOC (9P2000.L messages to the server in the device).
Parameter sources (printed with --json and below): link rate, driver and
stub costs, CPU clocks from the paper; command bytes from the NAND
datasheet; media times from the device model's virtual clock; file-system
CPU time measured natively here and scaled to the paper's host/device.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from steadyfs import fsocmodel as fm


def costs_from_args(a: argparse.Namespace) -> fm.Costs:
    return fm.Costs(link_Bps=a.link_rate, t_driver=a.t_driver_ms * 1e-3, t_stub=a.t_stub_ms * 1e-3,
                    cmd_bytes=a.cmd_bytes, host_mhz=a.host_mhz, device_mhz=a.device_mhz,
                    fs_host_ref=a.fs_host_ref_ms * 1e-3, host_scale=a.host_scale)


def compute(a: argparse.Namespace) -> dict[str, Any]:
    """Measure (both 9P clients unless --client says one) and model."""
    kw: dict[str, Any] = {"device": a.device, "blocks": a.blocks, "msize": a.msize, "unit": a.unit,
                          "reps": a.reps}
    m = fm.measure(client="lean" if a.client == "lean" else "v9fs", **kw)
    lean = fm.measure(client="lean", **kw) if a.client == "both" else None
    return fm.report(m, costs_from_args(a), lean)


def _ms(v: float | None, digits: int) -> str:
    return "never" if v is None else f"{v * 1e3:.{digits}f} ms"


def text(r: dict[str, Any]) -> str:
    from steadyfs.fsocplots import fig15_head, fig15_rows, table2_head, table2_rows
    from steadyfs.report import render_table

    out = [f"steady model: steadyfs on {r['setup']['device']}, 9P server: {r['backend']}, client: "
           f"{r['client']}" + (" (and lean)" if r["lean_client"] else ""), "",
           "parameters:"]
    for k, v in r["parameters"].items():
        out.append(f"  {k:11s} {v['value']:<10.4g} {v['unit']:24s} [{v['source']}] {v['how']}")
    out.append(f"  device CPU scale {r['device_scale']:.4g} modelled s per native s")
    for name in ("paper", "measured"):
        p = r[f"unit_params_{name}"]
        ph = r[f"phases_{name}"]
        out += ["", f"eqs. (1)-(4), {name} parameters (per 4 KB unit, ms): "
                + ", ".join(f"{k}={v * 1e3:.3f}" for k, v in p.items() if k != "n") + f", N={p['n']}",
                f"  phase (2) from Tcomp = {ph['phase2_from'] * 1e3:.3f} ms, crossover at "
                f"{_ms(ph['crossover'], 3)}, phase (3) from {ph['phase3_from'] * 1e3:.3f} ms"]
    out += ["", "Fig. 15, traffic per operation (bytes both ways; conv includes "
            f"{int(r['parameters']['cmd_bytes']['value'])} command bytes per request):",
            render_table(fig15_head(r), fig15_rows(r), right=[False] + [True] * (len(fig15_head(r)) - 1)),
            "", "Table 2, elapsed time, serial I/O (model error vs run in brackets):",
            render_table(table2_head(r), table2_rows(r), right=[False] + [True] * (len(table2_head(r)) - 1)),
            "", "where the run's time goes (ms: file-system CPU / driver or stub code / media / link):"]
    for q in r["table2"]:
        for side in ("conv", "fsoc"):
            b = q[f"{side}_breakdown"]
            out.append(f"  {q['workload']:10s} {side:4s} " + " / ".join(f"{v * 1e3:7.0f}" for v in b.values()))
    out += ["", f"Fig. 11(b), overlapped reads, eqs. (3)/(4) vs run: worst error "
            f"{r['validation']['max_abs_error'] * 100:.2f} %",
            "Fig. 12, crossover vs host clock (device fixed): " + ", ".join(
                f"{x['host_mhz']:.0f} MHz {_ms(x['crossover_s'], 2)}" for x in r["crossover_vs_host_mhz"])]
    return "\n".join(out)


def register(sub: Any) -> None:
    p = sub.add_parser("model", help="FSOC performance model (seed 002) with measured parameters",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d = fm.Costs()
    p.add_argument("--device", default="mt29f1g01", help="device profile (default mt29f1g01)")
    p.add_argument("--blocks", type=int, default=128, help="device blocks (default 128: 16 MiB)")
    p.add_argument("--msize", type=int, default=8192, help="9P msize (default 8192)")
    p.add_argument("--unit", type=int, default=4096, help="application read/write size (default 4096)")
    p.add_argument("--client", choices=("v9fs", "lean", "both"), default="both",
                   help="9P client behaviour: the messages Linux v9fs sends, a lean one (one round "
                        "trip per step, like the paper's stub), or both (default)")
    p.add_argument("--reps", type=int, default=5, help="runs per workload; CPU = min per call (default 5)")
    p.add_argument("--link-rate", type=float, default=d.link_Bps,
                   help="host link, bytes/s [paper §5: 0.7-1 MB/s] (default 1e6)")
    p.add_argument("--t-driver-ms", type=float, default=0.0,
                   help="host driver code per block request, ms (default 0: the paper's Tdriver = "
                        "0.72 ms per 4 KB read [Fig. 11] / block requests per 4 KiB read measured)")
    p.add_argument("--t-stub-ms", type=float, default=0.0,
                   help="host stub code per 9P round trip, ms (default 0: the paper's Tstub = "
                        "0.75 ms per 4 KB read [Fig. 11] / 9P round trips per 4 KiB read measured)")
    p.add_argument("--cmd-bytes", type=int, default=d.cmd_bytes,
                   help="command/address bytes per block request [NAND datasheet] (default 8)")
    p.add_argument("--host-mhz", type=float, default=d.host_mhz, help="host CPU clock [paper: 56]")
    p.add_argument("--device-mhz", type=float, default=d.device_mhz, help="device CPU clock [paper: 24]")
    p.add_argument("--fs-host-ref-ms", type=float, default=d.fs_host_ref * 1e3,
                   help="host file-system time of one 4 KB read that calibrates the host CPU "
                        "[paper Fig. 11: TFS_host = 0.24]")
    p.add_argument("--host-scale", type=float, default=0.0,
                   help="modelled host seconds per native second (0: calibrate from --fs-host-ref-ms)")
    p.add_argument("--out", type=Path, default=None, help="write model.json, plots and model.html here")
    p.add_argument("--json", action="store_true", help="print the JSON instead of the text summary")
    p.set_defaults(func=run)


def run(a: argparse.Namespace) -> int:
    try:
        r = compute(a)
    except (FileNotFoundError, RuntimeError) as e:
        print(f"steady model: {e}", file=sys.stderr)
        return 2
    if a.out:
        from steadyfs.fsocplots import html_section

        a.out.mkdir(parents=True, exist_ok=True)
        (a.out / "model.json").write_text(json.dumps(r, indent=1, allow_nan=False) + "\n")
        body = html_section(r, a.out)
        (a.out / "model.html").write_text(
            "<!doctype html><meta charset='utf-8'><title>steady model</title>"
            "<style>body{font-family:sans-serif;max-width:75em;margin:auto}img{max-width:100%}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}</style>"
            + body + "\n")
    if a.json:
        print(json.dumps(r, indent=1, allow_nan=False))
    else:
        print(text(r))
        if a.out:
            print(f"\nwritten: {a.out}/model.json, model.html, plots/fsoc-*.png|svg")
    return 0
