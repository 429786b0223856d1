"""Issue 14 item 2 and 3 (part): modes, owners, times and symlinks through
`steady serve` (9P, the project's client), the permission model
(access=user), and through the FUSE mount: chmod/chown/touch persist across
a remount and a server restart, and a tree with symlinks copied in with
`cp -a` reads back identical (`find -printf` of both)."""

from __future__ import annotations

import errno
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest

from clirun import fuse_mount, steady
from steadyfs import cmd_mount, cmd_serve
from steadyfs.p9client import Client, P9Error


class Serve:
    """steady serve on an image; restartable (the image persists)."""

    def __init__(self, image: Path, create: bool = True) -> None:
        self.log = tempfile.TemporaryFile()
        args = [str(cmd_serve.binary()), "--image", str(image), "--listen", "tcp:127.0.0.1:0"]
        if create:
            args += ["--create", "--device", "mt29f1g01", "--blocks", "64"]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True)
        assert self.proc.stdout is not None
        m = re.match(r"listening on tcp:127\.0\.0\.1:(\d+)", self.proc.stdout.readline())
        assert m, self.err()
        self.port = int(m.group(1))
        self.spec = f"tcp:127.0.0.1:{self.port}"

    def err(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def client(self, uid: int = 0) -> Client:
        return Client("127.0.0.1", self.port, n_uname=uid)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=20)
        assert self.proc.returncode == 0, self.err()


