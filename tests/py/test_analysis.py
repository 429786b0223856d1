"""Tests of steadyfs.analysis against hand-worked cases and independent formulations."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from steadyfs.analysis import (
    avg_throughput_Bps,
    buffer_peaks,
    buffer_series,
    by_size,
    guaranteed_throughput_Bps,
    latency_percentiles_ns,
    max_latency_ns,
    max_rate_for_ram,
    peak_buffer,
    peak_buffer_plus_block,
    ram_for_rates,
    summarize,
    sweet_spot,
)
from steadyfs.trace import Op, Trace, TraceWriter, make_metadata

MS = 1_000_000  # ns
US = 1_000


# ----------------------------------------------------------------- seed 003
def seed003_trace(erase_ms: float = 2.0, n: int = 64) -> Trace:
    """4 KiB accesses of 0.5 ms; every 32nd access (one 128 KiB block) takes
    ``erase_ms`` because it erases a block first."""
    d = np.full(n, MS // 2, dtype=np.int64)
    d[31::32] = int(erase_ms * MS)
    return Trace.from_durations(d, 4096)


def test_seed003_example_needs_8KiB() -> None:
    # omega = 4096 B per ms = 4 096 000 B/s.
    # Ordinary access: x = 0.5 ms * 4096 B/ms - 4096 = -2048 -> B stays 0.
    # Erase access:    x = 2 ms * 4096 B/ms - 4096 = +4096 -> B = 4096.
    # Next accesses:   4096 - 2048 = 2048, then 2048 - 2048 = 0.
    # Peak buffer 4 KiB; plus the 4 KiB block being written: 8 KiB (the article's figure,
    # = the 2 ms * 4 MB/s that arrive during the erase).
    omega = 4096 * 1000.0
    t = seed003_trace()
    b = buffer_series(t, omega)
    expect = np.zeros(64)
    expect[31], expect[32] = 4096, 2048
    expect[63] = 4096
    np.testing.assert_allclose(b, expect, atol=1e-9)
    assert peak_buffer(t, omega) == pytest.approx(4096)
    assert peak_buffer_plus_block(t, omega) == pytest.approx(8192)
    # If the erase access also includes its 0.5 ms page write (2.5 ms), x = 6144:
    # peak 6 KiB, 10 KiB with the block.
    t2 = seed003_trace(erase_ms=2.5)
    assert peak_buffer(t2, omega) == pytest.approx(6144)
    assert peak_buffer_plus_block(t2, omega) == pytest.approx(10240)
    s = summarize(t, [omega])
    assert s["peak_buffer_bytes"] == {"4096000": 4096}
    assert s["peak_buffer_plus_block_bytes"] == {"4096000": 8192}
    # No buffering (beyond the block) up to 4096 B / 2 ms = 2 048 000 B/s;
    # 4 KiB of RAM is enough for exactly 4 096 000 B/s (x = 2 ms*w - 4096 <= 4096).
    assert max_rate_for_ram(t, 0) == pytest.approx(2_048_000)
    assert max_rate_for_ram(t, 4096) == pytest.approx(4_096_000)
    assert max_rate_for_ram(t, 8192, include_block=True) == pytest.approx(4_096_000)


# ----------------------------------------------------------------- seed 000
def two_sequences() -> tuple[Trace, Trace]:
    """Seed 000 figures 1-2: same durations, same maxima, different order.

    S = 1000 B, omega = 1e6 B/s (1 B per us).  Ordinary access 500 us
    (x = -500 B), long access 3000 us (x = +2000 B).  Sequence 1 has its two
    long accesses 10 apart, sequence 2 back to back."""
    base = np.full(20, 500 * US, dtype=np.int64)
    a, b = base.copy(), base.copy()
    a[[5, 15]] = 3000 * US
    b[[5, 6]] = 3000 * US
    return Trace.from_durations(a, 1000), Trace.from_durations(b, 1000)


def test_seed000_consecutive_peaks_need_double_ram() -> None:
    a, b = two_sequences()
    assert max_latency_ns(a) == max_latency_ns(b) == 3000 * US
    assert np.sum(a.duration_ns == 3000 * US) == np.sum(b.duration_ns == 3000 * US) == 2
    assert avg_throughput_Bps(a) == avg_throughput_Bps(b)
    # Sequence 1: 2000 after each long access, drained by 500 per access in 4 accesses.
    # Sequence 2: 2000 then 2000 + 2000 = 4000.
    assert peak_buffer(a, 1e6) == pytest.approx(2000)
    assert peak_buffer(b, 1e6) == pytest.approx(4000)
    assert peak_buffer(b, 1e6) == pytest.approx(2 * peak_buffer(a, 1e6))
    # Inverse with 2000 B: sequence 1 -> 3000e-6 w - 1000 <= 2000 -> w = 1e6;
    # sequence 2 -> 2 (3000e-6 w - 1000) <= 2000 -> w = 666 666.67 B/s.
    assert max_rate_for_ram(a, 2000) == pytest.approx(1e6)
    assert max_rate_for_ram(b, 2000) == pytest.approx(2e6 / 3)


# ------------------------------------------------------------------ SD spec
def test_sd_spec_2KBps_without_buffering() -> None:
    # The SD spec allows 250 ms busy per 512 B block: 512 B / 0.25 s = 2048 B/s.
    worst = Trace.from_durations(np.full(100, 250 * MS), 512)
    assert max_rate_for_ram(worst, 0) == pytest.approx(2048)
    assert guaranteed_throughput_Bps(worst) == pytest.approx(2048)
    assert peak_buffer(worst, 2048) == pytest.approx(0, abs=1e-9)
    assert peak_buffer(worst, 2100) > 0
    # One 250 ms stall among fast accesses sets the same zero-RAM rate.
    d = np.full(1000, 1 * MS)
    d[400] = 250 * MS
    mixed = Trace.from_durations(d, 512)
    assert max_rate_for_ram(mixed, 0) == pytest.approx(2048)


# ------------------------------------------------- independent formulations
def brute_buffer(d_s: np.ndarray, s: np.ndarray, w: float) -> list[float]:
    """B_k = max(0, max over runs (j, k] of sum(delta*w - S)): every run summed."""
    x = [float(di) * w - float(si) for di, si in zip(d_s, s)]
    out = []
    for k in range(len(x)):
        best = 0.0
        for j in range(k + 1):
            best = max(best, sum(x[j:k + 1]))
        out.append(best)
    return out


def kadane(d_s: np.ndarray, s: np.ndarray, w: float) -> float:
    """Maximum-subarray sum of delta*w - S (empty run allowed), plain loop."""
    best = cur = 0.0
    for di, si in zip(d_s, s):
        cur = max(0.0, cur + float(di) * w - float(si))
        best = max(best, cur)
    return best


def brute_max_rate(d_s: np.ndarray, s: np.ndarray, ram: float, include_block: bool) -> float:
    """Largest w with every run (j, k] satisfying D w - S_run (+ S_k) <= ram:
    w = min over runs with D > 0 of (ram + S_run - c_k) / D."""
    best = math.inf
    n = len(d_s)
    for k in range(n):
        c = float(s[k]) if include_block else 0.0
        if c > ram:
            return 0.0
        for j in range(k + 1):
            dsum = float(np.sum(d_s[j:k + 1]))
            if dsum > 0:
                best = min(best, (ram + float(np.sum(s[j:k + 1])) - c) / dsum)
    return best


def random_trace(rng: np.random.Generator, n: int, mixed: bool) -> Trace:
    d = rng.integers(0, 3 * MS, n)
    d[rng.random(n) < 0.1] += rng.integers(1, 20 * MS)
    size = rng.choice([512, 2048, 4096, 16384], n) if mixed else np.full(n, 4096)
    return Trace.from_durations(d, size)


@pytest.mark.parametrize("seed", range(12))
def test_lindley_matches_max_subarray(seed: int) -> None:
    rng = np.random.default_rng(seed)
    t = random_trace(rng, int(rng.integers(1, 60)), mixed=seed % 2 == 1)
    d_s = t.duration_ns / 1e9
    for w in (1e5, 1e6, 4e6, float(rng.uniform(1e4, 1e7))):
        b = buffer_series(t, w)
        ref = brute_buffer(d_s, t.size_bytes, w)
        np.testing.assert_allclose(b, ref, rtol=1e-9, atol=1e-6)
        assert peak_buffer(t, w) == pytest.approx(kadane(d_s, t.size_bytes, w), rel=1e-9, abs=1e-6)
        plus = max(bk + sk for bk, sk in zip(ref, t.size_bytes))
        assert peak_buffer_plus_block(t, w) == pytest.approx(plus, rel=1e-9, abs=1e-6)


@pytest.mark.parametrize("seed", range(12))
def test_max_rate_inverse(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    t = random_trace(rng, int(rng.integers(2, 50)), mixed=seed % 2 == 0)
    d_s = t.duration_ns / 1e9
    for ram in (0.0, 4096.0, float(rng.uniform(0, 200_000))):
        for inc in (False, True):
            w = max_rate_for_ram(t, ram, include_block=inc)
            ref = brute_max_rate(d_s, t.size_bytes, ram, inc)
            assert w == pytest.approx(ref, rel=1e-9)
            if w == 0.0:
                assert inc and ram < t.size_bytes.max()
                continue
            need = peak_buffer_plus_block if inc else peak_buffer
            assert need(t, w) <= ram * (1 + 1e-9) + 1e-6          # sustains the budget
            assert need(t, w * 1.001) > ram                         # a bit faster does not


def test_ram_for_rates_monotonic_and_keys() -> None:
    t = random_trace(np.random.default_rng(7), 500, mixed=False)
    rates = [1e5, 5e5, 1e6, 2e6, 4e6]
    r = ram_for_rates(t, rates)
    assert list(r) == ["100000", "500000", "1000000", "2000000", "4000000"]
    vals = list(r.values())
    assert vals == sorted(vals)
    plus = ram_for_rates(t, rates, include_block=True)
    assert all(plus[k] >= r[k] + 4096 - 1e-6 for k in r)  # single size: exactly peak + S
    assert all(plus[k] == pytest.approx(r[k] + 4096) for k in r)
    peaks = buffer_peaks(t, rates)
    assert [p.peak_bytes for p in peaks] == vals
    for p in peaks:
        assert buffer_series(t, p.rate_Bps)[p.peak_index] == pytest.approx(p.peak_bytes)


# ------------------------------------------------------------- latency stats
def test_percentiles_and_throughputs() -> None:
    t = Trace.from_durations(np.arange(1, 101) * US, 1000)   # 1..100 us
    assert latency_percentiles_ns(t, [50, 90, 99, 99.9]) == [50 * US, 90 * US, 99 * US, 100 * US]
    # 100 accesses * 1000 B in sum(1..100) us = 5050 us.
    assert avg_throughput_Bps(t) == pytest.approx(100_000 / 5050e-6)
    assert guaranteed_throughput_Bps(t) == pytest.approx(1000 / 100e-6)
    # Mixed sizes: min of size/duration = min(512/1 ms, 4096/4 ms) = 512 000 B/s.
    m = Trace.from_durations([1 * MS, 4 * MS], [512, 4096])
    assert guaranteed_throughput_Bps(m) == pytest.approx(512_000)
    assert max_rate_for_ram(m, 0) == pytest.approx(guaranteed_throughput_Bps(m))


def test_zero_byte_access_means_zero_guarantee() -> None:
    t = Trace.from_durations([1 * MS, 2 * MS], [4096, 0], [int(Op.WRITE), int(Op.ERASE)])
    assert guaranteed_throughput_Bps(t) == 0.0
    assert max_rate_for_ram(t, 0) == 0.0
    # Analysing writes only ignores the erase.
    assert summarize(t, [1e6], ops=["write"])["guaranteed_throughput_kBps"] == pytest.approx(4096)


def test_empty_trace_is_an_error() -> None:
    t = Trace.from_durations(np.zeros(0, dtype=np.int64), 0)
    with pytest.raises(ValueError, match="no accesses"):
        summarize(t)
    with pytest.raises(ValueError):
        peak_buffer(Trace.from_durations([1], [1]), -1.0)


# --------------------------------------------------------------- sweet spot
def test_sweet_spot_sd_card_16KiB() -> None:
    # Seed 004: 512 B .. 16 KiB all take ~2 ms; above, ~10 MB/s plus overhead;
    # occasional 10-30 ms and 500 ms stalls at any size.
    rng = np.random.default_rng(4)
    w = TraceWriter(make_metadata(device="sd-model", workload="seed004-sizes"))
    sizes = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
    for s in sizes:
        typ = 2 * MS if s <= 16384 else 2 * MS + (s - 16384) * 100  # 100 ns per byte
        d = rng.normal(typ, typ * 0.03, 200).astype(np.int64)
        d[rng.random(200) < 0.05] += 20 * MS
        if s == 2048:
            d[7] += 500 * MS
        w.extend(d, s)
    stats = by_size(w.finish())
    assert [s.size_bytes for s in stats] == sizes
    assert all(s.count == 200 for s in stats)
    sw = sweet_spot(stats)
    assert sw.size_bytes == 16384
    assert sw.best_avg_size_bytes == 65536
    st16 = stats[sizes.index(16384)]
    assert st16.guaranteed_throughput_Bps == pytest.approx(16384e9 / st16.max_latency_ns)
    summ = summarize(w.finish(), [1e6])
    assert summ["sweet_spot_bytes"] == 16384
    assert [e["size_bytes"] for e in summ["by_size"]] == sizes


def test_sweet_spot_mram_is_smallest() -> None:
    # Seed 003 figure 3: EM064LX worst case 52, 86, 154, 291, 564, 1109 us (2..64 KiB).
    lat_us = [52, 86, 154, 291, 564, 1109]
    sizes = [2048 << i for i in range(6)]
    t = Trace.concat([Trace.from_durations(np.full(10, l * US), s) for l, s in zip(lat_us, sizes)])
    sw = sweet_spot(by_size(t))
    assert sw.size_bytes == 2048
    assert sw.best_avg_size_bytes == 65536


# ------------------------------------------------------------------ summary
def test_summary_schema() -> None:
    meta = make_metadata(device="mt29f1g01", fs="raw", workload="x", timing="typical", seed=3,
                         parameters={"size": 4096})
    t = seed003_trace()
    t.metadata = meta
    s = summarize(t, [1e5, 5e5, 1e6, 2e6, 4e6], ram_bytes=[0, 8192])
    json.dumps(s, allow_nan=False)
    for key in ("max_latency_us", "avg_throughput_kBps", "guaranteed_throughput_kBps", "latency_us",
                "peak_buffer_bytes", "peak_buffer_plus_block_bytes", "count", "bytes",
                "max_rate_Bps_for_ram", "device", "fs", "workload"):
        assert key in s, key
    assert s["device"] == "mt29f1g01" and s["seed"] == 3 and s["parameters"] == {"size": 4096}
    assert s["max_latency_us"] == 2000.0
    assert s["latency_us"]["max"] == 2000.0 and s["latency_us"]["p50"] == 500.0
    assert s["count"] == 64 and s["bytes"] == 64 * 4096
    # kB = 1000 bytes: 4096 B per 2 ms = 2048 kB/s.
    assert s["guaranteed_throughput_kBps"] == pytest.approx(2048.0)
    assert s["avg_throughput_kBps"] == pytest.approx(64 * 4096 / (62 * 0.5e-3 + 2 * 2e-3) / 1e3)
    assert list(s["peak_buffer_bytes"]) == ["100000", "500000", "1000000", "2000000", "4000000"]
    assert s["max_rate_Bps_for_ram"]["0"] == pytest.approx(2_048_000)
    assert s["max_rate_Bps_for_ram"]["8192"] == pytest.approx((8192 + 4096) / 2e-3)
