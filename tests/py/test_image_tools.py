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
import zlib
from pathlib import Path
from typing import Any

import pytest



@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Images are compared byte for byte: every time the tools set (format,
    setattr's ctime) is this one (sh_clock_ns honours SOURCE_DATE_EPOCH); for
    this module's tests only."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")

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


def fnv1a(name: bytes) -> int:
    """steadyfs's directory hash (src/fs/dir.c)."""
    h = 2166136261
    for c in name:
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


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

    def vol(self) -> int:
        """The volume id (tag CRC seed) from the newest checkpoint."""
        return int(struct.unpack_from("<I", self.main(*self.newest(4)), 108)[0])

    def rename_entry(self, name: bytes, new: bytes) -> int:
        """Rename a directory entry in place, as an older core wrote one:
        name bytes and hash changed in every bucket sector that holds it,
        each re-sealed (payload and tag CRCs), so fsck and mount see a
        valid sector.  Same length and bucket: nothing else moves.
        Returns the sectors changed."""
        assert len(new) == len(name) and fnv1a(new) % 8 == fnv1a(name) % 8
        needle = struct.pack("<I", fnv1a(name))
        vol, n = self.vol(), 0
        for b, p in self.pages():
            if self.tag(b, p)[0] != 1:
                continue
            sec = bytearray(self.main(b, p))
            at = sec.find(needle, 16)   # entries follow the 16-byte bucket header
            while at >= 0:
                if sec[at + 9] == len(name) and sec[at + 10:at + 10 + len(name)] == name:
                    sec[at:at + 4] = struct.pack("<I", fnv1a(new))
                    sec[at + 10:at + 10 + len(new)] = new
                    n += 1
                at = sec.find(needle, at + 1)
            if bytes(sec) == self.main(b, p):
                continue
            o = self.off(b, p)
            tag = bytearray(b ^ 0xFF for b in self.raw[o + self.page:o + self.page + 32])
            tag[24:28] = struct.pack("<I", zlib.crc32(bytes(sec)))
            tag[28:32] = struct.pack("<I", zlib.crc32(bytes(tag[:28]), vol))
            self.raw[o:o + self.page] = bytes(x ^ 0xFF for x in sec)
            self.raw[o + self.page:o + self.page + 32] = bytes(x ^ 0xFF for x in tag)
        return n

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
    # mode, uid, gid, size, date, time, inode, name
    assert any(line.split()[-1] == "x/y/renamed.txt" and line.split()[3] == "16"
               and line.startswith("-rw-") for line in listing), listing
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
    # 18 blocks: 6 units under the fill limit, the 5 that 16 blocks had
    # before format 19 kept one for the checkpoints' switch, and one more
    steady("mkfs", "--device", "mt29f1g01", "--image", img, "--blocks", "18")
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


# (mt25q128: 20 units of 64 KiB.  Since format 19 kept a unit for the
# checkpoints' switch, 16 units hold 190 KB: the 150 KB file and its map
# took 168 KB, and the rest was too little for the tree's last entry.)
@pytest.mark.parametrize("device,blocks", [("mt25q128", "320"), ("em064lx", "16")])
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


# ---- "." and ".." (issue 13) ----------------------------------------------------

def test_dot_and_dotdot_are_resolved_never_created(tmp_path: Path) -> None:
    """IMAGE:/path resolves "." and ".." as POSIX does; the core refuses
    them as names, so no command creates an entry called "." or ".."."""
    img = tmp_path / "d.img"
    direct("mkfs", "--device", "mt29f1g01", "--image", img, "--blocks", "16")
    local = tmp_path / "f"
    local.write_bytes(b"f\n")
    steady("put", local, f"{img}:/.")                  # into the root: keeps the name
    r = steady("mkdir", f"{img}:/..", ok=False)       # the root exists
    assert b"exists" in r.stderr
    steady("mkdir", "-p", f"{img}:/x/./y")
    steady("mkdir", "-p", f"{img}:/x/../z/./w/")
    steady("put", local, f"{img}:/a")
    steady("mv", f"{img}:/a", f"{img}:/.")             # onto itself: nothing to do
    steady("mv", f"{img}:/a", f"{img}:/x/y/..")        # into /x, keeps the name
    steady("mv", f"{img}:/x/a", "/z/./w/../b")
    listing = direct("ls", "-R", img).stdout.decode().split()
    assert listing == ["f", "x/", "x/y/", "z/", "z/b", "z/w/"], listing
    assert direct("cat", f"{img}:/z/w/../b").stdout == b"f\n"
    rc, rep = fsck(img)
    assert rc == 0 and rep["files"] == 2 and rep["dirs"] == 5, rep


def test_old_dot_entries_are_reported_and_skipped(tmp_path: Path) -> None:
    """An image an older core wrote with entries named "." and "..": fsck
    reports them (errors: no path reaches them); ls, extract and rm -r
    carry on past them with a warning."""
    img = tmp_path / "old.img"
    direct("mkfs", "--device", "mt29f1g01", "--image", img, "--blocks", "16")
    one = next(bytes([c]) for c in range(ord("a"), ord("z") + 1)
               if fnv1a(bytes([c])) % 8 == fnv1a(b".") % 8)
    two = next(bytes([c, d]) for c in range(ord("a"), ord("z") + 1)
               for d in range(ord("a"), ord("z") + 1)
               if fnv1a(bytes([c, d])) % 8 == fnv1a(b"..") % 8)
    keep = next(f"keep{i}" for i in range(99)
                if fnv1a(f"keep{i}".encode()) % 8 not in (fnv1a(one) % 8, fnv1a(two) % 8))
    local = tmp_path / "k"
    local.write_bytes(b"kept\n")
    direct("mkdir", "-p", f"{img}:/p")
    direct("mkdir", "-p", f"{img}:/q/{two.decode()}")
    direct("put", local, f"{img}:/p/{one.decode()}")
    direct("put", local, f"{img}:/p/{keep}")
    direct("put", local, f"{img}:/q/{two.decode()}/inner")
    direct("put", local, f"{img}:/q/{keep}")
    im = Image(img)
    assert im.rename_entry(one, b".") >= 1 and im.rename_entry(two, b"..") >= 1
    old = im.save(tmp_path / "dots.img")
    rc, rep = fsck(old)
    msgs = "\n".join(map(str, rep["messages"]))
    assert rc == 1 and rep["errors"] == 2, msgs
    assert 'is named "."' in msgs and 'is named ".."' in msgs, msgs
    r = direct("ls", "-R", old)
    assert r.stdout.decode().split() == ["p/", f"p/{keep}", "q/", f"q/{keep}"]
    assert b'skipped an entry named "."' in r.stderr and b'named ".."' in r.stderr
    out = tmp_path / "out"
    r = steady("image", "extract", old, out)
    assert tree_of(out) == {"p": None, f"p/{keep}": b"kept\n", "q": None,
                            f"q/{keep}": b"kept\n"}
    assert b"skipped" in r.stderr


# ---- repair after media damage ------------------------------------------------

def test_fsck_repair_after_damage(tmp_path: Path, good: Path) -> None:
    """A bucket of /a whose payload no longer matches its CRC (damage no ECC
    saw): fsck finds it, `fsck --repair` resets it and links the files it
    named into /lost+found as #<inode>, every byte as before; then fsck is
    clean and a second repair has nothing to do."""
    tree = tree_of(tmp_path / "src")
    ls = direct("ls", "-l", f"{good}:/").stdout.decode().splitlines()
    ino = next(int(line.split()[-2]) for line in ls if line.split()[-1] == "a/")
    img = Image(good)
    buckets = range(16 * ino + 1, 16 * ino + 9)   # S = 16 with the default 8 buckets
    newest: dict[int, tuple[int, int, int]] = {}
    for b, p in img.pages():
        kind, seq, key = img.tag(b, p)
        if kind == 1 and key in buckets and (key not in newest or seq > newest[key][0]):
            newest[key] = (seq, b, p)
    assert len(newest) >= 4, newest
    _, b, p = newest[max(newest)]
    img.flip(b, p, 20)
    img.save(good)
    assert fsck(good)[0] == 1
    r = steady("fsck", "--image", good, "--repair")
    out = r.stdout.decode()
    assert "1 buckets reset" in out and "0 files rebuilt" in out, out
    moved = int(out.split(" inodes into /lost+found")[0].rsplit(" ", 1)[1])
    assert moved >= 1, out
    assert "clean" in out.splitlines()[-1], out
    got = tmp_path / "got"
    steady("image", "extract", good, got)
    after = tree_of(got)
    found = {k: v for k, v in after.items() if k.startswith("lost+found/")}
    assert len(found) == moved
    gone = {k: v for k, v in tree.items() if k not in after}
    # each name the bucket held is gone from /a, its bytes under lost+found
    assert gone and all(k.startswith("a/") and k.count("/") == 1 for k in gone), gone
    assert sorted(v or b"" for v in gone.values()) == sorted(v or b"" for v in found.values())
    assert {k: v for k, v in after.items() if not k.startswith("lost+found")} == \
        {k: v for k, v in tree.items() if k not in gone}
    rep = json.loads(steady("fsck", "--image", good, "--repair", "--json").stdout)
    assert rep["clean"] and set(rep["repaired"].values()) == {0}, rep


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
    # a repair of what is no file system: one line, nothing written
    before = junk.read_bytes()
    r = steady("fsck", "--image", junk, "--repair", ok=False)
    assert r.returncode == 2 and junk.read_bytes() == before
    # a tree with something steadyfs cannot store leaves no image behind
    src = tmp_path / "withfifo"
    src.mkdir()
    os.mkfifo(src / "fifo")
    img = tmp_path / "never.img"
    r = steady("image", "create", src, img, "--device", "mt29f1g01", "--blocks", BLOCKS, ok=False)
    assert b"not a regular file" in r.stderr and not img.exists()


def test_failed_mkfs_or_create_leaves_files_as_they_were(tmp_path: Path, good: Path) -> None:
    """Issue 13: mkfs --force with an invalid option destroyed the image
    before it found the option invalid.  Everything is checked before the
    file is touched, the error names the option, and a failed mkfs or
    image create leaves no file behind (nor a temporary one)."""
    before = digest(good)
    for opt, val in (("--max-inodes", "2"), ("--blocks", "3"), ("--sector-size", "1000"),
                     ("--erase-mult", "7"), ("--fill-permille", "951"), ("--blocks", "5000")):
        r = steady("mkfs", "--device", "mt29f1g01", "--image", good, "--force", opt, val,
                   ok=False)
        assert f"{opt} {val}".encode() in r.stderr or opt.encode() in r.stderr, r.stderr
        assert digest(good) == before, f"mkfs {opt} {val} changed the image"
        new = tmp_path / "new.img"
        r = steady("mkfs", "--device", "mt29f1g01", "--image", new, opt, val, ok=False)
        assert opt.encode() in r.stderr and not new.exists()
    r = steady("image", "create", tmp_path / "src", good, "--device", "mt29f1g01", "--force",
               "--max-inodes", "2", ok=False)
    assert b"--max-inodes 2" in r.stderr and digest(good) == before
    # a tree that cannot be stored: the old image stays, no new one appears
    src = tmp_path / "withfifo"
    src.mkdir()
    os.mkfifo(src / "fifo")
    steady("image", "create", src, good, "--device", "mt29f1g01", "--blocks", BLOCKS,
           "--force", ok=False)
    assert digest(good) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.img", "src", "withfifo"]
    # and a good mkfs --force does replace it
    steady("mkfs", "--device", "mt29f1g01", "--image", good, "--force", "--blocks", "16")
    assert direct("ls", good).stdout == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.img", "src", "withfifo"]


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
        # (format 18: on NAND the checkpoints are in a unit of the pool)
        b, p = img.newest(4, range(0, img.blocks))
        assert p > 0
        img.flip(b, p - 1, 200)
    elif how == "new-checkpoint":
        img.flip(*img.newest(4, range(0, img.blocks)), 200)
    elif how == "anchors":
        # the anchor ring's two units, their tags (format 18: on NAND the
        # ring holds pointers, read by their tags alone)
        for b in range(2):
            for p in range(img.ppb):
                img.flip(b, p, img.page + 1)
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
    ("old-checkpoint", "checkpoint in unit"),
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


# ---- issue 13: one image convention, df, get --salvage, raw images ----------------

def test_whole_image_commands_take_the_image_first(tmp_path: Path, good: Path) -> None:
    """mkfs IMAGE, fsck IMAGE, df IMAGE like ls/cat; --image stays an alias."""
    a, b = tmp_path / "a.img", tmp_path / "b.img"
    steady("mkfs", a, "--device", "mt29f1g01", "--blocks", "16")
    steady("mkfs", "--image", b, "--device", "mt29f1g01", "--blocks", "16")
    assert digest(a) == digest(b)
    for cmd in ("fsck", "df"):
        pos = steady(cmd, good)
        alias = steady(cmd, "--image", good)
        assert pos.stdout == alias.stdout and pos.stdout
    r = steady("fsck", a, "--image", b, ok=False)
    assert b"two images" in r.stderr
    r = steady("df", ok=False)
    assert b"steady df IMAGE" in r.stderr
    r = steady("mkfs", "--device", "mt29f1g01", ok=False)
    assert b"steady mkfs IMAGE" in r.stderr


def test_df_agrees_with_fsck(tmp_path: Path, good: Path) -> None:
    r = steady("df", good, "--json")
    df = json.loads(r.stdout)
    _, rep = fsck(good)
    assert (df["files"], df["dirs"]) == (rep["files"], rep["dirs"])
    assert df["device"] == "mt29f1g01" and df["blocks"] == int(BLOCKS)
    assert df["device_bytes"] == int(BLOCKS) * 64 * 2048
    assert 0 < df["used_bytes"] < df["capacity_bytes"] < df["device_bytes"]
    assert df["free_bytes"] == df["capacity_bytes"] - df["used_bytes"]
    # live data at least the bytes stored, in whole sectors plus map sectors
    assert df["used_bytes"] >= rep["bytes"]
    assert df["used_bytes"] == rep["live_sectors"] * df["data_per_sector"]
    assert df["fill_permille"] == 750 and df["max_inodes"] > 0
    text = steady("df", good).stdout.decode()
    assert f"capacity {df['capacity_bytes']} bytes" in text
    assert f"{df['files']} files, {df['dirs']} directories" in text
    # a different format's fill limit is read back
    c = tmp_path / "c.img"
    steady("mkfs", c, "--device", "em064lx", "--fill-permille", "500")
    assert json.loads(steady("df", c, "--json").stdout)["fill_permille"] == 500


def test_get_salvage_writes_what_reads(tmp_path: Path, good: Path) -> None:
    """Issue 13: `get` of a file with one damaged sector left a 0-byte file.
    Now plain get leaves nothing and says --salvage; --salvage writes every
    sector that reads, zeros for the damaged one, and reports its range."""
    img = Image(good)
    big = (tmp_path / "src" / "big.bin").read_bytes()
    k = 5                                         # damage the file's 6th sector
    chunk = big[k * img.page: k * img.page + 64]
    where = next((b, p) for b, p in img.pages() if img.main(b, p)[:64] == chunk)
    img.flip(*where, 300)
    bad = img.save(tmp_path / "bad.img")
    before = digest(bad)
    out = tmp_path / "got.bin"
    r = steady("get", f"{bad}:/big.bin", out, ok=False)
    assert b"--salvage" in r.stderr and not out.exists()
    r = steady("get", "--salvage", f"{bad}:/big.bin", out, ok=None)
    assert r.returncode == 1 and b"Traceback" not in r.stderr
    lo, hi = k * img.page, (k + 1) * img.page - 1
    assert f"bytes {lo}-{hi} ({img.page} bytes) unreadable".encode() in r.stderr, r.stderr
    assert f"salvaged {len(big) - img.page} of {len(big)} bytes".encode() in r.stderr
    got = out.read_bytes()
    assert len(got) == len(big)
    assert got[:lo] == big[:lo] and got[hi + 1:] == big[hi + 1:]
    assert got[lo:hi + 1] == bytes(img.page)
    assert digest(bad) == before
    # an undamaged file: --salvage is a plain copy, exit 0
    r = steady("get", "--salvage", f"{good}:/big.bin", out)
    assert out.read_bytes() == big and r.stderr == b""
    # a missing file writes nothing on the host
    steady("get", f"{good}:/nope", tmp_path / "nope", ok=False)
    assert not (tmp_path / "nope").exists()


def raw_page(raw: bytes, prof: tuple[int, int, int], block: int, page: int) -> bytes:
    size, spare, ppb = prof
    o = (block * ppb + page) * (size + spare)
    return raw[o:o + size + spare]


@pytest.mark.parametrize("device,blocks,seed,prof", [
    ("mt29f1g01", "64", "2", (2048, 64, 64)),      # seed 2: one factory bad block
    ("mt25q128", "256", "0", (256, 0, 16)),
    ("em064lx", "0", "0", (512, 0, 128)),
])
def test_raw_export_import_round_trip(tmp_path: Path, device: str, blocks: str, seed: str,
                                      prof: tuple[int, int, int]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "d").mkdir()
    data = random.Random(3).randbytes(50_000)
    (src / "d" / "f.bin").write_bytes(data)
    img = tmp_path / "a.img"
    steady("image", "create", src, img, "--device", device, "--blocks", blocks, "--seed", seed)
    nblocks = json.loads(steady("df", img, "--json").stdout)
    raw = tmp_path / "a.raw"
    steady("image", "export", img, "--raw", raw)
    rb = raw.read_bytes()
    size, spare, ppb = prof
    assert len(rb) == nblocks["blocks"] * ppb * (size + spare)
    # the file's bytes are in the raw image as the chip holds them (on NOR
    # and MRAM a sector starts wherever its 2080-byte stride puts it, not
    # at a page: SPEC §1)
    first = data[:64]
    assert first in rb
    assert rb.count(0xFF) > len(rb) // 2        # erased is 0xFF, not the simulator's 0
    marked = [b for b in range(nblocks["blocks"]) if spare and raw_page(rb, prof, b, 0)[size] == 0]
    assert len(marked) == nblocks["bad_blocks"] == (1 if device == "mt29f1g01" else 0)
    back = tmp_path / "b.img"
    steady("image", "import", raw, "--device", device, back)
    rc, rep = fsck(back)
    assert rc == 0 and rep["bad_blocks"] == len(marked), rep
    out = tmp_path / "out"
    steady("image", "extract", back, out)
    assert (out / "d" / "f.bin").read_bytes() == data
    raw2 = tmp_path / "b.raw"
    steady("image", "export", back, "--raw", raw2)
    assert raw2.read_bytes() == rb
    # the imported image is a working device: write to it, check again
    steady("put", src / "d" / "f.bin", f"{back}:/again.bin")
    assert fsck(back)[0] == 0
    # image create --raw writes the raw image export gives
    c, craw = tmp_path / "c.img", tmp_path / "c.raw"
    steady("image", "create", src, c, "--device", device, "--blocks", blocks, "--seed", seed, "--raw", craw)
    assert craw.read_bytes() == rb
    # mkfs --raw writes the same raw image mkfs + export gives
    m, mr, direct_raw = tmp_path / "m.img", tmp_path / "m.raw", tmp_path / "direct.raw"
    steady("mkfs", m, "--device", device, "--blocks", blocks, "--seed", seed, "--raw", mr)
    steady("mkfs", "--device", device, "--blocks", blocks, "--seed", seed, "--raw", direct_raw)
    assert mr.read_bytes() == direct_raw.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("m.", "direct"))) == \
        ["direct.raw", "m.img", "m.raw"]


