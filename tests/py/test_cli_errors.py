"""Bad input to `steady ram`, `bench` and `torture` (issue 13): each is one
line on stderr naming what is wrong, a non-zero exit, never a traceback;
and the replay line torture prints after a failure runs as printed."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from clirun import assert_one_line_error, steady
from steadyfs import cmd_torture, native

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not native.library_path().exists(),
                                reason="native library not built")


@pytest.mark.parametrize("args,needle", [
    (["--device", "nope"], "--device nope"),
    (["--device", "sd-consumer"], "SD card"),
    (["--open-max", "-1"], "--open-max -1"),
    (["--open-max", "0"], "--open-max 0"),
    (["--open-max", "100000"], "--open-max 100000"),
    (["--blocks", "3"], "--blocks 3"),
    (["--blocks", "-3"], "--blocks -3"),
    (["--blocks", "5000"], "--blocks 5000"),
    (["--param", "max_inodes=2"], "max_inodes=2"),
])
def test_ram_bad_input(args: list[str], needle: str) -> None:
    assert_one_line_error(steady("ram", *args), needle)


@pytest.mark.parametrize("param", ["append=0", "keep=0", "total=0", "file_size=0"])
def test_bench_zero_parameter(param: str) -> None:
    r = steady("bench", "--device", "mt29f1g01", "--workload", "log4k", "--fs", "steadyfs",
               "--blocks", "64", "--param", param)
    assert_one_line_error(r, f"--param {param}")


@pytest.mark.parametrize("args,needle", [
    (["--ops", "-5"], "--ops -5"),
    (["--ops", "0"], "--ops 0"),
    (["--ops", str(1 << 32)], "--ops"),
    (["--powercut", "sometimes"], "--powercut sometimes"),
    (["--powercut", "-1"], "--powercut -1"),
    (["--seed", "-1"], "--seed -1"),
    (["--device", "nope"], "--device nope"),
    (["--device", "sd-consumer"], "--device sd-consumer"),
    (["--pending-max", "-1"], "--pending-max -1"),
    (["--pending-max", "4"], "--pending-max 4"),
    (["--file-max", "100"], "--file-max 100"),
    (["--file-max", str(1 << 21)], "--file-max"),
    (["--fill", "95"], "--fill 95"),
    (["--sector-size", "100000"], "--sector-size 100000"),
    (["--device", "em064lx", "--sector-size", "1000"], "--sector-size 1000"),
    (["--device", "em064lx", "--blocks", "3"], "--blocks 3"),
    (["--handles", "9"], "--handles 9"),
    (["--handles", "1"], "--handles 1"),
    (["--device", "mt29f1g01", "--handles", "8", "--pending-max", "8"], "--handles 8 --pending-max 8"),
    (["--wear-limit", "-1"], "--wear-limit -1"),
    (["--wear-limit", "2000000"], "--wear-limit 2000000"),
])
def test_torture_bad_input(args: list[str], needle: str) -> None:
    assert_one_line_error(steady("torture", *args), needle)


@pytest.mark.parametrize("args,needle", [
    # what argparse itself refuses is one line too (cli.py OneLineErrors)
    (["torture", "--ops", "abc"], "--ops"),
    (["torture", "--fill", "abc"], "--fill"),
    (["bound", "--timing", "bad"], "--timing"),
    (["image", "create"], "required"),
])
def test_argparse_errors_one_line(args: list[str], needle: str) -> None:
    assert_one_line_error(steady(*args), needle)


def test_unknown_command_one_line() -> None:
    r = steady("nosuch")
    err = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(err) == 1 and err[0].startswith("steady: ") and "nosuch" in err[0]


@pytest.mark.skipif(not cmd_torture.binary().exists(), reason="steady-torture not built")
@pytest.mark.parametrize("line", [
    # exactly the lines tests/c/test_fs_torture.c pins steady_torture_replay() to
    "replay: steady torture --device mt29f1g01 --seed 5 --ops 40 --powercut every",
    "replay: steady torture --device mt29f1g01 --seed 7 --ops 40 --powercut 3 --blocks 64 "
    "--no-faults",
    "replay: steady torture --device em064lx --seed 9 --ops 40 --powercut 0 --read-errors 2000",
    "replay: steady torture --device mt25q128 --seed 11 --ops 40 --powercut 200 "
    "--pending-max 12 --file-max 100000 --meta --fsck",
    "replay: steady torture --device mt29f1g01 --seed 13 --ops 40 --powercut 20 --fsck "
    "--wear-limit 12",
])
def test_torture_replay_line_runs_as_printed(line: str) -> None:
    words = shlex.split(line.removeprefix("replay: "))
    assert words[:2] == ["steady", "torture"]
    r = steady(*words[1:])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 failures" in r.stdout


def test_torture_binary_refuses_bad_numbers() -> None:
    """build/steady-torture itself, not only the CLI in front of it."""
    exe = cmd_torture.binary()
    if not exe.exists():
        pytest.skip("steady-torture not built")
    for args in (["--ops", "-5"], ["--powercut", "sometimes"], ["--seed", "x"], ["--wear-limit", "x"]):
        r = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_firmware_run_never_creates_a_named_image(tmp_path: Path) -> None:
    """Issue 13: a mistyped --image must not become a new, empty device."""
    img = tmp_path / "typo.img"
    for extra in ([], ["--listen", "tcp:127.0.0.1:0"]):
        assert_one_line_error(steady("firmware", "run", "--image", str(img), *extra),
                              "no such file", "--create")
        assert not img.exists()
    img.write_bytes(b"")
    assert_one_line_error(steady("firmware", "run", "--image", str(img), "--create"), "exists")
    assert img.read_bytes() == b""


def test_demo_builds_every_program_the_readme_names(tmp_path: Path) -> None:
    """Issue 13: after `make demo`, torture, mkfs..., serve, mount and model
    said their binary was missing.  `make demo` (dry run into an empty build
    directory) builds each program a `steady` command execs."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    r = subprocess.run(["make", "-n", "-B", f"BUILD={tmp_path}/b", "demo"], cwd=REPO,
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    for prog in ("steady-img", "steady-torture", "steady-serve", "steady-mount",
                 "steady-fsocexp", "steady-relay", "libsteady.so"):
        assert f"{tmp_path}/b/{prog}" in r.stdout, prog
    if subprocess.run(["sh", "-c", "command -v arm-none-eabi-gcc"], capture_output=True).returncode == 0:
        assert f"{tmp_path}/b/firmware/steadyfs-fw.elf" in r.stdout
    # and the demo itself runs after the build
    assert "./steady demo" in r.stdout
    assert not (tmp_path / "b").exists()


