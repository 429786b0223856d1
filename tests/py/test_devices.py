"""`steady devices --json` schema, `steady dev` round trip, the Device class."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from steadyfs import native

REPO = Path(__file__).resolve().parents[2]


def steady(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "steadyfs.cli", *args], cwd=REPO,
                          capture_output=True, text=True, check=False)


def test_devices_json_schema() -> None:
    r = steady("devices", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    devs = doc["devices"]
    assert isinstance(devs, list)
    names = [d["name"] for d in devs]
    assert names == ["mt29f1g01", "mt25q128", "em064lx", "sd-consumer", "sd-industrial"]
    for d in devs:
        g = d["geometry"]
        for key in ("page_size", "spare_size", "pages_per_block", "block_count", "read_size",
                    "prog_size", "needs_erase", "nop", "ecc_bits"):
            assert isinstance(g[key], int)
        for t in ("read", "prog", "erase", "erase_big"):
            assert d["times"][t]["max_ns"] >= d["times"][t]["typ_ns"] >= 0
        assert d["bus"]["hz"] > 0 and d["bus"]["data_bytes_per_s"] > 0
        assert d["notes"] and all(isinstance(n, str) for n in d["notes"])
    nand = devs[0]
    assert nand["geometry"]["page_size"] == 2048
    assert nand["geometry"]["pages_per_block"] == 64
    assert nand["geometry"]["block_count"] == 1024
    assert nand["times"]["erase"] == {"typ_ns": 2_000_000, "max_ns": 10_000_000}
    assert nand["times"]["prog"]["typ_ns"] == 220_000
    assert devs[1]["times"]["erase_big"]["max_ns"] == 1_000_000_000
    assert devs[2]["geometry"]["needs_erase"] == 0
    assert "sd" in devs[3] and devs[3]["sd"]["unit_bytes"] == 16384


def test_devices_table() -> None:
    r = steady("devices")
    assert r.returncode == 0, r.stderr
    assert "mt29f1g01" in r.stdout and "sd-industrial" in r.stdout


def test_dev_round_trip(tmp_path: Path) -> None:
    img = str(tmp_path / "nand.img")
    base = ["dev", "mt29f1g01", "--image", img, "--blocks", "32"]
    r = steady(*base, "prog", "9", "0", "text:steady", "--len", "512")
    assert r.returncode == 0, r.stderr
    assert "us" in r.stdout
    r = steady(*base, "read", "9", "0", "6")
    assert r.returncode == 0, r.stderr
    assert "73 74 65 61 64 79" in r.stdout       # "steady", from the file image
    r = steady(*base, "prog", "9", "0", "text:other", "--len", "512")
    assert r.returncode == 1 and "RULE" in r.stderr
    r = steady(*base, "erase", "9")
    assert r.returncode == 0 and "erase count now 1" in r.stdout
    r = steady(*base, "read", "9", "0", "4")
    assert "ff ff ff ff" in r.stdout
    r = steady(*base, "info")
    assert r.returncode == 0 and "block_count" in r.stdout


def test_device_class(tmp_path: Path) -> None:
    with native.Device("mt29f1g01", blocks=32, timing="worst") as d:
        d.erase(9)
        assert d.last_ns > 10_000_000
        d.prog(9, 0, b"\x00" * 2048, spare=b"\x01" * 8)
        data, corrected, spare = d.read(9, 0, 2048, 8)  # type: ignore[misc]
        assert data == b"\x00" * 2048 and corrected == 0 and spare == b"\x01" * 8
        with pytest.raises(native.DeviceError) as e:
            d.prog(9, 0, b"\x01" * 2048)
        assert e.value.code == native.ERR_RULE
        assert d.stats()["progs"] == 1
        d.trace_enable(16)
        d.read(9, 0, 16)
        tr = d.trace()
        assert len(tr) == 1 and native.OPS[int(tr["op"][0])] == "read"
        assert int(tr["dur_ns"][0]) == d.last_ns
    with pytest.raises(native.DeviceError):
        native.Device("no-such-part")
