"""`steady bench --fs steadyfs`: JSON fields, errors, options, a real file
(small devices and scaled workloads: a few seconds in all)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steadyfs.benchrun import run_bench
from steadyfs.cli import main
from steadyfs.fstargets import FsError
from steadyfs.native import profile

RATE_KEYS = {"100000", "500000", "1000000", "2000000", "4000000"}


def _bench(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["bench", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_log4k_json_on_a_small_nand(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _bench(capsys, "--device", "mt29f1g01", "--blocks", "64", "--workload", "log4k",
                          "--fs", "steadyfs", "--fill", "0.5", "--param", "total=512KiB",
                          "--param", "file_size=128KiB", "--json")
    assert rc == 0, err
    s = json.loads(out)
    assert s["fs"] == "steadyfs" and s["workload"] == "log4k" and s["device"] == "mt29f1g01"
    assert s["count"] == 128 and s["bytes"] == 128 * 4096
    assert set(s["peak_buffer_bytes"]) == RATE_KEYS
    assert all(isinstance(v, int) and v >= 0 for v in s["peak_buffer_bytes"].values())
    assert isinstance(s["max_latency_us"], float)
    # Timed on the device clock: each 4 KiB write + sync programs at least
    # two 2 KiB pages (tPROG typical each), so no access is faster.
    tprog_us = profile("mt29f1g01")["times"]["prog"]["typ_ns"] / 1e3
    assert s["latency_us"]["min"] >= 2 * tprog_us
    assert s["max_latency_us"] >= s["latency_us"]["p99"] >= s["latency_us"]["p50"]
    assert 0.5 <= s["fill"]["fraction_used"] < 0.6 and s["fill"]["files"] >= 1
    assert s["fill"]["capacity_bytes"] == s["fs_config"]["info"]["capacity"]
    assert s["fs_config"]["open_max"] == 1
    assert s["fs_stats"]["sectors"]["data"] >= 128 * 2
    # the log rotated: 4 files of 128 KiB, the first deleted when the 4th started
    assert s["file_size_bytes"] == 128 * 1024 and s["files_written"] == 4


def test_write_sync_records_and_the_held_sector(capsys: pytest.CaptureFixture[str]) -> None:
    """fs.dsync=0 makes log4k's records write + sync calls: each writes an
    inode sector beside its two data sectors; with fs.hold=1 the sync
    commits in the held second sector, and the records write as few data
    sectors as O_DSYNC's (counted by the core, not timed)."""
    data = {}
    for name, extra in (("dsync", []), ("sync", ["--param", "fs.dsync=0"]),
                        ("held", ["--param", "fs.dsync=0", "--param", "fs.hold=1"])):
        rc, out, err = _bench(capsys, "--device", "mt29f1g01", "--blocks", "64", "--workload",
                              "log4k", "--fs", "steadyfs", "--param", "total=512KiB",
                              "--param", "file_size=128KiB", "--json", *extra)
        assert rc == 0, err
        s = json.loads(out)
        assert s["fs_config"]["dsync"] == (name == "dsync")
        data[name] = s["fs_stats"]["sectors"]["data"]
    # 128 records: the inode sector of each is the difference
    assert data["sync"] >= data["dsync"] + 120
    assert data["held"] <= data["dsync"] + 8
    rc, _, err = _bench(capsys, "--device", "em064lx", "--workload", "log4k", "--fs", "steadyfs",
                        "--param", "fs.dsync=x")
    assert rc == 2 and "integers" in err


