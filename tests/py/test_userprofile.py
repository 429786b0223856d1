"""User device profiles from a file (issue 15): `steady ram`, `steady bound`,
`steady plan`, `steady bench` and `steady torture` take `--profile-file FILE` for a chip we do not ship --
the example is a 2 Gbit SPI NAND with 4 KiB pages and 128 KiB blocks,
docs/examples/spinand-2g4k.json -- with no source edit.

Everything runs in subprocesses: a registered profile lives for the life of
a process, and the other tests in this one must see only the built-in ones.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "examples" / "spinand-2g4k.json"


def steady(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(REPO / "steady"), *args], capture_output=True, text=True,
                          timeout=300)


def example() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXAMPLE.read_text())
    return data


def write(tmp: Path, spec: dict[str, Any], name: str = "chip.json") -> Path:
    p = tmp / name
    p.write_text(json.dumps(spec))
    return p


def test_example_is_the_issue_chip() -> None:
    g = example()["geometry"]
    assert g["page_size"] == 4096
    assert g["page_size"] * g["pages_per_block"] == 128 * 1024
    assert g["page_size"] * g["pages_per_block"] * g["block_count"] * 8 == 2 << 30  # 2 Gbit


def test_ram_follows_the_file_geometry(tmp_path: Path) -> None:
    r = steady("ram", "--profile-file", str(EXAMPLE), "--json")
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    assert a["device"] == example()["name"]
    assert a["config"]["sector_size"] == 4096     # one page per sector on a 4 KiB page
    assert a["ram_bytes"]["sector_buffer"] == 4096
    # the block table is one byte per erase unit: half the blocks, that many bytes less
    spec = example()
    spec["name"] = "spinand-1g4k"
    spec["geometry"]["block_count"] //= 2
    r2 = steady("ram", "--profile-file", str(write(tmp_path, spec)), "--json",
                "--param", "max_inodes=256")
    r1 = steady("ram", "--profile-file", str(EXAMPLE), "--json", "--param", "max_inodes=256")
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    w1 = json.loads(r1.stdout)["ram_bytes"]["work"]
    w2 = json.loads(r2.stdout)["ram_bytes"]["work"]
    # (max_inodes fixed: the map roots and the inode bitmap stay the same;
    # the chunk bitmaps, 2 bits per chunk of the live limit, shrink a little,
    # and so do the relocation records, R + 4 of 6 + P/8 bytes each with
    # R = n_l1 / 4, at most 34, which halves with the map: format 21)
    half = example()["geometry"]["block_count"] // 2
    record = 6 + (example()["geometry"]["pages_per_block"] + 7) // 8
    assert half <= w1 - w2 <= half + 16 + 34 * record


def test_bound_prices_the_file_times(tmp_path: Path) -> None:
    r = steady("bound", "--profile-file", str(EXAMPLE), "--json")
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    assert a["device"] == "spinand-2g4k"
    # a slower erase in the file moves every bound by erases x the difference
    spec = example()
    spec["name"] = "spinand-2g4k-slow"
    extra_ns = 5_000_000
    spec["times"]["erase"]["max_ns"] += extra_ns
    r2 = steady("bound", "--profile-file", str(write(tmp_path, spec)), "--json")
    assert r2.returncode == 0, r2.stderr
    b = json.loads(r2.stdout)
    assert a["ops"] == b["ops"]
    moved = 0
    for call, us in a["bounds_us"].items():
        erases = a["ops"][call]["erases"]
        assert abs(b["bounds_us"][call] - us - erases * extra_ns / 1000) < 0.01, call
        moved += erases > 0
    assert moved > 0
    # and the built-in default is untouched by a file given to another process
    d = json.loads(steady("bound", "--json").stdout)
    assert d["device"] == "mt29f1g01" and d["bounds_us"] != a["bounds_us"]


def test_plan_takes_the_file(tmp_path: Path) -> None:
    r = steady("plan", "--profile-file", str(EXAMPLE), "--rate", "1k", "--json")
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    assert a["device"] == "spinand-2g4k" and a["c_ms"] > 0
    # a slower program in the file: a longer guaranteed time per record
    spec = example()
    spec["name"] = "spinand-2g4k-slowprog"
    spec["times"]["prog"]["max_ns"] *= 2
    r2 = steady("plan", "--profile-file", str(write(tmp_path, spec)), "--rate", "1k", "--json")
    assert r2.returncode == 0, r2.stderr
    assert json.loads(r2.stdout)["c_ms"] > a["c_ms"]


def test_bench_runs_on_the_file_profile() -> None:
    r = steady("bench", "--profile-file", str(EXAMPLE), "--blocks", "64", "--workload", "log4k",
               "--fs", "steadyfs", "--scale", "0.1", "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["device"] == "spinand-2g4k"
    assert s["max_latency_us"] > 0 and s["avg_throughput_kBps"] > 0
    # a 4 KiB record on 4 KiB pages: a write programs at least one page,
    # so no record is faster than one tPROG typical minus the jitter band
    tprog_us = example()["times"]["prog"]["typ_ns"] / 1000
    assert s["latency_us"]["p50"] >= tprog_us * 0.95


def test_torture_runs_on_the_file_profile(tmp_path: Path) -> None:
    """Power cuts on the user's geometry: the torture binary is another
    process, so the profile's numbers travel on its command line.  Its
    format takes the default sector size, which on 4 KiB pages is the page
    (the core refused 2048-byte sectors there before: EINVAL)."""
    r = steady("torture", "--profile-file", str(EXAMPLE), "--ops", "600", "--seed", "4",
               "--blocks", "48")
    assert r.returncode == 0, r.stdout + r.stderr
    last = r.stdout.strip().splitlines()
    assert last[-2].startswith("spinand-2g4k: 600 ops,"), r.stdout
    cuts = int(last[-1].split()[0])
    assert cuts > 10 and last[-1].endswith(" 0 failures"), r.stdout
    # a bad file: one line, exit 2, no run
    spec = example()
    spec["geometry"]["page_sise"] = 4096
    r = steady("torture", "--profile-file", str(write(tmp_path, spec)), "--ops", "10")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("steady torture: --profile-file ") and "page_sise" in r.stderr
    # --device still names a built-in part beside a file
    r = steady("torture", "--profile-file", str(EXAMPLE), "--device", "nosuch", "--ops", "10")
    assert r.returncode == 2 and "--device nosuch" in r.stderr, r.stderr


def test_image_tools_and_serve_take_the_file(tmp_path: Path) -> None:
    """An image of the user's chip: its header names the profile, so every
    command on it takes the same --profile-file; without it, one line that
    says so."""
    f = str(EXAMPLE)
    img, raw, img2 = tmp_path / "a.img", tmp_path / "a.raw", tmp_path / "b.img"
    local = tmp_path / "h.txt"
    local.write_bytes(b"on 4 KiB pages\n")
    r = steady("mkfs", str(img), "--profile-file", f, "--blocks", "64")
    assert r.returncode == 0, r.stderr
    assert "spinand-2g4k, 64 blocks" in r.stdout and "sectors of 4096 bytes" in r.stdout
    for args in (("put", str(local), f"{img}:/h.txt"), ("mkdir", f"{img}:/d"),
                 ("mv", f"{img}:/h.txt", f"{img}:/d/h.txt"), ("fsck", str(img)),
                 ("image", "export", str(img), "--raw", str(raw)),
                 ("image", "import", str(raw), str(img2))):
        r = steady(*args, "--profile-file", f)
        assert r.returncode == 0, (args, r.stderr)
    r = steady("cat", f"{img2}:/d/h.txt", "--profile-file", f)
    assert r.returncode == 0 and r.stdout == "on 4 KiB pages\n", r.stderr
    r = steady("df", str(img2), "--json", "--profile-file", f)
    assert r.returncode == 0 and json.loads(r.stdout)["files"] == 1, r.stderr
    # without the file: a one-line error naming the option
    r = steady("ls", f"{img}:/")
    assert r.returncode != 0 and r.stderr.count("\n") == 1, r.stderr
    assert "spinand-2g4k" in r.stderr and "--profile-file" in r.stderr
    # a bad file: one line, exit 2, the image untouched
    bad = example()
    bad["geometry"]["page_sise"] = 1
    r = steady("rm", f"{img}:/d/h.txt", "--profile-file", str(write(tmp_path, bad)))
    assert r.returncode == 2 and r.stderr.startswith("steady rm: --profile-file "), r.stderr
    assert steady("cat", f"{img}:/d/h.txt", "--profile-file", f).stdout == "on 4 KiB pages\n"
    # served over 9P
    from steadyfs.p9client import Client
    p = subprocess.Popen([str(REPO / "steady"), "serve", str(img), "--profile-file", f,
                          "--listen", "tcp:127.0.0.1:0"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None
        line = p.stdout.readline()
        assert line.startswith("listening on tcp:127.0.0.1:"), line + (p.stderr.read() if p.stderr else "")
        with Client("127.0.0.1", int(line.strip().rsplit(":", 1)[1])) as c:
            assert c.get("/d/h.txt") == b"on 4 KiB pages\n"
            c.put("/new.bin", bytes(range(256)) * 40)
    finally:
        p.terminate()
        p.communicate(timeout=30)
    rb = subprocess.run([str(REPO / "steady"), "cat", f"{img}:/new.bin", "--profile-file", f],
                        capture_output=True, timeout=60)
    assert rb.returncode == 0 and rb.stdout == bytes(range(256)) * 40, rb.stderr
    r = steady("fsck", str(img), "--profile-file", f)
    assert r.returncode == 0 and "clean" in r.stdout, r.stdout + r.stderr


def test_bad_files_are_one_line_errors(tmp_path: Path) -> None:
    cases: list[tuple[dict[str, Any], str]] = []
    spec = example()
    spec["geometry"]["page_sise"] = 4096
    cases.append((spec, "unknown key(s) geometry.page_sise"))
    spec = example()
    del spec["geometry"]["block_count"]
    cases.append((spec, "geometry.block_count is required"))
    spec = example()
    spec["geometry"]["page_size"] = 3000
    cases.append((spec, "not a device the models can run"))
    spec = example()
    spec["kind"] = "sd"
    cases.append((spec, "\"kind\" must be one of nand, nor, mram"))
    spec = example()
    spec["name"] = "mt29f1g01"
    cases.append((spec, "a device profile of that name exists"))
    spec = example()
    spec["times"]["prog"]["max_ns"] = 1000
    cases.append((spec, "not a device the models can run"))
    for i, (spec, want) in enumerate(cases):
        f = write(tmp_path, spec, f"bad{i}.json")
        for cmd in ("ram", "bound"):
            r = steady(cmd, "--profile-file", str(f))
            assert r.returncode == 2, (cmd, want, r.stdout)
            assert want in r.stderr and r.stderr.count("\n") == 1, (cmd, want, r.stderr)
    r = steady("ram", "--profile-file", str(tmp_path / "missing.json"))
    assert r.returncode == 2 and "No such file" in r.stderr


def test_shared_helper_registers_once() -> None:
    """The helper other commands (steady plan) use: the same profile twice
    is one profile; a different one under that name is refused."""
    code = f"""
import json, sys
from pathlib import Path
from steadyfs import native, userprofile
spec = json.loads(Path({str(EXAMPLE)!r}).read_text())
n0 = len(native.profiles())
assert userprofile.register(spec) == "spinand-2g4k"
assert userprofile.register_file(Path({str(EXAMPLE)!r})) == "spinand-2g4k"
assert len(native.profiles()) == n0 + 1
assert native.profile("spinand-2g4k")["geometry"]["page_size"] == 4096
spec["times"]["read"]["max_ns"] += 1
try:
    userprofile.register(spec)
except userprofile.ProfileFileError as e:
    assert "already in use" in str(e)
else:
    sys.exit("registered a different profile under a known name")
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       cwd=REPO)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
