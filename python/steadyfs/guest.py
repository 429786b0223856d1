"""A Linux guest that mounts a 9P2000.L server with the kernel's own client.

Issue 6 part 4: Linux's v9fs, a client nobody here wrote, against any 9P
server reachable on the host's loopback (`steady serve`, the firmware's relay,
or diod as the reference).  The guest is the installed Debian kernel
(linux-image-amd64) with an initramfs built here at run time: busybox-static,
the kernel modules 9P over TCP needs and the NIC driver (resolved through the
kernel's modules.dep), tests/interop/init.sh as /init and a script of file
operations (default tests/interop/v9fs-ops.sh).  qemu-system-x86_64 boots it
under TCG with user networking, where the host's loopback is 10.0.2.2.

The script reports on the serial console ("V9FS ..." lines, see the script);
`run_guest_v9fs` returns them parsed, and `check_effects` compares the tree
the guest saw with the tree read on the server side by another route
(`dir_tree` for a host directory, `diod_tree` through diod's clients).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

REPO = Path(__file__).resolve().parents[2]
INTEROP = REPO / "tests" / "interop"
DEFAULT_SCRIPT = INTEROP / "v9fs-ops.sh"
EDGE_SCRIPT = INTEROP / "v9fs-edge.sh"
QEMU = "qemu-system-x86_64"
GUEST_HOST = "10.0.2.2"  # the host's loopback, seen from QEMU's user network
# 9P over TCP, then the driver of the NIC QEMU emulates (NIC_MODEL).  A
# virtio NIC's link is up at once; e1000's takes ~2 s to negotiate.
NIC_MODEL = "virtio-net-pci"
MODULES = ("9p", "9pnet_fd", "virtio_pci", "virtio_net")


class GuestError(RuntimeError):
    """The guest could not be built, did not boot, or did not finish."""


@dataclass(frozen=True)
class Kernel:
    release: str
    image: Path    # /boot/vmlinuz-<release>
    modules: Path  # /lib/modules/<release>


@dataclass(frozen=True)
class FileSum:
    size: int
    sha256: str


# A tree: path relative to the export root -> FileSum, or None for a directory.
Tree = dict[str, "FileSum | None"]


@dataclass
class GuestResult:
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)   # "name: detail"
    times: dict[str, float] = field(default_factory=dict)
    attrs: dict[str, str] = field(default_factory=dict)
    tree: Tree = field(default_factory=dict)
    done: bool = False        # the script reached its end
    exit_status: int | None = None
    boot_s: float = 0.0       # QEMU start to the guest's /init
    total_s: float = 0.0      # QEMU start to QEMU exit
    console: str = ""

    @property
    def ok(self) -> bool:
        return self.done and self.exit_status == 0 and not self.failed and bool(self.passed)


# ---------------------------------------------------------------- the guest's parts
def qemu_path() -> str | None:
    return shutil.which(QEMU)


def _version_key(release: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", release)]


def find_kernel() -> Kernel | None:
    """The newest installed kernel with its modules ($STEADYFS_GUEST_KERNEL
    names a release to use instead)."""
    want = os.environ.get("STEADYFS_GUEST_KERNEL")
    found = []
    for img in Path("/boot").glob("vmlinuz-*"):
        rel = img.name[len("vmlinuz-"):]
        mods = Path("/lib/modules") / rel
        if (mods / "modules.dep").is_file() and (want is None or rel == want):
            found.append(Kernel(rel, img, mods))
    return max(found, key=lambda k: _version_key(k.release)) if found else None


def missing_parts() -> str | None:
    """Why a guest cannot run here, or None when it can."""
    if qemu_path() is None:
        return f"{QEMU} is not installed (Debian package qemu-system-x86)"
    k = find_kernel()
    if k is None:
        return "no kernel with modules in /boot and /lib/modules (Debian package linux-image-amd64)"
    if not os.access(k.image, os.R_OK):
        return f"{k.image} is not readable by this user"
    if busybox_path() is None:
        return "no static busybox (Debian package busybox-static)"
    return None


def busybox_path() -> Path | None:
    """A statically linked busybox (busybox-static installs /bin/busybox)."""
    for cand in (os.environ.get("STEADYFS_GUEST_BUSYBOX"), "/bin/busybox", shutil.which("busybox")):
        if cand and Path(cand).is_file() and _is_static_elf(Path(cand)):
            return Path(cand)
    return None


def _is_static_elf(path: Path) -> bool:
    """An x86-64 ELF with no program interpreter (PT_INTERP)."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:5] != b"\x7fELF\x02":
            return False
        phoff, = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    return all(struct.unpack_from("<I", table, i * phentsize)[0] != 3 for i in range(phnum))


