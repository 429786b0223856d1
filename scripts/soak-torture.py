#!/usr/bin/env python3
"""The power-loss torture's documented soak: ``make soak-torture``.

Runs ``build/steady-torture`` over a matrix of configurations and seeds,
``--jobs`` at a time, each with ``--fsck`` (fsck clean after every cut's
mount and at the end).  The configurations are the ones the soaks of
DESIGN.md section 4 and the README's torture row ran by hand: a small
pending table, so that unsynced writes commit implicitly (``--pending-max``),
files of many chunks (``--file-max``), a record ring, NOR's 32 KiB units and
the SPI NAND driver, setattr and symlinks (``--meta``), a device held
near its live limit by static data (``--fill``), on the three media.  Prints one line per run and a
summary; exits 1 if any run failed, with the replay line of each failure.

    scripts/soak-torture.py [--seeds 1-20] [--ops 20000] [--jobs N]
                            [--configs NAME,NAME...] [--list]
    scripts/soak-torture.py --random N [--random-seed S] [--ops 6000]

``--random N`` runs N configurations drawn (seeded) from the torture's
options instead -- medium, device size, handles, table size, fill, file
size, the held sector, setattr and symlinks, the ring, 4096-byte sectors,
NOR's 32 KiB units, the SPI NAND driver, how often power is cut -- each
with a seed of its own: combinations the matrix does not hold (its
twenty-second session run found a collection bug that way).  A drawn
combination the file system refuses to format is reported and skipped.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

REPO = Path(__file__).resolve().parent.parent

# name -> the options of steady-torture that make the configuration
CONFIGS: dict[str, list[str]] = {
    "nand-k16": ["--device", "mt29f1g01", "--pending-max", "16", "--powercut", "20"],
    "nand-k12-every": ["--device", "mt29f1g01", "--pending-max", "12", "--powercut", "every"],
    "nand-default": ["--device", "mt29f1g01", "--powercut", "every"],
    "nor-k12": ["--device", "mt25q128", "--pending-max", "12", "--powercut", "200"],
    "mram-k12": ["--device", "em064lx", "--pending-max", "12", "--powercut", "20"],
    "mram-k12-every": ["--device", "em064lx", "--pending-max", "12", "--powercut", "every"],
    "nand-big": ["--device", "mt29f1g01", "--file-max", "200000", "--powercut", "20"],
    "nand-big-k16": ["--device", "mt29f1g01", "--file-max", "400000", "--pending-max", "16",
                     "--powercut", "20", "--blocks", "64"],
    "nor-big": ["--device", "mt25q128", "--file-max", "200000", "--powercut", "200"],
    "mram-big": ["--device", "em064lx", "--file-max", "300000", "--powercut", "20"],
    "spinand-big": ["--device", "mt29f1g01", "--file-max", "200000", "--powercut", "every",
                    "--spinand"],
    "nand-ring": ["--device", "mt29f1g01", "--pending-max", "16", "--powercut", "20",
                  "--ring-units", "4"],
    "nand-meta": ["--device", "mt29f1g01", "--pending-max", "16", "--powercut", "20", "--meta"],
    "nor-meta": ["--device", "mt25q128", "--file-max", "100000", "--powercut", "200", "--meta"],
    "mram-meta": ["--device", "em064lx", "--pending-max", "12", "--powercut", "every", "--meta"],
    "nand-fill": ["--device", "mt29f1g01", "--file-max", "100000", "--fill", "65", "--powercut",
                  "20", "--meta"],
    "nor-fill": ["--device", "mt25q128", "--file-max", "100000", "--fill", "65", "--powercut", "200"],
    "mram-fill": ["--device", "em064lx", "--file-max", "100000", "--fill", "65", "--powercut",
                  "every", "--meta"],
    "nor-units8": ["--device", "mt25q128", "--pending-max", "12", "--powercut", "every",
                   "--erase-mult", "8"],
    # the held sector (steadyfs_config.hold_buf): small transactions, large
    # files, a nearly full device
    "nand-hold-k12": ["--device", "mt29f1g01", "--pending-max", "12", "--powercut", "every",
                      "--hold"],
    "nand-hold-big": ["--device", "mt29f1g01", "--file-max", "200000", "--powercut", "20",
                      "--hold", "--meta"],
    "nor-hold-fill": ["--device", "mt25q128", "--file-max", "100000", "--fill", "65",
                      "--powercut", "200", "--hold"],
    "mram-hold-k12": ["--device", "em064lx", "--pending-max", "12", "--powercut", "every",
                      "--hold", "--meta"],
    "mram-hold-big": ["--device", "em064lx", "--file-max", "300000", "--powercut", "20",
                      "--hold"],
    # six handles, several on one file at times (a server's clients), the
    # held sector, files of many chunks; a table of 64 keeps transactions
    "nand-hold-h6": ["--device", "mt29f1g01", "--file-max", "200000", "--powercut", "20",
                     "--hold", "--handles", "6", "--pending-max", "64"],
    "mram-hold-h6": ["--device", "em064lx", "--file-max", "200000", "--powercut", "20",
                     "--hold", "--handles", "6", "--pending-max", "64"],
    # 4096-byte sectors on MRAM: a 4 KiB record one sector, runs of two
    "mram-4k-hold": ["--device", "em064lx", "--sector-size", "4096", "--pending-max", "12",
                     "--powercut", "every", "--hold", "--meta"],
    "mram-4k-big": ["--device", "em064lx", "--sector-size", "4096", "--blocks", "64",
                    "--file-max", "300000", "--powercut", "20"],
    # cuts within every few programs while collection relocates a victim
    # near the limit, many handles on a small table (the runs that found a
    # mount restarting the victim's examination, twenty-second session)
    "nand-h8-k16-fill": ["--device", "mt29f1g01", "--blocks", "64", "--handles", "8",
                         "--pending-max", "16", "--fill", "65", "--file-max", "100000",
                         "--powercut", "every"],
    "nand-h6-k16-fill-hold": ["--device", "mt29f1g01", "--handles", "6", "--hold",
                              "--pending-max", "16", "--fill", "65", "--file-max", "100000",
                              "--powercut", "every"],
    # a pool where the R + 1 units relocation records may hold are at most an
    # eighth of it (gc.c records_weigh): collection starts R + 1 units early
    # and the sweep does not walk past clean indices, as on the default
    # mt29f1g01 and mt25q128; every other NAND and NOR configuration here is
    # a small pool, where neither happens
    "nand160-fill-hold": ["--device", "mt29f1g01", "--blocks", "160", "--fill", "65",
                          "--file-max", "200000", "--hold", "--meta", "--powercut", "20"],
}

FINAL = re.compile(r"^(\d+) power cuts, (\d+) checks, (\d+) failures$")
FOUND = re.compile(r"(\d+) files found after a cut")
DEVICE_DONE = re.compile(r": device (worn out|full \(the model's files[^)]*\)) after \d+ ops")


@dataclass
class Run:
    config: str
    seed: int
    ok: bool
    cuts: int = 0
    checks: int = 0
    implicit: int = 0
    worn_out: bool = False
    refused: bool = False
    detail: str = ""


REFUSED = "not a valid steadyfs configuration"


def random_configs(count: int, seed: int) -> list[tuple[str, list[str], int]]:
    """count (name, options, seed) drawn from the torture's option space."""
    rng = random.Random(seed)
    drawn: list[tuple[str, list[str], int]] = []
    for i in range(count):
        dev = rng.choice(["mt29f1g01", "mt29f1g01", "em064lx", "mt25q128"])
        opts = ["--device", dev]
        if dev == "mt29f1g01":
            opts += ["--blocks", str(rng.choice([24, 32, 48, 64, 128, 160]))]
            if rng.random() < 0.2:
                opts.append("--spinand")
            opts += ["--powercut", rng.choice(["every", "every", "20", "7"])]
        elif dev == "em064lx":
            if rng.random() < 0.3:
                opts += ["--sector-size", "4096"]
            opts += ["--blocks", str(rng.choice([0, 0, 64, 128]))]
            opts += ["--powercut", rng.choice(["every", "every", "20", "7"])]
        else:
            if rng.random() < 0.3:
                opts += ["--erase-mult", "8"]
            opts += ["--powercut", rng.choice(["every", "200", "50"])]
        handles = rng.choice([2, 2, 3, 4, 6, 8])
        if handles != 2:
            opts += ["--handles", str(handles)]
        table = rng.choice([0, 0, 12, 16, 20, 24, 48])
        if table:
            opts += ["--pending-max", str(table)]
        fill = rng.choice([0, 0, 40, 65, 75])
        if fill:
            opts += ["--fill", str(fill)]
        file_max = rng.choice([0, 0, 100000, 200000])
        if file_max:
            opts += ["--file-max", str(file_max)]
        if rng.random() < 0.4:
            opts.append("--hold")
        if rng.random() < 0.3:
            opts.append("--meta")
        if rng.random() < 0.15 and dev != "mt25q128":
            opts += ["--ring-units", "4"]
        drawn.append((f"random-{seed}-{i}", opts, rng.randrange(1000, 100000)))
    return drawn