@pytest.fixture()
def image(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "dev.img"


def test_9p_metadata_permissions_and_symlinks_persist(image: Path) -> None:
    srv = Serve(image)
    try:
        with srv.client(0) as root:
            root.mkdir("/home", 0o755)
            root.setattr("/home", uid=1000, gid=100)
            root.mkdir("/pub", 0o755)
        with srv.client(1000) as u:
            fid = u.create("/home/f", mode=0o640)
            u.write_all(fid, b"data")
            u.clunk(fid)
            a = u.getattr("/home/f")
            assert (a.mode, a.uid, a.nlink, a.size) == (0o100640, 1000, 1, 4)
            assert abs(a.mtime_ns / 1e9 - time.time()) < 60
            u.setattr("/home/f", mode=0o600, mtime_ns=1_500_000_000_123_456_789)
            with pytest.raises(P9Error) as e:
                u.setattr("/home/f", uid=0)              # chown: root only
            assert e.value.errno == errno.EPERM
            with pytest.raises(P9Error) as e:
                u.create("/pub/x")                        # root's directory
            assert e.value.errno == errno.EACCES
            u.symlink("/home/l", "f", gid=100)
            assert u.readlink("/home/l") == "f"
            assert u.getattr("/home/l").mode == 0o120777
            u.mkdir("/home/d", 0o750)
            assert u.getattr("/home").nlink == 3
        with srv.client(2000) as other:
            with pytest.raises(P9Error) as e:
                other.open("/home/f")                     # 0600, not its own
            assert e.value.errno == errno.EACCES
            d = other.walk("/home/d")
            with pytest.raises(P9Error) as e:
                other.walk("x", fid=d)                    # 0750: no search for others
            assert e.value.errno == errno.EACCES
        with srv.client(0) as root:
            assert root.get("/home/f") == b"data"        # uid 0 bypasses
            root.setattr("/home/f", gid=100)
    finally:
        srv.stop()
    srv = Serve(image, create=False)
    try:
        with srv.client(1000) as u:
            a = u.getattr("/home/f")
            assert (a.mode, a.uid, a.gid, a.mtime_ns) == (0o100600, 1000, 100,
                                                         1_500_000_000_123_456_789)
            assert a.ctime_ns > a.mtime_ns
            assert u.readlink("/home/l") == "f"
            h = u.getattr("/home")
            assert (h.mode, h.uid, h.gid) == (0o40755, 1000, 100)
    finally:
        srv.stop()
    r = steady("fsck", str(image))
    assert r.returncode == 0, r.stdout + r.stderr


def _host_user_with_group() -> tuple[int, int, int] | None:
    """A user of this host that is not root, its primary group and a group
    it is not in (Debian always has nobody/nogroup)."""
    import grp
    import pwd
    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        return None
    ours = set(os.getgrouplist(pw.pw_name, pw.pw_gid))
    other = next((g.gr_gid for g in grp.getgrall() if g.gr_gid not in ours and g.gr_gid), None)
    return None if other is None or pw.pw_uid == 0 else (pw.pw_uid, pw.pw_gid, other)


def test_9p_group_bits_from_the_host_user_database(image: Path) -> None:
    """steady serve grants the group bits to a member of the file's group
    (the host's passwd and group files: getgrouplist) and lets an owner
    chgrp only to its own groups."""
    who = _host_user_with_group()
    if who is None:
        pytest.skip("no unprivileged host user with a group to test with")
    uid, gid, other = who
    srv = Serve(image)
    try:
        with srv.client(0) as root:
            for name, g in (("/ours", gid), ("/theirs", other)):
                root.put(name, b"x")
                root.setattr(name, mode=0o640, uid=0, gid=g)
            root.put("/mine", b"m")
            root.setattr("/mine", mode=0o600, uid=uid, gid=0)
        with srv.client(uid) as u:
            assert u.get("/ours") == b"x"                # r-- for the group
            with pytest.raises(P9Error) as e:
                u.open("/ours", 1)                         # O_WRONLY: no w for the group
            assert e.value.errno == errno.EACCES
            with pytest.raises(P9Error) as e:
                u.get("/theirs")                           # --- for others
            assert e.value.errno == errno.EACCES
            with pytest.raises(P9Error) as e:
                u.setattr("/mine", gid=other)              # not one of its groups
            assert e.value.errno == errno.EPERM
            u.setattr("/mine", gid=gid)
            assert u.getattr("/mine").gid == gid
    finally:
        srv.stop()


FUSE = (cmd_mount.binary().exists() and os.path.exists("/dev/fuse")
        and shutil.which("fusermount3") is not None)


def find_printf(root: Path) -> list[str]:
    r = subprocess.run(["find", str(root), "-mindepth", "1", "-printf",
                        "%P %m %U %G %T@ %y %l %s\\n"], capture_output=True, text=True, check=True)
    # a symlink's %s is its target's length, a directory's is the file
    # system's own figure: compared for files only
    rows = []
    for line in r.stdout.splitlines():
        *head, size = line.split(" ")
        rows.append(" ".join(head) + (" " + size if head[5] == "f" else ""))
    return sorted(rows)


@pytest.mark.skipif(not FUSE, reason="steady-mount not built, or no FUSE here")
def test_fuse_cp_a_tree_with_symlinks_reads_back_identical(image: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "a" / "b").mkdir(parents=True)
    (src / "a" / "f.txt").write_text("hello\n")
    (src / "a" / "b" / "g.bin").write_bytes(os.urandom(70_000))
    (src / "x").write_bytes(b"")
    (src / "a" / "up").symlink_to("../x")
    (src / "abs").symlink_to("/etc/hostname")
    (src / "a" / "b" / "loop").symlink_to("loop")
    os.chmod(src / "a" / "f.txt", 0o604)
    os.chmod(src / "a" / "b", 0o711)
    if os.geteuid() == 0:
        os.chown(src / "x", 4321, 321)
        os.lchown(src / "abs", 5, 6)
    for i, p in enumerate(sorted(src.rglob("*"), reverse=True)):
        os.utime(p, ns=(1_600_000_000_000_000_000 + i * 1_111_111_111,) * 2, follow_symlinks=False)
    srv = Serve(image)
    try:
        with fuse_mount(srv.spec, tmp_path / "m") as mnt:
            r = subprocess.run(["cp", "-a", f"{src}/.", str(mnt)], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            assert find_printf(mnt) == find_printf(src)
            assert (mnt / "a" / "b" / "g.bin").read_bytes() == (src / "a" / "b" / "g.bin").read_bytes()
            assert os.readlink(mnt / "a" / "up") == "../x"
            assert (mnt / "a" / "up").read_bytes() == b""          # followed by the kernel
            # no hard links, FIFOs or device nodes: EPERM
            with pytest.raises(PermissionError):
                os.link(mnt / "x", mnt / "x2")
            with pytest.raises(PermissionError):
                os.mkfifo(mnt / "fifo")
            # chmod, chown, touch: kept across a remount and a server restart
            os.chmod(mnt / "x", 0o640)
            if os.geteuid() == 0:
                os.chown(mnt / "x", 1001, 1002)
            os.utime(mnt / "a" / "f.txt", ns=(0, 1_700_000_000_987_654_321))
            want = find_printf(mnt)
        srv.stop()
        srv = Serve(image, create=False)
        with fuse_mount(srv.spec, tmp_path / "m2") as mnt:
            assert find_printf(mnt) == want
            st = os.stat(mnt / "x")
            assert st.st_mode & 0o7777 == 0o640
            if os.geteuid() == 0:
                assert (st.st_uid, st.st_gid) == (1001, 1002)
            assert os.stat(mnt / "a" / "f.txt").st_mtime_ns == 1_700_000_000_987_654_321
            # a directory's link count: 2 + subdirectories
            assert os.stat(mnt / "a").st_nlink == 3
    finally:
        if srv.proc.poll() is None:
            srv.stop()
    r = steady("fsck", str(image))
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(not FUSE, reason="steady-mount not built, or no FUSE here")
def test_fuse_path_max_and_open_unlinked_files(image: Path, tmp_path: Path) -> None:
    """A path of PATH_MAX - 1 bytes below the mount's root works (FUSE sends
    it with a leading "/"); a file unlinked or renamed over while open is
    read, written and fstat'ed on and goes at its last close."""
    srv = Serve(image)
    try:
        with fuse_mount(srv.spec, tmp_path / "m") as mnt:
            mfd = os.open(mnt, os.O_RDONLY | os.O_DIRECTORY)
            try:
                rel = ""
                for i in range(20):                      # 20 x 201 bytes of directories
                    rel += ("/" if rel else "") + f"{i:02d}" + "d" * 198
                    os.mkdir(rel, dir_fd=mfd)
                name = rel + "/" + "f" * (4095 - len(rel) - 1)
                assert len(name) == os.pathconf(mnt, "PC_PATH_MAX") - 1 == 4095
                fd = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=mfd)
                os.write(fd, b"deep")
                os.close(fd)
                assert os.stat(name, dir_fd=mfd).st_size == 4
                dfd = os.open(rel, os.O_RDONLY, dir_fd=mfd)
                try:
                    assert os.listdir(dfd) == [name.rsplit("/", 1)[1]]
                finally:
                    os.close(dfd)
            finally:
                os.close(mfd)
            # unlinked while open
            p = mnt / "open.bin"
            p.write_bytes(b"a" * 5000)
            fd = os.open(p, os.O_RDWR)
            os.unlink(p)
            assert not p.exists()
            os.pwrite(fd, b"b" * 100, 5000)
            assert os.fstat(fd).st_size == 5100
            assert os.pread(fd, 6, 4997) == b"aaabbb"
            os.close(fd)
            # renamed over while open: the open descriptor reads the old file
            (mnt / "new").write_bytes(b"new")
            (mnt / "old").write_bytes(b"old")
            fd = os.open(mnt / "old", os.O_RDONLY)
            os.rename(mnt / "new", mnt / "old")
            assert (mnt / "old").read_bytes() == b"new"
            assert os.pread(fd, 3, 0) == b"old" and os.fstat(fd).st_size == 3
            os.close(fd)
            assert sorted(x for x in os.listdir(mnt) if not x[0].isdigit()) == ["old"]
    finally:
        if srv.proc.poll() is None:
            srv.stop()
    r = steady("fsck", str(image))
    assert r.returncode == 0, r.stdout + r.stderr
