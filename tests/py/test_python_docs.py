"""docs/PYTHON.md's examples run: every ```python block, in order, in one
namespace, in an empty directory (as a reader pasting them would)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docblocks import PYTHON_MD, as_script, python_blocks


def test_docs_have_examples_for_every_section() -> None:
    blocks = python_blocks()
    assert len(blocks) >= 8
    text = "\n".join(blocks)
    for call in ("Image.create(", "Image.open(", "img.open(", ".scandir(", ".walk(", ".stat(",
                 ".makedirs(", ".rename(", ".remove(", ".rmdir(", ".df()", "fsync(", "ENOSPC"):
        assert call in text, f"docs/PYTHON.md has no example of {call}"


def test_docs_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code = compile(as_script(), str(PYTHON_MD), "exec")
    exec(code, {"__name__": "__main__"})
    assert (tmp_path / "fs.img").stat().st_size > 0
    out = capsys.readouterr().out
    assert "mt29f1g01 64 2048" in out          # the header and format read back
    assert "a.bin False 10000" in out           # scandir sizes
