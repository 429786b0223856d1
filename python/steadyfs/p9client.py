"""A small synchronous 9P2000.L client over TCP, for tests and the demo.

It speaks to anything that serves 9P2000.L on a stream socket -- `steady
serve`, the firmware through `steady firmware run --listen`, diod -- and is
written from the protocol description (the Linux kernel's 9P2000.L
documentation and diod's protocol notes), not from any of those servers'
code.  One request at a time; errors come back as P9Error with the Linux
errno of the server's Rlerror.
"""

from __future__ import annotations

import errno
import os
import socket
import struct
from dataclasses import dataclass

# message types (T; R = T + 1)
RLERROR = 7
TSTATFS, TLOPEN, TLCREATE = 8, 12, 14
TSYMLINK, TREADLINK, TGETATTR, TSETATTR = 16, 22, 24, 26
TREADDIR, TFSYNC = 40, 50
TMKDIR, TRENAMEAT, TUNLINKAT = 72, 74, 76
TVERSION, TATTACH, TWALK, TREAD, TWRITE, TCLUNK = 100, 104, 110, 116, 118, 120

O_RDONLY, O_WRONLY, O_RDWR = 0, 1, 2
O_CREAT, O_EXCL, O_TRUNC = 0o100, 0o200, 0o1000
AT_REMOVEDIR = 0x200
NOFID = 0xFFFFFFFF
GETATTR_BASIC = 0x7FF
SETATTR_MODE, SETATTR_UID, SETATTR_GID, SETATTR_SIZE = 0x1, 0x2, 0x4, 0x8
SETATTR_MTIME, SETATTR_MTIME_SET = 0x20, 0x100


class P9Error(OSError):
    """An Rlerror: .errno is the server's Linux errno."""


class P9ProtocolError(RuntimeError):
    """The server broke the protocol or closed the connection."""


@dataclass(frozen=True)
class Qid:
    type: int
    version: int
    path: int

    @property
    def is_dir(self) -> bool:
        return bool(self.type & 0x80)


@dataclass(frozen=True)
class Dirent:
    qid: Qid
    offset: int
    type: int
    name: str


@dataclass(frozen=True)
class Attr:
    qid: Qid
    mode: int
    size: int
    nlink: int
    uid: int = 0
    gid: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0


def _s(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<H", len(raw)) + raw


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, fmt: str) -> tuple[int, ...]:
        vals = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return vals

    def u(self, fmt: str) -> int:
        return self.take(fmt)[0]

    def qid(self) -> Qid:
        t, v, p = self.take("BIQ")
        return Qid(t, v, p)

    def str(self) -> str:
        n = self.u("H")
        raw = self.data[self.pos:self.pos + n]
        if len(raw) != n:
            raise P9ProtocolError("string runs past the message")
        self.pos += n
        return raw.decode(errors="replace")

    def rest(self, n: int) -> bytes:
        raw = self.data[self.pos:self.pos + n]
        if len(raw) != n:
            raise P9ProtocolError("data runs past the message")
        self.pos += n
        return raw


