"""steadyfs.Image (python/steadyfs/image.py): round trips, errors as OSError
subclasses with errno, scandir/walk/listdir sizes, context managers, the
header read back by Image.open, durability of fsync and dsync, and images
shared with the `steady` image tools."""

from __future__ import annotations

import errno
import io
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import steadyfs
from steadyfs import fs as fsb
from steadyfs import imgtool

REPO = Path(__file__).resolve().parents[2]
BLOCKS = 48


@pytest.fixture
def img(tmp_path: Path) -> Iterator[steadyfs.Image]:
    with steadyfs.Image.create(tmp_path / "t.img", blocks=BLOCKS) as im:
        yield im


def test_round_trip_sizes_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "r.img"
    sizes = [0, 1, 2047, 2048, 2049, 4096, 10_000, 70_001]
    data = {f"/d/f{n}.bin": os.urandom(n) for n in sizes}
    with steadyfs.Image.create(path, device="mt29f1g01", blocks=BLOCKS) as img:
        img.makedirs("/d")
        for p, b in data.items():
            with img.open(p, "wb") as f:
                assert f.write(b) == len(b)
    with steadyfs.Image.open(path) as img:
        for p, b in data.items():
            assert img.read_bytes(p) == b
            assert img.stat(p).st_size == len(b)
        # the complaint: every size was reported as 0
        got = {e.name: e.stat().st_size for e in img.scandir("/d")}
        assert got == {p.rsplit("/", 1)[1]: len(b) for p, b in data.items()}
        assert dict((n, s.size) for n, s in img.fs.listdir("/d")) == got


def test_open_reads_profile_blocks_and_format_from_the_image(tmp_path: Path) -> None:
    path = tmp_path / "nor.img"
    with steadyfs.Image.create(path, device="mt25q128", blocks=512, max_inodes=100,
                               sector_size=4096, fill_permille=600) as img:
        img.write_bytes("/x", b"nor")
        made = dict(img.format)
    assert made["max_inodes"] == 100 and made["sector_size"] == 4096
    with steadyfs.Image.open(path) as img:        # no profile, size or format given
        assert (img.profile, img.blocks) == ("mt25q128", 512)
        assert img.format == made
        assert img.df().fill_permille == 600 and img.df().max_files == 100
        assert img.read_bytes("/x") == b"nor"


def test_open_image_made_by_steady_mkfs(tmp_path: Path) -> None:
    if not imgtool.binary().exists():
        pytest.skip("steady-img not built")
    path = tmp_path / "cli.img"
    subprocess.run([sys.executable, "-m", "steadyfs.cli", "mkfs", "--image", str(path),
                    "--device", "mt29f1g01", "--blocks", "40", "--sector-size", "4096",
                    "--max-inodes", "64"], check=True, capture_output=True, cwd=REPO)
    with steadyfs.Image.open(path) as img:
        assert img.profile == "mt29f1g01" and img.format["sector_size"] == 4096
        assert img.format["max_inodes"] == 64
        img.write_bytes("/from-python.txt", b"hi")
    # and the tools read what Python wrote: fsck clean, cat the file
    fsck = subprocess.run([sys.executable, "-m", "steadyfs.cli", "fsck", "--image", str(path)],
                          capture_output=True, cwd=REPO)
    assert fsck.returncode == 0, fsck.stdout.decode() + fsck.stderr.decode()
    cat = subprocess.run([sys.executable, "-m", "steadyfs.cli", "cat",
                          f"{path}:/from-python.txt"], capture_output=True, cwd=REPO)
    assert cat.stdout == b"hi"


