"""Run reports: a terminal table (seed 001 style) and an HTML report.

A run is a summary dict from :func:`steadyfs.analysis.summarize` plus,
optionally, its trace.  :func:`format_table` prints runs as a text table;
:func:`write_report` writes ``index.html`` and the plot files into one
directory: a summary table, a comparison section for each workload run on
more than one fs or device (steadyfs vs littlefs vs raw, or one device
against another), and a section per run with its parameters and plots.
Plain HTML with inline CSS, no scripts: it opens from file://.
"""

from __future__ import annotations

import datetime as _dt
import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from steadyfs.trace import Trace
from steadyfs.units import format_bytes, format_rate

# ============================================================ terminal table


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]],
                 right: Sequence[bool] | None = None) -> str:
    """A plain-text table with a header rule; ``right`` marks right-aligned columns."""
    ncol = len(headers)
    right = list(right) if right is not None else [False] * ncol
    widths = [max([len(headers[i])] + [len(r[i]) for r in rows]) for i in range(ncol)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if ra else c.ljust(w)
                         for c, w, ra in zip(cells, widths, right)).rstrip()

    return "\n".join([line(headers), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def _num(v: Any, fmt: str) -> str:
    if v is None:
        return "unbounded"
    if isinstance(v, (int, float)):
        return format(v, fmt)
    return str(v)


def _short(v: float) -> str:
    """3-4 significant digits without exponent noise: 2048 -> '2048', 3.91 -> '3.91'."""
    if v >= 100:
        return f"{v:.0f}"
    return f"{v:.3g}"


def _ram(v: Any) -> str:
    if not isinstance(v, (int, float)):
        return "-"
    return "0" if v == 0 else format_bytes(float(v))


def _common_rates(summaries: Sequence[Mapping[str, Any]]) -> list[str]:
    keys: list[str] = []
    for s in summaries:
        for k in s.get("peak_buffer_bytes", {}):
            if k not in keys:
                keys.append(k)
    return sorted(keys, key=float)


def _rate_short(r: float) -> str:
    for div, pre in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if r >= div:
            return f"{r / div:g}{pre}"
    return f"{r:g}"


def table_rows(summaries: Sequence[Mapping[str, Any]], plus_block: bool = False, compact: bool = False
               ) -> tuple[list[str], list[list[str]], list[bool]]:
    """Headers, cells and right-alignment of the run summary table (used by
    the terminal and HTML renderers alike; ``compact`` uses short headers)."""
    rates = _common_rates(summaries)
    key = "peak_buffer_plus_block_bytes" if plus_block else "peak_buffer_bytes"
    budgets: list[str] = []
    for s in summaries:
        for b in s.get("max_rate_Bps_for_ram", {}):
            if b not in budgets:
                budgets.append(b)
    headers = ["Device", "FS", "Workload", "Timing", "Accesses", "Max block latency (ms)",
               "p99.9 (ms)", "Guaranteed (kB/s)", "Average (kB/s)"]
    if compact:
        headers += [f"Buf@{_rate_short(float(r))}" for r in rates]
        headers += [f"Rate@{format_bytes(float(b)).replace(' ', '')}" for b in budgets]
    else:
        headers += [f"Buffer @{format_rate(float(r))}" for r in rates]
        headers += [f"Max rate @{format_bytes(float(b))} RAM" for b in budgets]
    right = [False] * 4 + [True] * (len(headers) - 4)
    rows = []
    for s in summaries:
        lat = s.get("latency_us", {})
        row = [str(s.get("device", "")), str(s.get("fs", "")), str(s.get("workload", "")),
               str(s.get("timing", "")), str(s.get("count", "")),
               _short(float(s["max_latency_us"]) / 1e3),
               _short(float(lat.get("p99.9", 0.0)) / 1e3),
               _num(s.get("guaranteed_throughput_kBps"), ".4g"),
               _num(s.get("avg_throughput_kBps"), ".4g")]
        grows = set(s.get("unbounded_rates", []))
        row += [_ram(s.get(key, {}).get(r)) + ("+" if r in grows else "") for r in rates]
        mr = s.get("max_rate_Bps_for_ram", {})
        row += [(format_rate(float(mr[b])) if mr.get(b) is not None else "unbounded") if b in mr else "-"
                for b in budgets]
        rows.append(row)
    return headers, rows, right


def format_table(summaries: Sequence[Mapping[str, Any]], plus_block: bool = False) -> str:
    """The seed 001-style table of runs for the terminal: device, max block
    latency, guaranteed and average throughput (kB = 1000 B), peak buffer per
    input rate, and the max rate per RAM budget when analysed."""
    h, rows, right = table_rows(summaries, plus_block, compact=True)
    note = ("Buf@R = peak buffer (RAM beyond the block being written) at input rate R bytes/s"
            if not plus_block else "Buf@R = peak RAM including the block being written, at input rate R B/s")
    if any(s.get("unbounded_rates") for s in summaries):
        note += "; + = rate above the average throughput: the buffer grows without bound"
    if any("max_rate_Bps_for_ram" in s for s in summaries):
        note += "; Rate@M = largest input rate that M of buffer sustains with no loss"
    return render_table(h, rows, right) + f"\n({note}; k = 1000, kB = 1000 bytes.)"


# ================================================================ HTML report
@dataclass
class Run:
    """One run in a report: its summary, and optionally its trace (for plots).

    ``plots`` maps a plot kind to image paths already written (PNG first);
    when empty and a trace is given, :func:`write_report` draws the
    standard plots.  ``name`` defaults to ``device / fs / workload``.
    """

    summary: dict[str, Any]
    trace: Trace | None = None
    plots: dict[str, list[Path]] = field(default_factory=dict)
    name: str = ""

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        s = self.summary
        parts = [str(s.get(k) or "") for k in ("device", "fs", "workload")]
        return " / ".join(p for p in parts if p) or "run"


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1200px;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em} h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
h3{margin-top:1.5em} .muted{color:#666;font-size:.9em}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em}
th,td{border:1px solid #ccc;padding:.25em .55em;vertical-align:top}
th{background:#f2f4f7;text-align:left} td.n{text-align:right;font-variant-numeric:tabular-nums}
tr:nth-child(even) td{background:#fafbfc}
.figs{display:flex;flex-wrap:wrap;gap:1em} .figs figure{margin:0;flex:1 1 520px}
.figs img{width:100%;border:1px solid #e3e3e3} figcaption{font-size:.85em;color:#555}
.side{display:grid;grid-template-columns:repeat(auto-fit,minmax(360px,1fr));gap:1em}
.side figure{margin:0} .side img{width:100%;border:1px solid #e3e3e3}
code{background:#f4f4f4;padding:0 .25em} nav a{margin-right:1em}
"""


def _slug(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-").lower() or "run"


def _html_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool],
                link: Callable[[int], str] | None = None) -> str:
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in headers) + "</tr>"]
    for i, r in enumerate(rows):
        cells = []
        for j, (c, ra) in enumerate(zip(r, right)):
            text = html.escape(c)
            if j == 0 and link is not None:
                target = link(i)
                text = f'<a href="{target if "#" in target else "#" + target}">{text}</a>'
            cells.append(f'<td class="n">{text}</td>' if ra else f"<td>{text}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(out) + "</table>"


def _kv_table(items: Mapping[str, Any]) -> str:
    rows = []
    for k, v in items.items():
        if isinstance(v, dict):
            v = ", ".join(f"{a}={b}" for a, b in v.items()) or "-"
        rows.append(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>")
    return "<table>" + "".join(rows) + "</table>"


def _figure(path: Path, base: Path, caption: str) -> str:
    rel = path.relative_to(base).as_posix() if path.is_relative_to(base) else path.as_posix()
    svg = path.with_suffix(".svg")
    extra = ""
    if svg.exists() and svg != path:
        srel = svg.relative_to(base).as_posix() if svg.is_relative_to(base) else svg.as_posix()
        extra = f' (<a href="{html.escape(srel)}">SVG</a>)'
    return (f'<figure><a href="{html.escape(rel)}"><img src="{html.escape(rel)}" alt="{html.escape(caption)}"'
            f' loading="lazy"></a><figcaption>{html.escape(caption)}{extra}</figcaption></figure>')


_PLOT_CAPTIONS = {
    "latency": "Latency of each access",
    "buffer": "Buffered data after each access, per input rate",
    "distribution": "Latency distribution",
    "throughput_vs_size": "Average throughput vs access size",
    "latency_vs_size": "Worst-case latency vs access size",
}


def _png(paths: Sequence[Path]) -> Path | None:
    for p in paths:
        if p.suffix == ".png":
            return p
    return paths[0] if paths else None


def _comparison_groups(runs: Sequence[Run]) -> dict[str, list[Run]]:
    """Runs of the same workload that differ in fs or device."""
    groups: dict[str, list[Run]] = {}
    for r in runs:
        groups.setdefault(str(r.summary.get("workload") or "?"), []).append(r)
    return {w: rs for w, rs in groups.items()
            if len({(r.summary.get("fs"), r.summary.get("device"), r.summary.get("timing")) for r in rs}) > 1}


def write_report(out_dir: Path | str, runs: Sequence[Run], title: str = "steadyfs benchmark report",
                 parameters: Mapping[str, Any] | None = None, notes: Sequence[str] = (),
                 rates_Bps: Sequence[float] | None = None, plot: bool = True,
                 runs_page: bool = False) -> Path:
    """Write ``out_dir/index.html`` (plus plot files) for ``runs``; return its path.

    ``parameters``: shown at the top (the command line, rates, versions ...);
    ``notes``: paragraphs of plain text shown under the title;
    ``rates_Bps``: input rates for buffer plots (default: those of each summary);
    ``plot``: draw missing plots for runs that carry a trace;
    ``runs_page``: the per-run sections go to ``runs.html`` beside it (a
    report of many runs stays one short page that loads fast).
    """
    from steadyfs import plots as pl
    from steadyfs.analysis import SizeStats

    base = Path(out_dir)
    base.mkdir(parents=True, exist_ok=True)
    slugs: list[str] = []
    for r in runs:
        slug = _slug(r.label)
        while slug in slugs:
            slug += "-x"
        slugs.append(slug)
    if plot:
        for r, sl in zip(runs, slugs):
            if r.trace is not None and not r.plots and len(r.trace):
                rates = list(rates_Bps) if rates_Bps is not None else \
                    [float(x) for x in r.summary.get("rates_Bps", [])]
                r.plots = pl.run_plots(r.trace, rates, base / "plots", sl)

    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>",
             f"<p class='muted'>Generated {_dt.datetime.now().strftime('%Y-%m-%d %H:%M')} by steadyfs; "
             f"{len(runs)} run(s). Latencies are virtual-clock times for simulated devices.</p>"]
    parts += [f"<p>{html.escape(n)}</p>" for n in notes]
    groups = _comparison_groups(runs)
    runs_href = "runs.html" if runs_page else "#runs"
    parts.append("<nav><a href='#summary'>Summary</a>" +
                 ("<a href='#compare'>Comparisons</a>" if groups else "") + f"<a href='{runs_href}'>Runs</a></nav>")
    if parameters:
        parts.append("<h2 id='parameters'>Parameters</h2>" + _kv_table(parameters))

    parts.append("<h2 id='summary'>Summary</h2>")
    h, rows, right = table_rows([r.summary for r in runs])
    parts.append(_html_table(h, rows, right, link=lambda i: ("runs.html#" if runs_page else "") + slugs[i]))
    parts.append("<p class='muted'>Max block latency: the longest single access. Guaranteed throughput: "
                 "access size / max latency (min over accesses of bytes/duration), the highest input rate "
                 "that needs no buffering. Average: total bytes / total busy time. Buffer @rate: peak RAM "
                 "beyond the block being written, B<sub>k</sub> = max(0, B<sub>k−1</sub> + δ<sub>k</sub>ω − "
                 "S<sub>k</sub>), for a fixed input rate ω with no data loss; + marks a rate above the average "
                 "throughput, where the buffer grows without bound (the figure then only reflects the "
                 "length of the run). kB = 1000 bytes.</p>")

    if groups:
        parts.append("<h2 id='compare'>Comparisons</h2>")
        cdir = base / "plots"
        for w, rs in groups.items():
            sw = _slug(w)
            parts.append(f"<h3>Workload <code>{html.escape(w)}</code>: {len(rs)} runs side by side</h3>")
            h2, rows2, right2 = table_rows([r.summary for r in rs])
            parts.append(_html_table(h2, rows2, right2))
            figs = []
            peak_fig = pl.plot_peak_vs_rate({r.label: r.summary for r in rs},
                                            title=f"RAM needed vs input rate: {w}")
            p = _png(pl.save(peak_fig, cdir, f"compare-{sw}-buffer-vs-rate"))
            if p:
                figs.append(_figure(p, base, "Peak buffer vs input rate"))
            traced = {r.label: r.trace for r in rs if r.trace is not None and len(r.trace)}
            if len(traced) > 1:
                f = pl.plot_latency_distribution(traced, title=f"Latency distribution: {w}")
                p = _png(pl.save(f, cdir, f"compare-{sw}-distribution"))
                if p:
                    figs.append(_figure(p, base, "Latency distribution, all runs"))
            sized = {r.label: [SizeStats(size_bytes=int(e["size_bytes"]), count=int(e["count"]),
                                         max_latency_ns=float(e["max_latency_us"]) * 1e3,
                                         p50_latency_ns=float(e["p50_latency_us"]) * 1e3,
                                         p99_latency_ns=float(e["p99_latency_us"]) * 1e3,
                                         avg_throughput_Bps=float(e["avg_throughput_kBps"] or 0) * 1e3,
                                         guaranteed_throughput_Bps=float(e["guaranteed_throughput_kBps"] or 0) * 1e3)
                               for e in r.summary["by_size"]]
                     for r in rs if r.summary.get("by_size")}
            if len(sized) > 1:
                for metric, cap in (("avg_throughput", "Average throughput vs access size"),
                                    ("max_latency", "Worst-case latency vs access size")):
                    f = pl.plot_vs_size(sized, metric, title=f"{cap}: {w}")
                    p = _png(pl.save(f, cdir, f"compare-{sw}-{metric}"))
                    if p:
                        figs.append(_figure(p, base, cap))
            if figs:
                parts.append("<div class='side'>" + "".join(figs) + "</div>")

    if runs_page:
        parts.append("<h2 id='runs'>Runs</h2><p>Each run's parameters and plots: "
                     "<a href='runs.html'>runs.html</a>.</p></body></html>")
        index = base / "index.html"
        index.write_text("\n".join(parts), encoding="utf-8")
        parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
                 f"<title>{html.escape(title)}: runs</title><style>{_CSS}</style></head><body>",
                 f"<h1>{html.escape(title)}: every run</h1><p><a href='index.html'>back to the report</a></p>"]
    parts.append("<h2 id='runs'>Runs</h2>")
    for r, sl in zip(runs, slugs):
        s = r.summary
        parts.append(f"<h3 id='{sl}'>{html.escape(r.label)}</h3>")
        info: dict[str, Any] = {k: s.get(k) for k in ("device", "fs", "workload", "timing", "seed")}
        info["parameters"] = s.get("parameters", {})
        info["accesses"] = s.get("count")
        info["bytes"] = s.get("bytes")
        info["ops"] = s.get("ops", {})
        lat = s.get("latency_us", {})
        info["latency (µs)"] = {k: f"{float(v):.4g}" for k, v in lat.items()}
        info["guaranteed / average throughput (kB/s)"] = (
            f"{_num(s.get('guaranteed_throughput_kBps'), '.4g')} / {_num(s.get('avg_throughput_kBps'), '.4g')}")
        info["peak buffer (bytes)"] = s.get("peak_buffer_bytes", {})
        info["peak buffer + block (bytes)"] = s.get("peak_buffer_plus_block_bytes", {})
        if "max_rate_Bps_for_ram" in s:
            info["max rate for RAM budget (B/s)"] = {k: ("unbounded" if v is None else f"{v:.0f}")
                                                     for k, v in s["max_rate_Bps_for_ram"].items()}
        if "sweet_spot_bytes" in s:
            info["sweet spot (bytes)"] = s["sweet_spot_bytes"]
        for k, v in s.items():
            if k not in info and k not in ("schema", "latency_us", "rates_Bps", "by_size", "sizes_bytes",
                                           "count", "bytes", "peak_buffer_bytes", "peak_buffer_plus_block_bytes",
                                           "max_rate_Bps_for_ram", "max_rate_Bps_for_ram_plus_block",
                                           "avg_throughput_kBps", "guaranteed_throughput_kBps",
                                           "max_latency_us", "sweet_spot_bytes", "busy_us") \
                    and isinstance(v, (str, int, float)):
                info[k] = v
        parts.append(_kv_table(info))
        figs = []
        for kind, paths in r.plots.items():
            p = _png(paths)
            if p is not None:
                figs.append(_figure(p, base, _PLOT_CAPTIONS.get(kind, kind)))
        if figs:
            parts.append("<div class='figs'>" + "".join(figs) + "</div>")
    parts.append("</body></html>")
    if runs_page:
        (base / "runs.html").write_text("\n".join(parts), encoding="utf-8")
        return base / "index.html"
    index = base / "index.html"
    index.write_text("\n".join(parts), encoding="utf-8")
    return index


def insert_section(index: Path, section_html: str, anchor: str, label: str) -> None:
    """Put a section (whose heading has id=anchor) above the report's summary
    table, with a link to it in the navigation bar."""
    text = index.read_text(encoding="utf-8")
    marker = "<h2 id='summary'>"
    text = text.replace(marker, section_html + "\n" + marker, 1)
    text = text.replace("<nav>", f"<nav><a href='#{anchor}'>{html.escape(label)}</a>", 1)
    index.write_text(text, encoding="utf-8")
