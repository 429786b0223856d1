"""Device profiles from a user's file: a chip we do not ship, for `steady
bound`, `steady ram`, `steady plan`, `steady bench` (and any command that
calls ``add_argument`` / ``apply``) with no source edit.

The file is JSON in the shape `steady devices --json` prints for one device
(copy one and change it; ``{"devices": [one]}`` as printed is accepted too)::

    {"name": "spinand-2g4k", "part": "...", "kind": "nand",
     "geometry": {"page_size": 4096, "spare_size": 128, "pages_per_block": 32,
                  "block_count": 2048, "prog_size": 512, "ecc_bits": 8,
                  "ecc_codeword": 512, "nop": 4},
     "times": {"read": {"typ_ns": 80000, "max_ns": 120000}, "prog": {...},
               "erase": {...}},
     "bus": {"hz": 104000000, "cmd_lines": 1, "addr_lines": 1, "data_lines": 4,
             "addr_bytes": 2, "dummy_cycles": 8, "overhead_ns": 20000},
     "endurance": 100000, "factory_bad_max": 40, "notes": ["where each value is from"]}

Keys left out take DEFAULTS; a time's ``max_ns`` defaults to its ``typ_ns``;
keys `steady devices` prints but a profile does not hold (``block_size``,
``capacity_bytes``, ``op_cost``, ``data_bytes_per_s``) are ignored; any
other unknown key is an error (a typo must not silently become a default).
The C side checks what the models can run (`sim_profile_check` in
include/steadyfs/sim.h) and registers the profile for the life of the
process; it then works by name everywhere in that process.
"""

from __future__ import annotations

import argparse
import ctypes
import json
from pathlib import Path
from typing import Any

from steadyfs import native

DEFAULTS: dict[str, int] = {
    "geometry.spare_size": 0, "geometry.read_size": 1, "geometry.big_erase_blocks": 1,
    "geometry.ecc_bits": 0, "geometry.ecc_codeword": 0, "geometry.nop": 0,
    "geometry.erased_byte": 255,
    "times.erase_big.typ_ns": 0, "times.erase_big.max_ns": 0,
    "geometry.mid_erase_blocks": 0, "times.erase_mid.typ_ns": 0, "times.erase_mid.max_ns": 0,
    "bus.cmd_lines": 1, "bus.addr_lines": 1, "bus.data_lines": 1, "bus.addr_bytes": 3,
    "bus.dummy_cycles": 0, "bus.overhead_ns": 0,
    "endurance": 100000, "factory_bad_max": 0, "jitter_permille": 0, "tail_ppm": 0,
}
# printed by `steady devices --json`, derived, not part of a profile
DERIVED = {"geometry.block_size", "geometry.capacity_bytes", "bus.data_bytes_per_s", "op_cost"}
KINDS = ("nand", "nor", "mram")

# name -> the numbers it was registered with in this process
_registered: dict[str, tuple[int, ...]] = {}


class ProfileFileError(ValueError):
    """The profile file cannot be used (the message says why, in one line)."""


def keys() -> list[str]:
    """The numbers a profile holds, in the order the C side takes them."""
    L = native.lib()
    fn = L.sh_profile_key
    fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.c_uint]
    out: list[str] = []
    while (k := fn(len(out))) is not None:
        out.append(k.decode())
    return out


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and key != "op_cost":
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def load(path: Path) -> dict[str, Any]:
    """The profile object of a file (one device)."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise ProfileFileError(f"{path}: {e.strerror or e}") from e
    except json.JSONDecodeError as e:
        raise ProfileFileError(f"{path}: not JSON: {e}") from e
    if isinstance(data, dict) and "devices" in data:
        devs = data["devices"]
        if not isinstance(devs, list) or len(devs) != 1:
            raise ProfileFileError(f"{path}: \"devices\" must hold exactly one profile")
        data = devs[0]
    if not isinstance(data, dict):
        raise ProfileFileError(f"{path}: want a JSON object (one device profile)")
    return data


def numbers(spec: dict[str, Any], where: str = "profile") -> tuple[int, ...]:
    """The profile's numbers in keys() order, defaults filled in."""
    flat = _flatten({k: v for k, v in spec.items() if k not in ("name", "part", "kind", "notes")})
    want = keys()
    unknown = sorted(k for k in flat if k not in want and k not in DERIVED
                     and not any(k.startswith(d + ".") for d in DERIVED))
    if unknown:
        raise ProfileFileError(f"{where}: unknown key(s) {', '.join(unknown)}")
    kind = spec.get("kind")
    vals: list[int] = []
    for k in want:
        if k in flat:
            v = flat[k]
        elif k.endswith(".max_ns") and k[:-len("max_ns")] + "typ_ns" in flat:
            v = flat[k[:-len("max_ns")] + "typ_ns"]
        elif k == "geometry.needs_erase":
            v = 0 if kind == "mram" else 1
        elif k in DEFAULTS:
            v = DEFAULTS[k]
        else:
            raise ProfileFileError(f"{where}: {k} is required")
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ProfileFileError(f"{where}: {k} = {v!r}: want an integer >= 0")
        vals.append(v)
    return tuple(vals)


def register(spec: dict[str, Any], where: str = "profile") -> str:
    """Register a profile object; its name.  The same profile again is a
    no-op; a different one under a known name is an error."""
    name, kind = spec.get("name"), spec.get("kind")
    if not isinstance(name, str) or not name or len(name) >= 32 or "/" in name:
        raise ProfileFileError(f"{where}: \"name\" must be a string of 1..31 characters, no '/'")
    if kind not in KINDS:
        raise ProfileFileError(f"{where}: \"kind\" must be one of {', '.join(KINDS)} "
                               f"(SD card models need FTL parameters: built in only)")
    part = spec.get("part", name)
    notes = spec.get("notes", [])
    if isinstance(notes, str):
        notes = [notes]
    if not isinstance(part, str) or not isinstance(notes, list) or \
            not all(isinstance(n, str) for n in notes):
        raise ProfileFileError(f"{where}: \"part\" must be a string, \"notes\" a list of strings")
    vals = numbers(spec, where)
    if name in _registered:
        if _registered[name] == vals:
            return name
        raise ProfileFileError(f"{where}: a different profile named {name} is already in use")
    L = native.lib()
    fn = L.sh_profile_define
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                   ctypes.POINTER(ctypes.c_uint64), ctypes.c_uint]
    arr = (ctypes.c_uint64 * len(vals))(*vals)
    rc = fn(name.encode(), part.encode(), "\n".join(notes).encode(), str(kind).encode(), arr,
            len(vals))
    if rc != 0:
        msg = L.sh_last_error()
        raise ProfileFileError(f"{where}: " + (msg.decode() if msg else f"refused ({rc})"))
    _registered[name] = vals
    return name


def register_file(path: Path) -> str:
    """Load and register the profile in a file; its name."""
    return register(load(path), str(path))


def add_argument(p: argparse.ArgumentParser) -> None:
    """--profile-file FILE, for a command that also has --device."""
    p.add_argument("--profile-file", type=Path, default=None, metavar="FILE",
                   help="a device profile from a JSON file (the shape `steady devices --json` "
                        "prints for one device); --device defaults to its name")


def apply(args: argparse.Namespace, default_device: str | None = None) -> None:
    """Register args.profile_file (if given) and make it args.device unless
    --device named something other than the default.  ProfileFileError if
    the file cannot be used."""
    if getattr(args, "profile_file", None) is None:
        if args.device is None:
            args.device = default_device
        return
    name = register_file(args.profile_file)
    if args.device is None or args.device == default_device:
        args.device = name