def parse_seeds(text: str) -> list[int]:
    """'1-20' or '3,5,9' or '1-4,10' -> the seeds."""
    seeds: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        if not a.isdigit() or (b and not b.isdigit()):
            raise ValueError(f"--seeds {text}: want numbers and ranges such as 1-20,31")
        lo, hi = int(a), int(b) if b else int(a)
        if hi < lo:
            raise ValueError(f"--seeds {text}: range {part} runs backwards")
        seeds.extend(range(lo, hi + 1))
    return seeds


def run_one(exe: Path, config: str, opts: list[str], seed: int, ops: int) -> Run:
    argv = [str(exe), *opts, "--seed", str(seed), "--ops", str(ops), "--fsck"]
    p = subprocess.run(argv, capture_output=True, text=True, check=False)
    lines = p.stdout.splitlines()
    run = Run(config, seed, ok=False)
    if REFUSED in p.stdout + p.stderr:
        run.refused = True
        run.detail = " ".join(opts)
        return run
    for line in lines:
        m = FINAL.match(line)
        if m:
            run.cuts, run.checks = int(m.group(1)), int(m.group(2))
            run.ok = int(m.group(3)) == 0 and p.returncode == 0
        m2 = FOUND.search(line)
        if m2:
            run.implicit = int(m2.group(1))
        if DEVICE_DONE.search(line):   # (not the record ring's own "worn out" line)
            run.worn_out = True
    if not run.ok:
        bad = [ln for ln in lines if ln.startswith(("FAIL", "  fsck:", "replay:", "torture:"))]
        err = p.stderr.strip().splitlines()
        run.detail = " | ".join(bad + err[-3:]) or f"exit status {p.returncode}, no result line"
    return run


