"""Run the steadyfs firmware on QEMU's mps2-an385 board.

QEMU runs the ELF with semihosting (the firmware loads and writes its NAND
image through it) and with two chardevs this module owns, both unix sockets
that *we* listen on and QEMU connects to at start-up, so there is no race:

- UART0 (``-serial chardev:uart0``): every byte the board sends is kept in
  ``Board.output`` (and passed to an optional callback); ``Board.write``
  sends bytes to the board.
- UART1 (second ``-serial``): the console while UART0 carries the framed
  9P link (firmware word ``serve``/``p9echo``); also kept in ``output``.
- With ``listen=("127.0.0.1", PORT)`` UART0 goes to the relay instead
  (build/steady-relay, src/host/main/relay_main.c): it removes the framing
  and serves plain 9P on that TCP port, one client after another; its log
  is in ``Board.relay_log``.  ``Board.halt()`` stops it, which sends the
  board HALT (unmount, exit).
- QMP, the QEMU monitor's JSON protocol (``-mon chardev=qmp,mode=control``):
  ``Board.reset()`` sends ``system_reset`` -- the board reboots in the same
  QEMU process, as after a power cycle, while its image file stays.

The firmware's exit status (semihosting SYS_EXIT_EXTENDED) is QEMU's exit
status.  Paths: $STEADYFS_FW names the ELF; otherwise it is
<build>/firmware/steadyfs-fw.elf where <build> is the directory of
$STEADYFS_LIB (default <repo>/build), the same build `make BUILD=...` made.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

QEMU = "qemu-system-arm"
MACHINE = "mps2-an385"
REPO = Path(__file__).resolve().parents[2]


class FirmwareError(RuntimeError):
    """QEMU is missing, the ELF is missing, or the board did not answer."""


def build_dir() -> Path:
    lib = os.environ.get("STEADYFS_LIB")
    return Path(lib).resolve().parent if lib else REPO / "build"


def firmware_elf(spinand: bool = False) -> Path:
    """The firmware ELF; spinand: the FW_SPINAND build (the file system on the
    SPI NAND driver and the chip model), <build>/firmware-spinand/."""
    if spinand:
        return build_dir() / "firmware-spinand" / "steadyfs-fw.elf"
    env = os.environ.get("STEADYFS_FW")
    return Path(env) if env else build_dir() / "firmware" / "steadyfs-fw.elf"


def relay_path() -> Path:
    return build_dir() / "steady-relay"


def parse_listen(spec: str) -> tuple[str, int]:
    """tcp:HOST:PORT -> (HOST, PORT); ValueError otherwise."""
    kind, _, rest = spec.partition(":")
    host, _, port = rest.rpartition(":")
    if kind != "tcp" or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--listen wants tcp:HOST:PORT, not {spec!r}")
    return host, int(port)


def qemu_path() -> str | None:
    return shutil.which(QEMU)


def _qemu_opt(value: str) -> str:
    """Escape a value for QEMU's key=value,... option syntax."""
    return value.replace(",", ",,")


def firmware_cmdline(image: Path, records: int | None = None, writes: int = 0,
                     period_ms: int = 0, echo: bool = False, fault: bool = False,
                     serve: bool = False, p9echo: bool = False, format_fs: bool = False,
                     check: str | None = None) -> list[str]:
    """The words of the firmware's semihosting command line (main.c)."""
    words = ["steadyfs-fw"]
    if serve:
        words.append("serve")
    if p9echo:
        words.append("p9echo")
    if format_fs:
        words.append("format")
    if check:
        if " " in check:
            raise ValueError("check=PATH: no spaces in PATH")
        words.append(f"check={check}")
    if records is not None:
        words.append(f"records={records}")
    if writes:
        words.append(f"writes={writes}")
    if period_ms:
        words.append(f"period={period_ms}")
    if echo:
        words.append("echo")
    if fault:
        words.append("fault")
    words.append(str(image))
    return words


