"""The FW_SPINAND firmware build (issue 15): on QEMU's mps2-an385 the file
system reaches the NAND through the reference SPI NAND driver
(src/drivers/spinand.c), which talks SPI commands to the command-level chip
model (src/bd/spinand_sim.c) over the same device model and image.

The board self-tests through the driver, serves 9P through it to a host
client, and leaves an image the host tools read through the device model
directly; a second boot reads the file back through the driver.
"""

from __future__ import annotations

import os
import re
import subprocess
import zlib
from pathlib import Path

import pytest

from steadyfs import firmware, p9client

from test_firmware import records_in

pytestmark = pytest.mark.skipif(firmware.qemu_path() is None,
                                reason="qemu-system-arm is not installed "
                                       "(Debian package qemu-system-arm)")


@pytest.fixture(scope="module")
def elf() -> Path:
    subprocess.run(["make", "-s", f"BUILD={firmware.build_dir()}", "firmware-spinand",
                    f"{firmware.build_dir()}/steady-relay", f"{firmware.build_dir()}/steady-img"],
                   cwd=firmware.REPO, check=True, capture_output=True)
    path = firmware.firmware_elf(spinand=True)
    assert path.is_file()
    return path


def steady(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(firmware.REPO / "steady"), *args], capture_output=True,
                          timeout=60)


def spinand_counts(out: str) -> tuple[int, int, int, int]:
    """(transactions, page reads, programs, refused) from the board's stats line."""
    m = re.search(r"^spinand: (\d+) SPI transactions, (\d+) page reads, (\d+) programs, "
                  r"\d+ erases, \d+ status polls, (\d+) refused", out, re.M)
    assert m, out
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4))


def test_selftest_through_the_driver(elf: Path, tmp_path: Path) -> None:
    img = tmp_path / "nand.img"
    with firmware.Board(img, firmware.firmware_cmdline(img, records=12), elf=elf) as b:
        rc = b.wait(30)
        out = b.text()
    assert rc == 0, out
    assert re.search(r"^spinand: MT29F1G01ABAFD, 32 blocks, \d+ marked bad; driver RAM \d+ "
                     r"\+ bad-block map 4 bytes", out, re.M), out
    assert "selftest: wrote 12 records seq 0..11, read back 12 ok" in out
    assert "selftest: PASS" in out
    xfers, reads, progs, refused = spinand_counts(out)
    assert progs >= 12 and reads >= 12 and xfers > 3 * (reads + progs) and refused == 0
    # the records in the image, decoded on the device's layout (the driver's
    # spare byte 0 is the device's): the same bytes the direct build writes
    assert records_in(img) == {s: 1 for s in range(12)}


def test_serve_9p_through_the_driver(elf: Path, tmp_path: Path) -> None:
    img = tmp_path / "fsoc.img"
    data = os.urandom(9_000)
    words = firmware.firmware_cmdline(img, serve=True)
    board = firmware.Board(img, words, elf=elf, listen=("127.0.0.1", 0)).start()
    try:
        board.wait_relay(r"board ready", 30)
        with p9client.Client("127.0.0.1", board.port) as c:
            c.mkdir("/logs")
            c.put("/logs/a.bin", data)
            assert c.get("/logs/a.bin") == data
            for i in range(4):
                c.put(f"/logs/f{i}", f"file {i}\n".encode())
            c.rename("/logs/f0", "/moved")
            c.unlink("/logs/f1")
            assert sorted(c.listdir("/logs")) == ["a.bin", "f2", "f3"]
        assert board.halt() == 0
        out = board.text()
    finally:
        board.close()
    assert "fs: blank device, formatting" in out
    # (the driver's boot line went to UART0 before the link took it over)
    xfers, reads, progs, refused = spinand_counts(out)
    assert progs > 0 and refused == 0
    # the host reads the board's image on the device model directly
    r = steady("fsck", "--image", str(img))
    assert r.returncode == 0 and b"clean: 0 errors" in r.stdout, r.stdout + r.stderr
    r = steady("cat", f"{img}:/logs/a.bin")
    assert r.returncode == 0 and r.stdout == data
    assert steady("cat", f"{img}:/moved").stdout == b"file 0\n"
    # and the board reads it back through the driver on the next boot
    with firmware.Board(img, firmware.firmware_cmdline(img, check="/logs/a.bin"), elf=elf) as b:
        assert b.wait(30) == 0
        assert (f"check: /logs/a.bin {len(data)} bytes crc32 0x{zlib.crc32(data):08x}"
                in b.text())