def test_errors_are_oserror_subclasses_with_errno(img: steadyfs.Image) -> None:
    img.makedirs("/a/b")
    img.write_bytes("/a/f", b"1")
    cases: list[tuple[Callable[[], Any], type[OSError], int, str]] = [
        (lambda: img.open("/nope"), FileNotFoundError, errno.ENOENT, "/nope"),
        (lambda: img.stat("/a/nope"), FileNotFoundError, errno.ENOENT, "/a/nope"),
        (lambda: img.mkdir("/a"), FileExistsError, errno.EEXIST, "/a"),
        (lambda: img.open("/a/f", "x"), FileExistsError, errno.EEXIST, "/a/f"),
        (lambda: img.open("/a", "rb"), IsADirectoryError, errno.EISDIR, "/a"),
        (lambda: img.remove("/a"), IsADirectoryError, errno.EISDIR, "/a"),
        (lambda: img.open("/a/f/x", "w"), NotADirectoryError, errno.ENOTDIR, "/a/f/x"),
        (lambda: img.rmdir("/a/f"), NotADirectoryError, errno.ENOTDIR, "/a/f"),
        (lambda: img.rmdir("/a"), OSError, errno.ENOTEMPTY, "/a"),
        (lambda: img.listdir("/a/f"), NotADirectoryError, errno.ENOTDIR, "/a/f"),
        (lambda: img.mkdir("/" + "n" * 256), OSError, errno.ENAMETOOLONG, "/" + "n" * 256),
    ]
    for call, exc, code, name in cases:
        with pytest.raises(exc) as ei:
            call()
        assert type(ei.value) is exc, (name, type(ei.value))
        assert ei.value.errno == code and ei.value.filename == name
    with pytest.raises(FileNotFoundError) as ren:
        img.rename("/nope", "/other")
    assert ren.value.filename == "/nope" and ren.value.filename2 == "/other"
    # the message is one line: steadyfs_strerror's text and the path
    assert "\n" not in str(ren.value)


def test_unlink_open_and_full(img: steadyfs.Image) -> None:
    f = img.open("/open.bin", "wb")
    f.write(b"still here")
    img.remove("/open.bin")               # an open file loses its name ...
    assert not img.exists("/open.bin")
    f.write(b", written on")              # ... and lives on until closed
    f.flush()
    f.close()
    assert not img.exists("/open.bin")
    cap = img.df().capacity
    written = 0
    with pytest.raises(OSError) as full:
        with img.open("/big", "wb", buffering=0) as raw:
            while True:
                written += raw.write(b"\xa5" * 16384)
    assert full.value.errno == errno.ENOSPC
    assert 0.9 * cap < written <= cap
    img.remove("/big")                      # a full device recovers by deleting
    img.write_bytes("/after", b"ok")
    assert img.read_bytes("/after") == b"ok"


def test_file_object_semantics(img: steadyfs.Image) -> None:
    with img.open("/f.bin", "w+b") as f:
        assert isinstance(f, io.BufferedRandom)
        assert f.readable() and f.writable() and f.seekable()
        f.write(b"abcdefgh")
        assert f.tell() == 8
        f.seek(-3, io.SEEK_END)
        assert f.read(2) == b"fg"
        f.seek(1)
        f.write(b"XY")
        f.seek(0)
        assert f.read() == b"aXYdefgh"
        assert f.truncate(5) == 5
        f.seek(0)
        assert f.read() == b"aXYde"
        with pytest.raises(io.UnsupportedOperation):
            f.fileno()
    with img.open("/f.bin", "rb", buffering=0) as raw:
        assert isinstance(raw, steadyfs.FileIO) and isinstance(raw, io.RawIOBase)
        buf = bytearray(3)
        assert raw.readinto(buf) == 3 and buf == b"aXY"
        assert raw.readall() == b"de"
        assert raw.read(10) == b""
        with pytest.raises(io.UnsupportedOperation):
            raw.write(b"no")
    with img.open("/f.bin", "ab") as f:
        assert f.tell() == 5
        f.write(b"!")
    with img.open("/f.bin", "rb") as f:
        with pytest.raises(io.UnsupportedOperation):
            f.write(b"x")
    assert img.read_bytes("/f.bin") == b"aXYde!"
    with img.open("/w.bin", "wb") as f:
        assert not f.readable()
    for bad in ("rw", "bt", "q", "rr", ""):
        with pytest.raises(ValueError):
            img.open("/f.bin", bad)
    with pytest.raises(ValueError):
        img.open("/f.bin", "r", buffering=0)


def test_text_mode(img: steadyfs.Image) -> None:
    with img.open("/t.txt", "w", encoding="utf-8", newline="\r\n") as f:
        assert isinstance(f, io.TextIOWrapper)
        f.write("größe\nzwei\n")
    assert img.read_bytes("/t.txt") == "größe\r\nzwei\r\n".encode()
    with img.open("/t.txt") as f:
        assert f.readlines() == ["größe\n", "zwei\n"]
    with img.open("/t.txt", "a") as f:
        f.write("drei")
    with img.open("/t.txt", encoding="latin-1", errors="replace") as f:
        assert f.read().endswith("drei")


