"""``--fs steadyfs``: the project's own file system -- the slot for it.

The file system is being written in ``src/fs``; its Python binding does not
exist yet, so this target refuses with a clear message.  When the binding
lands, this module implements ``open_target`` with a ``FsTarget`` subclass
(see ``fstargets/littlefs.py`` for the shape) and nothing else changes:
``steady bench --fs steadyfs`` and the demo's side-by-side runs pick it up.
"""

from __future__ import annotations

from typing import Any

from steadyfs.fstargets import FsTarget, FsUnavailable
from steadyfs.native import Device

AVAILABLE = False

MESSAGE = ("--fs steadyfs: the steadyfs file system is not available yet (src/fs is being written and "
           "has no Python binding); use --fs littlefs, --fs fat or --fs raw for now")


def open_target(dev: Device, *, format: bool = True, options: dict[str, Any]) -> FsTarget:
    raise FsUnavailable(MESSAGE)
