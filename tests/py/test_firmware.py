"""The Cortex-M3 firmware on QEMU mps2-an385 (issue 7, board side).

Builds it with `make firmware` (BUILD = the directory of $STEADYFS_LIB, as
the other Python tests use; $STEADYFS_FW names a prebuilt ELF instead),
boots it under qemu-system-arm and checks what it says on UART0 and what it
leaves in its image file, decoded here independently from
docs/SIM-IMAGE.md and the record format in firmware/selftest.h.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
from pathlib import Path

import pytest

from steadyfs import firmware

pytestmark = pytest.mark.skipif(firmware.qemu_path() is None,
                                reason="qemu-system-arm is not installed "
                                       "(Debian package qemu-system-arm)")

BLOCKS, PPB, PAGE, SPARE = 32, 64, 2048, 64
STACK = 8192


def image_layout() -> tuple[int, int, int]:
    """(page_meta_off, data_off, total) for the board's 32-block mt29f1g01."""
    def up(v: int, a: int) -> int:
        return (v + a - 1) // a * a
    pmo = up(4096 + 8 * BLOCKS, 8)
    data_off = up(pmo + 36 * BLOCKS * PPB, 4096)
    return pmo, data_off, data_off + BLOCKS * PPB * (PAGE + SPARE)


def pattern(seq: int, n: int) -> bytes:
    m = 0xFFFFFFFF
    x = (seq * 0x9E3779B9 + 1) & m
    out = bytearray()
    while len(out) < n:
        x ^= (x << 13) & m
        x ^= x >> 17
        x ^= (x << 5) & m
        out += struct.pack("<I", x)
    return bytes(out[:n])


def fnv1a(data: bytes, h: int = 2166136261) -> int:
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def records_in(path: Path) -> dict[int, int]:
    """{seq: boot} of every valid record page in an image file."""
    raw = path.read_bytes()
    _, data_off, total = image_layout()
    assert len(raw) == total
    assert raw[:8] == b"STDYSIM1" and raw[16:25] == b"mt29f1g01"
    assert struct.unpack_from("<I", raw, 64)[0] == BLOCKS
    found: dict[int, int] = {}
    for i in range(BLOCKS * PPB):
        off = data_off + i * (PAGE + SPARE)
        page = bytes(b ^ 0xFF for b in raw[off:off + PAGE + SPARE])  # stored XOR erased
        main, spare = page[:PAGE], page[PAGE:]
        magic, seq, boot, csum = struct.unpack_from("<IIII", main)
        if magic != 0x31574653:
            continue
        assert csum == fnv1a(spare[:8], fnv1a(main[16:], fnv1a(main[:12])))
        assert main[16:] == pattern(seq, PAGE - 16)
        assert struct.unpack_from("<II", spare) == (seq, seq ^ 0xFFFFFFFF)
        found[seq] = boot
    return found


@pytest.fixture(scope="module")
def elf() -> Path:
    if not os.environ.get("STEADYFS_FW"):
        subprocess.run(["make", "-s", f"BUILD={firmware.build_dir()}", "firmware"],
                       cwd=firmware.REPO, check=True, capture_output=True)
    path = firmware.firmware_elf()
    assert path.is_file()
    return path


def boot(elf: Path, image: Path, timeout: float = 20.0, **kw: object) -> tuple[int, str]:
    words = firmware.firmware_cmdline(image, **kw)  # type: ignore[arg-type]
    with firmware.Board(image, words, elf=elf) as b:
        rc = b.wait(timeout)
        return rc, b.text()


def test_boot_selftest_and_image_survives_reboot(elf: Path, tmp_path: Path) -> None:
    img = tmp_path / "nand.img"
    rc, out = boot(elf, img)
    assert rc == 0, out
    assert out.startswith("steadyfs firmware ")
    assert "mps2-an385" in out.splitlines()[0]
    assert f"image: formatted new {img}" in out
    assert f"image {image_layout()[2]} bytes" in out
    assert "selftest: boot 1, found 0 records, corrupt 0" in out
    assert "selftest: wrote 8 records seq 0..7, read back 8 ok" in out
    assert "selftest: PASS" in out and out.rstrip().endswith("exit: 0")
    m = re.search(r"^stack: high-water (\d+) of (\d+) bytes", out, re.M)
    assert m and 0 < int(m.group(1)) < int(m.group(2)) == STACK
    assert records_in(img) == {s: 1 for s in range(8)}

    rc, out = boot(elf, img)  # a second board boot reads what the first wrote
    assert rc == 0, out
    assert f"image: loaded {img}" in out
    assert "selftest: boot 2, found 8 records seq 0..7, corrupt 0, foreign 0" in out
    assert "selftest: wrote 8 records seq 8..15, read back 8 ok" in out
    assert records_in(img) == {**{s: 1 for s in range(8)}, **{s: 2 for s in range(8, 16)}}


