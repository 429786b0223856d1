"""Access traces: what a benchmark recorded, one row per storage access.

A :class:`Trace` holds, per access ``k``, numpy columns of equal length:

``index``        access sequence number (int64; 0, 1, 2, ... for a fresh run;
                 kept when a trace is filtered, so rows can be traced back),
``start_ns``     start time on the (virtual or wall) clock, nanoseconds (int64),
``duration_ns``  how long the access took, nanoseconds (int64, >= 0): the
                 delta_k of the buffer analysis,
``size_bytes``   bytes the access moved (int64, >= 0): the S_k of the analysis,
``op``           operation code (uint8), an :class:`Op`,

plus a JSON-serialisable ``metadata`` dict.  The conventional metadata keys
are ``device``, ``fs``, ``workload``, ``timing``, ``seed`` and ``parameters``
(a dict); see :func:`make_metadata`.  Any other JSON values may be added.

Workloads build traces with :class:`TraceWriter` (preallocated numpy arrays
that double when full, so appending millions of accesses is cheap).  Traces
are stored in the binary format documented in ``docs/TRACE-FORMAT.md``
(:meth:`Trace.save` / :func:`load_trace`) and exchanged as CSV
(:meth:`Trace.to_csv` / :func:`read_csv`), which also accepts traces measured
elsewhere, e.g. with a logic analyser.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import struct
import zlib
from enum import IntEnum
from pathlib import Path
from typing import Any, Iterable, Sequence, Union

import numpy as np
import numpy.typing as npt

I64Array = npt.NDArray[np.int64]
U8Array = npt.NDArray[np.uint8]
PathLike = Union[str, "os.PathLike[str]"]
ArrayLikeInt = Union[int, Sequence[int], npt.NDArray[Any]]


class Op(IntEnum):
    """Operation code of one access (stored as one byte)."""

    READ = 0
    WRITE = 1
    ERASE = 2
    SYNC = 3
    OTHER = 4

    @property
    def label(self) -> str:
        """Lower-case name as used in CSV files and on the command line."""
        return self.name.lower()


OP_NAMES: tuple[str, ...] = tuple(op.label for op in Op)


def parse_op(text: str) -> Op:
    """An :class:`Op` from its name (case-insensitive) or its numeric code."""
    t = text.strip().lower()
    if t in OP_NAMES:
        return Op(OP_NAMES.index(t))
    if t.isdigit() and int(t) < len(OP_NAMES):
        return Op(int(t))
    raise ValueError(f"unknown op {text!r}: expected one of {', '.join(OP_NAMES)} or 0..{len(OP_NAMES) - 1}")


class TraceFormatError(ValueError):
    """A trace file or CSV is malformed; the message says where and why."""


def make_metadata(
    *,
    device: str = "",
    fs: str = "raw",
    workload: str = "",
    timing: str = "",
    seed: int | None = None,
    parameters: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Build a metadata dict with the conventional keys (extra keys are kept)."""
    meta: dict[str, Any] = {
        "device": device,
        "fs": fs,
        "workload": workload,
        "timing": timing,
        "seed": seed,
        "parameters": dict(parameters or {}),
    }
    meta.update(extra)
    return meta


def _as_i64(name: str, values: ArrayLikeInt, n: int | None) -> I64Array:
    arr = np.asarray(values)
    if arr.ndim == 0 and n is not None:
        arr = np.full(n, arr)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.array_equal(arr, np.round(arr)):
            raise ValueError(f"{name} must hold whole numbers")
    elif arr.dtype.kind not in "iub" and arr.size:
        raise ValueError(f"{name} must be integers, not {arr.dtype}")
    return arr.astype(np.int64, copy=False)


