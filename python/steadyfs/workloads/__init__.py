"""Benchmark workloads: named, documented recipes with overridable parameters.

Each workload drives a device (raw) or a file system target
(``steadyfs.fstargets``) and records **one trace access per workload-level
call** -- e.g. "open + append 512 B + close", "write 4 KiB + sync", one raw
access of the sweep -- whose duration is the device's virtual clock
(``Device.now_ns``) before and after the call.  Everything the call made
the device do (FAT sectors, littlefs metadata commits, erases) is inside
that duration.

Families (one module each):

=================  ==========================================================
``seed001``        seed001-naive, seed001-open, seed001-2k (files; FAT on SD)
``sweep``          seed003-sweep (raw, per access size, writes and reads),
                   seed004-sizes (raw SD write time vs transfer size)
``random4k``       seed000-random4k (raw or files; longest of N sequences)
``log4k``          log4k, the rotating data log of issue 5 (files)
``ring4k``         ring4k, a logger's records in steadyfs's record ring
=================  ==========================================================

``--param key=value`` overrides a parameter; sizes accept ``4KiB``, ``1M``
(k/M = 1000, Ki/Mi = 1024); lists are comma-separated.  ``--scale F``
multiplies the parameters marked *scaled* (total amounts, counts).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from steadyfs.fstargets import FsTarget
from steadyfs.native import Device
from steadyfs.trace import Op, TraceWriter
from steadyfs.units import parse_size

FAMILIES = ("seed001", "sweep", "random4k", "log4k", "ring4k")


class WorkloadError(ValueError):
    """A workload cannot run as asked (message for the user)."""


@dataclass(frozen=True)
class Param:
    """One workload parameter: default, kind, meaning; ``scaled`` ones follow --scale."""

    default: Any
    kind: str
    """``size`` (bytes), ``sizes`` (list of bytes), ``int``, ``float``, ``bool`` or ``str``."""
    doc: str
    scaled: bool = False

    def parse(self, text: str) -> Any:
        """The value of ``text``; ValueError if it is not one.  Sizes and
        counts are at least 1 (a workload divides by them)."""
        k = self.kind
        if k == "size":
            return _positive(parse_size(text))
        if k == "sizes":
            sizes = [_positive(parse_size(t)) for t in text.split(",") if t.strip()]
            if not sizes:
                raise ValueError("want at least one size")
            return sizes
        if k == "int":
            return _positive(int(parse_size(text)))
        if k == "float":
            return float(text)
        if k == "bool":
            t = text.strip().lower()
            if t in ("1", "true", "yes", "on"):
                return True
            if t in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"not a boolean: {text!r}")
        return text


def _positive(v: int) -> int:
    if v < 1:
        raise ValueError(f"want a whole number >= 1, not {v}")
    return int(v)


class Env:
    """What a running workload sees: the device, the target, its parameters,
    the trace writer and a progress hook."""

    def __init__(self, dev: Device, target: FsTarget, params: dict[str, Any], seed: int,
                 writer: TraceWriter, tick: Callable[[int], None] | None = None,
                 set_total: Callable[[int], None] | None = None) -> None:
        self.dev = dev
        self.target = target
        self.params = params
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.writer = writer
        self.meta: dict[str, Any] = {}
        """Extra metadata the workload reports (scaling notes, per-repeat totals ...)."""
        self.notes: list[str] = []
        self._tick = tick
        self._set_total = set_total

    def total(self, n: int) -> None:
        """Announce how many accesses the run will make (for the progress bar)."""
        if self._set_total is not None:
            self._set_total(n)

    def tick(self, n: int = 1) -> None:
        if self._tick is not None:
            self._tick(n)

    def record(self, t0: int, size: int, op: Op = Op.WRITE) -> int:
        """Record one access that started at device time ``t0`` and ends now;
        returns its duration (ns)."""
        d = self.dev.now_ns - t0
        self.writer.append(d, size, op, start_ns=t0)
        self.tick()
        return d


@dataclass(frozen=True)
class Workload:
    """A named recipe.  ``raw``/``files``: whether it runs on the raw device
    and/or on a file system.  ``analyse_ops``: the operations the headline
    summary covers (the sweep also records reads, analysed separately)."""

    name: str
    summary: str
    doc: str
    params: dict[str, Param]
    run: Callable[[Env], None]
    raw: bool = False
    files: bool = False
    analyse_ops: tuple[Op, ...] = (Op.WRITE,)
    defaults_note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def resolve(self, overrides: dict[str, str] | None = None, scale: float = 1.0) -> dict[str, Any]:
        """Parameters with overrides parsed and --scale applied to scaled ones."""
        out = {k: p.default for k, p in self.params.items()}
        for k, text in (overrides or {}).items():
            if k not in self.params:
                raise WorkloadError(f"workload {self.name} has no parameter {k!r}; it has: "
                                    + ", ".join(self.params))
            try:
                out[k] = self.params[k].parse(text)
            except ValueError as e:
                raise WorkloadError(f"--param {k}={text}: {e}") from e
        if scale <= 0:
            raise WorkloadError(f"--scale must be > 0, not {scale}")
        if scale != 1.0:
            for k, p in self.params.items():
                if p.scaled and k not in (overrides or {}):
                    out[k] = max(1, int(round(out[k] * scale)))
        return out

    def help(self) -> str:
        lines = [f"{self.name}: {self.summary}", "", self.doc.strip(), "", "parameters:"]
        for k, p in self.params.items():
            lines.append(f"  {k} = {p.default!r}  ({p.kind}{', scaled' if p.scaled else ''}): {p.doc}")
        return "\n".join(lines)


_REGISTRY: dict[str, Workload] = {}


def workloads() -> dict[str, Workload]:
    """Every workload by name (the family modules register on import)."""
    if not _REGISTRY:
        for fam in FAMILIES:
            mod = importlib.import_module(f"steadyfs.workloads.{fam}")
            for w in mod.WORKLOADS:
                _REGISTRY[w.name] = w
    return dict(_REGISTRY)


def get(name: str) -> Workload:
    ws = workloads()
    if name not in ws:
        raise WorkloadError(f"unknown workload {name!r}; known: {', '.join(ws)}")
    return ws[name]


def pattern(n: int, salt: int = 0) -> bytes:
    """``n`` deterministic bytes that differ per ``salt`` (block index), so a
    read-back detects misplaced blocks as well as lost ones."""
    a = (np.arange(n, dtype=np.uint32) * 7 + salt * 131 + (salt >> 8)) % 251
    return a.astype(np.uint8).tobytes()