def test_reset_during_writes_keeps_every_acknowledged_write(elf: Path, tmp_path: Path) -> None:
    img = tmp_path / "nand.img"
    words = firmware.firmware_cmdline(img, writes=400, period_ms=4)
    with firmware.Board(img, words, elf=elf) as b:
        b.wait_for(r"^write seq=40 ok", 20)
        b.reset()
        # the reset may cut a line short: the banner need not start a line
        second = b.wait_for(r"steadyfs firmware \d", 20, start=1)
        before = b.text()[:second.start()]
        acked = [int(s) for s in re.findall(r"^write seq=(\d+) ok", before, re.M)]
        assert acked and max(acked) >= 40
        assert max(acked) < 8 + 400 - 1, "the reset came after the writes ended"
        m = b.wait_for(r"^selftest: boot 2, found (\d+) records seq 0\.\.(\d+), "
                       r"corrupt (\d+), foreign (\d+)", 20, start=second.start())
        n, last, corrupt, foreign = map(int, m.groups())
        # nothing acknowledged is lost; the write in flight may or may not be there
        assert last >= max(acked) and last <= max(acked) + 1
        assert n == last + 1 and corrupt == 0 and foreign == 0
        b.wait_for(r"^write seq=\d+ ok", 20, start=m.end())
    rc, out = boot(elf, img, records=0)  # a fresh QEMU: the file is the flash
    assert rc == 0, out
    m3 = re.search(r"boot 3, found (\d+) records seq 0\.\.(\d+), corrupt 0, foreign 0", out)
    assert m3 and int(m3.group(1)) == int(m3.group(2)) + 1 > last
    assert sorted(records_in(img)) == list(range(int(m3.group(1))))


def test_uart_receive_path_echo(elf: Path, tmp_path: Path) -> None:
    img = tmp_path / "nand.img"
    # 40x the 256-byte receive ring: the board must hold the sender back, not drop
    msg = bytes(range(32, 127)) * 110 + b"\x04"
    with firmware.Board(img, firmware.firmware_cmdline(img, records=0, echo=True), elf=elf) as b:
        m = b.wait_for(r"^link: echo until EOT\n", 20)
        b.write(msg)
        rc = b.wait(20)
        echoed = bytes(b.output).split(b"link: echo until EOT\r\n", 1)[1]
    assert rc == 0
    assert echoed.startswith(msg), echoed[:400]
    assert f"link: {len(msg)} bytes received" in b.text()[m.end():]


def test_fault_is_reported_and_stops(elf: Path, tmp_path: Path) -> None:
    rc, out = boot(elf, tmp_path / "nand.img", fault=True)
    assert rc == 3, out
    assert "FAULT: HardFault (exception 3)" in out
    assert re.search(r"cfsr 0x0001\d{4}", out)  # UNDEFINSTR
    assert out.rstrip().endswith("exit: 3")
    assert not (tmp_path / "nand.img").exists()


def test_foreign_image_is_refused_not_overwritten(elf: Path, tmp_path: Path) -> None:
    img = tmp_path / "other.img"
    img.write_bytes(b"not a steadyfs image" * 100)
    before = img.read_bytes()
    rc, out = boot(elf, img)
    assert rc == 2, out
    assert "holds another device's image (not overwritten)" in out
    assert img.read_bytes() == before


def test_size_report_adds_up(elf: Path) -> None:
    import json
    rep = json.loads(firmware.size_report(as_json=True))
    sec = rep["sections"]
    out = subprocess.run(["arm-none-eabi-size", "-A", str(elf)], check=True,
                         capture_output=True, text=True).stdout
    sizes = {ln.split()[0]: int(ln.split()[1]) for ln in out.splitlines()
             if ln.startswith(".") and len(ln.split()) >= 2}
    assert sec["text"] == sizes[".text"] and sec["bss"] == sizes[".bss"]
    assert sec["stack"] == STACK and sizes[".stack"] == STACK
    parts = rep["parts"]
    assert parts["bd"]["text"] > 1000 and parts["board"]["text"] > 1000
    total = sum(p["text"] for p in parts.values())
    # merged strings are listed at their unmerged size: a little more, never less
    assert 0 <= total - sec["text"] < sec["text"] // 50
    text = firmware.size_report()
    assert "file system (src/fs)" in text and "9P server (src/p9)" in text
