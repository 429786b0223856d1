"""Host tools on image files: mkfs, fsck, ls, cat, put, get, rm, mkdir, mv,
image create/extract (build/steady-img through `steady`).

fsck must pass every image the tools make and find every deliberate damage:
a data sector, a tag, a map sector, a checkpoint, the anchors."""

from __future__ import annotations

import hashlib
import json
import os
import random
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from steadyfs import imgtool

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not imgtool.binary().exists(), reason="steady-img not built")

BLOCKS = "48"   # mt29f1g01 units of 128 KiB: a 6 MiB device, sparse file


def steady(*args: str | Path, ok: bool | None = True) -> subprocess.CompletedProcess[bytes]:
    r = subprocess.run([sys.executable, "-m", "steadyfs.cli", *map(str, args)], cwd=REPO,
                       capture_output=True, timeout=120)
    if ok is True:
        assert r.returncode == 0, r.stderr.decode() + r.stdout.decode()
    elif ok is False:
        assert r.returncode != 0, r.stdout.decode()
        err = r.stderr.decode().strip()
        # one clear line, naming the command
        assert err.startswith("steady ") and len(err.splitlines()) == 1, err
    return r


def direct(*args: str | Path, ok: bool = True) -> subprocess.CompletedProcess[bytes]:
    """steady-img itself: the bulk of a sequence without the CLI's start-up."""
    r = subprocess.run([str(imgtool.binary()), *map(str, args)], capture_output=True, timeout=60)
    assert r.returncode == 0 or not ok, r.stderr.decode()
    return r


def fsck(img: Path, cli: bool = False) -> tuple[int, dict[str, Any]]:
    if cli:
        r = steady("fsck", "--image", img, "--json", ok=None)
    else:
        r = direct("fsck", "--image", img, "--json", ok=False)
    return r.returncode, json.loads(r.stdout)


def digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


# ---- reading the image layout (docs/SIM-IMAGE.md, docs/SPEC.md §2) ---------

class Image:
    """Pages of a NAND image with their tags (spare mode), for damaging it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.raw = bytearray(path.read_bytes())
        self.page, self.spare, self.ppb, self.blocks = (
            int(v) for v in struct.unpack_from("<IIII", self.raw, 52))
        self.data_off = int(struct.unpack_from("<Q", self.raw, 88)[0])

    def off(self, block: int, page: int) -> int:
        return self.data_off + (block * self.ppb + page) * (self.page + self.spare)

    def main(self, block: int, page: int) -> bytes:
        o = self.off(block, page)
        return bytes(b ^ 0xFF for b in self.raw[o:o + self.page])   # stored XOR erased

    def tag(self, block: int, page: int) -> tuple[int, int, int]:
        """(kind, seq, key) of a page's tag."""
        o = self.off(block, page) + self.page
        t = bytes(b ^ 0xFF for b in self.raw[o:o + 32])
        return t[0], int(struct.unpack_from("<Q", t, 4)[0]), int(struct.unpack_from("<I", t, 12)[0])

    def pages(self) -> list[tuple[int, int]]:
        return [(b, p) for b in range(self.blocks) for p in range(self.ppb)]

    def newest(self, kind: int, blocks: range | None = None) -> tuple[int, int]:
        """The page with the highest sequence number among tags of a kind."""
        best: tuple[int, int, int] | None = None
        for b, p in self.pages():
            if blocks is not None and b not in blocks:
                continue
            k, seq, _ = self.tag(b, p)
            if k == kind and (best is None or seq > best[0]):
                best = (seq, b, p)
        assert best is not None, f"no sector of kind {kind}"
        return best[1], best[2]

    def flip(self, block: int, page: int, at: int) -> None:
        self.raw[self.off(block, page) + at] ^= 0x24

    def save(self, to: Path) -> Path:
        to.write_bytes(bytes(self.raw))
        return to


# ---- fixtures ------------------------------------------------------------

