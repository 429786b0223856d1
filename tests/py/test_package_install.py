"""The package as a user installs it: a copy of the source tree (what a
clone has: tracked and new files, no build outputs), a fresh virtual
environment, `pip install <tree>` (not editable, with pip's isolated build
environment, so setup.py compiles the C core into the package), then
docs/PYTHON.md's examples as one script run by that environment's Python
from an empty directory.  ~1 minute (pip fetches setuptools and the
dependencies, from its cache when it has them); `make test-package` runs
it alone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from docblocks import REPO, as_script


def _source_tree(dest: Path) -> None:
    """The files of a clone of this tree (uncommitted changes included)."""
    r = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                       capture_output=True, check=True)
    for name in filter(None, r.stdout.decode().split("\0")):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def test_pip_install_then_run_the_docs(tmp_path: Path) -> None:
    tree, venv, work = tmp_path / "steadyfs", tmp_path / "v", tmp_path / "work"
    tree.mkdir()
    work.mkdir()
    _source_tree(tree)
    assert not (tree / "build").exists()
    assert not list(tree.rglob("*.so")), "a binary in the source tree"
    env = {k: v for k, v in os.environ.items()
           if k not in ("STEADYFS_LIB", "PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    py = venv / "bin" / "python"
    pip = subprocess.run([str(py), "-m", "pip", "install", "-q", str(tree)], env=env,
                         capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stdout + pip.stderr

    where = subprocess.run([str(py), "-c", "import steadyfs.native as n; print(n.library_path())"],
                           cwd=work, env=env, capture_output=True, text=True, check=True)
    lib = Path(where.stdout.strip())
    assert lib.name == "_libsteady.so" and lib.is_relative_to(venv) and lib.exists()

    (work / "docs-example.py").write_text(as_script())
    run = subprocess.run([str(py), "docs-example.py"], cwd=work, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "mt29f1g01 64 2048" in run.stdout and (work / "fs.img").exists()

    # the console script, on the packaged library (bound needs src/host/fs_bound.c)
    steady = venv / "bin" / "steady"
    for argv in (["devices"], ["bound", "--device", "mt29f1g01"]):
        r = subprocess.run([str(steady), *argv], cwd=work, env=env, capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0 and "mt29f1g01" in r.stdout, r.stdout + r.stderr
