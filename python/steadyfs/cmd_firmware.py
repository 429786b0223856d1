"""`steady firmware run|size`: the Cortex-M3 firmware on QEMU mps2-an385.

run   boots build/firmware/steadyfs-fw.elf (make firmware), shows what the
      board prints on UART0 and returns the firmware's exit status.
size  the linked-size report (file system / 9P server / device model / board).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from steadyfs import firmware


def _run(args: argparse.Namespace) -> int:
    if args.listen:
        print(f"steady firmware run: --listen {args.listen} is not available yet: the 9P "
              "server and its UART framing (src/p9) are not in the firmware yet; run "
              "without --listen to boot the board's self-test", file=sys.stderr)
        return 2
    image = Path(args.image) if args.image else firmware.firmware_elf().parent / "nand.img"
    words = firmware.firmware_cmdline(image.resolve(), records=args.records, writes=args.writes,
                                      period_ms=args.period)

    def show(data: bytes) -> None:
        sys.stdout.write(data.decode(errors="replace").replace("\r\n", "\n"))
        sys.stdout.flush()

    try:
        with firmware.Board(image, words, on_output=show) as board:
            try:
                rc = board.wait(args.timeout)
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


def _size(args: argparse.Namespace) -> int:
    try:
        sys.stdout.write(firmware.size_report(as_json=args.json))
    except firmware.FirmwareError as e:
        print(f"steady firmware size: {e}", file=sys.stderr)
        return 1
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("firmware", help="run the Cortex-M3 firmware under QEMU, size report",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    fsub = p.add_subparsers(dest="fw_command", metavar="ACTION", required=True)
    r = fsub.add_parser("run", help="boot the firmware on qemu-system-arm -M mps2-an385")
    r.add_argument("--image", help="host file holding the board's NAND image "
                   "(created on first boot; default <build>/firmware/nand.img)")
    r.add_argument("--timeout", type=float, default=60.0, metavar="S",
                   help="stop the board after S seconds (exit 124)")
    r.add_argument("--listen", metavar="tcp:HOST:PORT",
                   help="relay plain 9P at PORT to the board (not available yet)")
    r.add_argument("--records", type=int, default=None, metavar="N",
                   help="self-test records written this boot (firmware default 8)")
    r.add_argument("--writes", type=int, default=0, metavar="N",
                   help="then N more records, each acknowledged on UART0")
    r.add_argument("--period", type=int, default=0, metavar="MS",
                   help="milliseconds between those writes")
    r.set_defaults(func=_run)
    s = fsub.add_parser("size", help="linked sizes by part (make firmware first)")
    s.add_argument("--json", action="store_true", help="as JSON")
    s.set_defaults(func=_size)
