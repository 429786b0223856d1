"""Plots of traces and analyses (matplotlib, Agg backend; PNG and SVG).

Each ``plot_*`` function returns a matplotlib Figure; :func:`save` writes it
as ``<name>.png`` and ``<name>.svg`` and closes it.  :func:`run_plots` makes
the standard set for one trace.

* :func:`plot_latency`: latency of each access (seed 000 fig. 3/7, seed 001);
* :func:`plot_buffer`: buffered data over the run, one panel per input rate
  (seed 000 figs. 4-6, 8-9);
* :func:`plot_vs_size`: a metric against access size, grouped bars per
  device (seed 003 figs. 1-3);
* :func:`plot_latency_distribution`: histogram and exceedance (1 - CDF).

Traces with more points than fit on a figure are reduced to an envelope per
bin of accesses (the maximum, which keeps every spike, and the median), so a
10-million-access trace plots quickly and its SVG stays small.  Latency axes
turn logarithmic when the values span more than two decades.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from steadyfs.analysis import SizeStats, buffer_series  # noqa: E402
from steadyfs.trace import Trace  # noqa: E402
from steadyfs.units import format_rate  # noqa: E402

F64 = npt.NDArray[np.float64]

#: Most bars/points drawn per series before switching to a binned envelope.
MAX_POINTS = 5000
FORMATS: tuple[str, ...] = ("png", "svg")
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
#: One colour per stack and per device in every plot of a report: a series
#: whose label names one of these (longest name first) gets its colour.
#: Labels naming none take the next palette colour not used in that plot.
STACK_COLORS: dict[str, str] = {
    "steadyfs": "#1f77b4",            # blue
    "littlefs, tuned": "#d62728",     # red
    "littlefs": "#ff7f0e",            # orange (small-RAM configuration)
    "raw": "#2ca02c",                 # green: the device without a file system
    "fat": "#8c564b",                 # brown
    "em064lx": "#9467bd",             # MRAM: purple
    "mt29f1g01": "#17becf",           # NAND: cyan
    "mt25q128": "#e377c2",            # NOR: pink
    "sd-consumer": "#7f7f7f",         # grey
    "sd-industrial": "#bcbd22",       # olive
}
#: further series: dark or muted colours, none close to a stack's
_SPARE = ("#393b79", "#8c6d31", "#7b4173", "#000000", "#6b6ecf", "#b5cf6b", "#843c39", "#637939")
#: Line styles and markers cycled per series so that overlapping curves stay
#: distinguishable without colour.
LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def series_colors(names: Sequence[str]) -> list[str]:
    """A colour per series name: the stack's own colour when the name names a
    stack (else the device's), for the first series that claims it; every
    other series an unused colour that is no stack's or device's -- never the
    same colour twice in one plot."""
    stacks = ("littlefs, tuned", "steadyfs", "littlefs", "raw", "fat")
    devices = sorted((k for k in STACK_COLORS if k not in stacks), key=len, reverse=True)
    out: list[str | None] = []
    for nm in names:
        low = nm.lower()
        key = next((k for k in (*stacks, *devices) if k in low), None)
        c = STACK_COLORS[key] if key else None
        out.append(c if c is not None and c not in out else None)
    reserved = set(STACK_COLORS.values())
    pool = [c for c in dict.fromkeys((*_SPARE, *COLORS)) if c not in reserved]
    done: list[str] = []
    k = 0
    for c in out:
        if c is None:
            c = next((x for x in pool if x not in out and x not in done), None)
            while c is None or c in out or c in done or c in reserved:
                # past the pool: spread hues by the golden ratio
                r, g, b = (float(x) for x in matplotlib.colors.hsv_to_rgb(((k * 0.618034) % 1.0, 0.75, 0.6)))
                c = matplotlib.colors.to_hex((r, g, b))
                k += 1
        done.append(c)
    return done


def human(v: float) -> str:
    """A number for people: 39380 -> '39,380', 152.4 -> '152', 3.14159 -> '3.14',
    0.000123 -> '0.000123' (never an exponent)."""
    if not np.isfinite(v):
        return ""
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 1 or a == 0:
        return f"{v:.3g}"
    digits = max(3, int(-np.floor(np.log10(a))) + 2)
    return f"{v:.{digits}f}".rstrip("0").rstrip(".")


def _human_axis(ax: Axes, which: str = "y") -> None:
    """Tick labels through human() (log axes otherwise print 10^4 or 1e+04)."""
    f = FuncFormatter(lambda v, _: human(v))
    axis = ax.yaxis if which == "y" else ax.xaxis
    axis.set_major_formatter(f)
    axis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def _legend_below(ax: Axes, n: int, below: float = 0.16) -> None:
    """The legend under the axes and their x label, off the data (``below``:
    axes fractions down to its top edge; two-line tick labels need more)."""
    if n:
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -below),
                  ncol=min(2, n), frameon=False)

plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 110, "font.size": 10,
                     "axes.grid": True, "grid.alpha": 0.3, "axes.titlesize": 11})


def trace_title(trace: Trace) -> str:
    """``device / fs / workload (timing)`` from the trace metadata."""
    timing = trace.metadata.get("timing")
    return trace.label + (f" ({timing} timing)" if timing else "")


def save(fig: Figure, out_dir: Path | str, name: str,
         formats: Sequence[str] = FORMATS) -> list[Path]:
    """Write ``fig`` as ``out_dir/name.<fmt>`` for each format; close it; return the paths."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        p = d / f"{name}.{fmt}"
        fig.savefig(p, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths


def _envelope(y: F64, max_points: int = MAX_POINTS) -> tuple[F64, F64, F64 | None]:
    """(x, max, median) per bin of consecutive points; median None if unbinned."""
    n = len(y)
    if n <= max_points:
        return np.arange(n, dtype=np.float64), y, None
    b = -(-n // max_points)
    m = n // b * b
    body = y[:m].reshape(-1, b)
    mx = body.max(axis=1)
    med = np.median(body, axis=1)
    if m < n:
        mx = np.append(mx, y[m:].max())
        med = np.append(med, np.median(y[m:]))
    x = np.arange(len(mx), dtype=np.float64) * b + (b - 1) / 2
    return x, mx, med


def _time_unit(max_ns: float) -> tuple[float, str]:
    if max_ns >= 1e9 * 10:
        return 1e9, "s"
    if max_ns >= 1e6:
        return 1e6, "ms"
    return 1e3, "µs"


def _spans_decades(y: F64, decades: float = 2.0) -> bool:
    pos = y[y > 0]
    return bool(len(pos) and pos.max() / max(pos.min(), 1e-300) > 10**decades)


def _count_axis(ax: Axes) -> None:
    """Access numbers as 0, 500k, 1M rather than an offset exponent."""
    def fmt(v: float, _: object) -> str:
        for div, pre in ((1e6, "M"), (1e3, "k")):
            if abs(v) >= div:
                return f"{v / div:g}{pre}"
        return f"{v:g}"
    ax.xaxis.set_major_formatter(FuncFormatter(fmt))


def _bars(ax: Axes, y: F64, color: str, label: str) -> None:
    """Latency-style bars: a filled step outline per access (few points) or a
    max / median envelope per bin of accesses (many).  The outline is drawn
    as a line so that one-access spikes stay visible at any width."""
    x, top, med = _envelope(y)
    binned = med is not None and len(x) > 1
    bin_size = int(round(x[1] - x[0])) if binned else 1
    lab = f"{label} (max per {bin_size} accesses)" if binned else label
    ax.fill_between(x, 0, top, step="mid", color=color, alpha=0.35, linewidth=0)
    ax.step(x, top, where="mid", color=color, linewidth=0.8, label=lab)
    if med is not None and bin_size >= 4:
        ax.step(x, med, where="mid", color="black", linewidth=0.7, label="median per bin")
    _count_axis(ax)


def plot_latency(trace: Trace, title: str | None = None) -> Figure:
    """Latency of each access, with the max and p99 marked."""
    y_ns = trace.duration_ns.astype(np.float64)
    div, unit = _time_unit(float(y_ns.max()) if len(y_ns) else 0.0)
    y = y_ns / div
    fig, ax = plt.subplots(figsize=(10, 4))
    _bars(ax, y, COLORS[0], "access latency")
    if len(y):
        mx = float(y.max())
        p99 = float(np.percentile(y, 99, method="inverted_cdf"))
        ax.axhline(mx, color=COLORS[1], linestyle="--", linewidth=1, label=f"max {human(mx)} {unit}")
        ax.axhline(p99, color=COLORS[3], linestyle=":", linewidth=1, label=f"p99 {human(p99)} {unit}")
        # Head room above the max line keeps the legend off the data.
        if _spans_decades(y):
            ax.set_yscale("log")
            ax.set_ylim(bottom=max(float(y[y > 0].min()) * 0.8, mx * 1e-6), top=mx * 4)
        else:
            ax.set_ylim(bottom=0, top=mx * 1.3 if mx > 0 else 1.0)
    ax.set_xlabel("access number")
    ax.set_ylabel(f"latency ({unit})")
    ax.set_xlim(-0.5, max(len(y), 1) - 0.5)
    ax.set_title(title or f"Latency per access: {trace_title(trace)}")
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9, ncol=3)
    return fig


def _bytes_unit(max_b: float) -> tuple[float, str]:
    if max_b >= 1024**2:
        return 1024.0**2, "MiB"
    if max_b >= 1024:
        return 1024.0, "KiB"
    return 1.0, "bytes"


def plot_buffer(trace: Trace, rates_Bps: Sequence[float], title: str | None = None) -> Figure:
    """Buffered data B_k after each access, one panel per input rate."""
    rates = list(rates_Bps)
    fig, axes = plt.subplots(len(rates), 1, figsize=(10, 1.2 + 1.9 * len(rates)), sharex=True,
                             squeeze=False)
    for i, (ax, r) in enumerate(zip(axes[:, 0], rates)):
        s = buffer_series(trace, r)
        peak = float(s.max()) if len(s) else 0.0
        div, unit = _bytes_unit(peak)
        _bars(ax, s / div, COLORS[i % len(COLORS)], "buffered data")
        if peak > 0:
            k = int(np.argmax(s))
            ax.plot([k], [peak / div], marker="v", color="black", markersize=5, linestyle="none",
                    label=f"peak at access {k}")
        ax.set_title(f"input rate {format_rate(r)}: peak {human(peak / div)} {unit}"
                     f"{' (no buffering needed)' if peak == 0 else ''}", fontsize=9, loc="left")
        ax.set_ylabel(f"buffer ({unit})")
        ax.set_ylim(0, peak / div * 1.12 if peak > 0 else 1.0)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)   # off the data
    axes[-1, 0].set_xlabel("access number")
    axes[-1, 0].set_xlim(-0.5, max(len(trace), 1) - 0.5)
    fig.suptitle(title or f"Buffered data at fixed input rates: {trace_title(trace)}", fontsize=11)
    fig.tight_layout()
    return fig


_SIZE_METRICS: dict[str, tuple[str, str, float]] = {
    # metric: (axis label, attribute, divisor)
    "avg_throughput": ("average throughput (MB/s)", "avg_throughput_Bps", 1e6),
    "guaranteed_throughput": ("guaranteed throughput (MB/s)", "guaranteed_throughput_Bps", 1e6),
    "max_latency": ("worst-case latency (ms)", "max_latency_ns", 1e6),
    "p50_latency": ("median latency (ms)", "p50_latency_ns", 1e6),
    "p99_latency": ("p99 latency (ms)", "p99_latency_ns", 1e6),
}


def _size_label(s: int) -> str:
    if s >= 1024 and s % 1024 == 0:
        return f"{s // 1024} KiB"
    return f"{s} B"


def plot_vs_size(series: Mapping[str, Sequence[SizeStats]], metric: str = "avg_throughput",
                 title: str | None = None, log: bool | None = None) -> Figure:
    """A metric against access size: grouped bars, one colour per series (device).

    ``metric``: avg_throughput, guaranteed_throughput, max_latency,
    p50_latency or p99_latency.  ``log`` defaults to a log axis when the
    values span more than two decades (seed 003: NOR at 0.28 MB/s next to
    MRAM at 60 MB/s); bars are labelled with their values.
    """
    if metric not in _SIZE_METRICS:
        raise ValueError(f"unknown metric {metric!r}: one of {', '.join(_SIZE_METRICS)}")
    ylabel, attr, div = _SIZE_METRICS[metric]
    sizes = sorted({s.size_bytes for st in series.values() for s in st})
    names = list(series)
    vals = np.full((len(names), len(sizes)), np.nan)
    for i, nm in enumerate(names):
        for s in series[nm]:
            vals[i, sizes.index(s.size_bytes)] = float(getattr(s, attr)) / div
    finite = vals[np.isfinite(vals) & (vals > 0)]
    use_log = _spans_decades(finite) if log is None else log
    fig, ax = plt.subplots(figsize=(max(7.0, 1.1 * len(sizes) * max(1, len(names)) ** 0.5 + 3), 4.2))
    width = 0.8 / max(1, len(names))
    xs = np.arange(len(sizes), dtype=np.float64)
    colors = series_colors(names)
    for i, nm in enumerate(names):
        pos = xs - 0.4 + width * (i + 0.5)
        v = vals[i]
        bars = ax.bar(pos, np.nan_to_num(v, nan=0.0), width=width * 0.95, color=colors[i], label=nm)
        if len(sizes) * len(names) <= 40:
            ax.bar_label(bars, labels=[human(x) if np.isfinite(x) else "" for x in v],
                         fontsize=7, padding=1, rotation=90 if len(names) > 2 else 0)
    if use_log and len(finite):
        ax.set_yscale("log")
        ax.set_ylim(finite.min() / 2, finite.max() * 12)
        _human_axis(ax)
    elif len(finite):
        ax.set_ylim(0, finite.max() * 1.25)
    ax.set_xticks(xs, [_size_label(s) for s in sizes])
    ax.set_xlabel("access size")
    ax.set_ylabel(ylabel)
    ax.set_title(title or f"{ylabel.split(' (')[0].capitalize()} vs access size")
    _legend_below(ax, len(names))
    ax.grid(axis="x", visible=False)
    return fig


def plot_latency_distribution(traces: Mapping[str, Trace], title: str | None = None) -> Figure:
    """Histogram (log-spaced bins) and exceedance P(latency > x) of access latency,
    one curve per trace."""
    fig, (ax_h, ax_c) = plt.subplots(1, 2, figsize=(11, 4))
    all_max = max((float(t.duration_ns.max()) for t in traces.values() if len(t)), default=1.0)
    div, unit = _time_unit(all_max)
    pos_min = min((float(t.duration_ns[t.duration_ns > 0].min()) for t in traces.values()
                   if np.any(t.duration_ns > 0)), default=1.0)
    bins = np.logspace(np.log10(pos_min / div * 0.9), np.log10(all_max / div * 1.1), 60)
    colors = series_colors(list(traces))
    for i, (name, t) in enumerate(traces.items()):
        y = np.sort(t.duration_ns[t.duration_ns > 0].astype(np.float64)) / div
        if not len(y):
            continue
        c, ls = colors[i], LINESTYLES[i % len(LINESTYLES)]
        ax_h.hist(y, bins=bins, histtype="step", color=c, linewidth=1.4, linestyle=ls, label=name)
        n = len(y)
        # Exceedance at log-spaced ranks keeps the tail exact with few points.
        ranks = np.unique(np.clip(n - np.round(np.logspace(0, np.log10(n), 600)).astype(np.int64), 0, n - 1))
        ranks = np.unique(np.concatenate([ranks, np.linspace(0, n - 1, 200).astype(np.int64)]))
        ax_c.step(y[ranks], (n - 1 - ranks + 0.5) / n, where="post", color=c, linewidth=1.4,
                  linestyle=ls, label=name)
    for ax in (ax_h, ax_c):
        ax.set_xscale("log")
        ax.set_xlabel(f"latency ({unit})")
        _human_axis(ax, "x")
    ax_h.set_yscale("log")
    ax_h.set_ylim(bottom=0.7)
    ax_h.set_ylabel("accesses per bin")
    ax_h.set_title("Histogram (log bins)")
    ax_c.set_yscale("log")
    ax_c.set_ylabel("fraction of accesses slower than x")
    ax_c.set_title("Exceedance (1 − CDF)")
    _human_axis(ax_c)
    _human_axis(ax_h)
    fig.suptitle(title or "Latency distribution", fontsize=11)
    if traces:
        handles, labels = ax_h.get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=min(3, max(1, len(labels))), fontsize=8,
                   frameon=False)
        fig.tight_layout(rect=(0, 0.06 + 0.04 * ((len(labels) - 1) // 3), 1, 1))
    return fig


def plot_peak_vs_rate(summaries: Mapping[str, Mapping[str, object]], title: str | None = None,
                      plus_block: bool = False) -> Figure:
    """Peak buffer against input rate from summary dicts (``peak_buffer_bytes``),
    one line per run: how much RAM each rate costs, side by side.  Hollow
    markers: rates above the run's average throughput (``unbounded_rates``),
    where the buffer grows without bound."""
    key = "peak_buffer_plus_block_bytes" if plus_block else "peak_buffer_bytes"
    fig, ax = plt.subplots(figsize=(8, 4.2))
    allv: list[float] = []
    rates: set[float] = set()
    colors = series_colors(list(summaries))
    for i, (name, s) in enumerate(summaries.items()):
        peaks = s.get(key)
        if not isinstance(peaks, Mapping) or not peaks:
            continue
        unb = s.get("unbounded_rates")
        grows = set(unb) if isinstance(unb, list) else set()
        pts = sorted((float(r), float(v), r in grows) for r, v in peaks.items())
        c, ls, mk = colors[i], LINESTYLES[i % len(LINESTYLES)], MARKERS[i % len(MARKERS)]
        xs = [r for r, _, _ in pts]
        ys = [v / 1024 for _, v, _ in pts]
        rates.update(xs)
        allv += ys
        ax.plot(xs, ys, color=c, linestyle=ls, label=name)
        for x, y, g in pts:
            ax.plot([x], [y / 1024], marker=mk, color=c, markerfacecolor="white" if g else c,
                    linestyle="none")
    pos = [v for v in allv if v > 0]
    if pos and max(pos) / min(pos) > 30:
        ax.set_yscale("symlog", linthresh=10 ** np.floor(np.log10(min(pos))), linscale=0.6)
    ax.set_ylim(bottom=0)
    _human_axis(ax)
    ax.set_xscale("log")
    if rates:
        rs = sorted(rates)
        ax.set_xticks(rs, [format_rate(r).replace(" ", "\n", 1) for r in rs])
        ax.minorticks_off()
    ax.set_xlabel("input rate (k = 1000)")
    ax.set_ylabel("peak buffer (KiB)" + (" incl. block in flight" if plus_block else ""))
    ax.set_title(title or "RAM needed for a fixed input rate with no data loss")
    if any(isinstance(s.get("unbounded_rates"), list) and s.get("unbounded_rates") for s in summaries.values()):
        ax.plot([], [], marker="o", color="gray", markerfacecolor="white", linestyle="none",
                label="rate above average throughput (grows without bound)")
    _legend_below(ax, len(ax.get_legend_handles_labels()[1]), below=0.26)
    return fig


def run_plots(trace: Trace, rates_Bps: Sequence[float], out_dir: Path | str, prefix: str = "",
              formats: Sequence[str] = FORMATS) -> dict[str, list[Path]]:
    """The standard plots of one trace into ``out_dir``: latency, buffer,
    distribution and, with several access sizes, throughput and worst-case
    latency vs size.  Returns {kind: [paths]}."""
    from steadyfs.analysis import by_size

    p = f"{prefix}-" if prefix else ""
    out: dict[str, list[Path]] = {}
    out["latency"] = save(plot_latency(trace), out_dir, f"{p}latency", formats)
    if rates_Bps:
        out["buffer"] = save(plot_buffer(trace, rates_Bps), out_dir, f"{p}buffer", formats)
    out["distribution"] = save(plot_latency_distribution({trace_title(trace): trace},
                                                         title=f"Latency distribution: {trace_title(trace)}"),
                               out_dir, f"{p}distribution", formats)
    if len(trace.sizes()) > 1:
        st = {trace.label: by_size(trace)}
        out["throughput_vs_size"] = save(plot_vs_size(st, "avg_throughput",
                                                      title=f"Average throughput vs access size: {trace_title(trace)}"),
                                         out_dir, f"{p}throughput-vs-size", formats)
        out["latency_vs_size"] = save(plot_vs_size(st, "max_latency",
                                                   title=f"Worst-case latency vs access size: {trace_title(trace)}"),
                                      out_dir, f"{p}latency-vs-size", formats)
    return out
