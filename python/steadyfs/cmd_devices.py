"""`steady devices [--json]`: the device profiles with all their parameters."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from steadyfs import native


def _fmt_ns(ns: int) -> str:
    if ns == 0:
        return "-"
    if ns >= 1_000_000:
        return f"{ns / 1e6:g} ms"
    if ns >= 1_000:
        return f"{ns / 1e3:g} us"
    return f"{ns} ns"


def _fmt_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def _range(t: dict[str, int]) -> str:
    return f"{_fmt_ns(t['typ_ns'])} / {_fmt_ns(t['max_ns'])}"


def render_table(devs: list[dict[str, Any]]) -> str:
    head = ("name", "kind", "capacity", "page+spare", "block", "read typ/max",
            "prog typ/max", "erase typ/max", "bus")
    rows = [head]
    for d in devs:
        g, t, b = d["geometry"], d["times"], d["bus"]
        erase = _range(t["erase"]) if g["needs_erase"] else "no erase"
        if t["erase_big"]["typ_ns"]:
            big = _fmt_bytes(g["block_size"] * g["big_erase_blocks"])
            erase += f" (big {big} {_range(t['erase_big'])}"
            if g.get("mid_erase_blocks", 0) > 1 and t.get("erase_mid", {}).get("typ_ns"):
                mid = _fmt_bytes(g["block_size"] * g["mid_erase_blocks"])
                erase += f", {mid} {_range(t['erase_mid'])}"
            erase += ")"
        rows.append((
            d["name"], d["kind"], _fmt_bytes(g["capacity_bytes"]),
            f"{g['page_size']}+{g['spare_size']}", _fmt_bytes(g["block_size"]),
            _range(t["read"]), _range(t["prog"]), erase,
            f"{b['hz'] / 1e6:g} MHz x{b['data_lines']} ({b['data_bytes_per_s'] / 1e6:g} MB/s)",
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    out = "\n".join(lines) + "\n"
    for d in devs:
        out += f"\n{d['name']}: {d['part']}\n"
        for note in d["notes"]:
            out += f"  - {note}\n"
    return out


def run(args: argparse.Namespace) -> int:
    try:
        devs = native.profiles()
    except native.NativeLibraryMissing as e:
        print(f"steady devices: {e}", file=sys.stderr)
        return 2
    if args.json:
        json.dump({"devices": devs}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_table(devs))
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("devices", help="list device profiles with all their parameters")
    p.add_argument("--json", action="store_true", help="JSON: {\"devices\": [...]}")
    p.set_defaults(func=run)
