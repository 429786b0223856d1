"""Running the `steady` command line from tests: one helper for the suites
that check its answers and its one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
