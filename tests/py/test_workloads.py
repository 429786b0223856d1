"""Workloads and file-system targets: small scaled runs checked against
independently computed expectations (device op traces, read-backs, a
replayed random sequence)."""

from __future__ import annotations

import numpy as np
import pytest

from steadyfs.benchrun import run_bench
from steadyfs.fstargets import FsRefused, FsTarget, open_target
from steadyfs.native import Device, profile
from steadyfs.trace import Op, TraceWriter
from steadyfs.workloads import Env, get, pattern

KiB, MiB = 1024, 1024 * 1024


def _run(dev: Device, target: FsTarget, name: str, params: dict[str, str], seed: int = 1) -> Env:
    w = get(name)
    env = Env(dev, target, w.resolve(params), seed, TraceWriter())
    w.run(env)
    return env


@pytest.mark.parametrize("name,block,total", [("seed001-naive", 512, 40 * 512), ("seed001-2k", 2048, 64 * 2048)])
def test_seed001_through_fat_reads_back_exactly(name: str, block: int, total: int) -> None:
    with Device("sd-industrial", blocks=256, seed=3) as dev:
        t = open_target("fat", dev)
        try:
            env = _run(dev, t, name, {"total": str(total)})
            tr = env.writer.finish()
            assert len(tr) == total // block and set(tr.size_bytes.tolist()) == {block}
            assert int(tr.duration_ns.min()) > 0
            with t.open("/log.bin", "r") as f:
                got = f.read(total + 4096)
        finally:
            t.unmount()
    want = b"".join(pattern(block, i) for i in range(total // block))
    assert got == want


def test_sweep_write_time_contains_the_erases() -> None:
    """Sum of the device's own prog+erase durations during the write passes
    equals the summed write latencies; accesses that erased are the slow ones."""
    with Device("mt29f1g01", blocks=32, seed=2) as dev:
        dev.trace_enable(1 << 20)
        env = _run(dev, open_target("raw", dev), "seed003-sweep",
                   {"sizes": "2KiB,64KiB", "total": "8MiB", "reads": "false"})
        ops = dev.trace()
        stats = dev.stats()
    tr = env.writer.finish()
    assert env.notes and "wrap scaled" in env.notes[0]       # a 4 MiB device wraps at 2 MiB
    assert env.meta["wrap_bytes"] <= 2 * MiB
    erase_ns = int(ops["dur_ns"][ops["op"] == 2].sum())
    prog_ns = int(ops["dur_ns"][ops["op"] == 1].sum())
    assert stats["erases"] > 0 and erase_ns > 0
    assert int(tr.duration_ns.sum()) == erase_ns + prog_ns
    # every erase falls inside one write access, and makes it slow
    tbers = profile("mt29f1g01")["times"]["erase"]["typ_ns"]
    starts, ends = tr.start_ns, tr.start_ns + tr.duration_ns
    er = ops[ops["op"] == 2]
    k = np.searchsorted(starts, er["start_ns"].astype(np.int64), side="right") - 1
    assert np.all(er["start_ns"].astype(np.int64) + er["dur_ns"].astype(np.int64) <= ends[k])
    assert len(np.unique(k)) == stats["erases"]
    small = tr.size_bytes == 2048                   # a 2 KiB program alone is ~0.3 ms
    erased = np.zeros(len(tr), dtype=bool)
    erased[k] = True
    assert np.array_equal(erased[small], tr.duration_ns[small] >= 0.9 * tbers)
    # one erase per block per lap: total / block size for each access size
    assert erased[small].sum() == env.meta["total_bytes_per_size"] // (128 * KiB)
    assert stats["erases"] == 2 * env.meta["total_bytes_per_size"] // (128 * KiB)


def test_seed003_ordering_on_scaled_sweeps() -> None:
    by = {}
    for d in ("em064lx", "mt29f1g01", "mt25q128"):
        s = run_bench(d, "seed003-sweep", scale=1 / 64).summary
        assert s["analysed_ops"] == ["write"] and s["read"]["count"] == s["count"]
        by[d] = {e["size_bytes"]: e for e in s["by_size"]}
    tbers_us = profile("mt29f1g01")["times"]["erase"]["typ_ns"] / 1e3
    for z in (2 * KiB, 4 * KiB, 8 * KiB, 16 * KiB, 32 * KiB, 64 * KiB):
        m, n, o = (by[d][z] for d in ("em064lx", "mt29f1g01", "mt25q128"))
        assert m["avg_throughput_kBps"] > 3 * n["avg_throughput_kBps"] > 9 * o["avg_throughput_kBps"]
        assert m["max_latency_us"] == pytest.approx(m["p50_latency_us"], rel=1e-3)   # MRAM constant
        assert abs(n["max_latency_us"] - n["p50_latency_us"] - tbers_us) < 0.15 * tbers_us


def test_random4k_raw_erases_exactly_on_rewrite() -> None:
    """Replay the workload's offsets and count rewrites of programmed units
    independently: that is the number of erases the device saw."""
    seed, count, repeat, region = 5, 300, 2, 64 * KiB
    with Device("mt25q128", blocks=64, seed=1) as dev:
        before = dev.stats()["erases"]
        env = _run(dev, open_target("raw", dev), "seed000-random4k",
                   {"count": str(count), "repeat": str(repeat), "region": str(region)}, seed=seed)
        erases = dev.stats()["erases"] - before
    rng = np.random.default_rng(seed)
    programmed = np.zeros(region // 4096, dtype=bool)
    expect = region // 4096                         # the untimed pre-erase of the region
    totals = []
    for _ in range(repeat):
        offs = rng.integers(0, region // 4096, size=count)
        for k in offs:
            if programmed[k]:
                expect += 1
            programmed[k] = True                    # 4 KiB unit = NOR 4 KiB erase block
        totals.append(0)
    assert erases == expect
    tr = env.writer.finish()
    assert len(tr) == count
    assert int(tr.duration_ns.sum()) * 1e-6 == pytest.approx(max(env.meta["repeat_totals_ms"]))


@pytest.mark.parametrize("prof", ["mt29f1g01", "mt25q128", "em064lx"])
def test_littlefs_round_trip_and_remount(prof: str) -> None:
    blocks = {"mt29f1g01": 64, "mt25q128": 512, "em064lx": 0}[prof]
    files = {f"/d/f{i}.bin": pattern(1000 * i + 17, i) for i in range(1, 6)}
    with Device(prof, blocks=blocks, seed=4) as dev:
        t = open_target("littlefs", dev)
        t.mkdir("/d")
        for p, data in files.items():
            with t.open(p, "w") as f:
                f.write(data[:500])
            with t.open(p, "a") as f:
                f.write(data[500:])
        t.unlink("/d/f1.bin")
        t.unmount()
        t = open_target("littlefs", dev, format=False)     # remount: what was synced is there
        try:
            assert not t.exists("/d/f1.bin")
            for p, data in list(files.items())[1:]:
                with t.open(p, "r") as f:
                    assert f.read(len(data) + 10) == data
            assert 0 < t.used() < t.capacity()
        finally:
            t.unmount()
        if prof == "em064lx":
            assert dev.stats()["erases"] == 0      # MRAM: littlefs's erase is a no-op


def test_log4k_rotates_and_keeps_three_files() -> None:
    with Device("em064lx", seed=1) as dev:
        t = open_target("littlefs", dev)
        try:
            env = _run(dev, t, "log4k", {"file_size": "64KiB", "total": "512KiB"})
            names = [f"/log/{i:06d}.log" for i in range(8)]
            assert [t.exists(n) for n in names] == [False] * 5 + [True] * 3
            with t.open(names[-1], "r") as f:
                assert f.read(70000) == b"".join(pattern(4096, i) for i in range(112, 128))
        finally:
            t.unmount()
    assert len(env.writer) == 128 and env.meta["files_written"] == 8


def test_fill_reaches_the_fraction() -> None:
    s = run_bench("em064lx", "log4k", fs="littlefs", fill_fraction=0.5,
                  params={"total": "64K", "file_size": "16K"}).summary
    assert 0.5 <= s["fill"]["fraction_used"] < 0.55
    assert s["fs"] == "littlefs" and s["workload"] == "log4k"


def test_targets_refuse_clearly() -> None:
    with Device("em064lx", seed=1) as dev:
        with pytest.raises(FsRefused, match="no file system"):
            open_target("raw", dev).open("/x", "w")
    with pytest.raises(FsRefused, match="raw device only"):
        run_bench("em064lx", "seed003-sweep", fs="littlefs")
    with pytest.raises(FsRefused, match="needs files"):
        run_bench("em064lx", "log4k", fs="raw")
    assert Op.WRITE in get("log4k").analyse_ops