class Client:
    """One 9P2000.L session.  Paths are walked from the attach fid 0."""

    def __init__(self, host: str, port: int, msize: int = 65536, timeout: float = 30.0,
                 uname: str = "steady", aname: str = "", n_uname: int = 0) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self._tag = 0
        self._next_fid = 1
        self.msize = msize
        r = self.rpc(TVERSION, struct.pack("<I", msize) + _s("9P2000.L"), tag=0xFFFF)
        self.msize = r.u("I")
        version = r.str()
        if version != "9P2000.L":
            raise P9ProtocolError(f"server speaks {version!r}")
        # n_uname: the numeric user the server creates as and checks (0: root)
        self.root = self.rpc(TATTACH, struct.pack("<II", 0, NOFID) + _s(uname) + _s(aname)
                             + struct.pack("<I", n_uname)).qid()

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- wire -------------------------------------------------------------
    def _recv_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise P9ProtocolError("connection closed by the server")
            buf += chunk
        return bytes(buf)

    def rpc(self, ttype: int, body: bytes, tag: int | None = None) -> _Reader:
        if tag is None:
            self._tag = (self._tag + 1) % 0xFFFF
            tag = self._tag
        msg = struct.pack("<IBH", 7 + len(body), ttype, tag) + body
        self.sock.sendall(msg)
        size, rtype, rtag = struct.unpack("<IBH", self._recv_exact(7))
        if size < 7 or size > max(self.msize, 8192) + 64:
            raise P9ProtocolError(f"reply size {size}")
        r = _Reader(self._recv_exact(size - 7))
        if rtag != tag:
            raise P9ProtocolError(f"reply tag {rtag}, sent {tag}")
        if rtype == RLERROR:
            code = r.u("I")
            raise P9Error(code, os.strerror(code))
        if rtype != ttype + 1:
            raise P9ProtocolError(f"reply type {rtype} to {ttype}")
        return r

    # ---- fids -------------------------------------------------------------
    def _fid(self) -> int:
        self._next_fid += 1
        return self._next_fid

    def walk(self, path: str, fid: int = 0) -> int:
        """A new fid for path (relative to the root); P9Error if a part is missing."""
        names = [p for p in path.split("/") if p]
        new = self._fid()
        r = self.rpc(TWALK, struct.pack("<IIH", fid, new, len(names)) + b"".join(map(_s, names)))
        if r.u("H") != len(names):
            raise P9Error(errno.ENOENT, f"{path}: not found")
        return new

    def clunk(self, fid: int) -> None:
        self.rpc(TCLUNK, struct.pack("<I", fid))

    # ---- operations -------------------------------------------------------
    def open(self, path: str, flags: int = O_RDONLY) -> int:
        fid = self.walk(path)
        self.rpc(TLOPEN, struct.pack("<II", fid, flags))
        return fid

    def create(self, path: str, flags: int = O_RDWR, mode: int = 0o644) -> int:
        parent, _, name = path.rstrip("/").rpartition("/")
        fid = self.walk(parent)
        self.rpc(TLCREATE, struct.pack("<I", fid) + _s(name) + struct.pack("<III", flags, mode, 0))
        return fid  # the fid now stands for the open new file

    def read(self, fid: int, offset: int, count: int) -> bytes:
        r = self.rpc(TREAD, struct.pack("<IQI", fid, offset, count))
        return r.rest(r.u("I"))

    def write(self, fid: int, offset: int, data: bytes) -> int:
        return self.rpc(TWRITE, struct.pack("<IQI", fid, offset, len(data)) + data).u("I")

    def fsync(self, fid: int) -> None:
        self.rpc(TFSYNC, struct.pack("<II", fid, 0))

    def iounit(self) -> int:
        return self.msize - 24

    def write_all(self, fid: int, data: bytes, offset: int = 0) -> None:
        pos = 0
        while pos < len(data):
            n = self.write(fid, offset + pos, data[pos:pos + self.iounit()])
            if n <= 0:
                raise P9ProtocolError("short write")
            pos += n

    def read_all(self, fid: int) -> bytes:
        out = bytearray()
        while True:
            chunk = self.read(fid, len(out), self.iounit())
            if not chunk:
                return bytes(out)
            out += chunk

    def put(self, path: str, data: bytes, sync: bool = True) -> None:
        fid = self.create(path, O_RDWR | O_CREAT | O_TRUNC)
        try:
            self.write_all(fid, data)
            if sync:
                self.fsync(fid)
        finally:
            self.clunk(fid)

    def get(self, path: str) -> bytes:
        fid = self.open(path)
        try:
            return self.read_all(fid)
        finally:
            self.clunk(fid)

    def mkdir(self, path: str, mode: int = 0o755) -> Qid:
        parent, _, name = path.rstrip("/").rpartition("/")
        fid = self.walk(parent)
        try:
            return self.rpc(TMKDIR, struct.pack("<I", fid) + _s(name)
                            + struct.pack("<II", mode, 0)).qid()
        finally:
            self.clunk(fid)

    def readdir(self, path: str) -> list[Dirent]:
        fid = self.open(path)
        out: list[Dirent] = []
        offset = 0
        try:
            while True:
                r = self.rpc(TREADDIR, struct.pack("<IQI", fid, offset, self.iounit()))
                data = _Reader(r.rest(r.u("I")))
                if not data.data:
                    return out
                while data.pos < len(data.data):
                    qid = data.qid()
                    offset = data.u("Q")
                    typ = data.u("B")
                    out.append(Dirent(qid, offset, typ, data.str()))
        finally:
            self.clunk(fid)

    def listdir(self, path: str) -> list[str]:
        return sorted(d.name for d in self.readdir(path) if d.name not in (".", ".."))

    def rename(self, old: str, new: str) -> None:
        op, _, on = old.rstrip("/").rpartition("/")
        np_, _, nn = new.rstrip("/").rpartition("/")
        ofid, nfid = self.walk(op), self.walk(np_)
        try:
            self.rpc(TRENAMEAT, struct.pack("<I", ofid) + _s(on) + struct.pack("<I", nfid) + _s(nn))
        finally:
            self.clunk(ofid)
            self.clunk(nfid)

    def unlink(self, path: str, rmdir: bool = False) -> None:
        parent, _, name = path.rstrip("/").rpartition("/")
        fid = self.walk(parent)
        try:
            self.rpc(TUNLINKAT, struct.pack("<I", fid) + _s(name)
                     + struct.pack("<I", AT_REMOVEDIR if rmdir else 0))
        finally:
            self.clunk(fid)

    def getattr(self, path: str) -> Attr:
        fid = self.walk(path)
        try:
            return self.getattr_fid(fid)
        finally:
            self.clunk(fid)

    def getattr_fid(self, fid: int) -> Attr:
        """Tgetattr of a fid (open or not): what fstat(2) asks a 9P server."""
        r = self.rpc(TGETATTR, struct.pack("<IQ", fid, GETATTR_BASIC))
        r.u("Q")  # valid
        qid = r.qid()
        mode, uid, gid = r.take("III")
        nlink, _rdev, size, _blksize, _blocks = r.take("QQQQQ")
        _as, _an, ms, mn, cs, cn = r.take("QQQQQQ")
        def ns(sec: int, nsec: int) -> int:
            return (sec - (1 << 64) if sec >= 1 << 63 else sec) * 1_000_000_000 + nsec
        return Attr(qid, mode, size, nlink, uid, gid, ns(ms, mn), ns(cs, cn))

    def setattr(self, path: str, mode: int | None = None, uid: int | None = None,
                gid: int | None = None, mtime_ns: int | None = None, size: int | None = None) -> None:
        """Tsetattr of the fields given (mtime_ns -1: now)."""
        valid = 0
        if mode is not None:
            valid |= SETATTR_MODE
        if uid is not None:
            valid |= SETATTR_UID
        if gid is not None:
            valid |= SETATTR_GID
        if size is not None:
            valid |= SETATTR_SIZE
        t = 0
        if mtime_ns is not None:
            valid |= SETATTR_MTIME | (SETATTR_MTIME_SET if mtime_ns >= 0 else 0)
            t = max(mtime_ns, 0)
        fid = self.walk(path)
        try:
            self.rpc(TSETATTR, struct.pack("<IIIIIQQQQQ", fid, valid, mode or 0, uid or 0, gid or 0,
                                           size or 0, 0, 0, t // 1_000_000_000,
                                           t % 1_000_000_000))
        finally:
            self.clunk(fid)

    def symlink(self, path: str, target: str, gid: int = 0) -> Qid:
        parent, _, name = path.rstrip("/").rpartition("/")
        fid = self.walk(parent)
        try:
            return self.rpc(TSYMLINK, struct.pack("<I", fid) + _s(name) + _s(target)
                            + struct.pack("<I", gid)).qid()
        finally:
            self.clunk(fid)

    def readlink(self, path: str) -> str:
        fid = self.walk(path)
        try:
            return self.rpc(TREADLINK, struct.pack("<I", fid)).str()
        finally:
            self.clunk(fid)

    def statfs(self) -> dict[str, int]:
        r = self.rpc(TSTATFS, struct.pack("<I", 0))
        keys = ("type", "bsize", "blocks", "bfree", "bavail", "files", "ffree", "fsid", "namelen")
        vals = r.take("IIQQQQQQI")
        return dict(zip(keys, vals))
