"""scripts/check-layers.py: the core's layers call only downward.

`make test` runs the check on the real table (make layers); these tests
show that it can fail: a table that puts a file below one it calls, a
file the table does not name, and a table with no entries.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEADER = REPO / "src" / "fs" / "fs_internal.h"
OBJS = sorted((REPO / "build" / "host" / "src" / "fs").glob("*.o"))
SCRIPT = REPO / "scripts" / "check-layers.py"

pytestmark = pytest.mark.skipif(not OBJS, reason="no objects: make lib first")


def run(header: Path, objs: list[Path]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), str(header), *map(str, objs)],
                          capture_output=True, text=True, check=False)


def test_the_core_calls_only_downward() -> None:
    r = run(HEADER, OBJS)
    assert r.returncode == 0, r.stderr
    assert "every call downward" in r.stdout


def test_a_file_put_below_what_it_calls_fails(tmp_path: Path) -> None:
    # the map uses the log (sfs_log_prog): with the log put above it, that is an upward call
    text = HEADER.read_text().replace("layer 2 log:         log.c reloc.c",
                                      "layer 9 log:         log.c reloc.c")
    assert text != HEADER.read_text()
    header = tmp_path / "h.h"
    header.write_text(text)
    r = run(header, OBJS)
    assert r.returncode == 1
    assert "map.c (layer 3) uses sfs_log_prog of log.c (layer 9)" in r.stderr


def test_a_file_missing_from_the_table_fails(tmp_path: Path) -> None:
    header = tmp_path / "h.h"
    header.write_text(HEADER.read_text().replace(" inode.c\n", "\n"))
    r = run(header, OBJS)
    assert r.returncode == 1
    assert "inode.c: not in the layer table" in r.stderr


def test_no_table_is_an_error(tmp_path: Path) -> None:
    header = tmp_path / "h.h"
    header.write_text("/* nothing */\n")
    r = run(header, OBJS)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "no layer table" in r.stderr


def test_a_missing_file_is_a_one_line_error(tmp_path: Path) -> None:
    r = run(tmp_path / "none.h", OBJS)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "No such file" in r.stderr
    r = run(HEADER, [tmp_path / "none.o"])
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "nm can read" in r.stderr