def test_random4k_json_and_fs_options(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _bench(capsys, "--device", "em064lx", "--workload", "seed000-random4k", "--fs",
                          "steadyfs", "--param", "count=100", "--param", "repeat=2", "--param",
                          "region=256KiB", "--param", "fs.open_max=2", "--json")
    assert rc == 0, err
    s = json.loads(out)
    assert s["fs"] == "steadyfs" and s["workload"] == "seed000-random4k" and s["count"] == 100
    assert s["fs_config"]["open_max"] == 2 and set(s["peak_buffer_bytes"]) == RATE_KEYS
    assert len(s["repeat_totals_ms"]) == 2
    rc, _, err = _bench(capsys, "--device", "em064lx", "--workload", "log4k", "--fs", "steadyfs",
                        "--param", "fs.bogus=1")
    assert rc == 2 and "unknown steadyfs option" in err


def test_a_failing_fs_call_is_an_error_not_a_result(capsys: pytest.CaptureFixture[str]) -> None:
    # the workload's file in a directory that does not exist
    rc, out, err = _bench(capsys, "--device", "em064lx", "--workload", "seed000-random4k", "--fs",
                          "steadyfs", "--param", "path=/nodir/random.bin", "--param", "count=10", "--json")
    assert rc == 2 and out == ""
    assert "ENOENT" in err and "/nodir/random.bin" in err
    with pytest.raises(FsError, match=r"ENOENT.*after 0 recorded accesses"):
        run_bench("em064lx", "seed000-random4k", fs="steadyfs", params={"count": "10", "path": "/nodir/r"})


def test_a_file_that_does_not_fit_shrinks_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    # 90 % full leaves less free space than the workload's 1 MiB file
    rc, out, err = _bench(capsys, "--device", "em064lx", "--workload", "seed000-random4k", "--fs",
                          "steadyfs", "--fill", "0.9", "--param", "count=10", "--json")
    assert rc == 0, err
    s = json.loads(out)
    assert s["count"] == 10 and any("file size reduced" in n for n in s["notes"])


def test_real_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    img = tmp_path / "dev.img"
    with img.open("wb") as f:
        f.truncate(16 * 1024 * 1024)
    rc, out, err = _bench(capsys, "--device", str(img), "--allow-write", "--workload", "log4k",
                          "--fs", "steadyfs", "--param", "total=64KiB", "--json")
    assert rc == 0, err
    s = json.loads(out)
    assert s["fs"] == "steadyfs" and s["device"] == str(img) and s["count"] == 16
    assert s["max_latency_us"] > 0 and set(s["peak_buffer_bytes"]) == RATE_KEYS
    assert s["fs_stats"]["info"]["blocks"] == 16 * 1024 * 1024 // 65536


def test_demo_issue5_checks_follow_the_runs() -> None:
    """The demo's issue 5 PASS/FAIL lines are computed from the summaries;
    steadyfs is compared with littlefs tuned for the chip, both holding the
    same bytes (SAME_FILL of the device)."""
    from steadyfs.cmd_demo import SAME_FILL, TUNED_TAG, Job, checks5, headline, headline_table

    def summ(max_us: float, b1: int, b2: int, avg: float) -> dict[str, object]:
        return {"max_latency_us": max_us, "avg_throughput_kBps": avg, "guaranteed_throughput_kBps": 800.0,
                "count": 10, "latency_us": {"p99": max_us, "mean": max_us / 2},
                "peak_buffer_bytes": {"100000": 0, "500000": 0, "1000000": b1, "2000000": b2, "4000000": 9e6},
                "unbounded_rates": ["4000000"],
                "fill": {"fraction_of_device": 0.55, "stored_bytes": 73_819_750, "capacity_bytes": 97_812_480,
                         "device_bytes": 134_217_728}}

    ws = ("log4k", "seed000-random4k")
    good = [{"job": Job("mt29f1g01", w, "steadyfs", 0.75), "summary": summ(3000.0, 0, 4000, 3500.0)}
            for w in ws]
    same = [{"job": Job("mt29f1g01", w, "steadyfs", fill_device=SAME_FILL),
             "summary": summ(3100.0, 0, 4000, 3500.0)} for w in ws]
    tuned = [{"job": Job("mt29f1g01", w, "littlefs", tag=TUNED_TAG, fill_device=SAME_FILL),
              "summary": summ(90_000.0, 1_000_000, 2_000_000, 180.0)} for w in ws]
    small = [{"job": Job("mt29f1g01", w, "littlefs", fill_device=SAME_FILL),
              "summary": summ(2e6, 1_000_000, 2_000_000, 100.0)} for w in ws]
    c = checks5(good + same + tuned + small, mount_worst_us=15000.0, ws_bound_typ_us=68000.0)
    assert len(c) == 9 and all(x.ok for x in c), [x.text for x in c if not x.ok]
    assert any("littlefs tuned" in x.text and "90.0 ms" in x.text for x in c)
    # steadyfs slower than tuned littlefs: that check fails (not the small-RAM one)
    slow = [{"job": Job("mt29f1g01", "log4k", "steadyfs", fill_device=SAME_FILL),
             "summary": summ(95_000.0, 0, 4000, 3500.0)}]
    c = checks5(good + slow + tuned + small, mount_worst_us=15000.0, ws_bound_typ_us=68000.0)
    assert [x.text for x in c if not x.ok][0].startswith("steadyfs log4k: max access 95.00 ms")
    bad = [{"job": Job("mt29f1g01", "log4k", "steadyfs", 0.75), "summary": summ(4700.0, 615, 5326, 2900.0)}]
    c = checks5(bad + same + tuned, mount_worst_us=21000.0, ws_bound_typ_us=68000.0)
    failed = [x.text for x in c if not x.ok]
    assert any("1 MB/s" in t and "615 B" in t for t in failed)
    assert any("2 MB/s 5326 B" in t for t in failed)
    assert any("average 2.90 MB/s" in t for t in failed)
    assert any("mount bound" in t for t in failed)
    assert any("seed000-random4k" in t and "failed" in t for t in failed)   # missing run = FAIL
    h, rows = headline_table(headline(good + same + tuned + small))
    assert len(rows) == 8                       # 2 workloads x steadyfs, littlefs x 2, raw
    assert [r[1].split(",")[0] for r in rows[:4]] == ["steadyfs", "littlefs", "littlefs", "raw (sequential 4 KiB programs"]
    assert "tuned" in rows[1][1] and "small RAM" in rows[2][1]
    assert rows[0][2] == "73.8" and rows[0][3] == "55 %" and "run failed" in rows[3][2]   # no raw runs given


def test_demo_seed001_check_is_judged_against_the_cards() -> None:
    """Issue 13: seed 001's own industrial cards show 3.9-6x average /
    guaranteed on the naive workload, so a model at 3.9x matches (PASS);
    below the cards' range is a FAIL."""
    from steadyfs.cmd_demo import Job, checks

    def run(dev: str, ratio: float) -> dict[str, object]:
        return {"job": Job(dev, "seed001-naive", "fat"),
                "summary": {"avg_throughput_kBps": 100.0 * ratio, "guaranteed_throughput_kBps": 100.0,
                            "max_latency_us": 1000.0}}

    c = [x for x in checks([run("sd-industrial", 3.9)], 2000.0) if "average" in x.text]
    assert len(c) == 1 and c[0].ok and "within the cards' range" in c[0].text
    c = [x for x in checks([run("sd-industrial", 3.0)], 2000.0) if "average" in x.text]
    assert not c[0].ok and "below" in c[0].text
    c = [x for x in checks([run("sd-consumer", 150.0)], 2000.0) if "average" in x.text]
    assert c[0].ok and "above" in c[0].text


def test_fill_device_stores_the_same_bytes_under_each_stack(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 13: --fill is a fraction of each file system's own capacity
    (steadyfs states less than the device, littlefs every block), so "75 %
    full" stored different bytes.  --fill-device F stores F of the device's
    bytes under every stack; too much for a stack is a one-line refusal."""
    got = {}
    for fs in ("steadyfs", "littlefs"):
        rc, out, err = _bench(capsys, "--device", "mt29f1g01", "--blocks", "64", "--workload", "log4k",
                              "--fs", fs, "--fill-device", "0.4", "--param", "total=256KiB",
                              "--param", "file_size=64KiB", "--json")
        assert rc == 0, err
        got[fs] = json.loads(out)
    dev = 64 * 64 * 2048
    for fs, s in got.items():
        f = s["fill"]
        assert f["of"] == "device" and f["device_bytes"] == dev
        assert f["stored_bytes"] == int(0.4 * dev) and f["stored_fraction_of_device"] == 0.4, fs
        assert f["used_bytes"] >= f["stored_bytes"]
    assert got["steadyfs"]["fill"]["capacity_bytes"] < dev == got["littlefs"]["fill"]["capacity_bytes"]
    # littlefs's RAM is stated with its configuration
    c = got["littlefs"]["fs_config"]
    assert c["buffer_ram_bytes"] == 2 * c["cache_size"] + c["lookahead_size"]
    # more than steadyfs's capacity (63 % of a 64-block device): refused, one line
    rc, _, err = _bench(capsys, "--device", "mt29f1g01", "--blocks", "64", "--workload", "log4k",
                        "--fs", "steadyfs", "--fill-device", "0.8", "--param", "total=256KiB")
    assert rc == 2 and err.startswith("steady bench: error: --fill-device 0.8: steadyfs holds only")
    assert len(err.strip().splitlines()) == 1
    for bad in (["--fill", "0.5", "--fill-device", "0.5"], ["--fill-device", "1.5"]):
        rc, _, err = _bench(capsys, "--device", "mt29f1g01", "--blocks", "64", "--workload", "log4k",
                            "--fs", "steadyfs", *bad)
        assert rc == 2 and "--fill-device" in err and len(err.strip().splitlines()) == 1


def test_demo_seed003_keeps_every_device() -> None:
    """Issue 13: the raw 4 KiB log analogue is a seed003-sweep run on
    mt29f1g01 as well; listed after the sweep it replaced the NAND series
    under the same key and seed 003's NAND bars went missing."""
    from steadyfs.cmd_demo import RAW_LOG_TAG, Job, seed003_series

    def sweep(sizes: list[int], kbps: float) -> dict[str, object]:
        e = [{"size_bytes": z, "count": 4, "max_latency_us": 10.0, "p50_latency_us": 5.0, "p99_latency_us": 9.0,
              "avg_throughput_kBps": kbps, "guaranteed_throughput_kBps": kbps / 2} for z in sizes]
        return {"by_size": e, "read": {"by_size": e}}

    sizes = [2048, 4096, 8192, 16384]
    res = [{"job": Job(d, "seed003-sweep", "raw"), "summary": sweep(sizes, k)}
           for d, k in (("mt29f1g01", 4000.0), ("mt25q128", 200.0), ("em064lx", 30000.0))]
    res.append({"job": Job("mt29f1g01", "seed003-sweep", "raw", tag=RAW_LOG_TAG), "summary": sweep([4096], 1.0)})
    w, r = seed003_series(res)
    assert set(w) == set(r) == {"mt29f1g01", "mt25q128", "em064lx"}
    assert [s.size_bytes for s in w["mt29f1g01"]] == sizes
    assert w["mt29f1g01"][0].avg_throughput_Bps == 4000.0 * 1e3


def test_demo_first_screen_answers(tmp_path: Path) -> None:
    """Issue 13: the report opens with the answer -- every stack's worst
    case, average and RAM at 0.5/1/2/4 MB/s from the runs, the stated bound,
    file-system RAM, usable capacity -- and a marked place for the proven
    guarantee, before anything else on the page."""
    from steadyfs.cmd_demo import (GUARANTEE_SLOT, SAME_FILL, TUNED_TAG, Check, Job, _add_glance,
                                   headline)

    def summ(max_us: float, avg: float, b2: int, grows: list[str], cfg: dict[str, object]) -> dict[str, object]:
        return {"max_latency_us": max_us, "avg_throughput_kBps": avg, "guaranteed_throughput_kBps": 1.0,
                "count": 10, "latency_us": {"p99": max_us, "mean": max_us / 2}, "unbounded_rates": grows,
                "peak_buffer_bytes": {"100000": 0, "500000": 0, "1000000": 0, "2000000": b2, "4000000": 5 * b2},
                "fs_config": cfg,
                "fill": {"stored_bytes": 73_819_750, "device_bytes": 134_217_728,
                         "capacity_bytes": 97_812_480 if cfg.get("fs") == "steadyfs" else 134_217_728}}

    sfs = {"fs": "steadyfs", "ram_bytes": 4400}
    lfs = {"fs": "littlefs", "buffer_ram_bytes": 4224, "ram_per_open_file_bytes": 2048}
    res = []
    for w in ("log4k", "seed000-random4k"):
        res.append({"job": Job("mt29f1g01", w, "steadyfs", fill_device=SAME_FILL),
                    "summary": summ(3140.0, 5389.0, 2337, [], sfs)})
        res.append({"job": Job("mt29f1g01", w, "littlefs", tag=TUNED_TAG, fill_device=SAME_FILL),
                    "summary": summ(90_740.0, 182.0, 9, ["500000", "1000000", "2000000", "4000000"], lfs)})
    index = tmp_path / "index.html"
    index.write_text("<html><body><h1>t</h1><p>rest</p><h2 id='summary'>S</h2></body></html>")
    _add_glance(index, headline(res), [Check(True, "a"), Check(False, "b")], 145_400.0, False)
    text = index.read_text()
    glance = text[text.index("<h1>t</h1>"):text.index("<p>rest</p>")]
    assert "id='glance'" in glance and GUARANTEE_SLOT in glance and "Proven guarantee" in glance
    assert "proven sustainable rate is" in glance and "not available" not in glance
    assert "74 MB of files (55 % of the chip)" in glance
    assert "3.1 ms" in glance and "5.39 MB/s" in glance and "2.282 KiB" in glance
    assert "90.7 ms" in glance and "0.18 MB/s" in glance and glance.count("unbounded") >= 4
    assert "145 ms" in glance and "4,400 B" in glance and "6,272 B" in glance
    assert "98 MB (73 %)" in glance and "134 MB (100 %)" in glance
    assert "1 of 2 checks pass" in glance
    assert glance.count("run failed") == 4       # littlefs small RAM and raw: not given
