"""The steadyfs Python binding (python/steadyfs/fs.py over src/host/fshost.c)."""

from __future__ import annotations

from pathlib import Path

import pytest

from steadyfs.fs import (O_CREAT, O_RDWR, O_WRONLY, SEEK_END, TYPE_DIR, TYPE_FILE, SteadyFs,
                         SteadyFsError, strerror)
from steadyfs.native import Device
from steadyfs.native import strerror as native_strerror
from steadyfs.workloads import pattern


@pytest.fixture
def nand() -> Device:
    return Device("mt29f1g01", blocks=64, seed=3)


def _fresh(dev: Device, **cfg: int) -> SteadyFs:
    fs = SteadyFs(dev, cfg or None)
    fs.format()
    fs.mount()
    return fs


def test_files_round_trip_and_survive_remount(nand: Device) -> None:
    fs = _fresh(nand)
    data = pattern(10000, 5)
    fd = fs.open("/a.bin", "w")
    assert fs.write(fd, data) == len(data)
    fs.sync(fd)
    with pytest.raises(SteadyFsError, match=r"read fd \d+: bad handle \(EBADF\)"):
        fs.read(fd, 10)                              # opened write-only
    fs.close(fd)
    fd = fs.open("/a.bin", "r+")
    assert fs.read(fd, 100) == data[:100] and fs.tell(fd) == 100
    assert fs.seek(fd, -10, SEEK_END) == len(data) - 10
    assert fs.read(fd, 100) == data[-10:]
    fs.seek(fd, 5000)
    fs.write(fd, b"Z" * 10)
    fs.truncate(fd, 6000)
    assert fs.size(fd) == 6000 and fs.fstat(fd).size == 6000
    fs.close(fd)
    fs.mkdir("/d")
    fs.rename("/a.bin", "/d/b.bin")
    st = fs.stat("/d/b.bin")
    assert st.type == TYPE_FILE and st.size == 6000 and not st.is_dir
    assert fs.stat("/d").type == TYPE_DIR
    assert [n for n, _ in fs.listdir("/")] == ["d"] and [n for n, _ in fs.listdir("/d")] == ["b.bin"]
    fs.unmount()
    fs.release()
    # a new context on the same device sees exactly what was committed
    fs2 = SteadyFs(nand)
    fs2.mount()
    fd = fs2.open("/d/b.bin", "r")
    got = fs2.read(fd, 10000)
    fs2.close(fd)
    assert got == data[:5000] + b"Z" * 10 + data[5010:6000]
    fs2.unlink("/d/b.bin")
    fs2.rmdir("/d")
    assert fs2.listdir("/") == [] and not fs2.exists("/d")
    fs2.release()


def test_info_gc_step_counters_and_ram(nand: Device) -> None:
    fs = _fresh(nand, open_max=1)
    i0 = fs.info()
    assert 0 < i0.used < i0.capacity and i0.free == i0.capacity - i0.used
    # NAND: (pending_max - 8) / open_max = 24, capped so that the
    # transaction leaves a quarter of the 32-entry table (src/fs/fs.c)
    assert i0.blocks == 64 and i0.sector_size == 2048 and i0.txn_sectors == 19
    for k in range(3):
        fd = fs.open(f"/f{k}", "w")
        fs.write(fd, pattern(64 * 1024, k))
        fs.close(fd)
    assert fs.info().used >= i0.used + 3 * 64 * 1024
    fs.unlink("/f0")
    assert fs.gc_step(1000) >= 0
    c = fs.counters()
    assert c["data"] >= 3 * 32 and set(c) == {"data", "copy", "map", "ckpt", "erase", "victim"}
    # open_max 1: context + work (48 + 20*32 + 4*n_l2 + 64 + 32) + one 2 KiB sector
    assert 2048 + 48 + 640 < fs.ram_bytes < 2048 + 48 + 640 + 2048
    fs.release()


