"""Tests of the trace container, builder, binary format and CSV exchange."""

from __future__ import annotations

import io
import json
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from steadyfs.trace import (
    COLUMNS,
    HEADER,
    Op,
    Trace,
    TraceFormatError,
    TraceWriter,
    decode_trace,
    encode_trace,
    load_trace,
    make_metadata,
    parse_op,
    read_csv,
)


def sample(n: int = 1000, seed: int = 0) -> Trace:
    rng = np.random.default_rng(seed)
    w = TraceWriter(make_metadata(device="mt29f1g01", fs="raw", workload="t", timing="tail",
                                  seed=seed, parameters={"size": [2048, 4096], "note": "é"}),
                    capacity=16)
    for _ in range(n):
        w.append(int(rng.integers(0, 10**7)), int(rng.choice([0, 512, 4096, 2**32 - 1])),
                 int(rng.integers(0, 5)))
    return w.finish()


def assert_same(a: Trace, b: Trace) -> None:
    for col in ("index", "start_ns", "duration_ns", "size_bytes", "op"):
        np.testing.assert_array_equal(getattr(a, col), getattr(b, col), err_msg=col)
    assert a.metadata == b.metadata


# ------------------------------------------------------------------ builder
def test_writer_clock_growth_and_extend() -> None:
    w = TraceWriter(capacity=16)
    w.append(100, 4096)
    w.append(2000, 0, Op.ERASE)
    assert w.clock_ns == 2100
    w.append(50, 512, Op.READ, start_ns=5000)         # an idle gap
    assert w.clock_ns == 5050
    w.extend(np.full(100, 10), 4096)                  # grows past the capacity
    t = w.finish()
    assert len(t) == 103 and len(w) == 103
    np.testing.assert_array_equal(t.start_ns[:4], [0, 100, 5000, 5050])
    assert t.start_ns[-1] == 5050 + 99 * 10 and w.clock_ns == 5050 + 100 * 10
    np.testing.assert_array_equal(t.index, np.arange(103))
    assert list(t.op[:3]) == [Op.WRITE, Op.ERASE, Op.READ]
    assert t.total_bytes == 4096 + 512 + 100 * 4096
    assert t.busy_ns == 2150 + 1000
    assert t.ops_present() == [Op.READ, Op.WRITE, Op.ERASE]
    with pytest.raises(ValueError):
        w.append(-1, 1)
    with pytest.raises(ValueError):
        w.extend([1, 2], [1, 2], [1, 9])


def test_from_durations_select_concat() -> None:
    t = Trace.from_durations([10, 20, 30], [1, 2, 3], [0, 1, 1], start_ns=5)
    np.testing.assert_array_equal(t.start_ns, [5, 15, 35])
    np.testing.assert_array_equal(t.end_ns, [15, 35, 65])
    w = t.select(["write"])
    np.testing.assert_array_equal(w.index, [1, 2])
    assert len(t.select([Op.READ])) == 1
    c = Trace.concat([t, w])
    assert len(c) == 5 and c.sizes() == [1, 2, 3]
    with pytest.raises(ValueError, match="negative duration"):
        Trace.from_durations([1, -1], 1)
    with pytest.raises(ValueError, match="invalid op"):
        Trace.from_durations([1], 1, [7])
    with pytest.raises(ValueError, match="rows"):
        Trace(index=[0], start_ns=[0, 1], duration_ns=[1], size_bytes=[1], op=[1])


def test_parse_op() -> None:
    assert parse_op("Write") is Op.WRITE and parse_op("2") is Op.ERASE
    with pytest.raises(ValueError):
        parse_op("trim")


# ------------------------------------------------------------- binary format
def test_binary_round_trip(tmp_path: Path) -> None:
    t = sample()
    p = tmp_path / "t.trace"
    t.save(p)
    _, _, hlen, n, _, _ = HEADER.unpack_from(p.read_bytes())
    assert n == len(t) and p.stat().st_size == HEADER.size + hlen + 29 * n   # 29 bytes per access
    u = load_trace(p)
    assert_same(t, u)
    empty = Trace.from_durations(np.zeros(0, dtype=np.int64), 0, metadata={"a": 1})
    assert_same(empty, decode_trace(encode_trace(empty)))


def test_binary_layout_is_as_documented() -> None:
    t = Trace.from_durations([7, 9], [4096, 512], [1, 2], metadata={"device": "d"})
    blob = encode_trace(t)
    magic, version, hlen, n, crc, reserved = struct.unpack_from("<8sIIQII", blob)
    assert magic == b"STDYTRC\x00" and version == 1 and n == 2 and reserved == 0 and hlen % 8 == 0
    header = json.loads(blob[32:32 + hlen])
    assert header["metadata"] == {"device": "d"} and header["format"] == "steadyfs-trace"
    body = blob[32 + hlen:]
    assert crc == zlib.crc32(blob[32:])
    assert len(body) == 2 * (8 + 8 + 8 + 4 + 1)
    assert np.frombuffer(body[32:48], "<i8").tolist() == [7, 9]        # duration_ns column
    assert np.frombuffer(body[48:56], "<u4").tolist() == [4096, 512]   # bytes column
    assert list(body[56:58]) == [1, 2]                                  # op column
    assert [c[0] for c in COLUMNS] == ["index", "start_ns", "duration_ns", "bytes", "op"]