def test_raw_image_errors(tmp_path: Path, good: Path) -> None:
    raw = tmp_path / "g.raw"
    steady("image", "export", good, "--raw", raw)
    before = digest(raw)
    r = steady("image", "export", good, "--raw", raw, ok=False)
    assert b"--force" in r.stderr and digest(raw) == before
    short = tmp_path / "short.raw"
    short.write_bytes(raw.read_bytes()[:1000])
    r = steady("image", "import", short, "--device", "mt29f1g01", tmp_path / "x.img", ok=False)
    assert b"not a whole number" in r.stderr and not (tmp_path / "x.img").exists()
    r = steady("image", "import", raw, "--device", "nope", tmp_path / "x.img", ok=False)
    assert b"--device nope" in r.stderr
    r = steady("image", "import", raw, "--device", "sd-consumer", tmp_path / "x.img", ok=False)
    assert b"SD card" in r.stderr
    r = steady("image", "import", raw, "--device", "mt29f1g01", good, ok=False)
    assert b"--force" in r.stderr
    r = steady("image", "export", short, "--raw", tmp_path / "y.raw", ok=False)
    assert not (tmp_path / "y.raw").exists()
    r = steady("mkfs", "--device", "mt29f1g01", "--raw", raw, ok=False)
    assert b"--force" in r.stderr and digest(raw) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.raw", "good.img", "short.raw", "src"]


