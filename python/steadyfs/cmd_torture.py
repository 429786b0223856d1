"""`steady torture`: the power-loss torture runner (build/steady-torture).

A random mix of every file-system call against an in-memory model, with
power cut at (nearly) every program/erase or every Nth; after each cut the
device is remounted and every file and directory checked.  Ends with
"N power cuts, M checks, F failures"; exits non-zero on any failure, after a
"replay: steady torture ..." line that reruns the run up to the failing call
(accepted as printed).  --spinand runs the file system through the SPI
NAND driver (src/drivers/spinand.c) and the command-level chip model
(src/bd/spinand_sim.c) on the mt29f1g01 device; half the power cuts then
fall on an SPI transaction (mid-load, mid-poll, while the chip is busy).
--profile-file FILE tortures the file system on your own chip's geometry
(the profile shape `steady devices --json` prints for one device).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from steadyfs import userprofile

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DEVICE = "mt29f1g01"


def binary() -> Path:
    """build/steady-torture of the build $STEADYFS_LIB points into."""
    lib = os.environ.get("STEADYFS_LIB")
    base = Path(lib).resolve().parent if lib else REPO / "build"
    return base / "steady-torture"


U32 = 0xFFFFFFFF
FILE_MAX_MIN, FILE_MAX_MAX = 6000, 1 << 20
SECTOR_SIZE_MAX = 8192   # src/host/torture.h TORTURE_SECTOR_MAX
HANDLES_MAX = 8          # src/host/torture.h TORTURE_HANDLES_MAX
READ_ERRORS_MAX = 100000  # src/host/main/torture_main.c --read-errors
WEAR_LIMIT_MAX = 1000000  # src/host/main/torture_main.c --wear-limit


def _problem(args: argparse.Namespace) -> str | None:
    """Why these options cannot run, in one line (None: they can)."""
    from steadyfs import native
    names = [p["name"] for p in native.profiles() if p.get("kind") != "sd"]
    if args.device not in names:
        return f"--device {args.device}: want one of {', '.join(names)}"
    if not 1 <= args.ops <= U32:
        return f"--ops {args.ops}: want a number 1..{U32}"
    if not 0 <= args.seed < 1 << 64:
        return f"--seed {args.seed}: want a number >= 0"
    if args.pending_max != 0 and not 8 <= args.pending_max <= 0xFFFF:
        return (f"--pending-max {args.pending_max}: want 8..65535 entries, or 0 for the "
                f"medium's default")
    if args.file_max != 0 and not FILE_MAX_MIN <= args.file_max <= FILE_MAX_MAX:
        return (f"--file-max {args.file_max}: want {FILE_MAX_MIN}..{FILE_MAX_MAX} bytes, or 0 "
                f"for the model's default ({FILE_MAX_MIN})")
    if not 0 <= args.fill <= 90:
        return f"--fill {args.fill}: want a percentage of the live limit, 0..90"
    if not 0 <= args.blocks <= U32:
        return f"--blocks {args.blocks}: want a number >= 0 (0: small default)"
    if not 0 <= args.sector_size <= SECTOR_SIZE_MAX:
        return (f"--sector-size {args.sector_size}: want 1..{SECTOR_SIZE_MAX} bytes the medium "
                f"takes, or 0 for its default")
    if args.handles != 0 and not 2 <= args.handles <= HANDLES_MAX:
        return f"--handles {args.handles}: want 2..{HANDLES_MAX} open handles, or 0 for 2"
    pc = args.powercut
    if pc != "every" and not (pc.isdigit() and int(pc) <= U32):
        return f"--powercut {pc}: want 'every', a number N (a cut every N program/erase ops) or 0"
    if args.spinand and args.device != "mt29f1g01":
        return f"--spinand: the SPI NAND driver runs on the mt29f1g01 device, not {args.device}"
    if not 0 <= args.read_errors <= READ_ERRORS_MAX:
        return f"--read-errors {args.read_errors}: want 0..{READ_ERRORS_MAX} reads in a million"
    if args.read_errors and args.spinand:
        return "--read-errors: the simulated device fails its reads, not the SPI chip model (drop --spinand)"
    if not 0 <= args.wear_limit <= WEAR_LIMIT_MAX:
        return f"--wear-limit {args.wear_limit}: want 0..{WEAR_LIMIT_MAX} erases (0: the part's endurance)"
    return None


def _profile_def(args: argparse.Namespace) -> list[str]:
    """Register --profile-file (if given) in this process, make it the
    device unless --device named another, and return the binary's options
    that define it there (the binary is another process)."""
    if args.profile_file is None:
        if args.device is None:
            args.device = DEFAULT_DEVICE
        return []
    spec = userprofile.load(args.profile_file)
    name = userprofile.register(spec, str(args.profile_file))
    if args.device is None:
        args.device = name
    vals = userprofile.numbers(spec, str(args.profile_file))
    return ["--profile-def", f"{spec['kind']}:{name}:" + ",".join(str(v) for v in vals),
            "--profile-file", str(args.profile_file)]


def _run(args: argparse.Namespace) -> int:
    exe = binary()
    if not exe.exists():
        print(f"steady torture: {exe} not found; build it with `make build`", file=sys.stderr)
        return 2
    try:
        profile = _profile_def(args)
    except userprofile.ProfileFileError as e:
        print(f"steady torture: --profile-file {e}", file=sys.stderr)
        return 2
    why = _problem(args)
    if why:
        print(f"steady torture: {why}", file=sys.stderr)
        return 2
    argv = [str(exe), "--device", args.device, "--seed", str(args.seed), "--ops", str(args.ops),
            "--powercut", args.powercut]
    if args.blocks:
        argv += ["--blocks", str(args.blocks)]
    if args.erase_mult:
        argv += ["--erase-mult", str(args.erase_mult)]
    if args.sector_size:
        argv += ["--sector-size", str(args.sector_size)]
    if args.ring_units:
        argv += ["--ring-units", str(args.ring_units)]
    if args.pending_max:
        argv += ["--pending-max", str(args.pending_max)]
    if args.file_max:
        argv += ["--file-max", str(args.file_max)]
    if args.meta:
        argv.append("--meta")
    if args.hold:
        argv.append("--hold")
    if args.handles:
        argv += ["--handles", str(args.handles)]
    if args.fill:
        argv += ["--fill", str(args.fill)]
    if args.fsck:
        argv.append("--fsck")
    if args.read_errors:
        argv += ["--read-errors", str(args.read_errors)]
    if args.wear_limit:
        argv += ["--wear-limit", str(args.wear_limit)]
    argv.append("--no-faults" if args.no_faults else "--faults")
    if args.spinand:
        argv.append("--spinand")
    if args.verbose:
        argv.append("--verbose")
    argv += profile
    os.execv(str(exe), argv)
    return 0  # not reached


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("torture", help="power-loss torture of the file system",
                       description=__doc__)
    p.add_argument("--device", default=None,
                   help=f"device profile (default {DEFAULT_DEVICE}, or --profile-file's)")
    userprofile.add_argument(p)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--ops", type=int, default=1000, help="API calls to run")
    p.add_argument("--powercut", default="every",
                   help="'every' (a cut within the next 1..8 program/erase ops), N, or 0")
    p.add_argument("--blocks", type=int, default=0, help="device blocks (0: small default)")
    p.add_argument("--erase-mult", type=int, default=0, metavar="M",
                   help="format with M device blocks per erase unit (0: the medium's default; "
                        "8 on mt25q128: 32 KiB units, one 32 KiB erase)")
    p.add_argument("--sector-size", type=int, default=0, metavar="BYTES",
                   help=f"format with sectors of BYTES (0: the medium's default; up to "
                        f"{SECTOR_SIZE_MAX}, e.g. 4096 on em064lx, where a 4 KiB record is one "
                        f"sector)")
    p.add_argument("--ring-units", type=int, default=0, metavar="N",
                   help="format a record ring of N units (4 KiB records) and append to it "
                        "among the file calls: every acknowledged record the ring still holds "
                        "is checked after each cut")
    p.add_argument("--pending-max", type=int, default=0, metavar="K",
                   help="format with a pending table of K entries (0: the medium's default). "
                        "A small table makes transactions small (steady df: txn_sectors), so "
                        "unsynced writes commit implicitly and cuts meet those commits; e.g. 24")
    p.add_argument("--file-max", type=int, default=0, metavar="BYTES",
                   help="the model's files grow to BYTES (6000..1048576; 0: 6000, three "
                        "sectors): files of many chunks, written mostly without holes, truncated "
                        "across chunks, removed; transactions then fill and commit implicitly "
                        "with any table (three of four syncs and closes become writes), "
                        "e.g. 200000")
    p.add_argument("--meta", action="store_true",
                   help="setattr (mode, uid, gid) and symbolic links among the calls: modes, "
                        "owners and link targets are checked after every cut as contents are")
    p.add_argument("--hold", action="store_true",
                   help="configure the held sector (steadyfs_config.hold_buf): each write's "
                        "last sector waits in RAM for the sync, write, truncate or close that "
                        "programs it")
    p.add_argument("--handles", type=int, default=0, metavar="N",
                   help=f"open handles the model keeps, several on one file at times, and the "
                        f"file system's open_max (2..{HANDLES_MAX}; 0: 2); more handles make "
                        f"transactions smaller, --pending-max gives them room, e.g. 6 with "
                        f"--pending-max 64")
    p.add_argument("--fill", type=int, default=0, metavar="PERCENT",
                   help="first write a file of static data that takes the live sectors to "
                        "PERCENT of the live limit (0..90; 0: none): collection copies it under "
                        "the cuts and it is checked after each; near the limit files stop "
                        "growing and no new name is made, e.g. 65 with --file-max 100000")
    p.add_argument("--read-errors", type=int, default=0, metavar="PPM",
                   help="per device read, the chance in a million that a burst of 1-6 reads "
                        "returns no bytes (a bus or host error, SBD_ERR_IO; the file system tries "
                        "a read 3 times); a call that fails with EIO for it is checked as a cut "
                        f"is: mounted again, its files as before the call or after it (0..{READ_ERRORS_MAX}; "
                        "0: none), e.g. 2000")
    p.add_argument("--wear-limit", type=int, default=0, metavar="N",
                   help="units wear out at their Nth erase (0: the part's endurance, 100 000 on "
                        "NAND and NOR), so a long run meets anchor units retired and data units "
                        "gone bad under the cuts, and ends worn out: an ENOSPC or EIO once the "
                        "units have used 90 %% of it, or an EIO once an anchor-area unit has "
                        "reached it, is checked as a cut is and ends the run, e.g. 40 with "
                        "--blocks 128")
    p.add_argument("--fsck", action="store_true",
                   help="run fsck on the device after every cut's mount and at the end; an "
                        "error it finds is a failure")
    f = p.add_mutually_exclusive_group()
    f.add_argument("--faults", action="store_true",
                   help="bit flips within ECC and grown bad blocks (NAND; the default)")
    f.add_argument("--no-faults", action="store_true",
                   help="no bit flips or grown bad blocks (NAND)")
    p.add_argument("--spinand", action="store_true",
                   help="through the SPI NAND driver and the chip model (mt29f1g01)")
    p.add_argument("--verbose", action="store_true")
    p.set_defaults(func=_run)
