"""Figures of the FSOC reproduction (seed 002): Fig. 7 (model curves with
phases and crossover), Fig. 11(b) (model vs run), Fig. 15 (traffic per
operation), Table 2 (elapsed times) -- and the HTML section of the report."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from steadyfs import fsocmodel as fm
from steadyfs.plots import COLORS, save  # also selects the Agg backend


def _fig7_panel(ax: Axes, p: fm.UnitParams, title: str) -> None:
    p2, p3, x = p.io_conv, p.io_fsoc, fm.crossover(p)
    hi = 2.0 * max(p.io_conv, p.io_fsoc)
    tc = np.linspace(0.0, hi, 400)
    ms = 1e3
    ax.plot(tc * ms, fm.t_conv_serial(p, tc), color=COLORS[0], ls="--", label="Conv, serial (1)")
    ax.plot(tc * ms, fm.t_fsoc_serial(p, tc), color=COLORS[1], ls="--", label="FSOC, serial (2)")
    ax.plot(tc * ms, fm.t_conv_parallel(p, tc), color=COLORS[0], label="Conv, overlapped (3)")
    ax.plot(tc * ms, fm.t_fsoc_parallel(p, tc), color=COLORS[1], label="FSOC, overlapped (4)")
    ax.axvspan(p2 * ms, p3 * ms, color="0.85", alpha=0.5, lw=0)
    if x is not None:
        ax.axvline(x * ms, color="k", lw=0.8, ls=":")
        ax.annotate(f"crossover\n{x * ms:.2f} ms", (x * ms, float(fm.t_conv_parallel(p, x))),
                    xytext=(8, -30), textcoords="offset points", fontsize=8,
                    arrowprops={"arrowstyle": "->", "lw": 0.6})
    ymax = float(fm.t_fsoc_serial(p, hi))
    for lab, xa, xb in (("(1)", 0.0, p2), ("(2)", p2, p3), ("(3)", p3, hi)):
        ax.text((xa + xb) / 2 * ms, ymax * 0.97, lab, ha="center", va="top", fontsize=9)
    ax.set_xlabel("Tcomp: computation per 4 KB unit (ms)")
    ax.set_ylabel("application run time (s)")
    ax.set_title(title)
    ax.set_ylim(0, ymax * 1.02)
    ax.legend(fontsize=7, loc="lower right")


def plot_fig7(r: dict[str, Any]) -> Figure:
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    paper = fm.UnitParams(**r["unit_params_paper"])
    meas = fm.UnitParams(**r["unit_params_measured"])
    _fig7_panel(axes[0], paper, "Fig. 7 with the paper's parameters (N = 256)")
    _fig7_panel(axes[1], meas, "Fig. 7 with steadyfs parameters (measured)")
    v = r["validation"]
    tc = np.asarray(v["t_comp_s"]) * 1e3
    ax = axes[2]
    for side, col in (("conv", COLORS[0]), ("fsoc", COLORS[1])):
        ax.plot(tc, v[side]["model_s"], color=col, label=f"{side} model (eq. {3 if side == 'conv' else 4})")
        ax.plot(tc, v[side]["run_s"], color=col, ls="none", marker="o", ms=3, label=f"{side} run")
    ax.set_xlabel("Tcomp (ms)")
    ax.set_ylabel("application run time (s)")
    ax.set_title(f"Fig. 11(b): model vs run, worst error {v['max_abs_error'] * 100:.2f} %")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def plot_fig15(r: dict[str, Any]) -> Figure:
    rows = r["fig15"]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.2))
    x = np.arange(len(rows))
    lean = bool(r.get("lean_client"))
    w = 0.27 if lean else 0.4
    a1.bar(x - w, [q["conv_bytes"] for q in rows], w, color=COLORS[0], label="conventional (blocks)")
    a1.bar(x, [q["fsoc_bytes"] for q in rows], w, color=COLORS[1], label="FSOC, v9fs-like client")
    if lean:
        a1.bar(x + w, [q["lean_fsoc_bytes"] for q in rows], w, color=COLORS[3], label="FSOC, lean client")
    a1.set_yscale("log")
    a1.set_xticks(x, [q["op"] for q in rows])
    a1.set_ylabel("bytes on the host link (both ways)")
    a1.set_title("Traffic per operation")
    a1.legend(fontsize=8)
    a2.bar(x - (0.2 if lean else 0), [100 * q["ratio"] for q in rows], 0.4 if lean else 0.8,
           color=COLORS[1], zorder=2, label="v9fs-like client")
    if lean:
        a2.bar(x + 0.2, [100 * q["lean_ratio"] for q in rows], 0.4, color=COLORS[3], zorder=2,
               label="lean client")
    lo, hi = fm.PAPER_FIG15_RATIO
    nmeta = sum(q["op"] in fm.REPEATED for q in rows)
    a2.fill_between([-0.5, nmeta - 0.5], 100 * lo, 100 * hi, color="0.85", lw=0, zorder=1,
                    label="paper: metadata ops 5-30 %")
    for i, q in enumerate(rows):
        a2.text(i - (0.2 if lean else 0), 100 * q["ratio"] + 2, f"{100 * q['ratio']:.1f}", ha="center",
                fontsize=7)
        if lean:
            a2.text(i + 0.2, 100 * q["lean_ratio"] + 2, f"{100 * q['lean_ratio']:.1f}", ha="center", fontsize=7)
    a2.set_xticks(x, [q["op"] for q in rows])
    a2.set_ylabel("FSOC / conventional (%)")
    a2.set_title("Fig. 15: FSOC traffic relative to conventional")
    a2.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def plot_table2(r: dict[str, Any]) -> Figure:
    rows = r["table2"]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    x = np.arange(len(rows))
    series = [("conv_run_s", COLORS[0], "Conv run"), ("conv_model_s", "#9ecae1", "Conv model"),
              ("fsoc_run_s", COLORS[1], "FSOC (v9fs) run"), ("fsoc_model_s", "#fc9272", "FSOC (v9fs) model")]
    if r.get("lean_client"):
        series += [("lean_fsoc_run_s", COLORS[3], "FSOC (lean) run"),
                   ("lean_fsoc_model_s", "#fdd0a2", "FSOC (lean) model")]
    w = 0.8 / len(series)
    for k, (key, col, lab) in enumerate(series):
        ax.bar(x + (k - (len(series) - 1) / 2) * w, [q[key] for q in rows], w, color=col, label=lab)
    ax.set_xticks(x, [q["workload"] for q in rows])
    ax.set_ylabel("elapsed time (s)")
    ax.set_title("Table 2: elapsed time, serial I/O")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def write_plots(r: dict[str, Any], out_dir: Path) -> dict[str, list[Path]]:
    return {"fig7": save(plot_fig7(r), out_dir, "fsoc-fig7"),
            "fig15": save(plot_fig15(r), out_dir, "fsoc-fig15"),
            "table2": save(plot_table2(r), out_dir, "fsoc-table2")}


def _table(headers: list[str], rows: list[list[str]]) -> str:
    h = "".join(f"<th>{html.escape(c)}</th>" for c in headers)
    b = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{h}</tr>{b}</table>"


def fig15_head(r: dict[str, Any]) -> list[str]:
    h = ["operation", "conv bytes", "block requests", "FSOC bytes", "9P round trips", "FSOC/conv"]
    return h + (["lean bytes", "lean trips", "lean/conv"] if r.get("lean_client") else [])


def fig15_rows(r: dict[str, Any]) -> list[list[str]]:
    rows = []
    for q in r["fig15"]:
        row = [q["op"], f"{q['conv_bytes']:.0f}", f"{q['conv_requests']:.1f}", f"{q['fsoc_bytes']:.0f}",
               f"{q['fsoc_messages']:.0f}", f"{100 * q['ratio']:.1f} %"]
        if r.get("lean_client"):
            row += [f"{q['lean_fsoc_bytes']:.0f}", f"{q['lean_fsoc_messages']:.0f}",
                    f"{100 * q['lean_ratio']:.1f} %"]
        rows.append(row)
    return rows


def table2_head(r: dict[str, Any]) -> list[str]:
    h = ["workload", "conv run (ms)", "conv model (ms)", "FSOC run (ms)", "FSOC model (ms)", "FSOC/conv"]
    return h + (["lean run (ms)", "lean model (ms)", "lean/conv"] if r.get("lean_client") else []) \
        + ["paper FSOC/conv"]


def table2_rows(r: dict[str, Any]) -> list[list[str]]:
    rows = []
    for q in r["table2"]:
        row = [q["workload"], f"{q['conv_run_s'] * 1e3:.0f}", f"{q['conv_model_s'] * 1e3:.0f} "
               f"({q['conv_error'] * 100:+.1f} %)", f"{q['fsoc_run_s'] * 1e3:.0f}",
               f"{q['fsoc_model_s'] * 1e3:.0f} ({q['fsoc_error'] * 100:+.1f} %)",
               f"{q['fsoc_over_conv']:.2f}"]
        if r.get("lean_client"):
            row += [f"{q['lean_fsoc_run_s'] * 1e3:.0f}",
                    f"{q['lean_fsoc_model_s'] * 1e3:.0f} ({q['lean_fsoc_error'] * 100:+.1f} %)",
                    f"{q['lean_fsoc_over_conv']:.2f}"]
        rows.append(row + [f"{q['paper_fsoc_over_conv']:.2f}"])
    return rows


def html_section(r: dict[str, Any], out_dir: Path, plots_rel: str = "plots") -> str:
    """The report's FSOC section (figures written into out_dir/plots_rel)."""
    paths = write_plots(r, out_dir / plots_rel)
    figs = []
    caps = {"fig7": "Model, eqs. (1)-(4): run time vs computation per unit, phases (shaded: phase 2) "
                    "and crossover; right: eqs. (3)/(4) against the replayed run of the real file system",
            "fig15": "Bytes crossing the host link per operation, conventional vs FSOC",
            "table2": "Elapsed times on the modelled link: run vs model"}
    for k, ps in paths.items():
        png = [p for p in ps if p.suffix == ".png"][0]
        figs.append(f"<figure><a href='{plots_rel}/{png.name}'><img src='{plots_rel}/{png.name}' "
                    f"alt='{k}'></a><figcaption>{html.escape(caps[k])} (<a href='{plots_rel}/"
                    f"{png.stem}.svg'>SVG</a>)</figcaption></figure>")
    ph = r["phases_measured"]
    cross = "never" if ph["crossover"] is None else f"{ph['crossover'] * 1e3:.2f} ms"
    params = r["parameters"]
    plist = "".join(f"<li><b>{html.escape(k)}</b> = {v['value']:.4g} {html.escape(v['unit'])} "
                    f"[{html.escape(v['source'])}]: {html.escape(v['how'])}</li>"
                    for k, v in params.items() if k != "media")
    return (
        "<h2 id='fsoc'>Seed 002: File System On Chip, the paper's experiments</h2>"
        f"<p>steadyfs on a simulated {html.escape(str(r['setup']['device']))} "
        f"({r['setup']['blocks']} blocks), host link {params['link_Bps']['value'] / 1e3:.0f} kB/s, "
        f"9P msize {r['setup']['msize']}, application unit {r['setup']['unit']} B; 9P server: "
        f"{html.escape(r['backend'])}. Crossover (eqs. 3/4, measured parameters): "
        f"{cross} of computation per 4 KB unit "
        f"(phase 2 from {ph['phase2_from'] * 1e3:.2f} ms, phase 3 from {ph['phase3_from'] * 1e3:.2f} ms). "
        "docs/FSOC-MODEL.md explains the model.</p>"
        "<h3>Traffic per operation (Fig. 15)</h3>" + _table(fig15_head(r), fig15_rows(r)) +
        "<p>FSOC: the messages a Linux v9fs client sends; lean: one round trip per step, like "
        "the paper's stub.</p>"
        "<h3>Elapsed time (Table 2)</h3>" + _table(table2_head(r), table2_rows(r)) +
        f"<p>Model vs run for overlapped reads (Fig. 11(b)): worst error "
        f"{r['validation']['max_abs_error'] * 100:.2f} %.</p>"
        f"<h3>Parameters</h3><ul>{plist}</ul><div class='side'>" + "".join(figs) + "</div>")