# ---- issue 14: metadata and symlinks through the image tools --------------------

def test_create_extract_keep_modes_owners_times_and_symlinks(tmp_path: Path) -> None:
    """image create stores each entry's mode, owner, mtime (to the
    nanosecond) and symlinks; extract restores them; ls -l shows them."""
    src = tmp_path / "src"
    (src / "sub" / "deep").mkdir(parents=True)
    (src / "a.txt").write_bytes(b"alpha\n")
    (src / "sub" / "b.bin").write_bytes(os.urandom(5000))
    (src / "rel").symlink_to("a.txt")
    (src / "sub" / "dangling").symlink_to("/no/such/target")
    if os.geteuid() == 0:
        os.chown(src / "a.txt", 1234, 99)      # before chmod: chown clears set-uid
        os.lchown(src / "rel", 77, 88)
    os.chmod(src / "a.txt", 0o4751)
    os.chmod(src / "sub" / "deep", 0o700)
    stamp = 1_234_567_890_123_456_789
    for i, p in enumerate(("a.txt", "sub/b.bin", "sub/deep", "sub", "rel", "sub/dangling")):
        os.utime(src / p, ns=(stamp + i, stamp + i * 1_000_000_007), follow_symlinks=False)
    img = tmp_path / "t.img"
    steady("image", "create", src, img, "--device", "mt29f1g01", "--blocks", BLOCKS)
    assert fsck(img)[0] == 0
    listing = steady("ls", img, "-lR").stdout.decode().splitlines()
    line = next(x for x in listing if x.endswith(" a.txt"))
    assert line.startswith("-rwsr-x--x") and "2009-02-13 23:31:30" in line, listing
    assert any(x.startswith("lrwxrwxrwx") and x.endswith("rel -> a.txt") for x in listing), listing
    assert any(x.startswith("drwx------") and x.endswith("sub/deep/") for x in listing), listing
    out = tmp_path / "out"
    steady("image", "extract", img, out)

    def tree(root: Path) -> list[str]:
        rows = []
        for dirpath, dirs, files in os.walk(root):
            for n in sorted(dirs + files):
                p = Path(dirpath) / n
                st = os.lstat(p)
                rows.append(f"{p.relative_to(root)} {st.st_mode:o} {st.st_uid} {st.st_gid} "
                            f"{st.st_mtime_ns} {os.readlink(p) if p.is_symlink() else ''}")
        return sorted(rows)

    assert tree(out) == tree(src)
    assert (out / "sub" / "b.bin").read_bytes() == (src / "sub" / "b.bin").read_bytes()