def test_errors_carry_the_call_path_and_strerror(nand: Device) -> None:
    fs = _fresh(nand, open_max=1)
    with pytest.raises(SteadyFsError, match=r"open /nope/x: no such entry \(ENOENT\)") as ei:
        fs.open("/nope/x", "r")
    assert ei.value.code == -2 and ei.value.errno == 2
    fs.mkdir("/d")
    with pytest.raises(SteadyFsError, match=r"mkdir /d: exists \(EEXIST\)"):
        fs.mkdir("/d")
    fd = fs.open("/d/f", O_WRONLY | O_CREAT)
    with pytest.raises(SteadyFsError, match=r"open /d/g: open table full \(ENFILE\)"):
        fs.open("/d/g", O_RDWR | O_CREAT)             # open_max = 1
    with pytest.raises(SteadyFsError, match=r"rmdir /d: not empty \(ENOTEMPTY\)"):
        fs.rmdir("/d")
    with pytest.raises(SteadyFsError, match=r"unlink /: busy \(EBUSY\)"):
        fs.unlink("/")
    fs.close(fd)
    with pytest.raises(SteadyFsError, match=r"EBADF"):
        fs.write(fd, b"x")                           # closed handle
    fs.close(fs.open("/x", "x"))
    with pytest.raises(SteadyFsError, match=r"open /x: exists \(EEXIST\)"):
        fs.open("/x", "x")
    assert strerror(-28) == "no space" and strerror(-101) == native_strerror(-101)
    fs.release()
    with pytest.raises(ValueError, match="unknown steadyfs option"):
        SteadyFs(nand, {"bogus": 1})
    with pytest.raises(SteadyFsError, match="configure"):
        SteadyFs(nand, {"sector_size": 1000})         # not a multiple of the page
    fs3 = SteadyFs(Device("em064lx", seed=1))
    with pytest.raises(SteadyFsError, match="mount"):
        fs3.mount()                                   # never formatted
    fs3.release()


def test_space_runs_out_cleanly(nand: Device) -> None:
    fs = _fresh(nand, open_max=1)
    cap = fs.info().capacity
    fd = fs.open("/big", "w")
    chunk = pattern(64 * 1024, 1)
    written = 0
    with pytest.raises(SteadyFsError, match=r"no space \(ENOSPC\)"):
        while written <= 2 * cap:
            n = fs.write(fd, chunk)
            written += n
            if n < len(chunk):
                fs.write(fd, chunk)          # the rest: the error itself
    assert 0.9 * cap <= written + 64 * 1024 and written <= cap
    fs.release()


def test_real_regular_file(tmp_path: Path) -> None:
    """A Linux file (512-byte read unit): the host's read-alignment shim lets
    the core's small tag reads through; the data survives a reopen."""
    img = tmp_path / "fs.img"
    img.write_bytes(b"")
    with Device(path=img, allow_write=True, size_bytes=8 * 1024 * 1024) as dev:
        assert dev.geometry["read_size"] == 512
        fs = _fresh(dev)
        fd = fs.open("/r.bin", "w")
        fs.write(fd, pattern(5000, 9))
        fs.close(fd)
        fs.release()
    with Device(path=img, allow_write=True) as dev:
        fs = SteadyFs(dev)
        fs.mount()
        fd = fs.open("/r.bin", "r")
        assert fs.read(fd, 9999) == pattern(5000, 9)
        fs.release()


def test_closing_the_device_first_unmounts_and_commits(tmp_path: Path) -> None:
    img = tmp_path / "n.img"
    dev = Device("mt29f1g01", image=img, blocks=64, seed=2, fresh=True)
    fs = _fresh(dev)
    fd = fs.open("/kept", "w")
    fs.write(fd, b"committed by the unmount that closing the device runs")
    dev.close()                        # before fs.release(): no use after free
    assert not fs.mounted
    fs.release()                       # harmless twice
    with Device("mt29f1g01", image=img, blocks=64, seed=2) as dev2, SteadyFs(dev2) as fs2:
        fs2.mount()
        fd = fs2.open("/kept", "r")
        assert fs2.read(fd, 100).startswith(b"committed")
