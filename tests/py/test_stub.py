"""The host stub's FUSE mount (`steady mount`): unmodified programs (ls, cat,
cp, gzip, find, mv, rm) work on a File System On Chip through the VFS.

The server is Debian's diod serving a temporary directory (an
implementation nobody here wrote), so every effect is checked on that
directory itself.  Each mount is undone with `fusermount3 -u` even when a
check fails.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from steadyfs import cmd_mount, cmd_serve

REPO = Path(__file__).resolve().parents[2]
DIOD = shutil.which("diod") or "/usr/sbin/diod"

needs_mount = pytest.mark.skipif(
    not cmd_mount.binary().exists() or not os.path.exists("/dev/fuse")
    or shutil.which("fusermount3") is None,
    reason="steady-mount not built, or no FUSE here (/dev/fuse, fusermount3)")


def _steady(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "steadyfs.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        assert proc.poll() is None, "server exited at start"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port}")


@pytest.fixture
def diod(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """diod serving tmp_path/export on a loopback port: (tcp spec, export)."""
    if not os.path.exists(DIOD):
        pytest.fail("diod is not installed (scripts/debian-packages.txt lists it)")
    export = tmp_path / "export"
    export.mkdir()
    port = _free_port()
    proc = subprocess.Popen([DIOD, "-f", "-n", "-N", "-l", f"127.0.0.1:{port}", "-e", str(export),
                             "-L", str(tmp_path / "diod.log")])
    try:
        _wait_listening(port, proc)
        yield f"tcp:127.0.0.1:{port}", export
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextlib.contextmanager
def mounted(*opts: str, mnt: Path, image: Path | None = None) -> Iterator[Path]:
    mnt.mkdir(exist_ok=True)
    r = _steady("mount", *([str(image)] if image else []), str(mnt), *opts)
    assert r.returncode == 0, r.stdout + r.stderr
    try:
        yield mnt
    finally:
        u = subprocess.run(["fusermount3", "-u", str(mnt)], capture_output=True, text=True)
        if u.returncode != 0:  # busy: detach lazily so nothing is left behind
            subprocess.run(["fusermount3", "-u", "-z", str(mnt)], capture_output=True)
        assert u.returncode == 0, u.stderr


def _sh(*cmd: str, cwd: Path | None = None) -> str:
    r = subprocess.run(list(cmd), capture_output=True, text=True, timeout=60, cwd=cwd)
    assert r.returncode == 0, f"{cmd}: {r.stderr}"
    return r.stdout


def _populate(root: Path) -> dict[str, bytes]:
    """A small tree of mixed-size files; returns relative path -> content."""
    rng = __import__("random").Random(6)
    files: dict[str, bytes] = {}
    for rel, size in [("big.bin", 1 << 20), ("tree/a.txt", 10), ("tree/sub/b.bin", 70_000),
                      ("tree/sub/deeper/c.txt", 0), ("tree/d.txt", 4096)]:
        data = bytes(rng.getrandbits(8) for _ in range(size)) if size > 5000 else b"x" * size
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        files[rel] = data
    return files


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def check_unmodified_programs(mnt: Path, backing_root: Path | None) -> dict[str, bytes]:
    """ls, cat, cp, gzip, find, mv, rm through the mount; the effects are
    compared with what was written and with the backing directory (when
    there is one).  Returns the tree as read back."""
    files = _populate(mnt)                       # Python's own file I/O
    if backing_root is not None:
        assert _tree(backing_root) == files
    assert sorted(_sh("ls", str(mnt)).split()) == ["big.bin", "tree"]
    assert _sh("ls", "-la", str(mnt / "tree")).count("\n") >= 4
    with open(mnt / "big.bin", "rb") as f:
        assert f.read() == files["big.bin"]
    cat = subprocess.run(["cat", str(mnt / "tree/sub/b.bin")], capture_output=True, check=True)
    assert cat.stdout == files["tree/sub/b.bin"]

    _sh("cp", "-r", str(mnt / "tree"), str(mnt / "copy"))           # Andrew-like copy
    _sh("cp", "/etc/services", str(mnt / "services"))
    # -n: steadyfs stores no times (mtime 0), which gzip would warn about
    _sh("gzip", "-n", "-k", "-9", str(mnt / "services"))
    _sh("gzip", "-t", str(mnt / "services.gz"))
    unz = subprocess.run(["gzip", "-dc", str(mnt / "services.gz")], capture_output=True, check=True)
    assert unz.stdout == Path("/etc/services").read_bytes()
    _sh("mkdir", "-p", str(mnt / "m/n"))
    _sh("mv", str(mnt / "tree/a.txt"), str(mnt / "m/n/a-moved.txt"))
    _sh("rm", "-r", str(mnt / "copy/sub"))

    expect = dict(files)
    expect["m/n/a-moved.txt"] = expect.pop("tree/a.txt")
    for rel, data in files.items():
        if rel.startswith("tree/") and not rel.startswith("tree/sub/"):
            expect["copy/" + rel[5:]] = data
    expect["services"] = Path("/etc/services").read_bytes()
    found = sorted(_sh("find", ".", "-type", "f", cwd=mnt).split())
    assert found == sorted("./" + k for k in [*expect, "services.gz"])
    got = _tree(mnt)
    assert {k: v for k, v in got.items() if k != "services.gz"} == expect
    if backing_root is not None:
        assert _tree(backing_root) == got
    assert "fuse.steadyfs" in _sh("df", "-T", str(mnt))
    assert sorted(os.listdir(mnt)) == sorted(["big.bin", "tree", "copy", "services",
                                              "services.gz", "m"])
    return got


@needs_mount
def test_mount_fsoc_over_diod(diod: tuple[str, Path], tmp_path: Path) -> None:
    spec, export = diod
    with mounted("--fsoc", spec, "--aname", str(export), mnt=tmp_path / "mnt") as mnt:
        check_unmodified_programs(mnt, export)
    assert not os.path.ismount(tmp_path / "mnt")


@needs_mount
def test_mount_image(tmp_path: Path) -> None:
    """`steady mount IMAGE`: steadyfs's own server on a simulated NAND image,
    the same programs; what was written is there after a remount."""
    image = tmp_path / "nand.img"
    args = ("--device", "mt29f1g01", "--blocks", "64")
    with mounted(*args, "--create", image=image, mnt=tmp_path / "mnt") as mnt:
        got = check_unmodified_programs(mnt, None)
    with mounted(*args, image=image, mnt=tmp_path / "mnt") as mnt:
        assert _tree(mnt) == got
        _sh("rm", "-r", str(mnt / "tree"), str(mnt / "copy"))
    with mounted(image=image, mnt=tmp_path / "mnt") as mnt:    # the header says the rest
        assert sorted(os.listdir(mnt)) == ["big.bin", "m", "services", "services.gz"]
    for wrong in (("--blocks", "128"), ("--device", "em064lx")):
        r = _steady("mount", str(image), str(tmp_path / "mnt"), *wrong)
        assert r.returncode != 0 and "image is" in r.stderr, r.stderr  # refused, unmounted
        assert not os.path.ismount(tmp_path / "mnt")


@needs_mount
def test_mount_image_takes_255_byte_names(tmp_path: Path) -> None:
    """Issue 13: a local mount refused names of 127 bytes or more (its 9P
    server kept the firmware's 128-byte paths) although `steady put` takes
    255.  Names of 127..255 bytes, also nested, are created, listed, read
    and renamed; the image tools see the same names afterwards."""
    image = tmp_path / "nand.img"
    names = ["a" * 127, "b" * 200, "c" * 255]
    with mounted("--device", "mt29f1g01", "--blocks", "64", "--create", image=image,
                 mnt=tmp_path / "mnt") as mnt:
        for n in names:
            (mnt / n).write_bytes(n.encode())
        deep = mnt / ("d" * 255) / ("e" * 255)
        deep.mkdir(parents=True)
        (deep / ("f" * 255)).write_bytes(b"deep")
        os.rename(mnt / names[0], mnt / ("g" * 255))
        assert sorted(os.listdir(mnt)) == sorted(["g" * 255, names[1], names[2], "d" * 255])
        assert (mnt / names[2]).read_bytes() == names[2].encode()
        assert (deep / ("f" * 255)).read_bytes() == b"deep"
        with pytest.raises(OSError):
            (mnt / ("h" * 256)).write_bytes(b"too long")
    r = _steady("cat", f"{image}:/{'d' * 255}/{'e' * 255}/{'f' * 255}")
    assert r.returncode == 0 and r.stdout == "deep", r.stderr


@needs_mount
def test_mount_fsoc_unix_socket_and_small_msize(tmp_path: Path) -> None:
    """unix:PATH transport, and an msize so small every read and write is
    split into many messages."""
    export = tmp_path / "export"
    export.mkdir()
    sock = tmp_path / "diod.sock"
    proc = subprocess.Popen([DIOD, "-f", "-n", "-N", "-l", str(sock), "-e", str(export),
                             "-L", str(tmp_path / "diod.log")])
    try:
        deadline = time.monotonic() + 10
        while not sock.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        with mounted("--fsoc", f"unix:{sock}", "--aname", str(export), "--msize", "1024",
                     mnt=tmp_path / "mnt") as mnt:
            data = bytes(range(256)) * 300
            (mnt / "f.bin").write_bytes(data)
            assert (export / "f.bin").read_bytes() == data
            assert (mnt / "f.bin").read_bytes() == data
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@needs_mount
def test_mount_fsoc_over_steady_serve(tmp_path: Path) -> None:
    """The whole FSOC path: FUSE -> stub -> TCP -> `steady serve` -> steadyfs
    on a simulated NAND; then the image, served no more, is mounted
    locally and holds exactly what the programs left."""
    if not cmd_serve.binary().exists():
        pytest.fail("steady-serve not built")
    image = tmp_path / "nand.img"
    srv = subprocess.Popen([str(cmd_serve.binary()), "--device", "mt29f1g01", "--blocks", "64",
                            "--image", str(image), "--create", "--listen", "tcp:127.0.0.1:0"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert srv.stdout is not None
        m = re.match(r"listening on (tcp:127\.0\.0\.1:\d+)", srv.stdout.readline())
        assert m, srv.stderr.read() if srv.stderr else ""
        with mounted("--fsoc", m.group(1), mnt=tmp_path / "mnt") as mnt:
            got = check_unmodified_programs(mnt, None)
    finally:
        srv.send_signal(signal.SIGTERM)
        _, err = srv.communicate(timeout=20)
    assert srv.returncode == 0, err
    with mounted("--device", "mt29f1g01", "--blocks", "64", image=image,
                 mnt=tmp_path / "mnt") as mnt:
        assert _tree(mnt) == got


def test_mount_reports_an_unreachable_server(tmp_path: Path) -> None:
    if not cmd_mount.binary().exists():
        pytest.skip("steady-mount not built")
    (tmp_path / "mnt").mkdir()
    r = _steady("mount", "--fsoc", f"tcp:127.0.0.1:{_free_port()}", str(tmp_path / "mnt"))
    assert r.returncode != 0
    assert "cannot reach" in r.stderr
    r = _steady("mount", "--fsoc", "bogus", str(tmp_path / "mnt"))
    assert r.returncode != 0 and "expected tcp:HOST:PORT or unix:PATH" in r.stderr
    r = _steady("mount", str(tmp_path / "mnt"))
    assert r.returncode == 2


def test_mount_never_creates_or_formats_unasked(tmp_path: Path) -> None:
    """Issue 13: a mistyped image path made and formatted a new image.  Now
    a missing image is an error (--create makes one), --create refuses an
    existing file, and neither leaves a file behind."""
    if not cmd_mount.binary().exists():
        pytest.skip("steady-mount not built")
    (tmp_path / "mnt").mkdir()
    typo = tmp_path / "typo.img"
    for extra in ((), ("--device", "mt29f1g01"), ("--format",)):
        r = _steady("mount", str(typo), str(tmp_path / "mnt"), *extra)
        assert r.returncode != 0 and "--create" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and not typo.exists()
    r = _steady("mount", str(typo), str(tmp_path / "mnt"), "--create")
    assert r.returncode == 2 and "--device" in r.stderr and not typo.exists()
    other = tmp_path / "other.bin"
    other.write_bytes(b"not an image, keep me\n")
    r = _steady("mount", str(other), str(tmp_path / "mnt"), "--create", "--device", "mt29f1g01")
    assert r.returncode != 0 and "exists" in r.stderr
    r = _steady("mount", str(other), str(tmp_path / "mnt"))
    assert r.returncode != 0 and "not a steadyfs device image" in r.stderr
    assert other.read_bytes() == b"not an image, keep me\n"
    assert not os.path.ismount(tmp_path / "mnt")
