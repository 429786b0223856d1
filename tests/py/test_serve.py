"""`steady serve`: the 9P2000.L server on a temp image, driven by a minimal
9P client written here and by diod's own clients (diodls, diodcat): clients
one after the other, a client that disconnects mid-request, bad messages,
read-only export, persistence of the image across restarts."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from steadyfs import cmd_serve

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not cmd_serve.binary().exists(),
                                reason="steady-serve not built")

NOFID = 0xFFFFFFFF
T = {"lerror": 7, "statfs": 8, "lopen": 12, "lcreate": 14, "getattr": 24, "setattr": 26,
     "readdir": 40, "fsync": 50, "mkdir": 72, "renameat": 74, "unlinkat": 76,
     "version": 100, "auth": 102, "attach": 104, "flush": 108, "walk": 110, "read": 116,
     "write": 118, "clunk": 120, "remove": 122}


class NineError(Exception):
    def __init__(self, errno_: int) -> None:
        super().__init__(f"Rlerror {errno_} ({os.strerror(errno_)})")
        self.errno = errno_


def s9(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<H", len(b)) + b


class Client:
    """Just enough of 9P2000.L to drive the server: one request at a time."""

    def __init__(self, addr: str | tuple[str, int], msize: int = 8192) -> None:
        fam = socket.AF_UNIX if isinstance(addr, str) else socket.AF_INET
        self.sock = socket.socket(fam, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        self.sock.connect(addr)
        self.tag = 0
        body = self.rpc("version", struct.pack("<I", msize) + s9("9P2000.L"), tag=0xFFFF)
        self.msize = struct.unpack_from("<I", body)[0]
        assert body[4:] == s9("9P2000.L")

    def raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv_msg(self) -> tuple[int, int, bytes]:
        hdr = self._recv(7)
        size, typ, tag = struct.unpack("<IBH", hdr)
        return typ, tag, self._recv(size - 7)

    def _recv(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("server closed the connection")
            out += chunk
        return out

    def rpc(self, kind: str, body: bytes, tag: int | None = None) -> bytes:
        if tag is None:
            self.tag = (self.tag + 1) % 0xFFFF
            tag = self.tag
        self.raw(struct.pack("<IBH", 7 + len(body), T[kind], tag) + body)
        typ, rtag, rbody = self.recv_msg()
        assert rtag == tag
        if typ == T["lerror"] + 0:   # Rlerror is type 7
            raise NineError(struct.unpack("<I", rbody)[0])
        assert typ == T[kind] + 1, (typ, kind)
        return rbody

    def attach(self, fid: int = 0, aname: str = "") -> bytes:
        return self.rpc("attach", struct.pack("<II", fid, NOFID) + s9("me") + s9(aname)
                        + struct.pack("<I", os.getuid()))

    def walk(self, fid: int, newfid: int, *names: str) -> int:
        body = struct.pack("<IIH", fid, newfid, len(names)) + b"".join(s9(n) for n in names)
        return int(struct.unpack_from("<H", self.rpc("walk", body))[0])

    def lcreate(self, fid: int, name: str, flags: int = 2) -> None:
        self.rpc("lcreate", struct.pack("<I", fid) + s9(name) + struct.pack("<III", flags, 0o644, 0))

    def lopen(self, fid: int, flags: int = 0) -> None:
        self.rpc("lopen", struct.pack("<II", fid, flags))

    def write(self, fid: int, off: int, data: bytes) -> int:
        r = self.rpc("write", struct.pack("<IQI", fid, off, len(data)) + data)
        return int(struct.unpack("<I", r)[0])

    def read(self, fid: int, off: int, count: int) -> bytes:
        r = self.rpc("read", struct.pack("<IQI", fid, off, count))
        n = struct.unpack_from("<I", r)[0]
        return r[4:4 + n]

    def read_all(self, fid: int) -> bytes:
        out = b""
        while True:
            chunk = self.read(fid, len(out), self.msize - 24)
            if not chunk:
                return out
            out += chunk

    def clunk(self, fid: int) -> None:
        self.rpc("clunk", struct.pack("<I", fid))

    def fsync(self, fid: int) -> None:
        self.rpc("fsync", struct.pack("<II", fid, 0))

    def mkdir(self, dfid: int, name: str) -> None:
        self.rpc("mkdir", struct.pack("<I", dfid) + s9(name) + struct.pack("<II", 0o755, 0))

    def size(self, fid: int) -> int:
        r = self.rpc("getattr", struct.pack("<IQ", fid, 0x3FFF))
        return int(struct.unpack_from("<Q", r, 8 + 13 + 4 * 3 + 8 * 2)[0])

    def listdir(self, fid: int) -> list[str]:
        names: list[str] = []
        off = 0
        while True:
            r = self.rpc("readdir", struct.pack("<IQI", fid, off, 512))
            n = struct.unpack_from("<I", r)[0]
            if n == 0:
                return names
            pos = 4
            while pos < 4 + n:
                off = struct.unpack_from("<Q", r, pos + 13)[0]
                ln = struct.unpack_from("<H", r, pos + 22)[0]
                names.append(r[pos + 24:pos + 24 + ln].decode())
                pos += 24 + ln

    def close(self) -> None:
        self.sock.close()


class Server:
    def __init__(self, image: Path, *extra: str, fmt: bool = True, via_cli: bool = False) -> None:
        args = ["--device", "mt29f1g01", "--blocks", "64", "--image", str(image),
                "--listen", "tcp:127.0.0.1:0", *extra]
        if fmt:
            args.append("--create")
        if via_cli:
            cmd = [sys.executable, "-m", "steadyfs.cli", "serve", *args]
        else:
            cmd = [str(cmd_serve.binary()), *args]
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        m = re.match(r"listening on tcp:127\.0\.0\.1:(\d+)", line)
        if not m:
            self.proc.kill()
            raise AssertionError(f"no 'listening on' line: {line!r} {self.proc.stderr.read()}")  # type: ignore[union-attr]
        self.port = int(m.group(1))
        self.addr = ("127.0.0.1", self.port)

    def client(self) -> Client:
        c = Client(self.addr)
        c.attach()
        return c

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=20)
        return self.proc.returncode, err


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "dev.img")
    yield s
    if s.proc.poll() is None:
        rc, err = s.stop()
        assert rc == 0, err
        assert "unmounted" in err


def put(c: Client, path: list[str], data: bytes, sync: bool = True) -> None:
    *dirs, name = path
    c.walk(0, 1, *dirs)
    c.lcreate(1, name)
    for off in range(0, len(data), 4000):
        assert c.write(1, off, data[off:off + 4000]) == len(data[off:off + 4000])
    if sync:
        c.fsync(1)
    c.clunk(1)


def get(c: Client, *path: str) -> bytes:
    c.walk(0, 2, *path)
    c.lopen(2, 0)
    data = c.read_all(2)
    c.clunk(2)
    return data


def test_files_through_two_clients_and_diod_tools(server: Server) -> None:
    payload = bytes(range(256)) * 150   # 38400 bytes: several messages each way
    c = server.client()
    c.mkdir(0, "sub")
    put(c, ["sub", "data.bin"], payload)
    put(c, ["hello.txt"], b"hello from steadyfs\n")
    c.close()
    # a second client sees it all
    c = server.client()
    assert get(c, "sub", "data.bin") == payload
    c.walk(0, 3, "sub")
    c.lopen(3, 0)
    assert c.listdir(3) == ["data.bin"]
    c.close()
    diodls, diodcat = shutil.which("diodls") or "/usr/sbin/diodls", shutil.which("diodcat") or "/usr/sbin/diodcat"
    if not Path(diodls).exists():
        pytest.skip("diod not installed (scripts/debian-packages.txt)")
    srv = f"127.0.0.1:{server.port}"
    r = subprocess.run([diodls, "-s", srv, "-a", "/", "-t", "10", "/"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.split()) == ["hello.txt", "sub"]
    r = subprocess.run([diodls, "-s", srv, "-a", "/", "-t", "10", "-l", "/sub"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert "data.bin" in r.stdout and str(len(payload)) in r.stdout
    rb = subprocess.run([diodcat, "-s", srv, "-a", "/", "-t", "10", "/hello.txt"],
                        capture_output=True, timeout=30)
    assert rb.returncode == 0, rb.stderr
    assert rb.stdout == b"hello from steadyfs\n"
    r2 = subprocess.run([diodcat, "-s", srv, "-a", "/", "-t", "10", "/sub/data.bin"],
                        capture_output=True, timeout=30)
    assert r2.returncode == 0 and r2.stdout == payload
    r3 = subprocess.run([diodcat, "-s", srv, "-a", "/", "-t", "10", "/missing"],
                        capture_output=True, text=True, timeout=30)
    assert r3.returncode != 0 and "No such file" in r3.stderr


def test_disconnect_mid_request_loses_nothing_synced(server: Server) -> None:
    c = server.client()
    put(c, ["synced"], b"A" * 5000)
    c.walk(0, 1)
    c.lcreate(1, "open-at-exit")
    c.write(1, 0, b"B" * 3000)               # written, never synced nor clunked
    c.walk(0, 4, "synced")
    c.lopen(4, 1)
    # half of a Twrite of 2000 bytes over the synced file, then gone
    msg = struct.pack("<IBHIQI", 7 + 16 + 2000, T["write"], 9, 4, 0, 2000) + b"C" * 2000
    c.raw(msg[:1000])
    c.close()
    c = server.client()                      # the next client works
    assert get(c, "synced") == b"A" * 5000   # the half message changed nothing
    assert get(c, "open-at-exit") == b"B" * 3000   # committed by the disconnect
    c.close()


def test_bad_messages_get_errors_or_a_clean_disconnect(server: Server) -> None:
    c = server.client()
    # unknown type: Rlerror(EOPNOTSUPP) on the same tag
    c.raw(struct.pack("<IBH", 7, 200, 77))
    typ, tag, body = c.recv_msg()
    assert (typ, tag, struct.unpack("<I", body)[0]) == (7, 77, 95)
    # a body too short for its type: Rlerror(EPROTO)
    c.raw(struct.pack("<IBHH", 9, T["clunk"], 78, 0))
    typ, tag, body = c.recv_msg()
    assert (typ, tag, struct.unpack("<I", body)[0]) == (7, 78, 71)
    # bad names and fids
    with pytest.raises(NineError) as e:
        c.walk(0, 5, "a/b")
    assert e.value.errno == 22
    with pytest.raises(NineError) as e:
        c.walk(42, 5, "x")
    assert e.value.errno == 9
    assert c.walk(0, 5, "..", "..") == 2      # the root stays the root
    # a size field over msize cannot be resynchronised: dropped
    c.raw(struct.pack("<IBH", 1 << 24, T["clunk"], 1))
    with pytest.raises((ConnectionError, OSError)):
        c.recv_msg()
    c.close()
    c = server.client()
    assert c.walk(0, 1) == 0
    c.close()


def test_image_persists_and_read_only(tmp_path: Path) -> None:
    img = tmp_path / "p.img"
    s = Server(img, via_cli=True)              # through `steady serve`
    c = s.client()
    put(c, ["kept"], b"persistent\n", sync=False)   # clunk commits
    c.close()
    rc, err = s.stop()
    assert rc == 0 and "unmounted" in err, err
    s = Server(img, "--read-only", fmt=False)
    c = s.client()
    assert get(c, "kept") == b"persistent\n"
    c.walk(0, 1)
    with pytest.raises(NineError) as e:
        c.lcreate(1, "new")
    assert e.value.errno == 30
    c.walk(0, 2, "kept")
    with pytest.raises(NineError) as e:
        c.lopen(2, 1)
    assert e.value.errno == 30
    c.close()
    rc, err = s.stop()
    assert rc == 0, err


def steady_serve(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`steady serve` that is expected to stop at once (a refused start)."""
    return subprocess.run([sys.executable, "-m", "steadyfs.cli", "serve", *map(str, args),
                           "--listen", "tcp:127.0.0.1:0"], cwd=REPO, capture_output=True,
                          text=True, timeout=30)