class Board:
    """One QEMU process running the firmware; use as a context manager."""

    def __init__(self, image: Path, words: list[str] | None = None, elf: Path | None = None,
                 on_output: Callable[[bytes], None] | None = None,
                 listen: tuple[str, int] | None = None,
                 on_relay: Callable[[str], None] | None = None) -> None:
        self.elf = elf or firmware_elf()
        self.image = image.resolve()
        self.words = words or firmware_cmdline(self.image)
        self.on_output = on_output
        self.output = bytearray()
        self._cond = threading.Condition()
        self._eof = False
        self._tmp = tempfile.TemporaryDirectory(prefix="steadyfs-fw-")
        self._proc: subprocess.Popen[bytes] | None = None
        self._uart: socket.socket | None = None
        self._qmp: socket.socket | None = None
        self._qmp_buf = b""
        self._reader: threading.Thread | None = None
        self._readers: list[threading.Thread] = []
        self._uart1: socket.socket | None = None
        self.listen = listen
        self.on_relay = on_relay
        self.port = 0
        self.relay_log: list[str] = []
        self._relay: subprocess.Popen[bytes] | None = None
        self._lsock: socket.socket | None = None
        self.started = 0.0

    # ---- life cycle -------------------------------------------------------
    def start(self, connect_timeout: float = 10.0) -> Board:
        qemu = qemu_path()
        if not qemu:
            raise FirmwareError(f"{QEMU} not found (Debian package qemu-system-arm)")
        if not self.elf.is_file():
            raise FirmwareError(f"no firmware at {self.elf}: run `make firmware`")
        tmp = Path(self._tmp.name)
        listeners = {}
        if self.listen:
            relay = relay_path()
            if not relay.is_file():
                raise FirmwareError(f"no relay at {relay}: run `make firmware`")
            ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                ls.bind(self.listen)
            except OSError as e:
                ls.close()
                raise FirmwareError(f"cannot listen on {self.listen[0]}:{self.listen[1]}: {e}") from e
            ls.listen(4)
            self._lsock = ls
            self.port = ls.getsockname()[1]
        for name in ("uart0", "uart1", "qmp"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(str(tmp / f"{name}.sock"))
            s.listen(1)
            s.settimeout(connect_timeout)
            listeners[name] = s
        semi = "enable=on,target=native," + ",".join(f"arg={_qemu_opt(w)}" for w in self.words)
        cmd = [qemu, "-M", MACHINE, "-nographic",
               "-semihosting-config", semi,
               "-chardev", f"socket,id=uart0,path={_qemu_opt(str(tmp / 'uart0.sock'))}",
               "-serial", "chardev:uart0",
               "-chardev", f"socket,id=uart1,path={_qemu_opt(str(tmp / 'uart1.sock'))}",
               "-serial", "chardev:uart1",
               "-chardev", f"socket,id=qmp,path={_qemu_opt(str(tmp / 'qmp.sock'))}",
               "-mon", "chardev=qmp,mode=control",
               "-kernel", str(self.elf)]
        self.started = time.monotonic()
        self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, cwd=tmp)
        try:
            self._uart, _ = listeners["uart0"].accept()
            self._uart1, _ = listeners["uart1"].accept()
            self._qmp, _ = listeners["qmp"].accept()
        except OSError as e:
            self.close()
            raise FirmwareError(f"QEMU did not connect its chardevs: {e}; "
                                f"QEMU said: {self._stdout()}") from e
        finally:
            for s in listeners.values():
                s.close()
        self._qmp.settimeout(connect_timeout)
        self._qmp_read()  # greeting
        self.qmp("qmp_capabilities")
        if self.listen:
            self._start_relay()
        else:
            self._readers.append(threading.Thread(target=self._read_uart, args=(self._uart,),
                                                  daemon=True))
        self._readers.append(threading.Thread(target=self._read_uart, args=(self._uart1,),
                                              daemon=True))
        for t in self._readers:
            t.start()
        self._reader = self._readers[0]
        return self

    def _start_relay(self) -> None:
        assert self._uart and self._lsock
        fds = (self._uart.fileno(), self._lsock.fileno())
        self._relay = subprocess.Popen(
            [str(relay_path()), "--uart-fd", str(fds[0]), "--listen-fd", str(fds[1])],
            pass_fds=fds, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE)
        # the relay owns them now
        self._uart.close()
        self._uart = None
        self._lsock.close()
        self._lsock = None
        self._readers.append(threading.Thread(target=self._read_relay, daemon=True))

    def _read_relay(self) -> None:
        assert self._relay and self._relay.stderr
        for raw in self._relay.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            with self._cond:
                self.relay_log.append(line)
                self._cond.notify_all()
            if self.on_relay:
                self.on_relay(line)

    def wait_relay(self, pattern: str, timeout: float, start: int = 0) -> re.Match[str]:
        """Wait until a relay log line from index `start` matches `pattern`."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.relay_log[start:]:
                    m = rx.search(line)
                    if m:
                        return m
                left = deadline - time.monotonic()
                if left <= 0 or (self._relay is not None and self._relay.poll() is not None):
                    raise FirmwareError(f"no {pattern!r} from the relay; relay said:\n"
                                        + "\n".join(self.relay_log) + "\nUART1:\n" + self.text())
                self._cond.wait(min(left, 0.2))

    def halt(self, timeout: float = 20.0) -> int:
        """Stop the relay (it sends the board HALT: unmount, exit) and return
        the firmware's exit status."""
        if self._relay and self._relay.poll() is None:
            self._relay.terminate()
            try:
                self._relay.wait(timeout)
            except subprocess.TimeoutExpired:
                self._relay.kill()
                self._relay.wait()
        return self.wait(timeout)

    def __enter__(self) -> Board:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._relay and self._relay.poll() is None:
            self._relay.kill()
            self._relay.wait()
        if self._proc and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        for s in (self._uart, self._uart1, self._qmp, self._lsock):
            if s:
                s.close()
        for t in self._readers:
            t.join(timeout=2)
        if self._relay and self._relay.stderr:
            self._relay.stderr.close()
        if self._proc and self._proc.stdout:
            self._proc.stdout.close()
        self._tmp.cleanup()

    def exited(self) -> bool:
        """QEMU (so the board) has stopped."""
        return self._proc is not None and self._proc.poll() is not None

    def wait(self, timeout: float) -> int:
        """The firmware's exit status; FirmwareError if it does not exit in time."""
        assert self._proc
        try:
            rc = self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired as e:
            tail = self.text()[-2000:]
            raise FirmwareError(f"board still running after {timeout} s; UART0 so far:\n"
                                f"{tail}") from e
        for t in self._readers:
            t.join(timeout=2)  # the rest of the UART output
        return rc

    def _stdout(self) -> str:
        if self._proc and self._proc.poll() is not None and self._proc.stdout:
            return self._proc.stdout.read().decode(errors="replace").strip()
        return ""

    # ---- UART0 ------------------------------------------------------------
    def _read_uart(self, sock: socket.socket | None) -> None:
        assert sock
        while True:
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            with self._cond:
                if not data:
                    self._eof = True
                    self._cond.notify_all()
                    return
                self.output += data
                self._cond.notify_all()
            if self.on_output:
                self.on_output(data)

    def write(self, data: bytes) -> None:
        assert self._uart
        self._uart.sendall(data)

    def text(self) -> str:
        with self._cond:
            return self.output.decode(errors="replace").replace("\r\n", "\n")

    def wait_for(self, pattern: str, timeout: float, start: int = 0) -> re.Match[str]:
        """Wait until the UART text from offset `start` matches `pattern`."""
        rx = re.compile(pattern, re.M)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                m = rx.search(self.output.decode(errors="replace").replace("\r\n", "\n"), start)
                if m:
                    return m
                left = deadline - time.monotonic()
                if left <= 0 or self._eof:
                    why = "board stopped" if self._eof else f"{timeout} s passed"
                    raise FirmwareError(f"no {pattern!r} on UART0 ({why}); got:\n"
                                        + self.output.decode(errors="replace"))
                self._cond.wait(left)

    # ---- monitor (QMP) ----------------------------------------------------
    def _qmp_read(self) -> dict[str, object]:
        assert self._qmp
        while b"\n" not in self._qmp_buf:
            chunk = self._qmp.recv(4096)
            if not chunk:
                raise FirmwareError("QEMU monitor closed")
            self._qmp_buf += chunk
        line, self._qmp_buf = self._qmp_buf.split(b"\n", 1)
        msg: dict[str, object] = json.loads(line)
        return msg

    def qmp(self, command: str, **arguments: object) -> object:
        """Run a QMP command; its "return" value (events are skipped)."""
        assert self._qmp
        req: dict[str, object] = {"execute": command}
        if arguments:
            req["arguments"] = arguments
        self._qmp.sendall(json.dumps(req).encode() + b"\n")
        while True:
            msg = self._qmp_read()
            if "return" in msg:
                return msg["return"]
            if "error" in msg:
                raise FirmwareError(f"QMP {command}: {msg['error']}")

    def reset(self) -> None:
        """system_reset: the board reboots now, mid-operation if it was busy."""
        self.qmp("system_reset")