class Trace:
    """An immutable-by-convention table of accesses; see the module docstring.

    Build one with :class:`TraceWriter`, :meth:`from_durations`,
    :func:`load_trace` or :func:`read_csv` rather than by hand.  The
    constructor validates and converts its columns (``duration_ns`` and
    ``size_bytes`` non-negative, ``op`` a valid :class:`Op` code).
    """

    __slots__ = ("index", "start_ns", "duration_ns", "size_bytes", "op", "metadata")

    def __init__(
        self,
        *,
        index: ArrayLikeInt,
        start_ns: ArrayLikeInt,
        duration_ns: ArrayLikeInt,
        size_bytes: ArrayLikeInt,
        op: ArrayLikeInt,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        dur = _as_i64("duration_ns", duration_ns, None)
        n = len(dur)
        self.duration_ns: I64Array = dur
        self.index: I64Array = _as_i64("index", index, n)
        self.start_ns: I64Array = _as_i64("start_ns", start_ns, n)
        self.size_bytes: I64Array = _as_i64("size_bytes", size_bytes, n)
        op64 = _as_i64("op", op, n)
        for name, col in (("index", self.index), ("start_ns", self.start_ns),
                          ("size_bytes", self.size_bytes), ("op", op64)):
            if len(col) != n:
                raise ValueError(f"column {name} has {len(col)} rows, duration_ns has {n}")
        if n:
            if int(dur.min()) < 0:
                raise ValueError(f"negative duration at row {int(np.argmin(dur))}")
            if int(self.size_bytes.min()) < 0:
                raise ValueError(f"negative size at row {int(np.argmin(self.size_bytes))}")
            if int(op64.min()) < 0 or int(op64.max()) >= len(OP_NAMES):
                bad = int(np.flatnonzero((op64 < 0) | (op64 >= len(OP_NAMES)))[0])
                raise ValueError(f"invalid op code {int(op64[bad])} at row {bad}")
        self.op: U8Array = op64.astype(np.uint8)
        self.metadata: dict[str, Any] = dict(metadata or {})

    # ----------------------------------------------------------------- builders
    @classmethod
    def from_durations(
        cls,
        duration_ns: ArrayLikeInt,
        size_bytes: ArrayLikeInt,
        op: ArrayLikeInt = int(Op.WRITE),
        metadata: dict[str, Any] | None = None,
        start_ns: int = 0,
    ) -> Trace:
        """A trace of back-to-back accesses: access k starts when k-1 ends.

        ``size_bytes`` and ``op`` may be scalars (same for every access).
        """
        dur = _as_i64("duration_ns", duration_ns, None)
        starts = np.empty(len(dur), dtype=np.int64)
        if len(dur):
            starts[0] = start_ns
            np.cumsum(dur[:-1], out=starts[1:])
            starts[1:] += start_ns
        return cls(index=np.arange(len(dur), dtype=np.int64), start_ns=starts,
                   duration_ns=dur, size_bytes=size_bytes, op=op, metadata=metadata)

    # ---------------------------------------------------------------- properties
    def __len__(self) -> int:
        return len(self.duration_ns)

    def __repr__(self) -> str:
        return f"<Trace {self.label!r}: {len(self)} accesses, {self.total_bytes} B>"

    @property
    def label(self) -> str:
        """``device / fs / workload`` from the metadata (missing parts omitted)."""
        parts = [str(self.metadata.get(k) or "") for k in ("device", "fs", "workload")]
        return " / ".join(p for p in parts if p) or "trace"

    @property
    def total_bytes(self) -> int:
        """Sum of all access sizes, bytes."""
        return int(self.size_bytes.sum())

    @property
    def busy_ns(self) -> int:
        """Sum of all access durations, nanoseconds."""
        return int(self.duration_ns.sum())

    @property
    def end_ns(self) -> I64Array:
        """End time of each access (``start_ns + duration_ns``)."""
        return self.start_ns + self.duration_ns

    def ops_present(self) -> list[Op]:
        """The operation codes that occur in the trace, in code order."""
        counts = np.bincount(self.op, minlength=len(OP_NAMES))
        return [Op(i) for i in range(len(OP_NAMES)) if counts[i]]

    # ------------------------------------------------------------------ slicing
    def take(self, rows: npt.NDArray[Any]) -> Trace:
        """A new trace holding the given rows (a boolean mask or an index array)."""
        return Trace(index=self.index[rows], start_ns=self.start_ns[rows],
                     duration_ns=self.duration_ns[rows], size_bytes=self.size_bytes[rows],
                     op=self.op[rows], metadata=self.metadata)

    def select(self, ops: Iterable[Op | int | str]) -> Trace:
        """Only the accesses whose op is in ``ops`` (Op values, codes or names)."""
        codes = [parse_op(o) if isinstance(o, str) else Op(int(o)) for o in ops]
        return self.take(np.isin(self.op, np.array(codes, dtype=np.uint8)))

    def sizes(self) -> list[int]:
        """The distinct access sizes in the trace, ascending."""
        return [int(s) for s in np.unique(self.size_bytes)]

    @staticmethod
    def concat(traces: Sequence[Trace], metadata: dict[str, Any] | None = None) -> Trace:
        """One trace holding the rows of ``traces`` in order (columns copied as
        recorded; metadata from ``metadata`` or else the first trace)."""
        if not traces:
            raise ValueError("concat needs at least one trace")
        return Trace(index=np.concatenate([t.index for t in traces]),
                     start_ns=np.concatenate([t.start_ns for t in traces]),
                     duration_ns=np.concatenate([t.duration_ns for t in traces]),
                     size_bytes=np.concatenate([t.size_bytes for t in traces]),
                     op=np.concatenate([t.op for t in traces]),
                     metadata=traces[0].metadata if metadata is None else metadata)

    # ---------------------------------------------------------------------- I/O
    def save(self, path: PathLike) -> None:
        """Write the binary trace file (format: docs/TRACE-FORMAT.md)."""
        Path(path).write_bytes(encode_trace(self))

    def to_csv(self, path_or_file: PathLike | io.TextIOBase) -> None:
        """Write CSV: a ``# steadyfs-trace-csv 1 metadata=<json>`` line, then
        ``index,start_us,duration_us,bytes,op`` and one row per access.

        Times are exact (microseconds with three decimals = whole ns).
        """
        if isinstance(path_or_file, io.TextIOBase):
            _write_csv(self, path_or_file)
        else:
            with open(path_or_file, "w", encoding="utf-8", newline="") as f:
                _write_csv(self, f)


# ============================================================== writer (builder)
class TraceWriter:
    """Appends accesses to preallocated numpy columns that double when full.

    >>> w = TraceWriter(make_metadata(device="mt29f1g01", workload="demo"))
    >>> w.append(250_000, 4096)                  # starts at the writer's clock
    >>> w.append(2_000_000, 0, Op.ERASE)
    >>> w.clock_ns
    2250000
    >>> len(w.finish())
    2

    ``start_ns`` defaults to the end of the previous access (the writer's
    virtual clock), so a simulated workload only passes durations.  Pass
    ``start_ns`` explicitly to record idle gaps or wall-clock times; the clock
    then continues from that access's end.
    """

    def __init__(self, metadata: dict[str, Any] | None = None, capacity: int = 1 << 16) -> None:
        self.metadata: dict[str, Any] = dict(metadata or {})
        cap = max(16, int(capacity))
        self._start = np.empty(cap, dtype=np.int64)
        self._dur = np.empty(cap, dtype=np.int64)
        self._size = np.empty(cap, dtype=np.int64)
        self._op = np.empty(cap, dtype=np.uint8)
        self._n = 0
        self._clock = 0

    def __len__(self) -> int:
        return self._n

    @property
    def clock_ns(self) -> int:
        """End time of the last access appended (0 before the first)."""
        return self._clock

    def _grow(self, need: int) -> None:
        cap = len(self._dur)
        if need <= cap:
            return
        while cap < need:
            cap *= 2
        for name in ("_start", "_dur", "_size", "_op"):
            old = getattr(self, name)
            new = np.empty(cap, dtype=old.dtype)
            new[: self._n] = old[: self._n]
            setattr(self, name, new)

    def append(self, duration_ns: int, size_bytes: int, op: int = Op.WRITE,
               start_ns: int | None = None) -> None:
        """Record one access.  Raises ValueError on a negative duration or size."""
        if duration_ns < 0 or size_bytes < 0:
            raise ValueError(f"negative duration ({duration_ns}) or size ({size_bytes})")
        i = self._n
        if i == len(self._dur):
            self._grow(i + 1)
        start = self._clock if start_ns is None else start_ns
        self._start[i] = start
        self._dur[i] = duration_ns
        self._size[i] = size_bytes
        self._op[i] = op
        self._n = i + 1
        self._clock = start + duration_ns

    def extend(self, duration_ns: ArrayLikeInt, size_bytes: ArrayLikeInt,
               op: ArrayLikeInt = int(Op.WRITE), start_ns: ArrayLikeInt | None = None) -> None:
        """Record many accesses at once (vectorised).  Without ``start_ns`` they
        run back to back from the writer's clock."""
        dur = _as_i64("duration_ns", duration_ns, None)
        m = len(dur)
        size = _as_i64("size_bytes", size_bytes, m)
        ops = _as_i64("op", op, m)
        if len(size) != m or len(ops) != m:
            raise ValueError("duration_ns, size_bytes and op must have the same length")
        if m == 0:
            return
        if dur.min() < 0 or size.min() < 0:
            raise ValueError("negative duration or size")
        if ops.min() < 0 or ops.max() >= len(OP_NAMES):
            raise ValueError("invalid op code")
        if start_ns is None:
            starts = np.empty(m, dtype=np.int64)
            starts[0] = self._clock
            np.cumsum(dur[:-1], out=starts[1:])
            starts[1:] += self._clock
        else:
            starts = _as_i64("start_ns", start_ns, m)
            if len(starts) != m:
                raise ValueError("start_ns must have the same length as duration_ns")
        i = self._n
        self._grow(i + m)
        self._start[i:i + m] = starts
        self._dur[i:i + m] = dur
        self._size[i:i + m] = size
        self._op[i:i + m] = ops
        self._n = i + m
        self._clock = int(starts[-1] + dur[-1])

    def finish(self) -> Trace:
        """The trace recorded so far (copies; the writer may continue)."""
        n = self._n
        return Trace(index=np.arange(n, dtype=np.int64), start_ns=self._start[:n].copy(),
                     duration_ns=self._dur[:n].copy(), size_bytes=self._size[:n].copy(),
                     op=self._op[:n].copy(), metadata=self.metadata)


# ============================================================ binary file format
MAGIC = b"STDYTRC\x00"
VERSION = 1
#: struct layout of the fixed 32-byte file header (little-endian).
HEADER = struct.Struct("<8sIIQII")
#: column name, on-disk dtype, in file order (version 1).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("index", "<i8"),
    ("start_ns", "<i8"),
    ("duration_ns", "<i8"),
    ("bytes", "<u4"),
    ("op", "u1"),
)
_ROW_BYTES = sum(np.dtype(dt).itemsize for _, dt in COLUMNS)
_MAX_SIZE = 2**32 - 1