def module_closure(kernel: Kernel, names: tuple[str, ...] = MODULES) -> list[str]:
    """Module paths (relative to kernel.modules) for `names` and everything
    they depend on, each after its dependencies, per modules.dep."""
    deps: dict[str, list[str]] = {}
    by_name: dict[str, str] = {}
    for line in (kernel.modules / "modules.dep").read_text().splitlines():
        mod, _, rest = line.partition(":")
        deps[mod] = rest.split()
        base = mod.rsplit("/", 1)[-1].split(".ko")[0]
        by_name[base.replace("-", "_")] = mod
    order: list[str] = []

    def visit(mod: str) -> None:
        if mod in order:
            return
        for d in deps.get(mod, []):
            visit(d)
        order.append(mod)

    for n in names:
        found = by_name.get(n.replace("-", "_"))
        if found is None:
            raise GuestError(f"kernel {kernel.release} has no module {n} (is it built in? "
                             f"then drop it from the list)")
        visit(found)
    return order


def _module_bytes(path: Path) -> bytes:
    """A module file's contents, decompressed (busybox insmod loads plain .ko)."""
    raw = path.read_bytes()
    if path.suffix == ".xz":
        import lzma
        return lzma.decompress(raw)
    if path.suffix == ".gz":
        import gzip
        return gzip.decompress(raw)
    if path.suffix == ".zst":
        raise GuestError(f"{path}: zstd-compressed modules are not supported here")
    return raw


