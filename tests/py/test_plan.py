"""`steady plan` and steadyfs_guarantee (issue 12 item 5): the buffer a
rate-latency guarantee proves, its inverse, the CLI's answers and its
one-line errors."""

from __future__ import annotations

import json
import math

import pytest

from clirun import assert_one_line_error, steady
from steadyfs import cmd_bound, native
from steadyfs.cmd_plan import (MEDIA, Guarantee, buffer_for_rate, guarantee, rate_for_buffer,
                               raw_guarantee)

needs_lib = pytest.mark.skipif(not native.library_path().exists(),
                               reason="native library not built")


def test_buffer_formula_and_its_inverse() -> None:
    g = Guarantee("x", 4096, "worst", 0.75, c_s=0.010, d_s=0.020)
    assert g.max_rate == pytest.approx(409600.0)
    # record + rate * (c + d)
    assert buffer_for_rate(g, 300_000) == pytest.approx(4096 + 300_000 * 0.030)
    assert buffer_for_rate(g, 409_601) is None          # above record / c
    # the inverse gives back the rate, and is capped by record / c
    assert rate_for_buffer(g, 4096 + 300_000 * 0.030) == pytest.approx(300_000)
    assert rate_for_buffer(g, 10**9) == pytest.approx(g.max_rate)
    assert rate_for_buffer(g, 4095) == 0.0


def test_buffer_is_what_a_simulated_producer_needs() -> None:
    """Replay the worst schedule the guarantee allows (every call takes c,
    the first d more) against a producer at the rate: the peak backlog
    reaches the formula and never exceeds it."""
    g = Guarantee("x", 4096, "worst", 0.75, c_s=0.004, d_s=0.012)
    rate = 700_000.0
    bound = buffer_for_rate(g, rate)
    assert bound is not None
    t, peak = 0.0, 0.0
    for k in range(2000):
        ready = (k + 1) * g.record / rate
        start = max(t, ready)
        t = start + g.c_s + (g.d_s if k == 0 else 0.0)
        peak = max(peak, rate * t - g.record * k)   # arrived - written, just before done
    assert peak <= bound + 1e-6
    assert peak >= bound - 1.0


def test_two_curves_buffer_is_what_a_simulated_producer_needs() -> None:
    """With one record's own bound b beside the window's n c + d, n records
    take min(n b, n c + d): replay that worst schedule (the k-th call of a
    busy period ends at its start + T(k)) against producers at several
    rates; the peak backlog reaches the formula and never exceeds it, and
    the formula is never above the window curve's alone."""
    g = Guarantee("x", 4096, "worst", 0.75, c_s=0.004, d_s=0.050, b_s=0.020)
    for rate in (50_000.0, 150_000.0, 300_000.0, 1_000_000.0):
        bound = buffer_for_rate(g, rate)
        assert bound is not None
        one_line = Guarantee("x", 4096, "worst", 0.75, c_s=g.c_s, d_s=g.d_s)
        assert bound <= (buffer_for_rate(one_line, rate) or 0) + 1e-6
        t, peak, busy_start, k_in_busy = 0.0, 0.0, 0.0, 0
        for k in range(3000):
            ready = (k + 1) * g.record / rate
            if ready > t:   # idle: a new busy period starts with this record
                busy_start, k_in_busy = ready, 0
            k_in_busy += 1
            t = busy_start + g.time_s(k_in_busy)
            peak = max(peak, rate * t - g.record * k)
        assert peak <= bound + 1e-6
        assert peak >= bound - 1.0
    assert buffer_for_rate(g, 4096 / 0.004 * 1.001) is None
    # the inverse: the largest rate a budget absorbs gives that budget back
    for ram in (8192.0, 20_000.0, 64_000.0):
        r = rate_for_buffer(g, ram)
        assert 0 < r <= g.max_rate
        need = buffer_for_rate(g, r)
        assert need is not None and need <= ram + 1e-6


