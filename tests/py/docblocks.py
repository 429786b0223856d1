"""The ```python blocks of a Markdown document, in order (docs/PYTHON.md's
examples are run by test_python_docs.py and test_package_install.py)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PYTHON_MD = REPO / "docs" / "PYTHON.md"

_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)


def python_blocks(path: Path = PYTHON_MD) -> list[str]:
    return _BLOCK.findall(path.read_text())


def as_script(path: Path = PYTHON_MD) -> str:
    """Every block, in order, as one script (they share names, as a reader's
    session would)."""
    return "\n".join(f"# ---- block {i + 1}\n{b}" for i, b in enumerate(python_blocks(path)))
