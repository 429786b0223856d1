"""`steady bench`: JSON schema, refusals, --out files (small scaled runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steadyfs.cli import main
from steadyfs.trace import load_trace

RATE_KEYS = {"100000", "500000", "1000000", "2000000", "4000000"}


def _bench(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["bench", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_json_schema_raw_sweep(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _bench(capsys, "--device", "em064lx", "--workload", "seed003-sweep", "--scale", "0.01",
                        "--json", "--ram", "8KiB")
    assert rc == 0
    s = json.loads(out)
    for k in ("max_latency_us", "avg_throughput_kBps", "guaranteed_throughput_kBps"):
        assert isinstance(s[k], float) and s[k] > 0
    assert {"p50", "p99", "p99.9", "max"} <= set(s["latency_us"])
    assert set(s["peak_buffer_bytes"]) == RATE_KEYS
    assert s["device"] == "em064lx" and s["fs"] == "raw" and s["workload"] == "seed003-sweep"
    assert s["timing"] == "typical" and s["seed"] == 1 and s["parameters"]["wrap"] == 8 * 1024 * 1024
    # MRAM at 60 MB/s never needs a buffer at 4 MB/s; 64 KiB in 1.11 ms
    assert all(v == 0 for v in s["peak_buffer_bytes"].values())
    assert s["max_latency_us"] == pytest.approx(1110.1, abs=1.0)
    assert s["guaranteed_throughput_kBps"] == pytest.approx(2048 / 52.0 * 1e3, rel=0.01)
    assert "8192" in s["max_rate_Bps_for_ram"]
    assert len(s["by_size"]) == 6 and s["read"]["count"] == s["count"]


def test_json_fat_and_littlefs(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _bench(capsys, "--device", "sd-industrial", "--workload", "seed001-open", "--blocks", "256",
                        "--scale", "0.02", "--json")
    assert rc == 0
    s = json.loads(out)
    assert s["fs"] == "fat" and s["count"] == 8_000_000 * 0.02 // 512 and s["sizes_bytes"] == [512]
    rc, out, _ = _bench(capsys, "--device", "em064lx", "--workload", "log4k", "--fs", "littlefs",
                        "--param", "total=64KiB", "--fill", "0.25", "--json")
    assert rc == 0
    s = json.loads(out)
    assert s["fs"] == "littlefs" and s["count"] == 16 and s["fill"]["fraction_used"] >= 0.25
    assert set(s["peak_buffer_bytes"]) == RATE_KEYS


@pytest.mark.parametrize("args,msg", [
    (["--device", "mt29f1g01", "--workload", "log4k"], "needs a file system"),
    (["--device", "em064lx", "--workload", "seed001-naive", "--fs", "raw"], "needs files"),
    (["--device", "em064lx", "--workload", "seed003-sweep", "--fs", "littlefs"], "raw device only"),
    (["--device", "em064lx", "--workload", "nope"], "unknown workload"),
    (["--device", "em064lx", "--workload", "seed003-sweep", "--param", "bogus=1"], "no parameter"),
    (["--device", "em064lx", "--workload", "seed003-sweep", "--fill", "0.5"], "needs a file system"),
    (["--device", "em064lx", "--workload", "seed003-sweep", "--slowest", "-1"], "want a number"),
    (["--device", "all", "--workload", "log4k", "--fs", "steadyfs", "--slowest", "2"], "one --device"),
])
def test_refusals(capsys: pytest.CaptureFixture[str], args: list[str], msg: str) -> None:
    rc, _, err = _bench(capsys, *args)
    assert rc == 2 and msg in err


def test_real_path_needs_allow_write(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    img = tmp_path / "card.img"
    img.write_bytes(b"\0" * (4 * 1024 * 1024))
    rc, _, err = _bench(capsys, "--device", str(img), "--workload", "seed000-random4k")
    assert rc == 2 and "--allow-write" in err
    assert img.read_bytes() == b"\0" * (4 * 1024 * 1024)


def test_out_writes_trace_csv_plots_and_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "run"
    rc, text, _ = _bench(capsys, "--device", "mt29f1g01", "--workload", "seed000-random4k",
                         "--param", "count=200", "--param", "repeat=2", "--out", str(out))
    assert rc == 0 and "report:" in text and "Max block latency" in text
    tr = load_trace(out / "trace.sft")
    assert len(tr) == 200 and tr.metadata["workload"] == "seed000-random4k"
    assert len(tr.metadata["repeat_totals_ms"]) == 2
    assert tr.busy_ns / 1e6 == pytest.approx(max(tr.metadata["repeat_totals_ms"]))
    assert len(load_trace(out / "trace.csv")) == 200
    s = json.loads((out / "summary.json").read_text())
    assert s["count"] == 200
    assert (out / "index.html").exists()
    for kind in ("latency", "buffer", "distribution"):
        assert (out / "plots" / f"run-{kind}.png").exists() and (out / "plots" / f"run-{kind}.svg").exists()


def test_slowest_accesses_are_their_device_operations(capsys: pytest.CaptureFixture[str]) -> None:
    """--slowest N: the N slowest accesses, each exactly the device operations
    that ran inside it (on the virtual clock nothing else takes time), and
    the raw sweep's slowest writes are the ones that erase."""
    rc, out, _ = _bench(capsys, "--device", "mt29f1g01", "--workload", "seed003-sweep", "--scale", "0.01",
                        "--slowest", "4", "--json")
    assert rc == 0
    s = json.loads(out)
    acc = s["slowest"]["accesses"]
    assert len(acc) == 4 and acc[0]["duration_us"] == s["max_latency_us"]
    assert [a["duration_us"] for a in acc] == sorted((a["duration_us"] for a in acc), reverse=True)
    for a in acc:
        assert a["device_ops"] and a["device_us"] == pytest.approx(a["duration_us"], abs=0.01)
        assert any(d["op"] == "erase" for d in a["device_ops"])
    assert sum(g["count"] for g in s["slowest"]["shapes"]) == 4
    # a file system's record: its programs, and what else the slow ones did
    rc, out, _ = _bench(capsys, "--device", "em064lx", "--workload", "seed000-random4k", "--fs", "steadyfs",
                        "--param", "count=300", "--param", "repeat=1", "--slowest", "3")
    assert rc == 0 and "slowest 3 accesses" in out and "prog" in out


def test_slowest_in_the_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "run"
    rc, _, _ = _bench(capsys, "--device", "mt29f1g01", "--workload", "seed003-sweep", "--scale", "0.01",
                      "--slowest", "2", "--out", str(out))
    assert rc == 0
    page = (out / "index.html").read_text()
    assert "id='slowest'" in page and "href='#slowest'" in page and "erase 1 block, prog 65536 B" in page
    assert len(json.loads((out / "summary.json").read_text())["slowest"]["accesses"]) == 2


def test_slowest_needs_a_simulated_device(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    img = tmp_path / "card.img"
    img.write_bytes(b"\0" * (1024 * 1024))
    rc, _, err = _bench(capsys, "--device", str(img), "--workload", "seed000-random4k", "--allow-write",
                        "--slowest", "2")
    assert rc == 2 and "simulated profile" in err and len(err.strip().splitlines()) == 1
    assert img.read_bytes() == b"\0" * (1024 * 1024)
