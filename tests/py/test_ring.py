"""The record ring (format 15, docs/DESIGN.md §13) from the command line and
the Python binding: mkfs --ring-units, `steady ring` (span, append, list,
dump), `steady plan --ring` against the raw device's curve, the ring4k
workload, and one-line errors where there is no ring."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from clirun import assert_one_line_error, steady
from steadyfs import native
from steadyfs.cmd_plan import guarantee, raw_guarantee

needs_lib = pytest.mark.skipif(not native.library_path().exists(),
                               reason="native library not built")


@needs_lib
def test_image_ring_round_trip(tmp_path: Path) -> None:
    img = tmp_path / "r.img"
    r = steady("mkfs", str(img), "--device", "mt29f1g01", "--blocks", "96", "--ring-units", "6",
               "--ring-sectors", "2")
    assert r.returncode == 0, r.stderr
    r = steady("ring", str(img))
    assert r.returncode == 0 and "6 units, 2 sectors a record" in r.stdout and "no record" in r.stdout
    data = os.urandom(3 * 4096 + 1000)
    src = tmp_path / "in.bin"
    src.write_bytes(data)
    r = steady("ring", str(img), "--append", str(src))
    assert r.returncode == 0, r.stderr
    assert "4 records appended" in r.stdout
    r = steady("ring", str(img), "--list")
    assert r.stdout.split() == ["0", "4096", "1", "4096", "2", "4096", "3", "1000"]
    out = tmp_path / "out.bin"
    r = steady("ring", str(img), "--dump", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == data
    r = steady("ring", str(img), "--dump", str(out), "--from", "1", "--count", "2")
    assert out.read_bytes() == data[4096:3 * 4096]
    # the files beside it are untouched, and the image checks clean
    r = steady("fsck", str(img))
    assert r.returncode == 0 and "clean" in r.stdout, r.stdout + r.stderr


@needs_lib
def test_ring_errors_are_one_line(tmp_path: Path) -> None:
    img = tmp_path / "plain.img"
    assert steady("mkfs", str(img), "--device", "mt29f1g01", "--blocks", "96").returncode == 0
    assert_one_line_error(steady("ring", str(img)), "without a record ring")
    assert_one_line_error(steady("ring", str(img), "--from", "-3"), "--from")
    bad = tmp_path / "bad.img"
    assert_one_line_error(steady("mkfs", str(bad), "--device", "mt29f1g01", "--blocks", "96",
                                 "--ring-units", "1"), "--ring-units")
    assert_one_line_error(steady("mkfs", str(bad), "--device", "mt29f1g01", "--blocks", "96",
                                 "--ring-units", "4", "--ring-sectors", "65"), "--ring-sectors")
    assert_one_line_error(steady("plan", "--rate", "1M", "--ring", "--dsync"), "--ring")


@needs_lib
@pytest.mark.parametrize("device", ["mt29f1g01", "mt25q128", "em064lx"])
def test_ring_guarantee_is_the_raw_devices(device: str) -> None:
    """A ring append is its sectors and an erase a unit: its curve is the
    raw device's own, but for the sector's tag (NOR, MRAM: 2080-byte
    sectors, fewer records a unit) and a nanosecond an operation."""
    g = guarantee(device, 4096, "worst", 0.75, ring=True)
    raw = raw_guarantee(device, 4096, "worst")
    assert g.c_s >= raw.c_s
    assert g.c_s <= raw.c_s * 1.25
    assert g.d_s == pytest.approx(raw.d_s, rel=1e-3, abs=1e-6)
    files = guarantee(device, 4096, "worst", 0.75, dsync=True, aligned=True)
    assert g.c_s < files.c_s / 10


@needs_lib
def test_plan_ring_json() -> None:
    r = steady("plan", "--device", "mt29f1g01", "--rate", "300k", "--ring", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["ring"] is True
    assert out["buffer_bytes"] <= 16 * 1024          # issue 12's figure, for ring records
    assert out["b_ms"] == pytest.approx(11.3, abs=0.1)


@needs_lib
def test_bench_ring4k(tmp_path: Path) -> None:
    r = steady("bench", "--device", "mt29f1g01", "--blocks", "128", "--workload", "ring4k",
               "--fs", "steadyfs", "--param", "fs.ring_units=8", "--param", "fs.ring_sectors=2",
               "--scale", "0.05", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["max_latency_us"] <= 2700
    assert_one_line_error(steady("bench", "--device", "mt29f1g01", "--blocks", "128", "--workload",
                                 "ring4k", "--fs", "steadyfs", "--scale", "0.01"), "ring")


@needs_lib
def test_bound_lists_the_ring_calls() -> None:
    r = steady("bound", "--device", "mt29f1g01", "--param", "ring_units=64", "--param",
               "ring_sectors=2", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["ops"]["ring_append_4096"] == {"reads": 0, "progs": 2, "erases": 1,
                                              "read_bytes": 0, "prog_bytes": 2 * (2048 + 32), "per": 1}
    assert out["ops"]["ring_read"]["reads"] == 4
    assert out["bounds_us"]["ring_append_4096"] == pytest.approx(11323, abs=5)
    plain = json.loads(steady("bound", "--device", "mt29f1g01", "--json").stdout)
    assert "ring_append_4096" not in plain["ops"]


@needs_lib
def test_plan_ring_sizes_retention_and_wear() -> None:
    from steadyfs.cmd_plan import ring_size
    rs = ring_size("mt29f1g01", 4096, 64, 1_000_000.0)
    assert rs.records_per_unit == 32                     # 64 sectors of 2 KiB, 2 a record
    assert (rs.records_min, rs.records_max) == (62 * 32 + 1, 63 * 32)
    assert rs.retention_s == pytest.approx(rs.records_min * 4096 / 1e6)
    assert rs.erase_interval_s == pytest.approx(64 * 32 * 4096 / 1e6)
    assert rs.erase_interval_s is not None
    assert rs.lifetime_days == pytest.approx(100_000 * rs.erase_interval_s / 86400)
    assert ring_size("em064lx", 4096, 16, 1e6).lifetime_days is None   # MRAM does not wear
    r = steady("plan", "--device", "mt29f1g01", "--rate", "1M", "--ring", "--ring-units", "64",
               "--json")
    assert json.loads(r.stdout)["ring_size"]["records_per_unit"] == 32
    assert_one_line_error(steady("plan", "--rate", "1M", "--ring", "--ring-units", "1"),
                          "--ring-units")


@needs_lib
def test_ring_served_as_a_read_only_file(tmp_path: Path) -> None:
    """`steady serve` reads the image's format (the ring's too) and shows
    the ring as /.ring: record n at n x slot, zeros to the slot's end, a
    record the ring no longer holds as zeros; nothing writes, removes or
    creates it."""
    from clirun import serve
    from steadyfs import p9client
    img = tmp_path / "r.img"
    assert steady("mkfs", str(img), "--device", "mt29f1g01", "--blocks", "96", "--ring-units",
                  "3", "--ring-sectors", "2").returncode == 0
    data = os.urandom(130 * 4096 + 100)            # past a lap of 3 units of 32 records
    src = tmp_path / "in.bin"
    src.write_bytes(data)
    assert steady("ring", str(img), "--append", str(src)).returncode == 0
    first = int(steady("ring", str(img), "--list").stdout.split()[0])
    assert first > 0                                   # the oldest are gone
    with serve(img) as srv, p9client.Client("127.0.0.1", srv.port) as c:
        assert c.getattr("/.ring").size == 131 * 4096
        fid = c.open("/.ring")
        assert c.read(fid, 0, 4096) == bytes(4096)     # gone: zeros
        assert c.read(fid, first * 4096, 4096) == data[first * 4096:(first + 1) * 4096]
        assert c.read(fid, 130 * 4096, 8192) == data[130 * 4096:] + bytes(4096 - 100)
        assert c.read(fid, first * 4096 + 3000, 2000) == data[first * 4096 + 3000:first * 4096 + 5000]
        assert c.read(fid, 131 * 4096, 10) == b""
        c.clunk(fid)
        assert ".ring" not in [d.name for d in c.readdir("/")]
        with pytest.raises(p9client.P9Error) as ei:
            c.open("/.ring", 1)
        assert ei.value.errno == 30                    # EROFS
        with pytest.raises(p9client.P9Error) as ei:
            c.unlink("/.ring")
        assert ei.value.errno == 30
        with pytest.raises(p9client.P9Error) as ei:
            c.create("/.ring")
        assert ei.value.errno == 30


@needs_lib
def test_ring_through_a_fuse_mount(tmp_path: Path) -> None:
    """`steady mount IMAGE MNT` reads the image's format (its ring too):
    /.ring reads back the records, and writing or removing it is EROFS."""
    import shutil
    import subprocess
    import sys
    import time
    if not shutil.which("fusermount3") and not shutil.which("fusermount"):
        pytest.skip("no FUSE here")
    img = tmp_path / "r.img"
    assert steady("mkfs", str(img), "--device", "mt29f1g01", "--blocks", "96", "--ring-units",
                  "4", "--ring-sectors", "2").returncode == 0
    data = os.urandom(2 * 4096 + 77)
    src = tmp_path / "in.bin"
    src.write_bytes(data)
    assert steady("ring", str(img), "--append", str(src)).returncode == 0
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    p = subprocess.Popen([sys.executable, "-m", "steadyfs.cli", "mount", str(img), str(mnt), "-f"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        ring = mnt / ".ring"
        for _ in range(100):
            if ring.exists():
                break
            time.sleep(0.05)
        assert ring.stat().st_size == 3 * 4096
        got = ring.read_bytes()
        assert got[:len(data)] == data and got[len(data):] == bytes(3 * 4096 - len(data))
        with pytest.raises(OSError) as ei:
            ring.write_bytes(b"x")
        assert ei.value.errno == 30
        with pytest.raises(OSError) as ei:
            ring.unlink()
        assert ei.value.errno == 30
    finally:
        subprocess.run(["fusermount3" if shutil.which("fusermount3") else "fusermount", "-u",
                        str(mnt)], capture_output=True)
        p.wait(timeout=30)
