#!/usr/bin/env python3
"""Check that the core's layers call only downward (issue 12 item 7).

The layer of every file of src/fs is declared once, in the comment at the
top of src/fs/fs_internal.h ("layer N name: file.c ..."). This script reads
that table and the symbol tables (nm) of the compiled objects: a file may
use a function or object that another file defines only if that file's
layer is the same or lower. Every use of a higher layer is printed as
"file.o uses symbol (defined in file.o, layer N > M)" and the exit status
is 1; a file the table does not name, or a named file with no object, is
an error too.

usage: check-layers.py HEADER OBJECT...
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

LAYER_LINE = re.compile(r"^\s*\*\s+layer\s+(\d+)\s+[^:]*:\s+(.+?)\s*$")


def layer_table(header: Path) -> dict[str, int]:
    """File name -> layer number, from the header's table."""
    table: dict[str, int] = {}
    for line in header.read_text().splitlines():
        m = LAYER_LINE.match(line)
        if m:
            for name in m.group(2).split():
                table[name] = int(m.group(1))
    return table


def symbols(obj: Path) -> tuple[set[str], set[str]]:
    """(defined, undefined) global symbols of an object file."""
    out = subprocess.run(["nm", str(obj)], check=True, capture_output=True, text=True).stdout
    defined: set[str] = set()
    used: set[str] = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRC":
            defined.add(parts[2])
    return defined, used


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print("usage: check-layers.py HEADER OBJECT...", file=sys.stderr)
        return 2
    try:
        table = layer_table(Path(argv[1]))
    except OSError as e:
        print(f"check-layers: {argv[1]}: {e.strerror}", file=sys.stderr)
        return 2
    if not table:
        print(f"check-layers: no layer table in {argv[1]}", file=sys.stderr)
        return 2
    objs = {Path(o).stem + ".c": Path(o) for o in argv[2:]}
    errors = [f"{name}: not in the layer table of {argv[1]}" for name in sorted(objs) if name not in table]
    errors += [f"{name}: in the layer table, but no object" for name in sorted(table) if name not in objs]
    defined_in: dict[str, str] = {}
    uses: dict[str, set[str]] = {}
    for name, obj in objs.items():
        try:
            defined, used = symbols(obj)
        except (OSError, subprocess.CalledProcessError):
            print(f"check-layers: {obj}: not an object nm can read", file=sys.stderr)
            return 2
        for sym in defined:
            defined_in[sym] = name
        uses[name] = used
    for name in sorted(uses):
        for sym in sorted(uses[name]):
            owner = defined_in.get(sym)
            if owner and owner != name and name in table and owner in table and table[owner] > table[name]:
                errors.append(f"{name} (layer {table[name]}) uses {sym} of {owner} (layer {table[owner]})")
    for err in errors:
        print("check-layers: " + err, file=sys.stderr)
    if errors:
        return 1
    print(f"layers: {len(objs)} files of the core in {len(set(table.values()))} layers, every call downward")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