def test_scandir_walk_listdir_stat(img: steadyfs.Image) -> None:
    img.makedirs("/x/y/z", exist_ok=True)
    img.makedirs("/x/y/z", exist_ok=True)
    with pytest.raises(FileExistsError):
        img.makedirs("/x/y")
    img.write_bytes("/x/a", b"a" * 3000)
    img.write_bytes("/x/y/b", b"b" * 5)
    img.write_bytes("/top", b"")
    assert sorted(img.listdir("/")) == ["top", "x"]
    assert sorted(img.listdir()) == ["top", "x"]
    with img.scandir("/x") as it:                   # a context manager, as os.scandir's
        entries = {e.name: e for e in it}
    assert set(entries) == {"a", "y"}
    assert entries["a"].is_file() and not entries["a"].is_dir()
    assert entries["a"].stat().st_size == 3000 and entries["a"].path == "/x/a"
    assert entries["y"].is_dir() and stat.S_ISDIR(entries["y"].stat().st_mode)
    assert entries["a"].inode() == img.stat("/x/a").st_ino
    walked = {d: (sorted(ds), sorted(fs)) for d, ds, fs in img.walk("/")}
    assert walked == {"/": (["x"], ["top"]), "/x": (["y"], ["a"]), "/x/y": (["z"], ["b"]),
                      "/x/y/z": ([], [])}
    bottom_up = [d for d, _, _ in img.walk("/", topdown=False)]
    assert bottom_up.index("/x/y/z") < bottom_up.index("/x/y") < bottom_up.index("/")
    pruned = []
    for d, ds, _ in img.walk("/"):
        pruned.append(d)
        ds.clear()                                  # topdown: prunes the walk
    assert pruned == ["/"]
    errs: list[OSError] = []
    assert list(img.walk("/missing", onerror=errs.append)) == []
    assert isinstance(errs[0], FileNotFoundError)
    st = img.stat("/x/a")
    assert stat.S_ISREG(st.st_mode) and st.st_size == 3000 and st.st_nlink == 1
    # a directory's size is the core's stat's, as the C calls report it
    assert img.stat("/x").st_size == img.fs.stat("/x").size
    assert img.isdir("/x") and img.isfile("/x/a") and not img.isfile("/x")
    assert not img.exists("/x/a/under-a-file") and not img.exists("/none")
    # relative and dotted paths are taken from the root
    assert img.read_bytes("x/y/../a") == b"a" * 3000


def test_rename_remove_and_identity(img: steadyfs.Image) -> None:
    img.write_bytes("/a", b"A")
    img.write_bytes("/b", b"B")
    ino = img.stat("/a").st_ino
    img.rename("/a", "/b")                          # replaces
    assert img.read_bytes("/b") == b"A" and not img.exists("/a")
    assert img.stat("/b").st_ino == ino
    img.remove("/b")
    img.write_bytes("/c", b"C")
    assert img.stat("/c").st_ino != ino             # ids are never reused
    img.mkdir("/d")
    img.rmdir("/d")
    assert img.listdir("/") == ["c"]


def test_df(img: steadyfs.Image) -> None:
    d0 = img.df()
    assert d0.files == 0 and d0.free == d0.capacity - d0.used and d0.fill_permille == 750
    img.makedirs("/a/b")
    img.write_bytes("/a/b/f", b"z" * 100_000)
    d1 = img.df()
    assert d1.files == 3 and d1.used >= d0.used + 100_000 and d1.capacity == d0.capacity
    assert d1.sector_size == img.format["sector_size"]


def test_context_managers_and_close(tmp_path: Path) -> None:
    path = tmp_path / "c.img"
    with steadyfs.Image.create(path, blocks=BLOCKS) as img:
        left_open = img.open("/pending.txt", "w")
        left_open.write("buffered, never flushed by the caller")
        raw = img.open("/raw.bin", "wb", buffering=0)
        raw.write(b"raw")
    assert img.closed and left_open.closed and raw.closed
    with pytest.raises(ValueError):
        img.listdir("/")
    with pytest.raises(ValueError):
        raw.write(b"more")
    img.close()                                     # twice is fine
    with steadyfs.Image.open(path) as img2:
        # closing the image closed (flushed, committed) what was left open
        assert img2.read_bytes("/pending.txt") == b"buffered, never flushed by the caller"
        assert img2.read_bytes("/raw.bin") == b"raw"
        f = img2.open("/pending.txt")
        with f:
            assert f.read(8) == "buffered"
        assert f.closed
    assert "closed" in repr(img2)


