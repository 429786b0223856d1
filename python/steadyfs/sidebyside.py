"""The three media side by side with the raw device (issue 16, item 3).

`steady bench --device all --workload W --fs F [--fill 0.75]` runs W on
each medium's default part (MEDIA: mt29f1g01 NAND, mt25q128 NOR, em064lx
MRAM, as `steady plan --device all`) with the file system, and the raw
device's analogue of W on the same part, the same seed and timing:

* log4k: sequential raw 4 KiB programs, each erase unit erased inside the
  write that enters it (``seed003-sweep`` with ``sizes=4KiB reads=false``,
  the same total bytes) -- what `make demo` calls the raw log analogue;
* seed000-random4k: the same random 4 KiB writes on the raw device
  (``--fs raw``: erase on rewrite), the same parameters;
* a raw workload (seed003-sweep, seed004-sizes): the workload itself raw
  (then the two columns are one run's twice: there is no file system);
* any other file-system workload: no raw analogue ("-").

:func:`run_all` runs them; :func:`table` gives one row per device (the
file system's average, worst call and buffers beside the raw device's),
for the terminal (:func:`render_text`), the demo report (:func:`html_table`)
and ``--json`` (:func:`as_json`).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from steadyfs.cmd_plan import MEDIA
from steadyfs.report import render_table
from steadyfs.units import format_bytes

Summary = Mapping[str, Any]
SCHEMA = "steadyfs-side-by-side/1"


def raw_analogue(workload: str, fs_run: Summary) -> tuple[str, dict[str, str]] | None:
    """The raw device's run standing for ``workload`` (its name and
    parameters), or None if it has none.  ``fs_run``: the file system's run
    summary (its parameters as run, scale and --param applied, and the
    bytes it wrote: the raw log writes the same bytes)."""
    resolved = fs_run.get("parameters", {})
    if workload == "log4k":
        return "seed003-sweep", {"sizes": "4KiB", "reads": "false",
                                 "total": str(int(fs_run.get("bytes", resolved.get("total", 0))))}
    if workload == "seed000-random4k":
        return workload, {k: str(v) for k, v in resolved.items() if k != "path"}
    return None


@dataclass
class Row:
    """One medium: the file system's run and the raw device's (None: not
    run; ``errors`` says why when a run failed)."""
    device: str
    fs: dict[str, Any] | None
    raw: dict[str, Any] | None
    raw_workload: str = "-"
    errors: list[str] = field(default_factory=list)


Runner = Callable[..., Any]


def run_all(workload: str, *, fs: str | None, runner: Runner, devices: Sequence[str] = MEDIA,
            **kw: Any) -> list[Row]:
    """``runner`` is :func:`steadyfs.benchrun.run_bench` (a parameter so that
    tests can count calls); ``kw`` its keyword arguments (timing, seed,
    rates, fill_fraction, scale, params ...), the same for every device.
    fs None: the workload's own default per device (raw for raw workloads)."""
    rows: list[Row] = []
    params = dict(kw.pop("params", None) or {})
    for dev in devices:
        row = Row(dev, None, None)
        try:
            res = runner(dev, workload, fs=fs, params=params, **kw)
            row.fs = dict(res.summary)
        except Exception as e:  # a failed medium is a result, shown in its row
            row.errors.append(f"{workload}: {e}")
        if row.fs is not None and row.fs.get("fs") == "raw":
            row.raw, row.raw_workload = row.fs, workload
        elif row.fs is not None and (ana := raw_analogue(workload, row.fs)) is not None:
            rw, rparams = ana
            rkw = {k: v for k, v in kw.items() if k not in ("fill_fraction", "fill_device", "scale")}
            try:
                res = runner(dev, rw, fs="raw", params=rparams, **rkw)
                row.raw = dict(res.summary)
                row.raw_workload = rw + "".join(f" {k}={v}" for k, v in rparams.items())
            except Exception as e:
                row.errors.append(f"raw {rw}: {e}")
        rows.append(row)
    return rows