class OneLineErrors(argparse.ArgumentParser):
    """A bad option is one line and exit status 2, as the script's own checks are."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"soak-torture: {message}\n")


def main(argv: list[str] | None = None) -> int:
    ap = OneLineErrors(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="1-20", help="seeds, e.g. 1-20 or 5,7,100-110 (default 1-20)")
    ap.add_argument("--ops", type=int, default=20000, help="API calls a run (default 20000)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="runs at once (default: CPUs)")
    ap.add_argument("--configs", default=",".join(CONFIGS),
                    help="configurations to run, comma-separated (default: all; --list names them)")
    ap.add_argument("--torture", type=Path, default=REPO / "build" / "steady-torture",
                    help="the steady-torture binary (default build/steady-torture)")
    ap.add_argument("--list", action="store_true", help="print the configurations and exit")
    ap.add_argument("--random", type=int, default=0, metavar="N",
                    help="run N configurations drawn from the torture's options instead (seeded)")
    ap.add_argument("--random-seed", type=int, default=1, help="the draw of --random (default 1)")
    a = ap.parse_args(argv)
    if a.list:
        for name, opts in CONFIGS.items():
            print(f"{name:16} {' '.join(opts)}")
        return 0
    try:
        seeds = parse_seeds(a.seeds)
    except ValueError as e:
        print(f"soak-torture: {e}", file=sys.stderr)
        return 2
    configs = [c for c in a.configs.split(",") if c]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        print(f"soak-torture: --configs {','.join(unknown)}: want some of {','.join(CONFIGS)}",
              file=sys.stderr)
        return 2
    if a.ops < 1 or a.jobs < 1:
        print("soak-torture: --ops and --jobs want numbers >= 1", file=sys.stderr)
        return 2
    if not a.torture.exists():
        print(f"soak-torture: {a.torture} not found; build it with `make build`", file=sys.stderr)
        return 2
    if a.random < 0:
        print("soak-torture: --random wants a number >= 0", file=sys.stderr)
        return 2
    if a.random:
        jobs = random_configs(a.random, a.random_seed)
        configs = [name for name, _, _ in jobs]
        seeds = [1]
    else:
        jobs = [(c, CONFIGS[c], s) for s in seeds for c in configs]
    runs: list[Run] = []
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for run in pool.map(lambda j: run_one(a.torture, j[0], j[1], j[2], a.ops), jobs):
            if run.refused:
                print(f"{run.config:16} refused by the format: {run.detail}", flush=True)
                continue
            runs.append(run)
            state = "ok" if run.ok else "FAILED"
            extra = " (device worn out: stopped early)" if run.worn_out else ""
            if a.random:
                extra += f"\n    {' '.join(jobs[int(run.config.rsplit('-', 1)[1])][1])}"
            print(f"{run.config:16} seed {run.seed:<6} {state:6} {run.cuts:6} cuts {run.checks:8} "
                  f"checks {run.implicit:4} at an implicit commit{extra}"
                  + (f"\n    {run.detail}" if run.detail else ""), flush=True)
    failed = [r for r in runs if not r.ok]
    print(f"soak-torture: {len(runs)} runs of {a.ops} ops ({len(configs)} configurations x "
          f"{len(seeds)} seeds), {sum(r.cuts for r in runs)} power cuts, "
          f"{sum(r.checks for r in runs)} checks, {sum(r.implicit for r in runs)} files found at "
          f"an implicit commit, {sum(r.worn_out for r in runs)} stopped worn out, "
          f"{len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
