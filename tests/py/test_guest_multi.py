"""Three kinds of client on one `steady serve` at once (issue 14 item 4):
two FUSE mounts (`steady mount --fsoc`) on the host and Linux's v9fs in
the QEMU guest, all writing files that verify themselves, at short length.

Each host writer (a thread per FUSE mount) creates files of random bytes,
fsyncs them, reads each back through the *other* mount (another 9P
session), then writes NAME.sum; the guest (tests/interop/v9fs-multi.sh)
does the same in guest/ with a read-back after dropping its caches, checks
every finished host file against its .sum, and checks that a mount beyond
--max-clients is refused at once.  Afterwards every file and .sum is
checked through a FUSE mount, the server stops cleanly and fsck is clean.

Soak (issue 14's "for minutes"): STEADYFS_MULTI_ROUNDS (guest rounds,
default 16), STEADYFS_MULTI_FILES (files per host writer, default 40) and
STEADYFS_MULTI_BLOCKS (device blocks, default 128), e.g.
`STEADYFS_MULTI_ROUNDS=150 STEADYFS_MULTI_FILES=150 STEADYFS_MULTI_BLOCKS=512
.venv/bin/python -m pytest -s tests/py/test_guest_multi.py` (every file and
.sum is an inode: 4 * FILES + 2 * ROUNDS must stay below max_inodes, 1024
by default, or the writers meet ENOSPC)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from clirun import fuse_mount
from steadyfs import cmd_mount, cmd_serve, guest

REPO = Path(__file__).resolve().parents[2]
ROUNDS = int(os.environ.get("STEADYFS_MULTI_ROUNDS", "16"))
FILES = int(os.environ.get("STEADYFS_MULTI_FILES", "40"))
BLOCKS = os.environ.get("STEADYFS_MULTI_BLOCKS", "128")
MISSING = guest.missing_parts()
pytestmark = [
    pytest.mark.skipif(MISSING is not None, reason=f"cannot boot the guest: {MISSING}"),
    pytest.mark.skipif(not cmd_mount.binary().exists() or not os.path.exists("/dev/fuse")
                       or shutil.which("fusermount3") is None,
                       reason="steady-mount not built, or no FUSE here"),
]


class Writer(threading.Thread):
    """Writes tag/fK through `mnt` until stopped; reads each back through
    `other` before writing its .sum."""

    MAX_FILES = FILES

    def __init__(self, mnt: Path, other: Path, tag: str) -> None:
        super().__init__(daemon=True)
        self.mnt, self.other, self.tag = mnt, other, tag
        self.stop = threading.Event()
        self.errors: list[str] = []
        self.files = 0

    def run(self) -> None:
        d = self.mnt / self.tag
        d.mkdir()
        k = 0
        try:
            # paced and capped: the writers share two cores with the
            # emulated guest, and the device (128 blocks) and its inode
            # table must not fill
            while not self.stop.wait(0.3) and k < self.MAX_FILES:
                data = os.urandom(1024 * (1 + (k * 7) % 24))
                with open(d / f"f{k}", "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                got = (self.other / self.tag / f"f{k}").read_bytes()
                if got != data:
                    self.errors.append(f"{self.tag}/f{k}: {len(got)} bytes read through the "
                                       f"other mount, {len(data)} written")
                (d / f"f{k}.sum").write_text(f"{hashlib.sha256(data).hexdigest()}  f{k}\n")
                k += 1
                self.files = k
        except Exception as e:  # reported by the test, not lost in the thread
            self.errors.append(f"{self.tag}: {e!r}")


def check_sums(root: Path) -> int:
    """Every NAME.sum under root matches NAME; returns how many."""
    n = 0
    for s in sorted(root.rglob("*.sum")):
        want = s.read_text().split()[0]
        assert hashlib.sha256(s.with_suffix("").read_bytes()).hexdigest() == want, s
        n += 1
    return n


def test_two_fuse_mounts_and_the_guest_at_once(tmp_path: Path) -> None:
    image = tmp_path / "dev.img"
    log = tempfile.TemporaryFile()
    srv = subprocess.Popen([str(cmd_serve.binary()), "--device", "mt29f1g01", "--blocks", BLOCKS,
                            "--image", str(image), "--create", "--max-clients", "3",
                            "--listen", "tcp:127.0.0.1:0"],
                           stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        assert srv.stdout is not None
        m = re.match(r"listening on (tcp:127\.0\.0\.1:(\d+))", srv.stdout.readline())
        assert m
        spec, port = m.group(1), int(m.group(2))
        with fuse_mount(spec, tmp_path / "m1") as m1, fuse_mount(spec, tmp_path / "m2") as m2:
            writers = [Writer(m1, m2, "fuse1"), Writer(m2, m1, "fuse2")]
            for w in writers:
                w.start()
            try:
                script = tmp_path / "v9fs-multi.sh"
                script.write_text((guest.INTEROP / "v9fs-multi.sh").read_text()
                                  .replace("\nROUNDS=16\n", f"\nROUNDS={ROUNDS}\n"))
                result = guest.run_guest_v9fs(port, script, timeout=240.0 + 3.0 * ROUNDS)
            finally:
                for w in writers:
                    w.stop.set()
                for w in writers:
                    w.join(60)
            for w in writers:
                assert not w.errors, w.errors
                assert w.files >= 3, (w.tag, w.files)
            assert result.ok, (result.failed, result.console[-3000:])
            assert "over-limit" in result.passed
            assert "Too many users" in result.attrs.get("over-limit-error", ""), result.attrs
            assert int(result.attrs["host-files-verified"]) > 0
            # everything through one mount, then the other
            n = check_sums(m1)
            rounds = [int(p.rsplit("-", 1)[1]) for p in result.passed
                      if p.startswith("writer-rounds-")]
            assert rounds == [ROUNDS]
            assert n == check_sums(m2) == writers[0].files + writers[1].files + rounds[0]
            print(f"\nthree clients: guest boot {result.boot_s:.1f} s, total {result.total_s:.1f} s; "
                  f"host writers {writers[0].files} + {writers[1].files} files; guest verified "
                  f"{result.attrs['host-files-verified']} host files; over-limit mount answered in "
                  f"{result.times.get('over-limit', -1):.3f} s")
    finally:
        if srv.poll() is None:
            srv.send_signal(signal.SIGTERM)
        srv.wait(timeout=60)
        log.seek(0)
        err = log.read().decode(errors="replace")
    assert srv.returncode == 0, err
    assert "refused" in err and "unmounted" in err, err
    r = subprocess.run([sys.executable, "-m", "steadyfs.cli", "fsck", "--image", str(image)],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