def test_fsync_and_dsync_are_durable(tmp_path: Path) -> None:
    """A copy of the image file taken while it is mounted is the device
    after a power cut at that moment: what fsync/dsync committed is there,
    what was only written is not."""
    path = tmp_path / "p.img"
    cut = tmp_path / "cut.img"
    with steadyfs.Image.create(path, blocks=BLOCKS) as img:
        a = img.open("/a.bin", "wb")
        a.write(b"committed")
        img.fsync(a)
        a.write(b" + pending")
        a.flush()                                   # reaches the file, not durable
        with img.open("/d.bin", "wb", buffering=0, dsync=True) as d:
            d.write(b"each write durable")
            shutil.copyfile(path, cut)
        a.close()
    with steadyfs.Image.open(cut) as after_cut:
        assert after_cut.read_bytes("/a.bin") == b"committed"
        assert after_cut.read_bytes("/d.bin") == b"each write durable"
    with steadyfs.Image.open(path) as img:
        assert img.read_bytes("/a.bin") == b"committed + pending"


def test_create_and_open_refusals(tmp_path: Path) -> None:
    existing = tmp_path / "exists.img"
    existing.write_bytes(b"keep me")
    with pytest.raises(FileExistsError) as ei:
        steadyfs.Image.create(existing, blocks=BLOCKS)
    assert ei.value.errno == errno.EEXIST and existing.read_bytes() == b"keep me"
    with pytest.raises(OSError) as bad:
        steadyfs.Image.open(existing)
    assert bad.value.errno == errno.EINVAL and "STDYSIM1" in str(bad.value)
    with pytest.raises(FileNotFoundError):
        steadyfs.Image.open(tmp_path / "missing.img")
    with pytest.raises(ValueError, match="unknown device profile"):
        steadyfs.Image.create(tmp_path / "u.img", device="no-such-chip")
    with pytest.raises(OSError, match="not a mt25q128 image with 40 blocks") as geo:
        steadyfs.Image.create(tmp_path / "g.img", device="mt25q128", blocks=40)
    assert geo.value.errno == errno.EINVAL
    with pytest.raises(ValueError, match="SD card"):
        steadyfs.Image.create(tmp_path / "sd.img", device="sd-consumer")
    with pytest.raises(TypeError, match="unknown steadyfs option"):
        steadyfs.Image.create(tmp_path / "o.img", blocks=BLOCKS, sector_sise=4096)
    # a format the device refuses: an error, and no file left behind
    with pytest.raises(OSError) as cfg:
        steadyfs.Image.create(tmp_path / "f.img", blocks=BLOCKS, sector_size=3000)
    assert cfg.value.errno == errno.EINVAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exists.img"]
    # an image whose medium holds no file system
    from steadyfs.native import Device
    Device.create_image(tmp_path / "blank.img", "mt29f1g01", blocks=BLOCKS).close()
    with pytest.raises(OSError, match="no steadyfs file system"):
        steadyfs.Image.open(tmp_path / "blank.img")


def test_library_path_prefers_the_packaged_library(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from steadyfs import native
    monkeypatch.delenv("STEADYFS_LIB", raising=False)
    fake = tmp_path / "_libsteady.so"
    monkeypatch.setattr(native, "PACKAGED_LIB", fake)
    assert native.library_path() == native.REPO_LIB      # editable / repo: make's build
    fake.write_bytes(b"")
    assert native.library_path() == fake                 # installed: the package's own
    monkeypatch.setenv("STEADYFS_LIB", "/x/libsteady.so")
    assert native.library_path() == Path("/x/libsteady.so")


def test_editable_install_leaves_no_library_in_the_tree() -> None:
    """make setup's editable install compiles nothing into python/steadyfs,
    so the repo's tests always load what `make build` made."""
    from steadyfs import native
    assert not (REPO / "python" / "steadyfs" / "_libsteady.so").exists()
    if "STEADYFS_LIB" not in os.environ:
        assert native.library_path() == native.REPO_LIB


def test_erase_mult_is_found_again(tmp_path: Path) -> None:
    """An image formatted with another erase unit opens without being told
    (the probe tries the unit sizes, issue 16), and with it."""
    path = tmp_path / "em.img"
    with steadyfs.Image.create(path, device="mt29f1g01", blocks=64, erase_mult=2) as img:
        img.write_bytes("/f", b"2")
        assert img.format["erase_mult"] == 2
    with steadyfs.Image.open(path) as img:
        assert img.read_bytes("/f") == b"2"
    with steadyfs.Image.open(path, erase_mult=2) as img:
        assert img.read_bytes("/f") == b"2"


def test_format_keys_are_config_keys() -> None:
    assert set(fsb.FORMAT_KEYS) <= set(fsb.CONFIG_KEYS)
