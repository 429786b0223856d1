"""The torture's documented soak (scripts/soak-torture.py, `make
soak-torture`): a short matrix runs and sums up, a failing run fails the
soak with its replay line, and bad options get one-line errors (seconds)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from steadyfs import cmd_torture

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "soak-torture.py"

needs_binary = pytest.mark.skipif(not cmd_torture.binary().exists(), reason="steady-torture not built")


def soak(*args: str, torture: Path | None = None) -> subprocess.CompletedProcess[str]:
    exe = torture or cmd_torture.binary()
    return subprocess.run([sys.executable, str(SCRIPT), "--torture", str(exe), *args],
                          capture_output=True, text=True, check=False, timeout=600)


@needs_binary
def test_short_matrix_passes_and_sums_up() -> None:
    r = soak("--seeds", "1-2", "--ops", "300", "--configs", "nand-k16,nor-big,mram-k12", "--jobs", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    runs = [ln for ln in lines if " seed " in ln]
    assert len(runs) == 6 and all(" ok " in ln for ln in runs)
    summary = lines[-1]
    assert summary.startswith("soak-torture: 6 runs of 300 ops (3 configurations x 2 seeds)")
    assert summary.endswith(", 0 failed")
    cuts = int(summary.split(", ")[1].split()[0])
    assert cuts > 0


def test_a_failing_run_fails_the_soak(tmp_path: Path) -> None:
    # a stand-in binary that reports one failure and its replay line, as
    # steady-torture does
    fake = tmp_path / "steady-torture"
    fake.write_text("#!/bin/sh\n"
                    "echo 'FAIL seed 1 op 7: content differs from last commit /f0 (3 vs 4)'\n"
                    "echo '5 power cuts, 40 checks, 1 failures'\n"
                    "echo 'replay: steady torture --device mt29f1g01 --seed 1 --ops 8 --powercut 20'\n"
                    "exit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    r = soak("--seeds", "1", "--ops", "10", "--configs", "nand-k16", torture=fake)
    assert r.returncode == 1
    assert "FAILED" in r.stdout and "replay: steady torture --device mt29f1g01" in r.stdout
    assert r.stdout.splitlines()[-1].endswith(", 1 failed")


@needs_binary
def test_random_draw_runs_and_names_its_options() -> None:
    r = soak("--random", "3", "--random-seed", "9", "--ops", "200", "--jobs", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    runs = [ln for ln in lines if ln.startswith("random-9-")]
    assert len(runs) == 3 and all(" ok " in ln for ln in runs)
    assert sum(ln.strip().startswith("--device ") for ln in lines) == 3   # each run's options
    # the same draw again: the same configurations and seeds
    again = soak("--random", "3", "--random-seed", "9", "--ops", "200", "--jobs", "2")
    assert [ln.split()[:3] for ln in again.stdout.splitlines() if ln.startswith("random-")] == \
        [ln.split()[:3] for ln in runs]


def test_random_draw_skips_what_the_format_refuses(tmp_path: Path) -> None:
    fake = tmp_path / "steady-torture"
    fake.write_text("#!/bin/sh\n"
                    "echo 'steady torture: --blocks 24 --handles 8 --pending-max 12: not a valid steadyfs "
                    "configuration for mt29f1g01' >&2\n"
                    "exit 2\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    r = soak("--random", "2", "--ops", "10", torture=fake)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("refused by the format") == 2
    assert r.stdout.splitlines()[-1].startswith("soak-torture: 0 runs")


@pytest.mark.parametrize("args,needle", [
    (["--random", "-1"], "--random"),
    (["--seeds", "5-1"], "--seeds 5-1"),
    (["--seeds", "x"], "--seeds x"),
    (["--configs", "nope"], "--configs nope"),
    (["--ops", "0"], "--ops"),
    (["--ops", "abc"], "--ops"),
])
def test_bad_options_one_line(args: list[str], needle: str) -> None:
    r = soak(*args, torture=Path(os.devnull))
    assert r.returncode == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "Traceback" not in r.stderr