def _rates(rows: Sequence[Row]) -> list[str]:
    keys: list[str] = []
    for r in rows:
        for s in (r.fs, r.raw):
            for k in (s or {}).get("peak_buffer_bytes", {}):
                if k not in keys:
                    keys.append(k)
    return sorted(keys, key=float)


def _buf(s: Summary | None, rate: str) -> str:
    if s is None or rate not in s.get("peak_buffer_bytes", {}):
        return "-"
    if rate in s.get("unbounded_rates", []):
        return "unbounded"
    v = float(s["peak_buffer_bytes"][rate])
    return "0" if v == 0 else format_bytes(v)


def _rate_label(rate: str) -> str:
    r = float(rate)
    for div, pre in ((1e6, "M"), (1e3, "k")):
        if r >= div:
            return f"{r / div:g} {pre}B/s"
    return f"{r:g} B/s"


def table(rows: Sequence[Row]) -> tuple[list[str], list[list[str]], list[bool]]:
    """Headers, cells, right-alignment: per device the file system's average
    throughput, worst call and buffer per input rate, the raw device's
    average and worst, and the file system's average as a share of the raw."""
    rates = _rates(rows)
    stack = next((str(r.fs.get("fs")) for r in rows if r.fs), "fs")
    head = ["device", f"{stack} avg kB/s", f"{stack} max ms"] + \
        [f"{stack} buf @{_rate_label(x)}" for x in rates] + \
        ["raw avg kB/s", "raw max ms", "avg of raw"]
    cells: list[list[str]] = []
    for r in rows:
        f, w = r.fs, r.raw
        share = (f"{f['avg_throughput_kBps'] / w['avg_throughput_kBps']:.0%}"
                 if f and w and w.get("avg_throughput_kBps") else "-")
        cells.append([r.device,
                      f"{f['avg_throughput_kBps']:.1f}" if f else "failed",
                      f"{f['max_latency_us'] / 1e3:.2f}" if f else "-"] +
                     [_buf(f, x) for x in rates] +
                     [f"{w['avg_throughput_kBps']:.1f}" if w else "-",
                      f"{w['max_latency_us'] / 1e3:.2f}" if w else "-", share])
    return head, cells, [False] + [True] * (len(head) - 1)


def render_text(rows: Sequence[Row]) -> str:
    """The table for the terminal, then one line per raw run and per error."""
    h, c, right = table(rows)
    lines = [render_table(h, c, right)]
    for r in rows:
        if r.raw is not None:
            lines.append(f"raw on {r.device}: {r.raw_workload}")
        for e in r.errors:
            lines.append(f"FAILED on {r.device}: {e}")
    return "\n".join(lines)


def html_table(rows: Sequence[Row]) -> str:
    """The table as HTML (the demo report's section body)."""
    h, c, _ = table(rows)
    out = ["<table><tr>" + "".join(f"<th>{html.escape(x)}</th>" for x in h) + "</tr>"]
    for row in c:
        out.append("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in row) + "</tr>")
    out.append("</table>")
    notes = [f"raw on {r.device}: {r.raw_workload}" for r in rows if r.raw is not None] + \
        [f"failed on {r.device}: {e}" for r in rows for e in r.errors]
    if notes:
        out.append("<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>")
    return "".join(out)


def as_json(rows: Sequence[Row], workload: str) -> dict[str, Any]:
    """``steady bench --device all --json``: the table's rows with every
    run's full summary (docs/BENCH-JSON.md)."""
    h, c, _ = table(rows)
    return {"schema": SCHEMA, "workload": workload, "devices": [r.device for r in rows],
            "headers": h, "table": c,
            "rows": [{"device": r.device, "fs": r.fs, "raw": r.raw, "raw_workload": r.raw_workload,
                      "errors": r.errors} for r in rows]}
