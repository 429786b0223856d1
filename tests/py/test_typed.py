"""The Python is typed: mypy in strict mode (pyproject.toml's [tool.mypy])
over the package, the scripts and these tests.

Before this test ran in `make test`, the package passed but the scripts
and tests had drifted (a loop variable that shadowed an exception, an
optional float multiplied unchecked, `type: ignore` comments left after
the types were fixed).  The second test shows that the check can fail.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                                reason="mypy is not installed (pip install .[test])")


def mypy(*paths: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MYPYPATH=str(REPO / "python"))
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
                           "--cache-dir", str(REPO / "build" / "mypy-cache"), *map(str, paths)],
                          capture_output=True, text=True, check=False, cwd=REPO, env=env)


def test_package_scripts_and_tests_are_typed() -> None:
    r = mypy(REPO / "python" / "steadyfs", *sorted((REPO / "scripts").glob("*.py")), REPO / "tests" / "py")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success" in r.stdout


def test_an_untyped_function_fails(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def twice(x):\n    return 2 * x\n")
    r = mypy(bad)
    assert r.returncode != 0
    assert "no-untyped-def" in r.stdout