def encode_trace(trace: Trace) -> bytes:
    """The binary file image of a trace (see docs/TRACE-FORMAT.md)."""
    n = len(trace)
    if n and int(trace.size_bytes.max()) > _MAX_SIZE:
        raise ValueError(f"access size above {_MAX_SIZE} bytes cannot be stored")
    header = {"format": "steadyfs-trace", "columns": [list(c) for c in COLUMNS],
              "metadata": trace.metadata}
    try:
        text = json.dumps(header, sort_keys=True, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as e:
        raise ValueError(f"trace metadata is not JSON-serialisable: {e}") from e
    text += b" " * (-len(text) % 8)
    cols = {"index": trace.index, "start_ns": trace.start_ns, "duration_ns": trace.duration_ns,
            "bytes": trace.size_bytes, "op": trace.op}
    payload = b"".join(np.ascontiguousarray(cols[name], dtype=dt).tobytes() for name, dt in COLUMNS)
    crc = zlib.crc32(payload, zlib.crc32(text))
    return HEADER.pack(MAGIC, VERSION, len(text), n, crc, 0) + text + payload


def decode_trace(data: bytes | bytearray | memoryview, where: str = "trace") -> Trace:
    """Parse and validate a binary trace image; raises :class:`TraceFormatError`."""
    buf = memoryview(data)
    if len(buf) < HEADER.size:
        raise TraceFormatError(f"{where}: file too short ({len(buf)} bytes) for a steadyfs trace header")
    magic, version, hlen, n, crc, reserved = HEADER.unpack_from(buf, 0)
    if magic != MAGIC:
        raise TraceFormatError(f"{where}: not a steadyfs trace (bad magic {bytes(magic)!r})")
    if version != VERSION:
        raise TraceFormatError(f"{where}: unsupported trace version {version} (this reader knows {VERSION})")
    if reserved != 0 or hlen % 8:
        raise TraceFormatError(f"{where}: corrupt header (reserved={reserved}, header length {hlen})")
    expect = HEADER.size + hlen + n * _ROW_BYTES
    if len(buf) != expect:
        raise TraceFormatError(
            f"{where}: size mismatch: header says {n} accesses and {hlen} header bytes "
            f"({expect} bytes in all) but the file has {len(buf)} bytes (truncated or padded?)")
    text = buf[HEADER.size:HEADER.size + hlen]
    payload = buf[HEADER.size + hlen:]
    if zlib.crc32(payload, zlib.crc32(text)) != crc:
        raise TraceFormatError(f"{where}: checksum mismatch (file corrupted)")
    try:
        header = json.loads(bytes(text).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise TraceFormatError(f"{where}: metadata header is not valid JSON: {e}") from e
    if not isinstance(header, dict) or header.get("format") != "steadyfs-trace":
        raise TraceFormatError(f"{where}: metadata header lacks format 'steadyfs-trace'")
    if header.get("columns") != [list(c) for c in COLUMNS]:
        raise TraceFormatError(f"{where}: unexpected column layout {header.get('columns')!r}")
    meta = header.get("metadata", {})
    if not isinstance(meta, dict):
        raise TraceFormatError(f"{where}: metadata must be a JSON object")
    cols: dict[str, npt.NDArray[Any]] = {}
    off = 0
    for name, dt in COLUMNS:
        size = np.dtype(dt).itemsize * n
        cols[name] = np.frombuffer(payload[off:off + size], dtype=dt)
        off += size
    try:
        return Trace(index=cols["index"].astype(np.int64), start_ns=cols["start_ns"].astype(np.int64),
                     duration_ns=cols["duration_ns"].astype(np.int64),
                     size_bytes=cols["bytes"].astype(np.int64), op=cols["op"], metadata=meta)
    except ValueError as e:
        raise TraceFormatError(f"{where}: {e}") from e


def load_trace(path: PathLike) -> Trace:
    """Read a trace file: the binary format, or CSV (by content, not name)."""
    p = Path(path)
    with open(p, "rb") as f:
        head = f.read(len(MAGIC))
    if head == MAGIC:
        return decode_trace(p.read_bytes(), str(p))
    return read_csv(p)


# ===================================================================== CSV I/O
CSV_MAGIC = "# steadyfs-trace-csv 1 metadata="


def _fmt_us(ns: int) -> str:
    sign = "-" if ns < 0 else ""
    q, r = divmod(abs(ns), 1000)
    return f"{sign}{q}.{r:03d}"


def _write_csv(trace: Trace, f: Any) -> None:
    f.write(CSV_MAGIC + json.dumps(trace.metadata, sort_keys=True) + "\n")
    f.write("index,start_us,duration_us,bytes,op\n")
    names = OP_NAMES
    rows = zip(trace.index.tolist(), trace.start_ns.tolist(), trace.duration_ns.tolist(),
               trace.size_bytes.tolist(), trace.op.tolist())
    f.writelines(f"{i},{_fmt_us(s)},{_fmt_us(d)},{b},{names[o]}\n" for i, s, d, b, o in rows)


def _parse_time_ns(text: str, scale: int, what: str, allow_negative: bool) -> int:
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(f"{what} {text!r} is not finite")
    if v < 0 and not allow_negative:
        raise ValueError(f"{what} {text!r} is negative")
    return int(round(v * scale))


def read_csv(path_or_file: PathLike | io.TextIOBase, metadata: dict[str, Any] | None = None) -> Trace:
    """Read a trace from CSV.

    The first non-comment row is a header naming the columns (any order,
    case-insensitive; unknown columns are ignored).  Required: ``bytes`` and
    ``duration_us`` (or ``duration_ns``).  Optional: ``start_us`` / ``start_ns``
    (default: accesses back to back from 0), ``op`` (a name such as ``write``
    or a code 0-4; default ``write``), ``index`` (default 0, 1, 2, ...).
    Lines starting with ``#`` are comments; a first line
    ``# steadyfs-trace-csv 1 metadata=<json>`` (as written by
    :meth:`Trace.to_csv`) restores the metadata.  ``metadata`` given here
    overrides keys from the file.

    Raises :class:`TraceFormatError` naming the line and column of the first
    problem.
    """
    if isinstance(path_or_file, io.TextIOBase):
        where = getattr(path_or_file, "name", "<csv>")
        return _read_csv(path_or_file, str(where), metadata)
    with open(path_or_file, encoding="utf-8", newline="") as f:
        try:
            return _read_csv(f, str(path_or_file), metadata)
        except UnicodeDecodeError as e:
            raise TraceFormatError(f"{path_or_file}: not a text CSV file ({e})") from e


def _read_csv(f: Any, where: str, extra_meta: dict[str, Any] | None) -> Trace:
    meta: dict[str, Any] = {}
    lines = iter(enumerate(f, start=1))
    header: list[str] | None = None
    lineno = 0
    for lineno, line in lines:
        s = line.strip()
        if not s:
            continue
        if s.startswith("#"):
            if line.startswith(CSV_MAGIC):
                try:
                    m = json.loads(line[len(CSV_MAGIC):])
                except json.JSONDecodeError as e:
                    raise TraceFormatError(f"{where}:{lineno}: bad metadata JSON: {e}") from e
                if not isinstance(m, dict):
                    raise TraceFormatError(f"{where}:{lineno}: metadata must be a JSON object")
                meta = m
            continue
        header = [h.strip().lower() for h in next(csv.reader([s]))]
        break
    if header is None:
        raise TraceFormatError(f"{where}: empty CSV: no header row (need at least duration_us and bytes)")
    if len(set(header)) != len(header):
        raise TraceFormatError(f"{where}:{lineno}: duplicate column names in header {header}")
    col = {name: i for i, name in enumerate(header)}

    def pick(*names: str) -> tuple[int, str] | None:
        for nm in names:
            if nm in col:
                return col[nm], nm
        return None

    dur_c = pick("duration_us", "duration_ns")
    size_c = pick("bytes")
    if dur_c is None or size_c is None:
        missing = [n for n, c in (("duration_us", dur_c), ("bytes", size_c)) if c is None]
        raise TraceFormatError(
            f"{where}:{lineno}: header {header} lacks required column(s) {', '.join(missing)}")
    start_c = pick("start_us", "start_ns")
    op_c = pick("op")
    idx_c = pick("index")
    dur_scale = 1000 if dur_c[1].endswith("_us") else 1
    start_scale = 1000 if start_c is not None and start_c[1].endswith("_us") else 1

    w = TraceWriter(capacity=1 << 12)
    indices: list[int] = []
    width = len(header)
    op_cache: dict[str, int] = {}
    for ln, line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        row = text.split(",") if '"' not in text else next(csv.reader([text]))
        if len(row) != width:
            raise TraceFormatError(f"{where}:{ln}: expected {width} fields, found {len(row)}")
        colname = dur_c[1]
        try:
            d = _parse_time_ns(row[dur_c[0]], dur_scale, "duration", False)
            colname = "bytes"
            b_text = row[size_c[0]].strip()
            b = int(b_text) if b_text.lstrip("-").isdigit() else _whole(b_text)
            if b < 0:
                raise ValueError(f"size {b_text!r} is negative")
            st: int | None = None
            if start_c is not None:
                colname = start_c[1]
                st = _parse_time_ns(row[start_c[0]], start_scale, "start", True)
            o = int(Op.WRITE)
            if op_c is not None:
                colname = "op"
                t = row[op_c[0]]
                o = op_cache.get(t, -1)
                if o < 0:
                    o = op_cache[t] = int(parse_op(t)) if t.strip() else int(Op.WRITE)
            if idx_c is not None:
                colname = "index"
                indices.append(int(row[idx_c[0]]))
        except ValueError as e:
            raise TraceFormatError(f"{where}:{ln}: column {colname!r}: {e}") from e
        w.append(d, b, o, st)
    if len(w) == 0:
        raise TraceFormatError(f"{where}: CSV has a header but no data rows")
    tr = w.finish()
    if idx_c is not None:
        tr.index = np.asarray(indices, dtype=np.int64)
    meta.update(extra_meta or {})
    tr.metadata = meta
    return tr


def _whole(text: str) -> int:
    v = float(text)
    if not math.isfinite(v) or v != math.floor(v):
        raise ValueError(f"size {text!r} is not a whole number of bytes")
    return int(v)