def reseal(blob: bytearray) -> bytearray:
    """Recompute the CRC so that a deliberate corruption reaches later checks."""
    struct.pack_into("<I", blob, 24, zlib.crc32(bytes(blob[32:])))
    return blob


def test_binary_malformed() -> None:
    good = bytearray(encode_trace(sample(20)))
    cases: list[tuple[bytes | bytearray, str]] = [
        (b"", "too short"),
        (b"STDYTRC", "too short"),
        (b"X" + good[1:], "bad magic"),
        (good[:-1], "size mismatch"),
        (good + b"\0", "size mismatch"),
    ]
    bad_version = bytearray(good)
    struct.pack_into("<I", bad_version, 8, 99)
    cases.append((bad_version, "unsupported trace version 99"))
    flipped = bytearray(good)
    flipped[-30] ^= 0x40
    cases.append((flipped, "checksum"))
    bad_json = bytearray(good)
    bad_json[32] = ord("[")
    cases.append((reseal(bad_json), "not valid JSON"))
    bad_op = bytearray(good)
    bad_op[-1] = 9
    cases.append((reseal(bad_op), "invalid op code 9"))
    huge_n = bytearray(good)
    struct.pack_into("<Q", huge_n, 16, 2**60)
    cases.append((huge_n, "size mismatch"))
    for blob, msg in cases:
        with pytest.raises(TraceFormatError, match=msg):
            decode_trace(bytes(blob), "x.trace")


def test_load_trace_rejects_garbage_binary(tmp_path: Path) -> None:
    p = tmp_path / "junk.trace"
    p.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(TraceFormatError):
        load_trace(p)


# ---------------------------------------------------------------------- CSV
def test_csv_round_trip(tmp_path: Path) -> None:
    t = sample(300, seed=3)
    t.start_ns[5] = -12345       # times before the trigger survive too
    p = tmp_path / "t.csv"
    t.to_csv(p)
    lines = p.read_text().splitlines()
    assert lines[0].startswith("# steadyfs-trace-csv 1 metadata=")
    assert lines[1] == "index,start_us,duration_us,bytes,op"
    assert_same(t, load_trace(p))          # detected as CSV by content
    buf = io.StringIO()
    t.to_csv(buf)
    assert buf.getvalue() == p.read_text()


def test_csv_minimal_logic_analyser_import() -> None:
    text = "Duration_us, bytes , channel\n250.5,512,A\n1000,512,A\n\n# a comment\n0.001,4096,B\n"
    t = read_csv(io.StringIO(text), metadata={"device": "real-sd"})
    np.testing.assert_array_equal(t.duration_ns, [250_500, 1_000_000, 1])
    np.testing.assert_array_equal(t.start_ns, [0, 250_500, 1_250_500])   # back to back
    np.testing.assert_array_equal(t.size_bytes, [512, 512, 4096])
    assert list(t.op) == [Op.WRITE] * 3 and t.metadata == {"device": "real-sd"}
    t2 = read_csv(io.StringIO("op,bytes,duration_ns,start_ns,index\nerase,0,5,100,7\n3,0,6,200,9\n"))
    np.testing.assert_array_equal(t2.index, [7, 9])
    np.testing.assert_array_equal(t2.start_ns, [100, 200])
    assert list(t2.op) == [Op.ERASE, Op.SYNC]


@pytest.mark.parametrize("text,msg", [
    ("", "no header"),
    ("# only a comment\n", "no header"),
    ("bytes,start_us\n1,2\n", "lacks required column.*duration_us"),
    ("duration_us\n1\n", "lacks required column.*bytes"),
    ("duration_us,bytes\n", "no data rows"),
    ("duration_us,bytes\n1,2,3\n", ":2: expected 2 fields, found 3"),
    ("duration_us,bytes\n1,2\nabc,5\n", ":3: column 'duration_us'"),
    ("duration_us,bytes\n-1,5\n", "negative"),
    ("duration_us,bytes\nnan,5\n", "not finite"),
    ("duration_us,bytes\n1,-5\n", "column 'bytes'.*negative"),
    ("duration_us,bytes\n1,2.5\n", "whole number"),
    ("duration_us,bytes,op\n1,2,trim\n", "column 'op'.*unknown op"),
    ("duration_us,bytes,bytes\n1,2,3\n", "duplicate"),
    ("# steadyfs-trace-csv 1 metadata={bad\nduration_us,bytes\n1,2\n", "metadata JSON"),
])
def test_csv_malformed(text: str, msg: str) -> None:
    with pytest.raises(TraceFormatError, match=msg):
        read_csv(io.StringIO(text))


def test_csv_binary_file_is_rejected_clearly(tmp_path: Path) -> None:
    p = tmp_path / "x.csv"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(TraceFormatError):
        load_trace(p)