class Cpio:
    """A newc ("070701") cpio archive, the format the kernel unpacks as initramfs."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.ino = 1

    def _entry(self, name: str, mode: int, data: bytes = b"", rdev: tuple[int, int] = (0, 0)) -> None:
        fields = (self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name) + 1, 0)
        self.ino += 1
        self.out += b"070701" + b"".join(b"%08X" % v for v in fields) + name.encode() + b"\0"
        self.out += b"\0" * (-len(self.out) % 4)
        self.out += data
        self.out += b"\0" * (-len(self.out) % 4)

    def dir(self, name: str) -> None:
        self._entry(name, 0o040755)

    def file(self, name: str, data: bytes, mode: int = 0o644) -> None:
        self._entry(name, 0o100000 | mode, data)

    def chardev(self, name: str, major: int, minor: int) -> None:
        self._entry(name, 0o020600, rdev=(major, minor))

    def finish(self) -> bytes:
        self._entry("TRAILER!!!", 0)
        return bytes(self.out)


def build_initramfs(out: Path, kernel: Kernel, script: Path, env: Mapping[str, str],
                    modules: tuple[str, ...] = MODULES,
                    extra: Mapping[str, tuple[bytes, int]] | None = None) -> None:
    """Write the guest's initramfs: busybox, the modules, /init, the script,
    and `extra` files (path in the guest -> (contents, mode); their
    directories are made), e.g. programs with their libraries
    (fstools.guest_bundle)."""
    bb = busybox_path()
    if bb is None:
        raise GuestError("no static busybox (Debian package busybox-static)")
    for key, val in env.items():
        if not re.fullmatch(r"[A-Z_][A-Z0-9_]*", key) or "'" in val:
            raise GuestError(f"bad guest setting {key}={val!r}")
    c = Cpio()
    for d in ("bin", "dev", "etc", "lib", "lib/modules", "mnt", "proc", "sys", "tmp"):
        c.dir(d)
    # The kernel opens /dev/console for /init before devtmpfs is mounted.
    c.chardev("dev/console", 5, 1)
    c.file("bin/busybox", bb.read_bytes(), 0o755)
    c.file("init", (INTEROP / "init.sh").read_bytes(), 0o755)
    load = []
    for rel in module_closure(kernel, modules):
        name = rel.rsplit("/", 1)[-1].split(".ko")[0] + ".ko"
        c.file(f"lib/modules/{name}", _module_bytes(kernel.modules / rel))
        load.append(name)
    c.file("etc/modules.load", "".join(m + "\n" for m in load).encode())
    c.file("etc/guest.env", "".join(f"{k}='{v}'\n" for k, v in env.items()).encode())
    c.file("etc/v9fs-lib.sh", (INTEROP / "v9fs-lib.sh").read_bytes(), 0o644)
    c.file("etc/ops.sh", script.read_bytes(), 0o755)
    made = {"bin", "dev", "etc", "lib", "lib/modules", "mnt", "proc", "sys", "tmp"}
    for path, (data, mode) in sorted((extra or {}).items()):
        parts = path.strip("/").split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            if d not in made:
                c.dir(d)
                made.add(d)
        c.file("/".join(parts), data, mode)
    out.write_bytes(c.finish())


# ---------------------------------------------------------------- running it
def mount_options(port: int, aname: str | None = None, msize: int | None = None,
                  extra: str = "") -> str:
    opts = [f"trans=tcp,port={port},version=9p2000.L"]
    if aname:
        opts.append(f"aname={aname}")
    if msize:
        opts.append(f"msize={msize}")
    if extra:
        opts.append(extra)
    return ",".join(opts)


def build_dir() -> Path:
    """<build> of $STEADYFS_LIB (default <repo>/build), as firmware.py."""
    lib = os.environ.get("STEADYFS_LIB")
    return Path(lib).resolve().parent if lib else REPO / "build"


def boot_image(kernel: Kernel) -> Path:
    """The kernel as QEMU should load it: the uncompressed ELF vmlinux
    (cached in <build>/guest/), booted through its PVH entry point, when
    the kernel has one (CONFIG_PVH) and is xz- or gzip-compressed; else
    the bzImage.  Under TCG, decompressing the kernel in the guest takes
    most of the boot (measured 23 s vs 6.7 s to /init on a loaded host)."""
    config = Path("/boot") / f"config-{kernel.release}"
    if not config.is_file() or "CONFIG_PVH=y" not in config.read_text().splitlines():
        return kernel.image
    cached = build_dir() / "guest" / f"vmlinux-{kernel.release}"
    if cached.is_file() and cached.stat().st_mtime >= kernel.image.stat().st_mtime:
        return cached
    raw = kernel.image.read_bytes()
    elf = b""
    at = raw.find(b"\xfd7zXZ\x00")
    if at >= 0:
        import lzma
        elf = lzma.LZMADecompressor().decompress(raw[at:])
    else:
        at = raw.find(b"\x1f\x8b\x08")
        if at >= 0:
            import zlib
            elf = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw[at:])
    if elf[:4] != b"\x7fELF":
        return kernel.image
    cached.parent.mkdir(parents=True, exist_ok=True)
    part = cached.with_name(f"{cached.name}.{os.getpid()}")
    part.write_bytes(elf)
    part.replace(cached)  # atomic: parallel runs never see half a kernel
    return cached


def qemu_command(kernel: Kernel, initrd: Path, memory_mb: int = 256) -> list[str]:
    qemu = qemu_path()
    if qemu is None:
        raise GuestError(f"{QEMU} is not installed (Debian package qemu-system-x86)")
    return [qemu, "-accel", "tcg", "-m", str(memory_mb), "-smp", "1",
            "-nodefaults", "-no-user-config", "-display", "none", "-monitor", "none",
            "-serial", "stdio", "-no-reboot",
            "-nic", f"user,model={NIC_MODEL}",
            "-kernel", str(boot_image(kernel)), "-initrd", str(initrd),
            "-append", "console=ttyS0 panic=-1 loglevel=4 quiet"]


def run_guest_v9fs(port: int, script: Path = DEFAULT_SCRIPT, *, aname: str | None = None,
                   msize: int | None = None, extra_opts: str = "", timeout: float = 240.0,
                   on_output: Callable[[str], None] | None = None,
                   extra: Mapping[str, tuple[bytes, int]] | None = None,
                   env: Mapping[str, str] | None = None, memory_mb: int = 256) -> GuestResult:
    """Boot the guest, mount the 9P server at the host's 127.0.0.1:`port`,
    run `script` and return what it reported.  `extra` files go into the
    initramfs (build_initramfs), `env` settings into /etc/guest.env beside
    V9FS_HOST and V9FS_OPTS (the script sees them as shell variables).
    Raises GuestError when the guest does not get to run the script or
    exceeds `timeout` seconds."""
    kernel = find_kernel()
    if kernel is None:
        raise GuestError("no kernel with modules (Debian package linux-image-amd64)")
    settings = {**(env or {}), "V9FS_HOST": GUEST_HOST,
                "V9FS_OPTS": mount_options(port, aname, msize, extra_opts)}
    with tempfile.TemporaryDirectory(prefix="steady-guest-") as tmp:
        initrd = Path(tmp) / "initramfs.cpio"
        build_initramfs(initrd, kernel, script, settings, extra=extra)
        cmd = qemu_command(kernel, initrd, memory_mb)
        lines: list[str] = []
        booted: list[float] = []
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

        def pump() -> None:
            assert proc.stdout is not None
            for raw in proc.stdout:
                line = raw.decode(errors="replace").rstrip("\r\n")
                if line.startswith("GUEST BOOTED") and not booted:
                    booted.append(time.monotonic() - t0)
                lines.append(line)
                if on_output is not None:
                    on_output(line)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            reader.join(5)
            raise GuestError(f"guest did not finish in {timeout:.0f} s; console ends:\n"
                             + "\n".join(lines[-30:])) from None
        reader.join(5)
        result = parse_console(lines)
        result.total_s = time.monotonic() - t0
        result.boot_s = booted[0] if booted else 0.0
        if not booted:
            raise GuestError(f"guest did not reach /init (QEMU status {proc.returncode}); "
                             "console ends:\n" + "\n".join(lines[-30:]))
        return result


_END = re.compile(r"GUEST END rc=(\d+)")


def parse_console(lines: list[str]) -> GuestResult:
    r = GuestResult(console="\n".join(lines))
    for line in lines:
        m = _END.search(line)
        if m:
            r.exit_status = int(m.group(1))
        if not line.startswith("V9FS "):
            continue
        kind, _, rest = line[5:].partition(" ")
        if kind == "ok":
            r.passed.append(rest)
        elif kind == "FAIL":
            r.failed.append(rest)
        elif kind == "time":
            name, secs = rest.rsplit(" ", 1)
            r.times[name] = float(secs)
        elif kind == "attr":
            name, _, value = rest.partition(" ")
            r.attrs[name] = value.strip()
        elif kind == "dir":
            r.tree[rest] = None
        elif kind == "file":
            path, size, digest = rest.rsplit(" ", 2)
            r.tree[path] = FileSum(int(size), digest)
        elif kind == "done":
            r.done = True
    return r


# ---------------------------------------------------------------- the server side
def dir_tree(root: Path) -> Tree:
    """The tree under a host directory (what diod exported)."""
    tree: Tree = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        for d in dirnames:
            tree[str(rel / d) if str(rel) != "." else d] = None
        for f in filenames:
            p = Path(dirpath) / f
            tree[str(rel / f) if str(rel) != "." else f] = _sum(p.read_bytes())
    return tree


def _sum(data: bytes) -> FileSum:
    return FileSum(len(data), hashlib.sha256(data).hexdigest())


def _diod_tool(tool: str, server: str, aname: str, args: list[str]) -> bytes:
    exe = shutil.which(tool) or f"/usr/sbin/{tool}"
    proc = subprocess.run([exe, "-s", server, "-a", aname, "-t", "20", *args],
                          capture_output=True, timeout=60)
    if proc.returncode != 0:
        raise GuestError(f"{tool} {' '.join(args)}: status {proc.returncode}: "
                         f"{proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def diod_tree(server: str, aname: str) -> Tree:
    """The tree a 9P server exports, read with diod's clients (diodls lists
    a directory, diodcat reads a file); `server` is HOST:PORT."""
    tree: Tree = {}
    todo = [""]
    while todo:
        d = todo.pop()
        out = _diod_tool("diodls", server, aname, ["-l", d or "."]).decode()
        for line in out.splitlines():
            if not line.strip():
                continue
            # diodls -l: "MODE NLINK USER GROUP SIZE Mon DD HH:MM NAME", where
            # NAME (the rest of the line) may hold spaces; MODE "d..." for dirs
            parts = line.split(None, 8)
            if len(parts) != 9:
                raise GuestError(f"diodls -l {d or '.'}: cannot read {line!r}")
            name = parts[8]
            if name in (".", ".."):
                continue
            path = f"{d}/{name}" if d else name
            if parts[0].startswith("d"):
                tree[path] = None
                todo.append(path)
                continue
            try:
                tree[path] = _sum(_diod_tool("diodcat", server, aname, [path]))
            except GuestError as e:
                # diodls -l shows a symlink as "-rwxrwxrwx"; steady serve does
                # not follow it (ELOOP): the trees compared hold files and dirs
                if "symbolic links" not in str(e):
                    raise
    return tree


# What tests/interop/v9fs-ops.sh leaves behind that is known without the guest.
EXPECT: dict[str, bytes] = {
    "hello.txt": b"hello, v9fs\n",
    "b.txt": b"renamed\n",
    "victim.txt": b"new\n",
    "d1/moved.txt": b"deep file\n",
    "d1/with  space.txt": b"spaced\n",
    "newdir/inner.txt": b"in dir\n",
    "log.txt": b"line one\nline two\nline three\n",
    "empty.bin": b"",
    **{f"many/f{i:03d}": f"file {i:03d}\n".encode() for i in range(1, 200, 2)},
}
EXPECT_SIZES: dict[str, int] = {"trunc.bin": 20000, "big.bin": 4 * 1024 * 1024}
EXPECT_DIRS = ("d1", "d1/d2", "d1/d2/d3", "many", "newdir")
ABSENT = ("a.txt", "new.txt", "gone.txt", "emptydir", "olddir", "d1/d2/d3/d4",
          *(f"many/f{i:03d}" for i in range(0, 200, 2)))


def check_effects(result: GuestResult, server: Tree, default_script: bool = True) -> list[str]:
    """Problems found comparing the tree the guest reported with the tree
    read on the server side (and, for the default script, with what it is
    known to leave behind).  Empty when everything agrees."""
    problems = []
    if not result.tree:
        problems.append("the guest reported no tree")
    for path in sorted(set(result.tree) | set(server)):
        g, s = result.tree.get(path, "missing"), server.get(path, "missing")
        if g != s:
            problems.append(f"{path}: guest saw {g}, server has {s}")
    if default_script:
        for path, data in EXPECT.items():
            if server.get(path, "missing") != _sum(data):
                problems.append(f"{path}: server has {server.get(path, 'missing')}, "
                                f"expected {data!r}")
        for path, size in EXPECT_SIZES.items():
            got = server.get(path)
            if not isinstance(got, FileSum) or got.size != size:
                problems.append(f"{path}: server has {got}, expected {size} bytes")
        for path in EXPECT_DIRS:
            if path not in server or server[path] is not None:
                problems.append(f"{path}: expected a directory on the server")
        for path in ABSENT:
            if path in server:
                problems.append(f"{path}: should be gone, server still has it")
    return problems


# ---------------------------------------------------------------- reference server
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_listening(port: int, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise GuestError(f"nothing listens on 127.0.0.1:{port} after {timeout:.0f} s")


def diod_path() -> str | None:
    return shutil.which("diod") or (str(Path("/usr/sbin/diod")) if Path("/usr/sbin/diod").exists() else None)


class Diod:
    """diod serving a host directory on 127.0.0.1 (the reference server)."""

    def __init__(self, export: Path, port: int | None = None) -> None:
        exe = diod_path()
        if exe is None:
            raise GuestError("diod is not installed (Debian package diod)")
        self.export = export.resolve()
        self.port = port or free_port()
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [exe, "-f", "-n", "-c", "/dev/null", "-L", "stderr",
             "-l", f"127.0.0.1:{self.port}", "-e", str(self.export)],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            wait_listening(self.port)
        except GuestError:
            self.close()
            raise

    @property
    def server(self) -> str:
        return f"127.0.0.1:{self.port}"

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Diod:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