@needs_lib
def test_guarantee_windows_below_the_call_bound() -> None:
    """b is the stated write_4096_sync bound; the window's c is below it
    (a window's collection, rounds, checkpoints and erases counted by its
    totals: DESIGN.md §7) and pays with a latency d."""
    for timing in ("typical", "worst"):
        g = guarantee("mt29f1g01", 4096, timing, 0.75)
        stated_us = cmd_bound.bounds_us("mt29f1g01", timing)["write_4096_sync"]
        assert g.b_s * 1e6 == pytest.approx(stated_us, abs=0.1)
        assert 0 < g.c_s < g.b_s / 2
        assert g.d_s > 0
        assert g.time_s(1) <= g.b_s


@needs_lib
def test_dsync_records_curve() -> None:
    """A logger's O_DSYNC records to a file kept open write no inode
    sector: a smaller c on every medium, and one record alone is bounded by
    the O_DSYNC write's own bound (write_4096_dsync), below write + sync's;
    records at sector boundaries touch a sector fewer: smaller c again.
    The CLI plans from it with --dsync and shows the other kind beside."""
    for dev in MEDIA:
        for timing in ("typical", "worst"):
            sync = guarantee(dev, 4096, timing, 0.75)
            ds = guarantee(dev, 4096, timing, 0.75, dsync=True)
            al = guarantee(dev, 4096, timing, 0.75, dsync=True, aligned=True)
            assert ds.dsync and not sync.dsync and al.aligned
            assert 0 < al.c_s < ds.c_s < sync.c_s
            stated = cmd_bound.bounds_us(dev, timing)
            assert ds.b_s * 1e6 == pytest.approx(stated["write_4096_dsync"], abs=0.1)
            assert ds.b_s < sync.b_s and al.b_s == ds.b_s
    r = steady("plan", "--device", "mt29f1g01", "--rate", "10k", "--dsync", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["dsync"] is True and out["other"]["dsync"] is False
    assert out["c_ms"] < out["other"]["c_ms"]
    text = steady("plan", "--device", "mt29f1g01", "--rate", "10k").stdout
    assert "write+sync calls take" in text and "O_DSYNC writes to a file kept open instead" in text


@needs_lib
def test_held_sector_records_curve() -> None:
    """With the held sector configured (steadyfs_config.hold_buf), write +
    sync to a file kept open commits in the record's last sector: its c is
    below write + sync's and no lower than O_DSYNC's (its one light call
    a record, the sync, as O_DSYNC's write), at any offset and at sector
    boundaries; one record alone may cost up to a
    program more (the write programs what an earlier one held).  The RAM
    the plan adds for the file system grows by the held sector's buffer."""
    hold = {"hold": 1}
    for dev in MEDIA:
        for timing in ("typical", "worst"):
            for aligned in (False, True):
                sync = guarantee(dev, 4096, timing, 0.75, aligned=aligned)
                held = guarantee(dev, 4096, timing, 0.75, hold, aligned=aligned)
                ds = guarantee(dev, 4096, timing, 0.75, dsync=True, aligned=aligned)
                assert held.held and not sync.held and not ds.held
                assert ds.c_s <= held.c_s < sync.c_s
                assert held.b_s >= sync.b_s
    r = steady("plan", "--device", "mt29f1g01", "--rate", "10k", "--json")
    r2 = steady("plan", "--device", "mt29f1g01", "--rate", "10k", "--param", "hold=1", "--json")
    assert r.returncode == 0 and r2.returncode == 0, r2.stderr
    plain, held_out = json.loads(r.stdout), json.loads(r2.stdout)
    assert held_out["c_ms"] < plain["c_ms"]
    assert held_out["fs_ram_bytes"] == plain["fs_ram_bytes"] + 2048
    text = steady("plan", "--device", "mt29f1g01", "--rate", "10k", "--param", "hold=1").stdout
    assert "write+sync calls to a file kept open, the held sector configured take" in text
    assert_one_line_error(steady("plan", "--rate", "1k", "--param", "hold=2"), "steady plan: ",
                          "hold=2")


@needs_lib
def test_cli_rate_and_ram() -> None:
    r = steady("plan", "--device", "mt29f1g01", "--rate", "1k", "--timing", "typical", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    # 1 kB/s: below what one record's own bound sustains, the first record
    # is the worst n
    assert 1000 * out["b_s"] < 4096
    assert out["buffer_bytes"] == math.ceil(4096 + 1000 * min(out["b_s"], out["c_s"] + out["d_s"]))
    assert out["fs_ram_bytes"] > 0
    r = steady("plan", "--rate", "300k", "--timing", "worst")
    assert r.returncode == 1 and "NOT sustainable" in r.stdout
    r = steady("plan", "--ram", "16KiB", "--json")
    assert r.returncode == 0
    out = json.loads(r.stdout)
    assert 0 < out["rate_for_ram_Bps"] <= out["max_rate_Bps"]


@needs_lib
def test_raw_device_curve_is_the_parts_own_costs() -> None:
    """The raw device's curve from the profile's operation costs: NAND two
    page programs per 4 KiB and an erase per 128 KiB (amortised; one whole
    in d), MRAM one 4 KiB write and no erase, NOR 16 page programs and the
    cheaper erase per byte (the 64 KiB one)."""
    profs = {p["name"]: p for p in native.profiles()}
    for timing, key in (("typical", "typical_bound_ns"), ("worst", "max_ns")):
        nand = profs["mt29f1g01"]["op_cost"]
        g = raw_guarantee("mt29f1g01", 4096, timing)
        assert g.c_s * 1e9 == pytest.approx(2 * nand["prog_page"][key] +
                                            nand["erase_block"][key] * 4096 / 131072)
        assert g.d_s * 1e9 == pytest.approx(nand["erase_block"][key])
        mram = profs["em064lx"]["op_cost"]
        g = raw_guarantee("em064lx", 4096, timing)
        assert g.c_s * 1e9 == pytest.approx(mram["prog_4096"][key]) and g.d_s == 0.0
        nor = profs["mt25q128"]["op_cost"]
        g = raw_guarantee("mt25q128", 4096, timing)
        assert g.c_s * 1e9 == pytest.approx(nor["prog_4096"][key] +
                                            nor["erase_big"][key] * 4096 / 65536)
        assert g.d_s * 1e9 == pytest.approx(nor["erase_big"][key])


@needs_lib
def test_cli_three_media_side_by_side() -> None:
    r = steady("plan", "--device", "all", "--rate", "100k", "--ram", "16KiB",
               "--timing", "typical", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["rows"]
    assert [(x["device"], x["stack"]) for x in rows] == \
        [(d, s) for d in MEDIA for s in ("steadyfs", "raw device")]
    for d in MEDIA:
        fs, raw = (x for x in rows if x["device"] == d)
        assert fs["c_ms"] == pytest.approx(guarantee(d, 4096, "typical", 0.75).c_s * 1e3)
        # the file system's proven rate is below its medium's: the gap issue 16 names
        assert 0 < fs["max_rate_Bps"] < raw["max_rate_Bps"]
    text = steady("plan", "--device", "all", "--rate", "300k").stdout
    assert "raw device" in text and "em064lx" in text
    assert "the raw device, same records" in steady("plan", "--rate", "1k").stdout


@needs_lib
@pytest.mark.parametrize("args,needle", [
    (["--device", "nope", "--rate", "1k"], "--device nope"),
    (["--device", "sd-consumer", "--rate", "1k"], "SD card"),
    (["--rate", "fast"], "rate 'fast'"),
    (["--ram", "-3"], "size '-3'"),
    (["--record", "0", "--rate", "1k"], "--record 0"),
    (["--fill", "0.99", "--rate", "1k"], "--fill 0.99"),
    ([], "--rate"),
    (["--device", "all"], "--rate"),
    (["--device", "all", "--profile-file", "x.json", "--rate", "1k"], "--device all"),
])
def test_cli_errors_are_one_line(args: list[str], needle: str) -> None:
    r = steady("plan", *args)
    assert r.returncode == 2, r.stdout
    assert_one_line_error(r, "steady plan: ", needle)
