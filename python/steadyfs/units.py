"""Parsing and formatting of byte counts, data rates and durations.

One convention everywhere in steadyfs: decimal prefixes are decimal and
binary prefixes are binary.

* ``k``/``K`` = 1000, ``M`` = 10**6, ``G`` = 10**9 (so "kB/s" is 1000 B/s, as
  in the seed 001 tables and the JSON field names ``*_kBps``);
* ``Ki`` = 1024, ``Mi`` = 1024**2, ``Gi`` = 1024**3.

A trailing unit ``B``, ``B/s`` or ``Bps`` is accepted and ignored, so
``"8KiB"``, ``"8k"``, ``"8000"``, ``"1M"``, ``"1MB/s"`` and ``"2.5M"`` all
parse.  Rates are bytes per second.
"""

from __future__ import annotations

import math
import re

_PREFIX: dict[str, int] = {
    "": 1,
    "k": 1000,
    "K": 1000,
    "M": 1000**2,
    "G": 1000**3,
    "Ki": 1024,
    "Mi": 1024**2,
    "Gi": 1024**3,
}

_QUANTITY = re.compile(
    r"^\s*(?P<num>[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*"
    r"(?P<prefix>Ki|Mi|Gi|k|K|M|G)?"
    r"(?P<unit>B/s|Bps|B)?\s*$"
)


def _parse(text: str, what: str, unit_ok: tuple[str, ...]) -> float:
    m = _QUANTITY.match(text)
    if m is None or (m.group("unit") is not None and m.group("unit") not in unit_ok):
        raise ValueError(
            f"cannot parse {what} {text!r}: expected a number with an optional prefix "
            f"k, M, G (x1000) or Ki, Mi, Gi (x1024), e.g. '500k', '1M', '8KiB'"
        )
    value = float(m.group("num")) * _PREFIX[m.group("prefix") or ""]
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} {text!r} must be a finite non-negative number")
    return value


def parse_rate(text: str) -> float:
    """Parse one input rate in bytes per second, e.g. ``"500k"`` -> 500000.0."""
    return _parse(text, "rate", ("B/s", "Bps"))


def parse_rates(text: str) -> list[float]:
    """Parse a comma-separated list of rates, e.g. ``"100k,500k,1M"``.

    Rejects an empty list and zero rates (a zero rate needs no storage at all).
    """
    parts = [p for p in text.split(",") if p.strip()]
    if not parts:
        raise ValueError(f"empty rate list {text!r}")
    rates = [parse_rate(p) for p in parts]
    for p, r in zip(parts, rates):
        if r <= 0:
            raise ValueError(f"rate {p.strip()!r} must be greater than zero")
    return rates


def parse_size(text: str) -> int:
    """Parse a byte count, e.g. ``"8KiB"`` -> 8192, ``"8k"`` -> 8000.

    The result must be a whole number of bytes.
    """
    value = _parse(text, "size", ("B",))
    if value != math.floor(value):
        raise ValueError(f"size {text!r} is not a whole number of bytes")
    return int(value)


def rate_key(rate_Bps: float) -> str:
    """The JSON key for a rate: its value in bytes/s as a decimal string.

    Whole rates print without a fraction (``1e6`` -> ``"1000000"``); other
    rates use the shortest decimal that reads back to the same float.
    """
    if rate_Bps == math.floor(rate_Bps) and abs(rate_Bps) < 2**63:
        return str(int(rate_Bps))
    return repr(float(rate_Bps))


def format_rate(rate_Bps: float) -> str:
    """A short human label for a rate: ``500000`` -> ``"500 kB/s"``."""
    for div, pre in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if rate_Bps >= div:
            return f"{rate_Bps / div:.4g} {pre}B/s"
    return f"{rate_Bps:.4g} B/s"


def format_bytes(n: float) -> str:
    """A short human label for a byte count using binary prefixes: ``8192`` -> ``"8 KiB"``."""
    for div, pre in ((1024.0**3, "Gi"), (1024.0**2, "Mi"), (1024.0, "Ki")):
        if abs(n) >= div:
            return f"{n / div:.4g} {pre}B"
    return f"{n:.4g} B"


def format_duration_ns(ns: float) -> str:
    """A short human label for a duration given in nanoseconds: ``2.5e6`` -> ``"2.5 ms"``."""
    for div, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if abs(ns) >= div:
            return f"{ns / div:.4g} {unit}"
    return f"{ns:.4g} ns"
