"""`steady bench --device all`: the three media side by side with the raw
device (issue 16 item 3).  The table's rows are checked against runs of
each device on its own, never against numbers written here (scaled
workloads: ~15 s in all)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from steadyfs import sidebyside
from steadyfs.benchrun import run_bench
from steadyfs.cli import main
from steadyfs.cmd_plan import MEDIA

SCALE = "0.05"


def _bench(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["bench", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture(scope="module")
def all_log4k() -> dict[str, Any]:
    """`steady bench --device all --workload log4k --fs steadyfs --fill 0.75 --json`, scaled."""
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["bench", "--device", "all", "--workload", "log4k", "--fs", "steadyfs",
                   "--fill", "0.75", "--scale", SCALE, "--rate", "100k,1M", "--json"])
    assert rc == 0
    doc: dict[str, Any] = json.loads(buf.getvalue())
    return doc


def test_rows_are_the_three_media_in_plan_order(all_log4k: dict[str, Any]) -> None:
    assert all_log4k["schema"] == sidebyside.SCHEMA
    assert [r["device"] for r in all_log4k["rows"]] == list(MEDIA)
    assert [c[0] for c in all_log4k["table"]] == list(MEDIA)
    for r in all_log4k["rows"]:
        assert r["errors"] == []
        assert r["fs"]["device"] == r["device"] == r["raw"]["device"]
        assert r["fs"]["fs"] == "steadyfs" and r["raw"]["fs"] == "raw"
        assert r["fs"]["workload"] == "log4k" and r["raw"]["workload"] == "seed003-sweep"


def test_fs_columns_match_each_device_run_alone(all_log4k: dict[str, Any]) -> None:
    head = all_log4k["headers"]
    for row, cells in zip(all_log4k["rows"], all_log4k["table"]):
        alone = run_bench(row["device"], "log4k", fs="steadyfs", fill_fraction=0.75,
                          scale=float(SCALE), rates=[100e3, 1e6]).summary
        s = row["fs"]
        assert s["avg_throughput_kBps"] == alone["avg_throughput_kBps"]
        assert s["max_latency_us"] == alone["max_latency_us"]
        assert s["peak_buffer_bytes"] == alone["peak_buffer_bytes"]
        assert cells[head.index("steadyfs avg kB/s")] == f"{alone['avg_throughput_kBps']:.1f}"
        assert cells[head.index("steadyfs max ms")] == f"{alone['max_latency_us'] / 1e3:.2f}"


def test_raw_columns_match_the_raw_log_analogue(all_log4k: dict[str, Any]) -> None:
    head = all_log4k["headers"]
    for row, cells in zip(all_log4k["rows"], all_log4k["table"]):
        total = row["fs"]["bytes"]     # what the log wrote, 4 KiB appends
        assert total == 4096 * row["fs"]["ops"]["write"]
        alone = run_bench(row["device"], "seed003-sweep", fs="raw", rates=[100e3, 1e6],
                          params={"sizes": "4KiB", "reads": "false", "total": str(total)}).summary
        # the same bytes, as 4 KiB programs
        assert row["raw"]["bytes"] == alone["bytes"] == total
        assert row["raw"]["avg_throughput_kBps"] == alone["avg_throughput_kBps"]
        assert cells[head.index("raw avg kB/s")] == f"{alone['avg_throughput_kBps']:.1f}"
        assert cells[head.index("raw max ms")] == f"{alone['max_latency_us'] / 1e3:.2f}"
        share = row["fs"]["avg_throughput_kBps"] / alone["avg_throughput_kBps"]
        assert cells[head.index("avg of raw")] == f"{share:.0%}"


def test_buffer_cells_follow_the_summaries(all_log4k: dict[str, Any]) -> None:
    head = all_log4k["headers"]
    for rate, label in (("100000", "100 kB/s"), ("1000000", "1 MB/s")):
        col = head.index(f"steadyfs buf @{label}")
        for row, cells in zip(all_log4k["rows"], all_log4k["table"]):
            s = row["fs"]
            if rate in s["unbounded_rates"]:
                assert cells[col] == "unbounded"
            elif s["peak_buffer_bytes"][rate] == 0:
                assert cells[col] == "0"
            else:
                assert cells[col] not in ("0", "unbounded", "-")


def test_text_table_one_line_per_medium(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _bench(capsys, "--device", "all", "--workload", "seed000-random4k", "--fs",
                          "steadyfs", "--param", "count=100", "--param", "repeat=1",
                          "--rate", "1M")
    assert rc == 0, err
    lines = out.splitlines()
    for dev in MEDIA:
        assert sum(1 for ln in lines if ln.startswith(dev + " ")) == 1
        assert f"raw on {dev}: seed000-random4k" in out


@pytest.mark.parametrize("args, said", [
    (("--workload", "nope"), "unknown workload 'nope'"),
    (("--workload", "log4k", "--fill", "7"), "--fill must be in [0, 1), not 7.0"),
])
def test_bad_input_is_one_line_before_any_run(capsys: pytest.CaptureFixture[str],
                                              args: tuple[str, ...], said: str) -> None:
    rc, out, err = _bench(capsys, "--device", "all", "--fs", "steadyfs", *args)
    assert rc != 0 and out == ""
    assert err.count("\n") == 1 and said in err, err


@dataclass
class _Res:
    summary: dict[str, Any]


def test_run_all_calls_and_failures() -> None:
    calls: list[tuple[str, str, str | None]] = []

    def fake(dev: str, workload: str, *, fs: str | None, params: dict[str, str],
             **kw: Any) -> _Res:
        calls.append((dev, workload, fs))
        if dev == "mt25q128" and fs == "raw":
            raise RuntimeError("no raw today")
        return _Res({"device": dev, "fs": fs or "raw", "workload": workload,
                     "parameters": {"total": 1 << 20}, "bytes": 1 << 20, "avg_throughput_kBps": 100.0,
                     "max_latency_us": 1000.0, "peak_buffer_bytes": {"1000": 0},
                     "unbounded_rates": []})

    rows = sidebyside.run_all("log4k", fs="steadyfs", runner=fake, fill_fraction=0.5, scale=0.1)
    assert [c[0] for c in calls] == [d for d in MEDIA for _ in (0, 1)]
    assert all(c[2] in ("steadyfs", "raw") for c in calls)
    bad = rows[list(MEDIA).index("mt25q128")]
    assert bad.raw is None and bad.errors == ["raw seed003-sweep: no raw today"]
    h, cells, _ = sidebyside.table(rows)
    assert cells[list(MEDIA).index("mt25q128")][h.index("raw avg kB/s")] == "-"
    assert "failed on mt25q128" in sidebyside.html_table(rows)
    # a raw workload is its own raw row: one run per device
    calls.clear()
    rows = sidebyside.run_all("seed003-sweep", fs=None, runner=fake)
    assert len(calls) == len(MEDIA) and all(r.raw is r.fs for r in rows)


def test_all_refuses_out(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    rc, out, err = _bench(capsys, "--device", "all", "--workload", "log4k", "--fs", "steadyfs",
                          "--out", str(tmp_path / "x"))
    assert rc == 2 and "drop --out" in err


def test_demo_runs_what_its_media_section_reads() -> None:
    """`make demo`'s media section (issue 16): every steadyfs and raw run it
    looks up is among the demo's jobs, and its rows carry those runs'
    summaries (jobs faked with their slug as summary: no run here)."""
    from steadyfs.cmd_demo import HEADLINE, jobs, media_rows

    for quick in (True, False):
        js = jobs(quick, steadyfs=True)
        results = [{"job": j, "summary": {"slug": j.slug, "fs": j.fs}} for j in js]
        for w in HEADLINE:
            rows = media_rows(results, w)
            assert [r.device for r in rows] == list(MEDIA), w
            for r in rows:
                assert r.fs is not None and r.raw is not None and not r.errors
                assert r.fs["slug"].startswith(f"{r.device}-steadyfs-{w}-fill75")
                want = "seed003-sweep" if w == "log4k" else w
                assert r.raw["slug"].startswith(f"{r.device}-raw-{want}")
                assert r.raw_workload.startswith(want)
        # the raw log writes the bytes the steadyfs log4k run on that device writes
        by = {(j.device, j.workload, j.fs, j.fill, j.tag): j for j in js}
        for dev in MEDIA:
            log = by[(dev, "log4k", "steadyfs", 0.75, "")]
            raw = [j for j in js if j.device == dev and j.workload == "seed003-sweep" and j.tag]
            assert len(raw) == 1 and raw[0].params["total"] == log.params["total"]
    assert media_rows([], "log4k") == []
