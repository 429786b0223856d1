"""Tests of rate/size parsing (k = 1000, Ki = 1024) and rate keys."""

from __future__ import annotations

import pytest

from steadyfs.units import format_bytes, format_rate, parse_rate, parse_rates, parse_size, rate_key


def test_parse_rates() -> None:
    assert parse_rates("100k,500k,1M,2M,4M") == [1e5, 5e5, 1e6, 2e6, 4e6]
    assert parse_rates(" 2.5M , 4096 ,1MB/s,1KiB/s") == [2.5e6, 4096.0, 1e6, 1024.0]
    for bad in ("", ",", "fast", "1X", "0", "-1k", "1MiB/x"):
        with pytest.raises(ValueError):
            parse_rates(bad)


def test_parse_size() -> None:
    assert parse_size("8KiB") == 8192
    assert parse_size("8k") == 8000
    assert parse_size("8K") == 8000
    assert parse_size("1MiB") == 1 << 20
    assert parse_size("0") == 0
    assert parse_size("512B") == 512
    for bad in ("8kb/s", "1.5", "x", "-8k", "1e400"):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_rate_key_and_format() -> None:
    assert rate_key(1e6) == "1000000"
    assert rate_key(parse_rate("100k")) == "100000"
    assert rate_key(2e6 / 3) == repr(2e6 / 3)
    assert format_rate(5e5) == "500 kB/s"
    assert format_bytes(8192) == "8 KiB"
