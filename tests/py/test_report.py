"""Tests of plots, the report, the progress bar and `steady analyze`."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from steadyfs import plots
from steadyfs.analysis import by_size, summarize
from steadyfs.cli import main
from steadyfs.progress import Progress, progress_iter
from steadyfs.report import Run, format_table, render_table, write_report
from steadyfs.trace import Trace, load_trace, make_metadata

MS = 1_000_000


def nand_trace(n: int = 256, fs: str = "raw", device: str = "mt29f1g01") -> Trace:
    d = np.full(n, 470_000)
    d[31::32] = 2_470_000
    return Trace.from_durations(d, 4096, metadata=make_metadata(device=device, fs=fs, workload="w",
                                                                timing="typical", seed=1))


def sd_trace(n: int = 3000) -> Trace:
    rng = np.random.default_rng(0)
    d = rng.normal(2.5 * MS, 0.1 * MS, n).astype(np.int64)
    d[rng.random(n) < 0.01] += 300 * MS
    return Trace.from_durations(d, 4096, metadata=make_metadata(device="sd-consumer", workload="w"))


def test_render_table_alignment() -> None:
    t = render_table(["a", "bb"], [["x", "1"], ["yyy", "22"]], [False, True])
    assert t.splitlines() == ["a    bb", "---  --", "x     1", "yyy  22"]


def test_format_table_values() -> None:
    s = summarize(nand_trace(), [1e6, 2e6, 4e6], ram_bytes=[8192])
    text = format_table([s])
    row = text.splitlines()[2]
    # max block latency 2.47 ms; guaranteed 4096 B / 2.47 ms = 1658 kB/s;
    # buffer at 2 MB/s = 2.47 ms * 2e6 - 4096 = 844 B; at 1 MB/s none.
    assert "2.47" in row and "1658" in row and "844 B" in row
    assert re.search(r"\s0\s", row)
    assert "Rate@8KiB" in text


def test_plots_write_png_and_svg(tmp_path: Path) -> None:
    sd = sd_trace()
    fig = plots.plot_latency(sd)
    assert fig.axes[0].get_yscale() == "log"            # 2.5 ms .. 300 ms spans > 2 decades
    paths = plots.save(fig, tmp_path, "lat")
    assert [p.suffix for p in paths] == [".png", ".svg"]
    assert all(p.stat().st_size > 1000 for p in paths)
    assert plots.plot_latency(nand_trace()).axes[0].get_yscale() == "linear"
    big = Trace.from_durations(np.tile(sd.duration_ns, 10), 4096)  # over MAX_POINTS: envelope
    plots.save(plots.plot_latency(big), tmp_path, "big", ("png",))
    fig = plots.plot_buffer(nand_trace(), [1e6, 2e6, 4e6])
    assert len(fig.axes) == 3
    plots.save(fig, tmp_path, "buf")
    sizes = Trace.concat([Trace.from_durations(np.full(5, (s // 1024) * 30_000), s) for s in (2048, 4096, 8192)])
    fig = plots.plot_vs_size({"a": by_size(sizes), "b": by_size(nand_trace())}, "max_latency")
    plots.save(fig, tmp_path, "size")
    with pytest.raises(ValueError):
        plots.plot_vs_size({"a": by_size(sizes)}, "nonsense")
    plots.save(plots.plot_latency_distribution({"sd": sd, "nand": nand_trace()}), tmp_path, "dist")
    out = plots.run_plots(sizes, [1e6], tmp_path / "run", "x")
    assert set(out) == {"latency", "buffer", "distribution", "throughput_vs_size", "latency_vs_size"}


def test_report_links_and_comparison(tmp_path: Path) -> None:
    runs = [Run(summarize(t, [1e6, 2e6]), t) for t in
            (nand_trace(fs="steadyfs"), nand_trace(fs="littlefs"), nand_trace(fs="raw", device="em064lx"))]
    index = write_report(tmp_path, runs, parameters={"seed": 1}, notes=["hello <world>"])
    text = index.read_text()
    assert "hello &lt;world&gt;" in text
    assert "id='compare'" in text and "3 runs side by side" in text
    srcs = re.findall(r'src="([^"]+)"', text)
    assert len(srcs) >= 3 * 3 + 2
    for src in srcs:
        assert (tmp_path / src).is_file(), src
        assert not src.startswith("/")                  # relative: works from file://
    assert "<script" not in text
    for r in runs:
        assert f"id='{r.label.replace(' / ', '-')}'" in text


def test_progress_bar() -> None:
    buf = io.StringIO()
    with Progress(10, "job", stream=buf, delay_s=0.0, enabled=True, interval_s=0.0) as bar:
        for _ in range(10):
            bar.update()
        assert "100.0%" in bar.render()
    assert "job [" in buf.getvalue() and buf.getvalue().endswith("\r")
    quiet = io.StringIO()                                  # not a TTY: nothing drawn
    assert list(progress_iter(range(5), stream=quiet, delay_s=0.0)) == list(range(5))
    assert quiet.getvalue() == ""
    slow = io.StringIO()                                   # quick runs stay silent
    with Progress(3, stream=slow, enabled=True, delay_s=60) as bar:
        bar.update(3)
    assert slow.getvalue() == ""


def test_analyze_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tr = nand_trace()
    p = tmp_path / "n.trace"
    tr.save(p)
    assert main(["analyze", str(p), "--rate", "1M,2M", "--ram", "8KiB,0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    s = out["runs"][0]
    assert s["peak_buffer_bytes"] == {"1000000": 0, "2000000": 844}
    assert s["max_rate_Bps_for_ram"]["0"] == pytest.approx(4096 / 2.47e-3)
    assert s["max_latency_us"] == 2470.0 and s["device"] == "mt29f1g01"
    csv = tmp_path / "n.csv"
    assert main(["analyze", str(p), "--convert", str(csv), "--out", str(tmp_path / "rep")]) == 0
    text = capsys.readouterr().out
    assert "mt29f1g01" in text and "Buf@2M" in text
    assert (tmp_path / "rep" / "index.html").is_file()
    assert json.loads((tmp_path / "rep" / "summary.json").read_text())["runs"][0]["count"] == 256
    np.testing.assert_array_equal(load_trace(csv).duration_ns, tr.duration_ns)
    assert main(["analyze", str(csv), "--ops", "write", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["count"] == 256


@pytest.mark.parametrize("content,args,msg", [
    ("duration_us,bytes\n1,x\n", [], ":2: column 'bytes'"),
    ("bytes\n1\n", [], "duration_us"),
    ("duration_us,bytes\n1,1\n", ["--rate", "fast"], "cannot parse rate"),
    ("duration_us,bytes\n1,1\n", ["--ram", "8 apples"], "cannot parse size"),
    ("duration_us,bytes,op\n1,1,write\n", ["--ops", "read"], "no accesses"),
])
def test_analyze_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str,
                        args: list[str], msg: str) -> None:
    p = tmp_path / "t.csv"
    p.write_text(content)
    assert main(["analyze", str(p), *args]) == 2
    err = capsys.readouterr().err
    assert "steady analyze: error:" in err and re.search(msg, err), err


def test_plot_colours_numbers_and_legends() -> None:
    """Issue 13: one colour per stack across plots, never one colour for two
    series of a plot, numbers for people (no 3.938e+04), legends off the data."""
    names = ["steadyfs, 55 % of device stored", "littlefs, tuned (lookahead 128 B)",
             "littlefs, small RAM (lookahead 32 B)", "raw (no files)"]
    cs = plots.series_colors(names)
    assert len(set(cs)) == 4
    assert cs[0] == plots.series_colors(["steadyfs 75% full"])[0] == plots.STACK_COLORS["steadyfs"]
    assert cs[1] == plots.STACK_COLORS["littlefs, tuned"] and cs[2] == plots.STACK_COLORS["littlefs"]
    # the stack's colour wins over the device's; a device alone keeps its own
    assert plots.series_colors(["mt29f1g01 / littlefs, 25 % full"])[0] == plots.STACK_COLORS["littlefs"]
    assert plots.series_colors(["mt29f1g01"])[0] == plots.STACK_COLORS["mt29f1g01"]
    # a second series of a stack gets a colour that is no stack's or device's
    second = plots.series_colors(["steadyfs 55", "steadyfs 75"])[1]
    assert second not in plots.STACK_COLORS.values()
    # two series naming the same stack still get two colours; unknown names too
    assert len(set(plots.series_colors(["steadyfs a", "steadyfs b", "x", "y", "z"]))) == 5
    assert len(set(plots.series_colors([f"s{i}" for i in range(20)]))) == 20
    assert plots.human(39380.0) == "39,380" and plots.human(152.4) == "152"
    assert plots.human(3.14159) == "3.14" and plots.human(0.000123) == "0.000123" and plots.human(0) == "0"
    sizes = Trace.concat([Trace.from_durations(np.full(5, s * 5_000), s) for s in (2048, 4096, 8192)])
    st = by_size(sizes)
    fig = plots.plot_vs_size({"em064lx": st, "mt29f1g01": st, "mt25q128": st}, "avg_throughput")
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert texts and not any("e+" in x or "e-" in x for x in texts), texts
    colours = {tuple(c[0].get_facecolor()) for c in ax.containers}
    assert len(colours) == 3
    leg = ax.get_legend()
    assert leg is not None and leg.get_bbox_to_anchor().y0 < ax.get_window_extent().y0 + 1  # below
    fig2 = plots.plot_peak_vs_rate({n: summarize(nand_trace(), [1e6, 2e6]) for n in names[:3]})
    lines = [ln for ln in fig2.axes[0].get_lines() if ln.get_label() in names]
    assert len({ln.get_linestyle() for ln in lines}) == 3 and len({ln.get_color() for ln in lines}) == 3
    fig3 = plots.plot_latency_distribution({"steadyfs": nand_trace(), "littlefs": sd_trace()})
    assert fig3.legends and not fig3.axes[0].get_legend()


def test_report_runs_page(tmp_path: Path) -> None:
    """A report of many runs: index.html keeps the summary and comparisons,
    each run's section (and its plots) is on runs.html, linked both ways."""
    runs = [Run(summarize(t, [1e6]), t) for t in (nand_trace(fs="steadyfs"), nand_trace(fs="littlefs"))]
    index = write_report(tmp_path, runs, runs_page=True)
    text = index.read_text()
    page = (tmp_path / "runs.html").read_text()
    assert "href=\"runs.html#" in text and "href='index.html'" in page
    for r in runs:
        sl = r.label.replace(" / ", "-")
        assert f"id='{sl}'" in page and f"id='{sl}'" not in text
    for src in re.findall(r'src="([^"]+)"', page):
        assert (tmp_path / src).is_file()
