"""Running the `steady` command line from tests: one helper for the suites
that check its answers and its one-line errors, a FUSE mount, a server."""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[2]


def steady(*args: str) -> subprocess.CompletedProcess[str]:
    """`steady ARGS` from the repo root, output captured."""
    return subprocess.run([sys.executable, "-m", "steadyfs.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def assert_one_line_error(r: subprocess.CompletedProcess[str], *needles: str) -> None:
    """A non-zero exit with one line on stderr, starting `steady `, naming each needle."""
    err = r.stderr.strip()
    assert r.returncode != 0, r.stdout
    assert "Traceback" not in r.stderr, r.stderr
    assert len(err.splitlines()) == 1 and err.startswith("steady "), err
    for n in needles:
        assert n in err, err


@contextlib.contextmanager
def fuse_mount(spec: str, mnt: Path) -> Iterator[Path]:
    """`steady mount --fsoc SPEC MNT` for the body, unmounted after (lazily
    if still busy, so nothing is left behind)."""
    mnt.mkdir()
    r = subprocess.run([sys.executable, "-m", "steadyfs.cli", "mount", "--fsoc", spec, str(mnt)],
                       cwd=REPO, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr
    try:
        yield mnt
    finally:
        u = subprocess.run(["fusermount3", "-u", str(mnt)], capture_output=True, text=True)
        if u.returncode != 0:
            subprocess.run(["fusermount3", "-u", "-z", str(mnt)], capture_output=True)
        assert u.returncode == 0, u.stderr


class Served:
    """A `steady serve` started by `serve`: its address while it runs, its
    exit status and log once it stopped."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.port = int(spec.rsplit(":", 1)[1])
        self.returncode: int | None = None
        self.log = ""


@contextlib.contextmanager
def serve(image: Path, *args: str) -> Iterator[Served]:
    """`steady-serve --image IMAGE ARGS --listen tcp:127.0.0.1:0` for the
    body, stopped with SIGTERM after it (its status and log then in the
    Served); the image is made with --create unless it exists."""
    from steadyfs import cmd_serve
    log = tempfile.TemporaryFile()
    create = () if image.exists() else ("--create",)
    srv = subprocess.Popen([str(cmd_serve.binary()), "--image", str(image), *create, *args,
                            "--listen", "tcp:127.0.0.1:0"],
                           stdout=subprocess.PIPE, stderr=log, text=True)
    served = None
    try:
        assert srv.stdout is not None
        m = re.match(r"listening on (tcp:127\.0\.0\.1:\d+)", srv.stdout.readline())
        assert m, "steady serve did not start"
        served = Served(m.group(1))
        yield served
    finally:
        if srv.poll() is None:
            srv.send_signal(signal.SIGTERM)
        try:
            srv.wait(timeout=60)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()
        log.seek(0)
        if served is not None:
            served.returncode = srv.returncode
            served.log = log.read().decode(errors="replace")


def fsck(image: Path) -> subprocess.CompletedProcess[str]:
    """`steady fsck --image IMAGE`, output captured."""
    return subprocess.run([sys.executable, "-m", "steadyfs.cli", "fsck", "--image", str(image)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
