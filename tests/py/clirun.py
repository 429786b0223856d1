"""Running the `steady` command line from tests: one helper for the suites
that check its answers and its one-line errors."""

from __future__ import annotations

import contextlib
import subprocess
import sys
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
