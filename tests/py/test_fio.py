"""fio, a tool nobody here wrote, against `steady serve` through two FUSE
mounts at once (issue 14 item 5, short length).

Each mount runs its own fio (tests/interop/fio-verify.fio: a sequential,
a random and an odd-sized random writer, all with verify=crc32c and
verify_fatal, fsync every 16 writes), so six writers and two 9P sessions
work at once.  Then each mount's files are verified again by fio
(verify_only) through the *other* mount, i.e. by another client.  The
server must exit cleanly and the image be fsck-clean.  A soak: set
STEADYFS_FIO_SIZE (e.g. 64m, with a larger --blocks) and run this file."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from clirun import fuse_mount
from steadyfs import cmd_mount, cmd_serve

REPO = Path(__file__).resolve().parents[2]
JOBS = REPO / "tests" / "interop" / "fio-verify.fio"
FIO = shutil.which("fio")
SIZE = os.environ.get("STEADYFS_FIO_SIZE", "2m")
BLOCKS = os.environ.get("STEADYFS_FIO_BLOCKS", "512")
pytestmark = [
    pytest.mark.skipif(FIO is None, reason="fio not installed (scripts/debian-packages.txt)"),
    pytest.mark.skipif(not cmd_mount.binary().exists() or not cmd_serve.binary().exists()
                       or not os.path.exists("/dev/fuse") or shutil.which("fusermount3") is None,
                       reason="steady-mount/steady-serve not built, or no FUSE here"),
]


def fio(directory: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    assert FIO is not None
    return subprocess.Popen([FIO, f"--directory={directory}", "--output-format=json",
                             f"--output={out}", *extra, str(JOBS)],
                            cwd=out.parent, env={**os.environ, "SIZE": SIZE},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def jobs(out: Path) -> dict[str, Any]:
    return {j["jobname"]: j for j in json.loads(out.read_text())["jobs"]}


def test_fio_verify_through_two_mounts(tmp_path: Path) -> None:
    image = tmp_path / "dev.img"
    log = tempfile.TemporaryFile()
    srv = subprocess.Popen([str(cmd_serve.binary()), "--device", "mt29f1g01", "--blocks", BLOCKS,
                            "--image", str(image), "--create", "--listen", "tcp:127.0.0.1:0"],
                           stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        assert srv.stdout is not None
        m = re.match(r"listening on (tcp:127\.0\.0\.1:\d+)", srv.stdout.readline())
        assert m
        with fuse_mount(m.group(1), tmp_path / "m1") as m1, \
                fuse_mount(m.group(1), tmp_path / "m2") as m2:
            (m1 / "a").mkdir()
            (m2 / "b").mkdir()
            runs = [fio(m1 / "a", tmp_path / "a.json"), fio(m2 / "b", tmp_path / "b.json")]
            for p in runs:
                _, err = p.communicate(timeout=600)
                assert p.returncode == 0, err
            for name in ("a", "b"):
                got = jobs(tmp_path / f"{name}.json")
                assert sorted(got) == ["odd", "rand", "seq"]
                for job in got.values():
                    assert job["error"] == 0, job["jobname"]
                    assert job["write"]["io_bytes"] > 0
                    assert job["read"]["io_bytes"] == job["write"]["io_bytes"]   # all verified
            # what one client wrote, verified by fio through the other
            # (seq and rand: fixed block sizes lay the file out exactly, so
            # verify_only finds it as written)
            for d, out in ((m2 / "a", "va.json"), (m1 / "b", "vb.json")):
                p = fio(d, tmp_path / out, "--verify_only", "--section=seq", "--section=rand")
                _, err = p.communicate(timeout=600)
                assert p.returncode == 0, err
                got = jobs(tmp_path / out)
                assert sorted(got) == ["rand", "seq"]
                for job in got.values():
                    assert job["error"] == 0 and job["read"]["io_bytes"] > 0, job["jobname"]
            # and the check can fail: one flipped byte written through m1
            # is caught by fio reading through m2
            with open(m1 / "a" / "seq.0.0", "r+b") as f:
                f.seek(4096 * 3 + 100)
                b = f.read(1)
                f.seek(4096 * 3 + 100)
                f.write(bytes([b[0] ^ 0x40]))
            p = fio(m2 / "a", tmp_path / "bad.json", "--verify_only", "--section=seq")
            _, err = p.communicate(timeout=600)
            assert p.returncode != 0 and "crc32c" in err, err
    finally:
        if srv.poll() is None:
            srv.send_signal(signal.SIGTERM)
        srv.wait(timeout=60)
        log.seek(0)
        err = log.read().decode(errors="replace")
    assert srv.returncode == 0 and "unmounted" in err, err
    r = subprocess.run([sys.executable, "-m", "steadyfs.cli", "fsck", "--image", str(image)],
                       cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
