"""The FSOC model (seed 002 eqs. (1)-(4)) against hand-worked cases, its
crossover algebra, and the traffic tool's output (build/steady-fsocexp)."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import pytest

from steadyfs import fsocmodel as fm

# Fig. 5 of the paper: N = 3, Tcomp_serial = 2, Tcomp = 3, every other
# parameter 1 time unit (Tmedia = Ttrans = 1, so the I/O time is 2).
FIG5 = fm.UnitParams(n=3, t_comp_serial=2, t_fs_host=1, t_driver=1, t_media_conv=1, t_trans_conv=1,
                     t_stub=1, t_fs_fsoc=1, t_media_fsoc=1, t_trans_fsoc=1)


def test_equations_by_hand() -> None:
    # (1): 2 + 3 (1 + 1 + 1 + 1 + 3) = 23; (2) the same with stub/device FS
    assert float(fm.t_conv_serial(FIG5, 3)) == 23
    assert float(fm.t_fsoc_serial(FIG5, 3)) == 23
    # (3): 2 + 3 (1 + 1) + 2 + 3 + 2 max(3, 2) = 19  (Fig. 5's timeline)
    assert float(fm.t_conv_parallel(FIG5, 3)) == 19
    # (4): 2 + 3 * 1 + 3 + 3 + 2 max(3, 3) = 17  (Fig. 6)
    assert float(fm.t_fsoc_parallel(FIG5, 3)) == 17
    # N = 1: no overlap, (3) = (1) and (4) = (2) (the paper's remark)
    one = replace(FIG5, n=1)
    for tc in (0.0, 1.5, 7.0):
        assert float(fm.t_conv_parallel(one, tc)) == pytest.approx(float(fm.t_conv_serial(one, tc)))
        assert float(fm.t_fsoc_parallel(one, tc)) == pytest.approx(float(fm.t_fsoc_serial(one, tc)))


def test_vectorised() -> None:
    tc = np.array([0.0, 3.0, 10.0])
    assert fm.t_conv_parallel(FIG5, tc).shape == (3,)
    assert float(fm.t_conv_parallel(FIG5, tc)[1]) == 19


def test_phase_differences() -> None:
    # the paper's simplifications: Tstub = Tdriver, common Tmedia and Ttrans
    p = fm.UnitParams(n=100, t_comp_serial=0.0, t_fs_host=0.2, t_driver=0.7, t_media_conv=1.0,
                      t_trans_conv=4.0, t_stub=0.7, t_fs_fsoc=0.5, t_media_fsoc=1.0, t_trans_fsoc=4.0)

    def d(tc: float) -> float:
        return float(fm.t_fsoc_parallel(p, tc) - fm.t_conv_parallel(p, tc))

    # phase (1): N (TFS_FSOC - TFS_host)
    assert d(2.0) == pytest.approx(100 * 0.3)
    # phase (3): Tconv - TFSOC = N TFS_host - TFS_FSOC
    assert -d(9.0) == pytest.approx(100 * 0.2 - 0.5)
    # serial: constant N (TFS_FSOC - TFS_host)
    for tc in (0.0, 3.0, 9.0):
        assert float(fm.t_fsoc_serial(p, tc) - fm.t_conv_serial(p, tc)) == pytest.approx(30.0)
    # crossover: the exact root equals the paper's closed form, and lies in phase (2)
    x = fm.crossover(p)
    assert x is not None
    assert x == pytest.approx(fm.crossover_paper(p))
    assert x == pytest.approx(5.0 + 100 / 99 * 0.3)
    assert d(x) == pytest.approx(0.0, abs=1e-9)
    assert p.io_conv < x < p.io_fsoc
    ph = fm.phases(p)
    assert ph["phase2_from"] == 5.0 and ph["phase3_from"] == pytest.approx(5.5)
    assert ph["crossover"] == x


def test_crossover_edge_cases() -> None:
    p = fm.PAPER_UNIT
    x = fm.crossover(p)
    assert x is not None and 5.6e-3 < x < 6.02e-3
    # FSOC never better: a device so slow that phase 3's gain is negative
    slow = replace(p, t_fs_fsoc=p.n * p.t_fs_host * 2)
    assert fm.crossover(slow) is None
    # FSOC better everywhere: host file system costlier than the device's
    fast = replace(p, t_fs_fsoc=0.0, t_stub=p.t_driver)
    assert fm.crossover(fast) == 0.0


def _synthetic(units_conv: npt.NDArray[np.int64], units_fsoc: npt.NDArray[np.int64]) -> fm.Measurement:
    return fm.Measurement.from_json({"unit": 4096, "workloads": {"read_1m": {
        "conv": {"units": units_conv.tolist()}, "fsoc": {"units": units_fsoc.tolist()}}}})


def test_replay_equals_equations_for_equal_units() -> None:
    # 10 identical 4 KiB reads framed by an open and a close unit
    row_c = [0, 4200, 4, 400_000, 20_000]
    row_f = [23, 4107, 1, 400_000, 21_000]
    uc = np.array([[0, 0, 0, 0, 0]] + [row_c] * 10 + [[0, 0, 0, 0, 0]])
    uf = np.array([[0, 0, 0, 0, 0]] + [row_f] * 10 + [[0, 0, 0, 0, 0]])
    m = _synthetic(uc, uf)
    c = fm.Costs(host_scale=10.0, t_driver=1e-4, t_stub=2e-4)
    p = fm.unit_params(m, c, t_comp_serial=0.01)
    assert p.n == 10
    assert p.t_trans_conv == pytest.approx((4200 + 8 * 4) / 1e6)
    assert p.t_fs_fsoc == pytest.approx(21e-6 * 10 * 56 / 24)
    for tc in (0.0, 0.002, 0.0046, 0.01):
        assert fm.replay_parallel("conv", m, c, tc, 0.01) == pytest.approx(float(fm.t_conv_parallel(p, tc)))
        assert fm.replay_parallel("fsoc", m, c, tc, 0.01) == pytest.approx(float(fm.t_fsoc_parallel(p, tc)))
    # the serial run of the units is eq. (1) with t_comp = 0
    run = float(fm.unit_times("conv", m.work["read_1m"]["conv"].units, c).sum())
    assert run == pytest.approx(float(fm.t_conv_serial(replace(p, t_comp_serial=0.0), 0.0)))


# ---- the traffic tool --------------------------------------------------------

WORK = ("create", "mkdir", "rmdir", "unlink", "read_1m", "write_1m", "andrew")


@lru_cache(maxsize=4)
def _measured(emulate: bool = False, client: str = "v9fs") -> fm.Measurement:
    if not fm.fsocexp_binary().exists():
        pytest.fail(f"{fm.fsocexp_binary()} missing: `make build` builds it")
    work = WORK if not emulate and client == "v9fs" else ("create", "mkdir", "unlink", "read_1m")
    return fm.measure(blocks=64, reps=1, client=client,
                      workloads=work + (("--emulate",) if emulate else ()))


def test_metadata_traffic_far_below_conventional() -> None:
    m = _measured()
    rows = {r["op"]: r for r in fm.fig15(m, fm.Costs())}
    for op in ("create", "mkdir", "rmdir", "unlink"):
        r = rows[op]
        assert 0 < r["fsoc_bytes"] < 0.3 * r["conv_bytes"], op
        # the conventional host moves whole pages: at least one each way
        assert m.work[op]["conv"].to_dev >= 2048 * len(m.work[op]["conv"].units)
    # create: 7 round trips (lookup, clone, lcreate, walk, getattr, 2 clunks)
    assert rows["create"]["fsoc_messages"] == 7


def test_bulk_traffic_is_the_data() -> None:
    m = _measured()
    mib = 1 << 20
    w, r = m.work["write_1m"]["fsoc"], m.work["read_1m"]["fsoc"]
    # 9P: 1 MiB of Twrite/Rread payload plus a few % of headers and metadata
    assert mib < w.to_dev < 1.03 * mib and w.from_dev < 0.01 * mib
    assert mib < r.from_dev < 1.03 * mib and r.to_dev < 0.01 * mib
    cw, cr = m.work["write_1m"]["conv"], m.work["read_1m"]["conv"]
    assert cw.to_dev > mib and cr.from_dev > mib   # pages + spare + metadata
    assert cr.to_dev == 0                           # reading programs nothing


def test_andrew_tree_matches_tool() -> None:
    """The Python copy of the tree's size formula agrees with the C tool:
    FSOC writes carry exactly the tree's bytes plus message headers."""
    m = _measured()
    total = sum(sum(d) for d in fm.andrew_sizes(m))
    f = m.work["andrew"]["fsoc"]
    nfiles = sum(len(d) for d in fm.andrew_sizes(m))
    assert 100_000 < total < 2_000_000
    assert total < f.to_dev < total + nfiles * 2000
    assert total < f.from_dev < total + nfiles * 2000