def size_report(as_json: bool = False) -> str:
    """The linked-size report of the firmware (firmware/size-report.sh)."""
    elf = firmware_elf()
    mapfile = elf.with_suffix(".map")
    if not mapfile.is_file():
        raise FirmwareError(f"no linker map at {mapfile}: run `make firmware`")
    args = [str(REPO / "firmware" / "size-report.sh"), str(mapfile)]
    if as_json:
        args.append("--json")
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def _stack_high_water(text: str) -> int | None:
    m = re.search(r"^stack: high-water (\d+) of (\d+) bytes", text, re.M)
    return int(m.group(1)) if m else None


def serve_session(image: Path, data: bytes, path: str = "/demo/host.bin",
                  timeout: float = 60.0, elf: Path | None = None) -> dict[str, object]:
    """Boot the board serving 9P, let a host client (p9client) mkdir, write
    `data` to `path` with fsync, read it back, list, rename a scratch file
    and unlink it; HALT the board; then boot it again with check=PATH so the
    board reads the file back itself.  Returns what was measured: the CRC-32
    of the data on the host and as the board read it, the board's stack
    high-water mark over both boots, timings."""
    import zlib

    from steadyfs import p9client

    out: dict[str, object] = {"path": path, "bytes": len(data),
                              "crc32_host": zlib.crc32(data)}
    t0 = time.monotonic()
    words = firmware_cmdline(image.resolve(), serve=True)
    with Board(image, words, elf=elf, listen=("127.0.0.1", 0)) as board:
        board.wait_relay(r"board ready", timeout)
        out["boot_s"] = time.monotonic() - t0
        with p9client.Client("127.0.0.1", board.port, timeout=timeout) as c:
            parent = path.rsplit("/", 1)[0]
            if parent and parent.strip("/") not in c.listdir("/"):
                c.mkdir(parent)
            t1 = time.monotonic()
            c.put(path, data)
            out["write_s"] = time.monotonic() - t1
            t1 = time.monotonic()
            back = c.get(path)
            out["read_s"] = time.monotonic() - t1
            out["host_readback_ok"] = back == data
            c.put(parent + "/scratch", b"x" * 100)
            c.rename(parent + "/scratch", parent + "/scratch2")
            c.unlink(parent + "/scratch2")
            out["listing"] = c.listdir(parent or "/")
        rc = board.halt(timeout)
        out["serve_exit"] = rc
        serve_text = board.text()
    words = firmware_cmdline(image.resolve(), check=path)
    with Board(image, words, elf=elf) as board:
        rc2 = board.wait(timeout)
        check_text = board.text()
    out["check_exit"] = rc2
    m = re.search(r"^check: (\S+) (\d+) bytes crc32 0x([0-9a-f]{8})", check_text, re.M)
    out["crc32_board"] = int(m.group(3), 16) if m else None
    out["bytes_board"] = int(m.group(2)) if m else None
    stacks = [s for s in (_stack_high_water(serve_text), _stack_high_water(check_text))
              if s is not None]
    out["stack_high_water"] = max(stacks) if stacks else None
    out["ok"] = (rc == 0 and rc2 == 0 and out["host_readback_ok"] is True
                 and out["crc32_board"] == out["crc32_host"] and out["bytes_board"] == len(data))
    out["total_s"] = time.monotonic() - t0
    out["console"] = serve_text + check_text
    return out
