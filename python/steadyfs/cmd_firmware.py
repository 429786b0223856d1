"""`steady firmware run|size`: the Cortex-M3 firmware on QEMU mps2-an385.

run   boots build/firmware/steadyfs-fw.elf (make firmware), shows what the
      board prints on UART0 and returns the firmware's exit status.
      With --listen tcp:HOST:PORT the board mounts steadyfs (formatting a
      blank image) and serves 9P2000.L on UART0 through the framing layer;
      the relay (build/steady-relay) serves plain 9P at PORT, one client
      after another, until Ctrl-C or SIGTERM, which sends the board HALT
      (unmount, exit).  Linux v9fs, diod's tools or any 9P2000.L client
      then use the emulated chip as they use `steady serve`.
size  the linked-size report (file system / 9P server / device model / board).
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import threading
import time
from pathlib import Path

from steadyfs import firmware


def _serve(args: argparse.Namespace, image: Path) -> int:
    try:
        listen = firmware.parse_listen(args.listen)
    except ValueError as e:
        print(f"steady firmware run: {e}", file=sys.stderr)
        return 2
    if listen[0] not in ("127.0.0.1", "localhost", "::1"):
        print(f"steady firmware run: listening on {listen[0]}, not loopback: any host that "
              "reaches it gets the files (9P has no authentication here)", file=sys.stderr)
    words = firmware.firmware_cmdline(image.resolve(), serve=True, format_fs=args.format,
                                      check=args.check)

    def show(data: bytes) -> None:
        sys.stdout.write(data.decode(errors="replace").replace("\r\n", "\n"))
        sys.stdout.flush()

    def relay(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        with firmware.Board(image, words, elf=firmware.firmware_elf(args.spinand) if args.spinand
                            else None, on_output=show, listen=listen, on_relay=relay) as board:
            board.wait_relay(r"board ready", 30)
            print(f"steady firmware run: 9P2000.L on tcp:{listen[0]}:{board.port} "
                  f"(board image {image}); Ctrl-C stops the board", file=sys.stderr, flush=True)
            deadline = time.monotonic() + args.timeout if args.timeout else None
            while not stop.wait(0.2):
                if deadline and time.monotonic() > deadline:
                    break
                if board.exited():
                    break
            rc = board.halt()
            print(f"steady firmware run: board stopped, exit status {rc}", file=sys.stderr)
            return rc
    except firmware.FirmwareError as e:
        print(f"steady firmware run: {e}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    # the self-test writes its records over the whole device, so the file
    # system gets an image of its own by default
    default = "fsoc.img" if args.listen else "nand.img"
    image = Path(args.image) if args.image else firmware.firmware_elf().parent / default
    if args.listen:
        return _serve(args, image)
    words = firmware.firmware_cmdline(image.resolve(), records=args.records, writes=args.writes,
                                      period_ms=args.period)

    def show(data: bytes) -> None:
        sys.stdout.write(data.decode(errors="replace").replace("\r\n", "\n"))
        sys.stdout.flush()

    try:
        with firmware.Board(image, words, elf=firmware.firmware_elf(args.spinand) if args.spinand
                            else None, on_output=show) as board:
            try:
                rc = board.wait(args.timeout if args.timeout is not None else 60.0)
            except firmware.FirmwareError as e:
                print(f"steady firmware run: {e}; stopped", file=sys.stderr)
                return 124
            elapsed = (time.monotonic() - board.started) * 1000
            m = re.search(r"^boot: ready in (\d+) ms", board.text(), re.M)
            ready = f"ready after {m.group(1)} ms of board time, " if m else ""
            print(f"steady firmware run: {ready}exit status {rc} after {elapsed:.0f} ms "
                  f"(QEMU start included); image {image}", file=sys.stderr)
            return rc
    except firmware.FirmwareError as e:
        print(f"steady firmware run: {e}", file=sys.stderr)
        return 1


def _stack_file() -> Path:
    return firmware.firmware_elf().parent / "stack-high-water.json"


def _size(args: argparse.Namespace) -> int:
    try:
        rep = json.loads(firmware.size_report(as_json=True))
        text = firmware.size_report()
    except firmware.FirmwareError as e:
        print(f"steady firmware size: {e}", file=sys.stderr)
        return 1
    stack: dict[str, object] | None = None
    if args.measure:
        import os
        import tempfile
        with tempfile.TemporaryDirectory(prefix="steady-fw-size-") as tmp:
            r = firmware.serve_session(Path(tmp) / "nand.img", os.urandom(8192))
        if not r["ok"] or r["stack_high_water"] is None:
            print("steady firmware size: the measuring session failed:\n" + str(r["console"]),
                  file=sys.stderr)
            return 1
        stack = {"high_water": r["stack_high_water"],
                 "session": "serve: mkdir, 8 KiB write+fsync, read, rename, unlink; check boot"}
        _stack_file().write_text(json.dumps(stack) + "\n")
    elif _stack_file().is_file():
        stack = json.loads(_stack_file().read_text())
    parts = rep["parts"]
    fsoc_code = sum(parts[p]["text"] + parts[p]["data"] for p in ("fs", "p9", "link"))
    fsoc_ram = sum(parts[p]["data"] + parts[p]["bss"] for p in ("fs", "p9", "link"))
    hw = stack["high_water"] if stack else None
    if args.json:
        rep["stack_high_water"] = hw
        rep["fsoc"] = {"code": fsoc_code, "static_ram": fsoc_ram}
        print(json.dumps(rep))
        return 0
    sys.stdout.write(text)
    if hw is not None:
        print(f"  main stack high-water: {hw} bytes (stack painting, measured on the target"
              f"{'' if args.measure else ', last `steady firmware size --measure`'})")
    else:
        print("  main stack high-water: not measured yet (steady firmware size --measure)")
    ram = f"{fsoc_ram} B static" + (f" + {hw} B stack (whole firmware) = {fsoc_ram + hw} B"
                                      if hw is not None else "")
    print(f"  file system + 9P server + UART link: {fsoc_code} B code, RAM {ram}")
    print("  for scale: the FSOC paper's prototype file system 10 KB code / 6.5 KB RAM "
          "(ARM7); littlefs ~16.5 KB code (Cortex-M, -Os)")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("firmware", help="run the Cortex-M3 firmware under QEMU, size report",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    fsub = p.add_subparsers(dest="fw_command", metavar="ACTION", required=True)
    r = fsub.add_parser("run", help="boot the firmware on qemu-system-arm -M mps2-an385")
    r.add_argument("--image", help="host file holding the board's NAND image (created on "
                   "first boot; default <build>/firmware/fsoc.img with --listen, else nand.img)")
    r.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="stop the board after S seconds (self-test: exit 124; default 60; "
                   "with --listen: HALT it, default never)")
    r.add_argument("--listen", metavar="tcp:HOST:PORT",
                   help="serve the board's file system as plain 9P2000.L at PORT (0: any free "
                   "port; loopback unless told otherwise)")
    r.add_argument("--format", action="store_true",
                   help="with --listen: format the file system even if the image holds data")
    r.add_argument("--check", metavar="PATH",
                   help="with --listen: the board reads file PATH at boot and prints its "
                   "size and CRC-32")
    r.add_argument("--records", type=int, default=None, metavar="N",
                   help="self-test records written this boot (firmware default 8)")
    r.add_argument("--writes", type=int, default=0, metavar="N",
                   help="then N more records, each acknowledged on UART0")
    r.add_argument("--period", type=int, default=0, metavar="MS",
                   help="milliseconds between those writes")
    r.add_argument("--spinand", action="store_true",
                   help="boot the FW_SPINAND build (make firmware-spinand): the file system "
                   "through the SPI NAND driver and the command-level chip model")
    r.set_defaults(func=_run)
    s = fsub.add_parser("size", help="linked sizes by part (make firmware first)")
    s.add_argument("--json", action="store_true", help="as JSON")
    s.add_argument("--measure", action="store_true",
                   help="boot the board, run a short 9P session and record the stack "
                   "high-water mark (a few seconds)")
    s.set_defaults(func=_size)
