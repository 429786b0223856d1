"""What the slowest accesses of a benchmark were made of (`steady bench --slowest N`).

A benchmark's worst case is one number; a firmware engineer sizing a buffer
also wants to know what it was: one erase, a map merge beside the record's
own programs, a file rotation.  On a simulated device every operation runs
on the virtual clock and the device keeps a trace of them (start, duration,
block, offset, length), so each access of the workload's trace is exactly
the device operations that started inside it.  ``explain`` takes the N
slowest of the analysed accesses and lists their operations, and groups
them by the sequence of operations (kind and length) so that a hundred
accesses of one shape read as one line.
"""

from __future__ import annotations

import html
from collections import Counter
from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from steadyfs.native import OPS
from steadyfs.trace import Op, Trace

TRACE_CAPACITY = 1 << 20
"""Device operations the ring keeps (36 B each): every benchmark workload's
run fits many times; an access whose operations began before the oldest one
kept is left out rather than shown short."""


def _ops_of(ops: npt.NDArray[Any], first: int, last: int) -> list[dict[str, Any]]:
    """Operations first..last-1; "length" is bytes for a read or program,
    device blocks for an erase."""
    return [{"op": OPS.get(int(o["op"]), str(int(o["op"]))), "block": int(o["block"]),
             "offset": int(o["off"]), "length": int(o["len"]), "us": round(int(o["dur_ns"]) / 1000, 3)}
            for o in ops[first:last]]


def _label(op: str, length: int) -> str:
    if op == "erase":
        return f"erase {length} block{'s' if length != 1 else ''}"
    return f"{op} {length} B" if op in ("read", "prog") else op


def explain(trace: Trace, ops: npt.NDArray[Any], n: int, analysed: Sequence[Op],
            wrapped: bool) -> dict[str, Any]:
    """The n slowest analysed accesses of ``trace`` with the device
    operations (``ops``, start order, as Device.trace() returns them) each
    was made of, and the same grouped by shape.  ``wrapped``: the ring lost
    its oldest operations, so accesses that began before the first kept one
    are not candidates."""
    keep = np.isin(trace.op, [int(o) for o in analysed])
    if wrapped and len(ops):
        keep &= trace.start_ns >= int(ops["start_ns"][0])
    rows = np.nonzero(keep)[0]
    # slowest first; equal durations in trace order
    order = rows[np.lexsort((rows, -trace.duration_ns[rows]))][:n]
    op_start = ops["start_ns"].astype(np.int64)
    accesses: list[dict[str, Any]] = []
    shapes: Counter[tuple[str, ...]] = Counter()
    worst: dict[tuple[str, ...], float] = {}
    for r in order:
        start, dur = int(trace.start_ns[r]), int(trace.duration_ns[r])
        lo = int(np.searchsorted(op_start, start, side="left"))
        hi = int(np.searchsorted(op_start, start + dur, side="left"))
        dev = _ops_of(ops, lo, hi)
        accesses.append({"index": int(trace.index[r]), "op": Op(int(trace.op[r])).label,
                         "bytes": int(trace.size_bytes[r]), "duration_us": round(dur / 1000, 3),
                         "device_us": round(sum(d["us"] for d in dev), 3), "device_ops": dev})
        shape = tuple(_label(d["op"], d["length"]) for d in dev)
        shapes[shape] += 1
        worst[shape] = max(worst.get(shape, 0.0), dur / 1000)
    groups = [{"count": c, "max_us": round(worst[s], 3), "ops": list(s)}
              for s, c in sorted(shapes.items(), key=lambda kv: (-worst[kv[0]], -kv[1]))]
    return {"asked": n, "accesses": accesses, "shapes": groups}


def _runs(ops: list[str]) -> str:
    """Consecutive equal operations as one "op x k"."""
    runs: list[tuple[str, int]] = []
    for o in ops:
        if runs and runs[-1][0] == o:
            runs[-1] = (o, runs[-1][1] + 1)
        else:
            runs.append((o, 1))
    return ", ".join(f"{o} x{k}" if k > 1 else o for o, k in runs) or "no device operation"


def shapes_html(slow: dict[str, Any], most: int | None = None) -> str:
    """The shapes (the first ``most``) as an HTML table."""
    rows = "".join(f"<tr><td class='r'>{g['count']}</td><td class='r'>{g['max_us'] / 1000:.4f}</td>"
                   f"<td>{html.escape(_runs(g['ops']))}</td></tr>" for g in slow["shapes"][:most])
    return ("<table><tr><th>accesses</th><th>up to (ms)</th><th>device operations, in order</th></tr>"
            f"{rows}</table>")


def format_html(slow: dict[str, Any]) -> str:
    """The report's section (python/steadyfs/report.py insert_section)."""
    return (f"<h2 id='slowest'>The {len(slow['accesses'])} slowest accesses</h2>"
            "<p class='muted'>The device operations each ran (virtual clock), accesses of one sequence "
            "of operations on one line, slowest first; summary.json's <code>slowest</code> lists each "
            "access with its operations' blocks and offsets.</p>" + shapes_html(slow))


def format_text(slow: dict[str, Any]) -> str:
    """Lines for the terminal: each shape once, slowest first."""
    acc = slow["accesses"]
    if not acc:
        return "slowest: no analysed access (nothing to explain)"
    lines = [f"slowest {len(acc)} accesses by their device operations (virtual clock; "
             "--json lists each with block and offset):"]
    for g in slow["shapes"]:
        lines.append(f"  {g['count']:>5} x up to {g['max_us'] / 1000:.4f} ms: {_runs(g['ops'])}")
    return "\n".join(lines)