def make_tree(root: Path, seed: int = 1) -> None:
    rnd = random.Random(seed)
    (root / "a" / "b" / "c" / "d" / "e").mkdir(parents=True)
    (root / "empty-dir").mkdir()
    (root / "empty.bin").write_bytes(b"")
    (root / "a" / "b" / "empty2").write_bytes(b"")
    (root / "big.bin").write_bytes(rnd.randbytes(700_000))          # > 5 erase units
    (root / "a" / "b" / "c" / "d" / "e" / "deep.txt").write_bytes(b"deep\n")
    (root / ("n" * 255)).write_bytes(b"longest name")
    (root / "a" / ("\u00e9" * 127 + "x")).write_bytes(b"255 bytes of UTF-8")
    for i in range(40):
        (root / "a" / f"f{i:02d}.dat").write_bytes(rnd.randbytes(rnd.randrange(0, 9000)))


def tree_of(root: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for p in sorted(root.rglob("*")):
        out[str(p.relative_to(root))] = None if p.is_dir() else p.read_bytes()
    return out


@pytest.fixture()
def good(tmp_path: Path) -> Path:
    """An image with a tree, made by image create."""
    src = tmp_path / "src"
    src.mkdir()
    make_tree(src)
    img = tmp_path / "good.img"
    steady("image", "create", src, img, "--device", "mt29f1g01", "--blocks", BLOCKS)
    return img


# ---- round trips -------------------------------------------------------------

def test_image_create_extract_round_trip(tmp_path: Path, good: Path) -> None:
    out = tmp_path / "out"
    before = digest(good)
    steady("image", "extract", good, out)
    assert digest(good) == before, "extract changed the image"
    want = tree_of(tmp_path / "src")
    assert tree_of(out) == want
    rc, rep = fsck(good, cli=True)
    assert rc == 0 and rep["clean"] is True and rep["errors"] == 0, rep
    files = sum(1 for v in want.values() if v is not None)
    dirs = sum(1 for v in want.values() if v is None) + 1   # and the root
    assert rep["files"] == files and rep["dirs"] == dirs
    assert rep["bytes"] == sum(len(v) for v in want.values() if v is not None)


def test_file_commands(tmp_path: Path) -> None:
    img = tmp_path / "t.img"
    steady("mkfs", "--device", "mt29f1g01", "--image", img, "--blocks", BLOCKS)
    local = tmp_path / "hello.txt"
    local.write_bytes(b"hello, steadyfs\n")
    steady("mkdir", f"{img}:/logs")
    steady("mkdir", "-p", f"{img}:/x/y/z")
    steady("put", local, f"{img}:/logs")                      # into a directory: keeps the name
    steady("put", local, f"{img}:/x/y/renamed.txt")
    assert steady("cat", f"{img}:/logs/hello.txt").stdout == local.read_bytes()
    assert steady("ls", img).stdout.decode().split() == ["logs/", "x/"]
    listing = steady("ls", f"{img}:/", "-R", "-l").stdout.decode().splitlines()
    assert any(line.split()[-1] == "x/y/renamed.txt" and line.split()[1] == "16"
               for line in listing), listing
    steady("mv", f"{img}:/x/y/renamed.txt", f"{img}:/logs/moved.txt")
    steady("mv", f"{img}:/logs/moved.txt", "/x")              # into a directory
    assert steady("ls", f"{img}:/x").stdout.decode().split() == ["moved.txt", "y/"]
    got = tmp_path / "got.txt"
    steady("get", f"{img}:/x/moved.txt", got)
    assert got.read_bytes() == local.read_bytes()
    steady("rm", f"{img}:/x/moved.txt")
    r = steady("rm", f"{img}:/x", ok=False)
    assert b"not empty" in r.stderr and b"-r" in r.stderr
    steady("rm", "-r", f"{img}:/x")
    assert steady("ls", img).stdout.decode().split() == ["logs/"]
    rc, rep = fsck(img)
    assert rc == 0 and rep["files"] == 1, rep


def test_many_operations_leave_a_clean_image(tmp_path: Path) -> None:
    """A torture-like sequence through the tools: many puts, overwrites,
    removals and renames (garbage collection runs), then fsck."""
    img = tmp_path / "busy.img"
    steady("mkfs", "--device", "mt29f1g01", "--image", img, "--blocks", "16")
    rnd = random.Random(7)
    data = tmp_path / "d.bin"
    live: dict[str, bytes] = {}
    for i in range(60):
        name = f"/f{rnd.randrange(8)}"
        if rnd.random() < 0.25 and live:
            victim = rnd.choice(sorted(live))
            direct("rm", f"{img}:{victim}")
            del live[victim]
            continue
        blob = rnd.randbytes(rnd.randrange(1, 120_000))
        data.write_bytes(blob)
        direct("put", data, f"{img}:{name}")
        live[name] = blob
    rc, rep = fsck(img)
    assert rc == 0, rep
    assert rep["files"] == len(live) and rep["bytes"] == sum(map(len, live.values()))
    for name, blob in live.items():
        assert direct("cat", f"{img}:{name}").stdout == blob


def test_failed_put_keeps_the_old_file(tmp_path: Path) -> None:
    img = tmp_path / "small.img"
    direct("mkfs", "--device", "mt29f1g01", "--image", img, "--blocks", "16")
    old, big = tmp_path / "old.txt", tmp_path / "big.bin"
    old.write_bytes(b"keep me\n")
    big.write_bytes(random.Random(5).randbytes(2_000_000))   # more than the capacity
    direct("put", old, f"{img}:/f")
    r = steady("put", big, f"{img}:/f", ok=False)
    assert b"no space" in r.stderr
    assert direct("cat", f"{img}:/f").stdout == b"keep me\n"
    assert direct("ls", img).stdout.split() == [b"f"]          # no temporary left
    rc, rep = fsck(img)
    assert rc == 0 and rep["files"] == 1, rep


@pytest.mark.parametrize("device,blocks", [("mt25q128", "256"), ("em064lx", "16")])
def test_inline_tag_media_round_trip(tmp_path: Path, device: str, blocks: str) -> None:
    src = tmp_path / "src"
    (src / "d").mkdir(parents=True)
    (src / "d" / "x.bin").write_bytes(random.Random(3).randbytes(150_000))
    (src / "e").write_bytes(b"")
    img = tmp_path / "n.img"
    steady("image", "create", src, img, "--device", device, "--blocks", blocks)
    steady("image", "extract", img, tmp_path / "out")
    assert tree_of(tmp_path / "out") == tree_of(src)
    rc, rep = fsck(img)
    assert rc == 0 and rep["device"] == device, rep


def test_mkfs_options_are_read_back_from_the_medium(tmp_path: Path) -> None:
    img = tmp_path / "o.img"
    steady("mkfs", "--device", "mt29f1g01", "--image", img, "--blocks", BLOCKS,
           "--max-inodes", "64", "--dir-pages", "4", "--fill-permille", "500")
    steady("mkdir", f"{img}:/k")
    rc, rep = fsck(img)
    assert rc == 0 and rep["dirs"] == 2, rep


# ---- errors --------------------------------------------------------------------

def test_errors_are_one_clear_line(tmp_path: Path, good: Path) -> None:
    steady("mkfs", "--device", "no-such-part", "--image", tmp_path / "x.img", ok=False)
    r = steady("mkfs", "--device", "mt29f1g01", "--image", good, ok=False)
    assert b"--force" in r.stderr
    steady("cat", f"{good}:/nope", ok=False)
    steady("put", tmp_path / "missing", f"{good}:/m", ok=False)
    steady("ls", f"{tmp_path / 'missing.img'}:/", ok=False)
    steady("mv", f"{good}:/a", f"{tmp_path / 'other.img'}:/a", ok=False)
    junk = tmp_path / "junk.img"
    junk.write_bytes(os.urandom(8192))
    r = steady("ls", junk, ok=False)
    assert b"not a steadyfs device image" in r.stderr
    assert steady("fsck", "--image", junk, ok=None).returncode == 2
    # no repair: the flag is refused, not ignored
    r = steady("fsck", "--image", good, "--repair", ok=None)
    assert r.returncode == 2 and b"unrecognized arguments: --repair" in r.stderr
    # a tree with something steadyfs cannot store leaves no image behind
    src = tmp_path / "withlink"
    src.mkdir()
    (src / "l").symlink_to("/etc/hostname")
    img = tmp_path / "never.img"
    r = steady("image", "create", src, img, "--device", "mt29f1g01", "--blocks", BLOCKS, ok=False)
    assert b"not a regular file" in r.stderr and not img.exists()


# ---- damage: each one found --------------------------------------------------------

def damaged(tmp_path: Path, good: Path, name: str, how: str) -> tuple[int, dict[str, Any]]:
    img = Image(good)
    big = (tmp_path / "src" / "big.bin").read_bytes()
    if how in ("data", "tag"):
        # the page holding bytes 4096.. of big.bin (its third page)
        chunk = big[2 * img.page: 2 * img.page + 64]
        where = next((b, p) for b, p in img.pages() if img.main(b, p)[:64] == chunk)
        img.flip(*where, 100 if how == "data" else img.page + 13)
    elif how in ("map1", "map2"):
        b, p = img.newest(2 if how == "map1" else 3, range(4, img.blocks))
        img.flip(b, p, 8)
    elif how == "old-checkpoint":
        b, p = img.newest(4, range(0, 4))
        assert p > 0
        img.flip(b, p - 1, 200)
    elif how == "new-checkpoint":
        img.flip(*img.newest(4, range(0, 4)), 200)
    elif how == "anchors":
        for b in range(2):
            for p in range(img.ppb):
                img.flip(b, p, 1)
    out = img.save(tmp_path / f"{name}.img")
    before = digest(out)
    code, rep = fsck(out)
    direct("ls", "-R", out, ok=False)
    direct("image", "extract", out, tmp_path / f"x-{name}", ok=False)
    assert digest(out) == before, "a read-only command modified a damaged image"
    return code, rep


@pytest.mark.parametrize("how,needle", [
    ("data", "payload CRC mismatch"),
    ("tag", "tag invalid"),
    ("map1", "L1 map"),
    ("old-checkpoint", "checkpoint in anchor unit"),
])
def test_fsck_finds_damage(tmp_path: Path, good: Path, how: str, needle: str) -> None:
    code, rep = damaged(tmp_path, good, how, how)
    msgs = "\n".join(map(str, rep["messages"]))
    assert code == 1 and rep["clean"] is False and rep["errors"] >= 1, msgs
    assert needle in msgs, msgs


def test_fsck_notes_a_damaged_newest_checkpoint(tmp_path: Path, good: Path) -> None:
    """The newest checkpoint damaged looks exactly like one torn by a power
    cut: mount steps back to the previous one; fsck says so."""
    code, rep = damaged(tmp_path, good, "newest", "new-checkpoint")
    msgs = "\n".join(map(str, rep["messages"]))
    assert rep["notes"] == 1 and "newest checkpoint torn or damaged" in msgs, msgs


def test_fsck_cannot_read_without_anchors(tmp_path: Path, good: Path) -> None:
    code, rep = damaged(tmp_path, good, "anchors", "anchors")
    assert code == 2 and rep["readable"] is False, rep
    r = steady("ls", tmp_path / "anchors.img", ok=False)
    assert b"no steadyfs checkpoint" in r.stderr


def test_fsck_text_output(tmp_path: Path, good: Path) -> None:
    r = steady("fsck", "--image", good)
    assert b": clean: 0 errors;" in r.stdout