def test_old_format_image_is_refused_in_one_line(tmp_path: Path) -> None:
    """An image whose checkpoints say format version 3 (as every image
    before issue 14's metadata): one line, naming the version, no traceback."""
    img = tmp_path / "old.img"
    steady("mkfs", img, "--device", "mt29f1g01", "--blocks", "16")
    raw = bytearray(img.read_bytes())
    data_off = struct.unpack_from("<Q", raw, 88)[0]
    page, spare = 2048, 64
    n = 0
    for off in range(data_off, len(raw) - page - spare + 1, page + spare):
        main = bytes(b ^ 0xFF for b in raw[off:off + page])       # stored inverted
        tag = bytearray(b ^ 0xFF for b in raw[off + page:off + page + 32])
        if main[:4] != b"SFC1" or struct.unpack_from("<I", main, 4)[0] == 3 or tag[0] != 4:
            continue
        main = main[:4] + struct.pack("<I", 3) + main[8:]
        struct.pack_into("<I", tag, 24, zlib.crc32(main))
        struct.pack_into("<I", tag, 28, zlib.crc32(bytes(tag[:28])))
        raw[off:off + page] = bytes(b ^ 0xFF for b in main)
        raw[off + page:off + page + 32] = bytes(b ^ 0xFF for b in tag)
        n += 1
    assert n > 0
    img.write_bytes(bytes(raw))
    for cmd in (("ls", img), ("df", img), ("cat", f"{img}:/x")):
        r = steady(*cmd, ok=False)
        err = r.stderr.decode()
        assert err.count("\n") == 1 and "made by another steadyfs format version" in err, err
        assert "Traceback" not in err