def test_serve_takes_the_image_first_like_mkfs_and_fsck() -> None:
    """`steady serve IMAGE` (one convention with mkfs, fsck, df; --image kept)."""
    import argparse

    from steadyfs import cmd_serve

    parser = argparse.ArgumentParser()
    cmd_serve.register(parser.add_subparsers())
    args = parser.parse_args(["serve", "fs.img", "--listen", "unix:/tmp/x"])
    assert args.image_pos == "fs.img" and args.image is None
    args.image = args.image_pos
    argv = cmd_serve.argv_for(args)
    assert argv[argv.index("--image") + 1] == "fs.img"
    assert_one_line_error(steady("serve"), "which image")
    assert_one_line_error(steady("serve", "a.img", "--image", "b.img"), "two images")


@pytest.mark.parametrize("lib", ["missing", "not-a-library"])
@pytest.mark.parametrize("args", [
    ["bound", "--device", "em064lx"],
    ["plan", "--device", "em064lx", "--rate", "10k"],
    ["ram", "--device", "em064lx"],
    ["bench", "--device", "em064lx", "--workload", "log4k", "--fs", "steadyfs"],
    ["devices"],
])
def test_unusable_native_library_is_one_line(tmp_path: Path, lib: str, args: list[str]) -> None:
    """STEADYFS_LIB naming no file, or a file that is not a shared object
    (a half-built or foreign one): one line naming the library, no
    traceback (`steady bound` loaded it itself and printed one)."""
    path = tmp_path / "libsteady.so"
    if lib == "not-a-library":
        path.write_bytes(b"not an ELF file")
    env = dict(os.environ, STEADYFS_LIB=str(path), PYTHONPATH=str(REPO / "python"))
    r = subprocess.run([sys.executable, "-m", "steadyfs.cli", *args], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=120)
    assert_one_line_error(r, str(path))


@pytest.mark.parametrize("args,needle", [
    (["--jobs", "-3"], "--jobs -3"),
    (["--jobs", "0"], "--jobs 0"),
    (["--out", "/proc/nope/report"], "--out /proc/nope/report"),
])
def test_demo_bad_input(args: list[str], needle: str) -> None:
    """Refused before any run starts (a negative --jobs used to start 40 runs)."""
    assert_one_line_error(steady("demo", "--quick", *args), needle)