def test_never_creates_or_formats_unasked(tmp_path: Path) -> None:
    """Issue 13: a mistyped image path made a new empty image.  A missing
    image is an error (--create makes one), --create refuses an existing
    file; the image's header gives the device, so --device is not needed
    and, if given, must agree (as --blocks must)."""
    typo = tmp_path / "typo.img"
    for extra in ((), ("--device", "mt29f1g01"), ("--format",)):
        r = steady_serve("--image", typo, *extra)
        assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.strip().splitlines() == [r.stderr.strip()] and "--create" in r.stderr
        assert not typo.exists()
    r = steady_serve("--image", typo, "--create")
    assert r.returncode == 2 and "--create needs --device" in r.stderr and not typo.exists()
    other = tmp_path / "other.bin"
    other.write_bytes(b"not an image, keep me\n")
    r = steady_serve("--image", other, "--create", "--device", "mt29f1g01")
    assert r.returncode != 0 and "exists" in r.stderr, r.stderr
    r = steady_serve("--image", other)
    assert r.returncode != 0 and "not a steadyfs device image" in r.stderr, r.stderr
    assert other.read_bytes() == b"not an image, keep me\n"
    # an image: served with nothing but its path; a disagreeing device or size refused
    img = tmp_path / "dev.img"
    s = Server(img)
    c = s.client()
    put(c, ["kept"], b"kept\n")
    c.close()
    assert s.stop()[0] == 0
    for wrong in (("--device", "em064lx"), ("--blocks", "128")):
        r = steady_serve("--image", img, *wrong)
        assert r.returncode != 0 and "image is" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    r = steady_serve("--image", img, "--create", "--device", "mt29f1g01")
    assert r.returncode != 0 and "exists" in r.stderr
    proc = subprocess.Popen([str(cmd_serve.binary()), "--image", str(img), "--listen",
                             "tcp:127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    m = re.match(r"listening on tcp:127\.0\.0\.1:(\d+)", proc.stdout.readline())
    assert m, proc.communicate()[1]
    c = Client(("127.0.0.1", int(m.group(1))))
    c.attach()
    assert get(c, "kept") == b"kept\n"
    c.close()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0 and "mt29f1g01" in err, err


def test_unix_socket_and_stdio(tmp_path: Path) -> None:
    img, sock = tmp_path / "u.img", tmp_path / "9p.sock"
    p = subprocess.Popen([str(cmd_serve.binary()), "--device", "mt29f1g01", "--blocks", "64",
                          "--image", str(img), "--create", "--listen", f"unix:{sock}"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None
    assert p.stdout.readline().strip() == f"listening on unix:{sock}"
    c = Client(str(sock))
    c.attach()
    put(c, ["u"], b"over a unix socket")
    c.close()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 0 and "unmounted" in err, err
    assert not sock.exists()
    # stdio: one session on stdin/stdout, then exit at EOF
    req = b"".join([
        struct.pack("<IBH", 7 + 4 + 10, T["version"], 0xFFFF) + struct.pack("<I", 4096) + s9("9P2000.L"),
        struct.pack("<IBHII", 7 + 8 + 2 + 2 + 4, T["attach"], 1, 0, NOFID) + s9("") + s9("")
        + struct.pack("<I", 0),
        struct.pack("<IBHIIH", 7 + 10 + 3, T["walk"], 2, 0, 1, 1) + s9("u"),
    ])
    r = subprocess.run([str(cmd_serve.binary()), "--device", "mt29f1g01", "--blocks", "64",
                        "--image", str(img), "--listen", "stdio"], input=req,
                       capture_output=True, timeout=30)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    types = []
    while out:
        size, typ = struct.unpack_from("<IB", out)
        types.append(typ)
        out = out[size:]
    assert types == [101, 105, 111]


def test_p9fs_client(server: Server) -> None:
    """A third client nobody here wrote: p9fs (fsspec over py9p) from PyPI.
    It walks path components as given, so paths are relative to the export
    root (a "/" component is refused: names never contain '/')."""
    p9fs = pytest.importorskip("p9fs")
    fs = p9fs.P9FileSystem(host="127.0.0.1", port=server.port, username="root")
    fs.mkdir("dir")
    with fs.open("dir/a.txt", "wb") as f:
        f.write(b"p9fs " * 2000)
    assert fs.ls("", detail=False) == ["dir/"]
    (entry,) = fs.ls("dir", detail=True)
    assert entry["name"] == "dir/a.txt" and entry["size"] == 10000
    with fs.open("dir/a.txt", "rb") as f:
        assert f.read() == b"p9fs " * 2000
    fs.mv("dir/a.txt", "dir/b.txt")
    assert fs.ls("dir", detail=False) == ["dir/b.txt"]
    fs.rm("dir/b.txt")
    assert fs.ls("dir", detail=False) == []
    fs.client.fd.close()   # hang up; the server then serves the next client
    c = server.client()
    assert c.walk(0, 1, "dir", "b.txt") == 1   # "dir" is there, "b.txt" is gone
    c.close()
