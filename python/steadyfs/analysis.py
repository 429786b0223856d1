"""Latency statistics and real-time buffer analysis of access traces.

Everything here reads a :class:`~steadyfs.trace.Trace` (never a device
model), is vectorised with numpy, and analyses a 10-million-access trace in
a few seconds (``scripts/bench_analysis.py`` measures it).

Definitions (also in docs/BENCH-JSON.md)
----------------------------------------
Let access k move S_k bytes in delta_k seconds, k = 1..n.

* **Max latency**: max_k delta_k.  **Percentiles** use the inverted-CDF
  (nearest-rank) definition: p-th percentile = the smallest observed
  delta such that at least p % of accesses take no longer.  It is always a
  latency that actually occurred.
* **Average throughput**: sum S_k / sum delta_k (bytes per busy second; idle
  time between accesses does not count).
* **Guaranteed throughput**: min over accesses with delta_k > 0 of
  S_k / delta_k.  With a single access size S this is S / max delta, the
  seed 001 definition.  It is exactly the largest input rate that needs no
  buffering beyond the block being written (``max_rate_for_ram(t, 0)``):
  at that rate every access finishes before its successor's data has
  arrived.  Zero-byte accesses that take time (a separate erase or sync)
  therefore make it 0: data keeps arriving while nothing is stored.
* **Buffered data** for a fixed input rate omega with no data loss (seed
  000 eq. 2, with its ``min`` typo corrected to ``max``)::

      B_0 = 0,   B_k = max(0, B_{k-1} + delta_k * omega - S_k)

  This is Lindley's recursion.  With x_k = delta_k*omega - S_k and
  C_k = x_1 + ... + x_k (C_0 = 0) it has the closed form
  B_k = C_k - min_{0<=j<=k} C_j, computed here with ``cumsum`` and
  ``minimum.accumulate``.  Equivalently B_k is the largest sum of a run of
  consecutive x ending at k (or 0), so max_k B_k is the maximum-subarray
  sum of x (Kadane), which the tests use as an independent check.
* **Peak buffer**: max_k B_k, the RAM needed beyond the block in flight.
  **Peak buffer plus block**: max_k (B_k + S_k); for one access size S it
  is peak + S: the backlog plus the block buffer the writer is storing
  (seed 003: 4 KiB every 1 ms with a 2 ms erase -> 4 KiB + 4 KiB = 8 KiB).
* **Max rate for a RAM budget R**: the largest omega whose peak buffer (or
  peak plus block, if asked) is <= R.  Peak buffer is a convex,
  non-decreasing, piecewise-linear function of omega (a maximum of affine
  functions sum(delta)*omega - sum(S) over runs of accesses), so Newton's
  method started above the answer converges monotonically and exactly in
  a few steps; each step costs one Lindley pass.
* **Sweet spot** (per access size): see :func:`sweet_spot`.

The buffer model assumes the storage stack starts each access as soon as
the previous one finished and its data is there; the trace's start times
and any idle gaps are not used.  Traces mixing reads and writes should be
filtered first (``Trace.select`` or ``summarize(..., ops=...)``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from steadyfs.trace import OP_NAMES, Op, Trace
from steadyfs.units import rate_key

F64Array = npt.NDArray[np.float64]

#: Percentiles reported by :func:`summarize`, as (JSON key, percent).
PERCENTILES: tuple[tuple[str, float], ...] = (
    ("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("p99.9", 99.9), ("p99.99", 99.99))

#: Default input rates (bytes/s) of ``steady bench`` / ``steady analyze``.
DEFAULT_RATES: tuple[float, ...] = (100e3, 500e3, 1e6, 2e6, 4e6)

SCHEMA = "steadyfs-summary/1"


def _need(trace: Trace) -> None:
    if len(trace) == 0:
        raise ValueError("the trace has no accesses to analyse")


# ============================================================ latency statistics
def max_latency_ns(trace: Trace) -> int:
    """The longest access duration, ns."""
    _need(trace)
    return int(trace.duration_ns.max())


def latency_percentiles_ns(trace: Trace, percents: Sequence[float]) -> list[float]:
    """Inverted-CDF (nearest-rank) percentiles of the durations, ns."""
    _need(trace)
    vals = np.percentile(trace.duration_ns, list(percents), method="inverted_cdf")
    return [float(v) for v in np.atleast_1d(vals)]


def avg_throughput_Bps(trace: Trace) -> float:
    """Total bytes / total busy time, bytes per second (inf if no time was spent)."""
    _need(trace)
    busy = trace.busy_ns
    return math.inf if busy == 0 else trace.total_bytes * 1e9 / busy


def guaranteed_throughput_Bps(trace: Trace) -> float:
    """min over accesses with nonzero duration of size/duration, bytes per second.

    For one access size S this is S / max latency.  It equals the largest
    input rate that needs no buffering beyond the block in flight.
    """
    _need(trace)
    timed = trace.duration_ns > 0
    if not timed.any():
        return math.inf
    return float(np.min(trace.size_bytes[timed] / trace.duration_ns[timed])) * 1e9


# ============================================================= buffer analysis
class _Lindley:
    """Work arrays for repeated Lindley passes over one trace at several rates."""

    def __init__(self, trace: Trace) -> None:
        _need(trace)
        self.dur = trace.duration_ns
        self.size = trace.size_bytes.astype(np.float64)
        n = len(trace)
        self.c = np.empty(n, dtype=np.float64)  # x_k, then C_k
        self.m = np.empty(n, dtype=np.float64)  # running minimum of C, then B
        self._cumdur: npt.NDArray[np.int64] | None = None

    def run(self, rate_Bps: float) -> F64Array:
        """B_k for every k at this rate (a view of a work array: copy to keep it)."""
        if not (rate_Bps >= 0 and math.isfinite(rate_Bps)):
            raise ValueError(f"input rate must be finite and >= 0, not {rate_Bps}")
        c, m = self.c, self.m
        np.multiply(self.dur, rate_Bps * 1e-9, out=c)
        np.subtract(c, self.size, out=c)
        np.cumsum(c, out=c)
        np.minimum.accumulate(c, out=m)
        np.minimum(m, 0.0, out=m)           # C_0 = 0 takes part in the minimum
        np.subtract(c, m, out=m)            # B_k = C_k - min_{j<=k} C_j
        return m

    def slope_s(self, k: int) -> float:
        """d B_k / d omega at the last rate run, in seconds: the summed duration
        of the run of accesses (j, k] that attains B_k."""
        c = self.c
        head = c[: k + 1]
        j = int(np.argmin(head))
        if head[j] >= 0.0:                   # the minimum is C_0 = 0: run starts at 1
            j = -1
        if self._cumdur is None:
            self._cumdur = np.cumsum(self.dur)
        cd = self._cumdur
        return float(cd[k] - (cd[j] if j >= 0 else 0)) * 1e-9


def buffer_series(trace: Trace, rate_Bps: float) -> F64Array:
    """B_k (bytes) after each access for input rate ``rate_Bps`` (bytes/s)."""
    return _Lindley(trace).run(rate_Bps).copy()


def peak_buffer(trace: Trace, rate_Bps: float) -> float:
    """max_k B_k, bytes: RAM needed beyond the block in flight at this rate."""
    return float(_Lindley(trace).run(rate_Bps).max())


def peak_buffer_plus_block(trace: Trace, rate_Bps: float) -> float:
    """max_k (B_k + S_k), bytes: backlog plus the block being stored."""
    lw = _Lindley(trace)
    return float(np.max(lw.run(rate_Bps) + lw.size))


@dataclass(frozen=True)
class BufferPeaks:
    """Peak buffer results for one input rate (bytes/s, bytes)."""

    rate_Bps: float
    peak_bytes: float
    peak_plus_block_bytes: float
    peak_index: int
    """Row of the trace where the peak buffer occurs (first one)."""


def buffer_peaks(trace: Trace, rates_Bps: Iterable[float]) -> list[BufferPeaks]:
    """Peak buffer and peak-plus-block for each rate, sharing one set of work arrays."""
    lw = _Lindley(trace)
    out: list[BufferPeaks] = []
    tmp = np.empty_like(lw.size)
    for r in rates_Bps:
        b = lw.run(float(r))
        k = int(np.argmax(b))
        np.add(b, lw.size, out=tmp)
        out.append(BufferPeaks(float(r), float(b[k]), float(tmp.max()), k))
    return out


def ram_for_rates(trace: Trace, rates_Bps: Iterable[float], include_block: bool = False) -> dict[str, float]:
    """RAM (bytes) needed for each rate, keyed by :func:`rate_key`.

    ``include_block`` adds the block in flight (peak + S)."""
    return {rate_key(p.rate_Bps): (p.peak_plus_block_bytes if include_block else p.peak_bytes)
            for p in buffer_peaks(trace, rates_Bps)}


def max_rate_for_ram(trace: Trace, ram_bytes: float, include_block: bool = False,
                     rel_tol: float = 1e-12) -> float:
    """The largest input rate (bytes/s) whose peak buffer fits in ``ram_bytes``.

    With ``include_block`` the budget must also hold the block in flight
    (peak + S_k); if it is smaller than the largest access, no rate fits and
    0.0 is returned.  Returns ``inf`` when no access takes any time.

    Newton's method on the convex, non-decreasing, piecewise-linear peak
    function, started above the answer: every iterate stays at or above the
    answer and each step lands on a new linear piece, so it ends exactly
    after a few passes (bisection backs it up should rounding stall it).
    """
    _need(trace)
    if not (ram_bytes >= 0 and math.isfinite(ram_bytes)):
        raise ValueError(f"RAM budget must be finite and >= 0, not {ram_bytes}")
    lw = _Lindley(trace)
    budget = float(ram_bytes)
    extra = lw.size if include_block else None
    if extra is not None and float(extra.max()) > budget:
        return 0.0
    dur = lw.dur
    if int(dur.max()) == 0:
        return math.inf
    tol = rel_tol * max(budget, 1.0) + 1e-9

    def g(rate: float) -> tuple[float, int]:
        b = lw.run(rate)
        if extra is not None:
            b = b + extra
        k = int(np.argmax(b))
        return float(b[k]), k

    # Start above the answer: the longest access alone overflows the budget.
    kmax = int(np.argmax(dur))
    rate = (budget + float(lw.size[kmax]) + 1.0) / (float(dur[kmax]) * 1e-9)
    val, k = g(rate)
    for _ in range(100):
        if val <= budget + tol:
            return rate
        slope = lw.slope_s(k)
        if slope <= 0.0:
            break
        nxt = rate - (val - budget) / slope
        if not nxt < rate:
            break
        if rate - nxt <= rel_tol * rate:    # converged to rounding noise
            return max(nxt, 0.0)
        rate = max(nxt, 0.0)
        val, k = g(rate)
    # Fallback: bisection between a feasible rate (0) and an infeasible one.
    lo, hi = 0.0, rate
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if g(mid)[0] <= budget:
            lo = mid
        else:
            hi = mid
        if hi - lo <= rel_tol * hi:
            break
    return lo


# ================================================================ access sizes
@dataclass(frozen=True)
class SizeStats:
    """Latency and throughput of the accesses of one size in a trace."""

    size_bytes: int
    count: int
    max_latency_ns: float
    p50_latency_ns: float
    p99_latency_ns: float
    avg_throughput_Bps: float
    """size * count / summed duration."""
    guaranteed_throughput_Bps: float
    """size / max latency."""


def by_size(trace: Trace) -> list[SizeStats]:
    """Statistics per distinct access size, ascending by size."""
    _need(trace)
    order = np.argsort(trace.size_bytes, kind="stable")
    sizes = trace.size_bytes[order]
    durs = trace.duration_ns[order]
    uniq, first, counts = np.unique(sizes, return_index=True, return_counts=True)
    out: list[SizeStats] = []
    for s, f, c in zip(uniq.tolist(), first.tolist(), counts.tolist()):
        d = durs[f:f + c]
        p50, p99 = np.percentile(d, [50.0, 99.0], method="inverted_cdf")
        mx = float(d.max())
        busy = float(d.sum())
        out.append(SizeStats(
            size_bytes=int(s), count=int(c), max_latency_ns=mx,
            p50_latency_ns=float(p50), p99_latency_ns=float(p99),
            avg_throughput_Bps=math.inf if busy == 0 else s * c * 1e9 / busy,
            guaranteed_throughput_Bps=math.inf if mx == 0 else s * 1e9 / mx))
    return out


@dataclass(frozen=True)
class SweetSpot:
    """Result of :func:`sweet_spot` (sizes in bytes)."""

    size_bytes: int
    """The largest size up to which typical latency stays flat (the knee)."""
    best_avg_size_bytes: int
    """The size with the highest average throughput."""
    best_guaranteed_size_bytes: int
    """The size with the highest guaranteed throughput (size / max latency)."""
    tolerance: float


def sweet_spot(stats: Sequence[SizeStats], tolerance: float = 0.25) -> SweetSpot:
    """The access-size sweet spot (seed 004): where latency stops being flat.

    Definition: the largest tested size s such that every tested size up to
    s has a median latency within ``(1 + tolerance)`` times the median
    latency of the smallest tested size.  Below the knee an access costs a
    fixed overhead (an SD card's 16 KiB internal program unit: 512 B takes
    as long as 16 KiB), so throughput grows in proportion to size for free;
    above it latency grows with size, so larger accesses buy little more
    throughput while costing RAM (the block in flight) and worst-case
    latency.  Median, not max, latency is used because worst cases on
    managed flash are random stalls unrelated to size.  On a device whose
    latency grows with size from the start (MRAM) the sweet spot is the
    smallest size.  The sizes with the best average and best guaranteed
    throughput are reported too.
    """
    if not stats:
        raise ValueError("sweet_spot needs at least one access size")
    st = sorted(stats, key=lambda s: s.size_bytes)
    base = st[0].p50_latency_ns
    knee = st[0].size_bytes
    for s in st[1:]:
        if s.p50_latency_ns > (1.0 + tolerance) * base:
            break
        knee = s.size_bytes
    best_avg = max(st, key=lambda s: s.avg_throughput_Bps).size_bytes
    best_g = max(st, key=lambda s: s.guaranteed_throughput_Bps).size_bytes
    return SweetSpot(knee, best_avg, best_g, tolerance)


# =================================================================== summary
def _ram_up(x: float) -> int:
    """Whole bytes of RAM for a modelled amount (rounding noise forgiven)."""
    return max(0, int(math.ceil(x - 1e-6)))


def _num(x: float) -> float | None:
    """JSON has no infinity: report it as null."""
    return None if not math.isfinite(x) else x


def summarize(trace: Trace, rates_Bps: Iterable[float] = DEFAULT_RATES,
              ram_bytes: Iterable[int] | int | None = None,
              ops: Iterable[Op | int | str] | None = None) -> dict[str, Any]:
    """The JSON summary of one trace (schema: docs/BENCH-JSON.md).

    ``rates_Bps``: input rates for ``peak_buffer_bytes``;  ``ram_bytes``: one
    or more RAM budgets for ``max_rate_Bps_for_ram``;  ``ops``: analyse only
    these operations (default: every access in the trace).
    """
    t = trace.select(ops) if ops is not None else trace
    _need(t)
    rates = [float(r) for r in rates_Bps]
    pct = latency_percentiles_ns(t, [p for _, p in PERCENTILES])
    dur = t.duration_ns
    lat: dict[str, float] = {k: v / 1e3 for (k, _), v in zip(PERCENTILES, pct)}
    lat["max"] = float(dur.max()) / 1e3
    lat["min"] = float(dur.min()) / 1e3
    lat["mean"] = float(dur.mean()) / 1e3
    peaks = buffer_peaks(t, rates)
    meta = t.metadata
    counts = np.bincount(t.op, minlength=len(OP_NAMES))
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "device": meta.get("device", ""),
        "fs": meta.get("fs", ""),
        "workload": meta.get("workload", ""),
        "timing": meta.get("timing", ""),
        "seed": meta.get("seed"),
        "parameters": meta.get("parameters", {}),
        "count": len(t),
        "bytes": t.total_bytes,
        "busy_us": t.busy_ns / 1e3,
        "ops": {name: int(c) for name, c in zip(OP_NAMES, counts.tolist()) if c},
        "sizes_bytes": t.sizes()[:64],
        "max_latency_us": lat["max"],
        "avg_throughput_kBps": _num(avg_throughput_Bps(t) / 1e3),
        "guaranteed_throughput_kBps": _num(guaranteed_throughput_Bps(t) / 1e3),
        "latency_us": lat,
        "rates_Bps": rates,
        "peak_buffer_bytes": {rate_key(p.rate_Bps): _ram_up(p.peak_bytes) for p in peaks},
        "peak_buffer_plus_block_bytes": {rate_key(p.rate_Bps): _ram_up(p.peak_plus_block_bytes)
                                         for p in peaks},
        # At a rate above the average throughput the backlog grows without
        # bound: its peak only measures how long the trace is.
        "unbounded_rates": [rate_key(r) for r in rates if r * t.busy_ns > t.total_bytes * 1e9],
    }
    if ram_bytes is not None:
        budgets = [ram_bytes] if isinstance(ram_bytes, int) else list(ram_bytes)
        out["max_rate_Bps_for_ram"] = {str(int(b)): _num(max_rate_for_ram(t, b)) for b in budgets}
        out["max_rate_Bps_for_ram_plus_block"] = {
            str(int(b)): _num(max_rate_for_ram(t, b, include_block=True)) for b in budgets}
    if 1 < len(out["sizes_bytes"]) <= 64:
        stats = by_size(t)
        sw = sweet_spot(stats)
        out["by_size"] = [{
            "size_bytes": s.size_bytes, "count": s.count,
            "max_latency_us": s.max_latency_ns / 1e3, "p50_latency_us": s.p50_latency_ns / 1e3,
            "p99_latency_us": s.p99_latency_ns / 1e3,
            "avg_throughput_kBps": _num(s.avg_throughput_Bps / 1e3),
            "guaranteed_throughput_kBps": _num(s.guaranteed_throughput_Bps / 1e3),
        } for s in stats]
        out["sweet_spot_bytes"] = sw.size_bytes
    return out