def test_real_server_and_stand_in_agree() -> None:
    real, emu = _measured(), _measured(emulate=True)
    if real.backend != "p9srv":
        pytest.fail("steady-fsocexp was built without the 9P server (src/p9/p9srv*.c)")
    for wl in ("create", "mkdir", "unlink", "read_1m"):
        a, b = real.work[wl]["fsoc"], emu.work[wl]["fsoc"]
        assert (a.to_dev, a.from_dev, a.requests) == (b.to_dev, b.from_dev, b.requests), wl


def test_lean_client() -> None:
    """One round trip per step: create = clone walk + Tlcreate + Tclunk,
    unlink = Tunlinkat; fewer bytes than the v9fs-like client, and the
    same file data."""
    v9, lean = _measured(), _measured(client="lean")
    assert lean.client == "lean" and v9.client == "v9fs"
    def trips(op: str) -> float:
        f = lean.work[op]["fsoc"]
        return float(f.requests / len(f.units))

    assert trips("create") == 3
    assert trips("unlink") == 1 and trips("mkdir") == 1
    for op in ("create", "mkdir", "unlink"):
        assert lean.work[op]["fsoc"].to_dev < v9.work[op]["fsoc"].to_dev
    # the device's media time for a lean create: at least the conventional
    # host's (the same create, plus the server's lookups: the clone walk,
    # Tlcreate's existence check), well below the v9fs-like client's
    lm = lean.work["create"]["fsoc"].media_s
    assert 0.98 * v9.work["create"]["conv"].media_s <= lm < 0.85 * v9.work["create"]["fsoc"].media_s
    assert lean.work["read_1m"]["fsoc"].from_dev >= 1 << 20
