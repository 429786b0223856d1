"""Three clients at once running other people's verifying tools (issue 14
item 5 and its target "three clients at once ... for minutes with no error,
no hang and fsck clean"), at short length.

One `steady serve` (--max-clients 3); two FUSE mounts on the host and Linux's
v9fs in the QEMU guest.  Each client runs rounds of the same tools in a
directory of its own: fio (tests/interop/fio-verify.fio: three writers with
verify=crc32c, every block read back and checked), the stress-ng groups
(python/steadyfs/fstools.py: THREE_CLIENT_GROUPS; data and fd for 3 s, the
others ended by their bogo ops, BOUNDED_GROUPS) and dbench with our load.
The guest carries Debian's own binaries of the three tools and their libraries in its
initramfs (tests/interop/v9fs-tools.sh); its output comes back on the serial
console and is judged by the same parsers as the host's.  The host mounts
keep running rounds until the guest is done (at least one each).  Then the
server exits 0 and fsck is clean.

Soak: STEADYFS_TOOLS_SECONDS (how long the guest keeps starting rounds;
default 0: one round) with longer runs per tool (STEADYFS_TOOLS_STRESS_S,
STEADYFS_TOOLS_DBENCH_S, STEADYFS_TOOLS_FIO_SIZE): `make soak-tools`."""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from pathlib import Path

import pytest

from clirun import fsck, fuse_mount, serve
from steadyfs import cmd_mount, cmd_serve, fstools, guest

SECONDS = int(os.environ.get("STEADYFS_TOOLS_SECONDS", "0"))
LENGTHS = fstools.Lengths(fio_size=os.environ.get("STEADYFS_TOOLS_FIO_SIZE", "1m"),
                          stress_seconds=int(os.environ.get("STEADYFS_TOOLS_STRESS_S", "3")),
                          guest_stress_seconds=int(os.environ.get("STEADYFS_TOOLS_STRESS_S", "3")),
                          dbench_seconds=int(os.environ.get("STEADYFS_TOOLS_DBENCH_S", "4")),
                          groups=fstools.THREE_CLIENT_GROUPS)
BLOCKS = os.environ.get("STEADYFS_TOOLS_BLOCKS", "512")
MISSING = guest.missing_parts() or fstools.missing_tools()
pytestmark = [
    pytest.mark.skipif(MISSING is not None, reason=f"cannot run the tools in the guest: {MISSING}"),
    pytest.mark.skipif(not cmd_mount.binary().exists() or not cmd_serve.binary().exists()
                       or not os.path.exists("/dev/fuse") or shutil.which("fusermount3") is None,
                       reason="steady-mount/steady-serve not built, or no FUSE here"),
]


class HostClient(threading.Thread):
    """Rounds of every tool on one FUSE mount until `stop` (one at least)."""

    def __init__(self, name: str, directory: Path, load: Path) -> None:
        super().__init__(daemon=True)
        self.name, self.directory, self.load = name, directory, load
        self.stop = threading.Event()
        self.rounds: list[fstools.Round] = []
        self.errors: list[str] = []

    def run(self) -> None:
        try:
            self.directory.mkdir()
            n = 0
            while n == 0 or not self.stop.is_set():
                n += 1
                self.rounds.append(fstools.host_round(self.name, self.directory, n, LENGTHS,
                                                      self.load))
            self.directory.rmdir()
        except Exception as e:  # reported by the test, not lost in the thread
            self.errors.append(f"{self.name}: {e!r}")


def test_three_clients_run_the_tools_at_once(tmp_path: Path) -> None:
    image = tmp_path / "dev.img"
    load_text = fstools.dbench_load()
    load = tmp_path / "steady.load"
    load.write_text(load_text)
    t0 = time.monotonic()
    with serve(image, "--device", "mt29f1g01", "--blocks", BLOCKS, "--fids", "1024",
               "--open-max", "24", "--max-clients", "3") as srv:
        with fuse_mount(srv.spec, tmp_path / "m1") as m1, fuse_mount(srv.spec, tmp_path / "m2") as m2:
            hosts = [HostClient("fuse1", m1 / "fuse1", load), HostClient("fuse2", m2 / "fuse2", load)]
            for h in hosts:
                h.start()
            try:
                result = guest.run_guest_v9fs(
                    srv.port, guest.INTEROP / "v9fs-tools.sh", timeout=300.0 + 2.0 * SECONDS,
                    extra=fstools.guest_files(load_text), env=fstools.guest_env(LENGTHS, SECONDS),
                    memory_mb=1024)
            finally:
                for h in hosts:
                    h.stop.set()
                for h in hosts:
                    h.join(300.0 + 2.0 * SECONDS)
            for h in hosts:
                assert not h.is_alive(), f"{h.name}: still running (a hang?)"
                assert not h.errors, h.errors
            gr = fstools.guest_rounds(result.console, LENGTHS)
            problems = gr.problems() + [p for h in hosts for r in h.rounds for p in r.problems()]
            left = sorted(p.name for p in m1.iterdir())
    elapsed = time.monotonic() - t0
    # judged once the server stopped, so a failure shows what it logged
    # about its clients (a drop, a protocol violation)
    said = "\n".join(x for x in srv.log.splitlines()
                     if not re.search(r" connected \(\d+ of \d+\)$", x))
    assert not problems, "\n".join(problems) + "\nserver:\n" + said
    assert result.ok, (result.failed, result.console[-3000:], said)
    rounds = int(result.attrs["rounds"])
    groups = fstools.guest_groups(LENGTHS.groups)
    assert len(gr.runs) == rounds * (2 + len(groups)), sorted(gr.runs)
    assert left == []
    assert srv.returncode == 0 and "unmounted" in srv.log, srv.log
    r = fsck(image)
    assert r.returncode == 0, r.stdout + r.stderr
    runs = sum(len(x.runs) for h in hosts for x in h.rounds) + len(gr.runs)
    print(f"\nthree clients with fio, stress-ng and dbench: {elapsed:.0f} s (guest boot "
          f"{result.boot_s:.1f} s, tools {result.times.get('tools', 0):.0f} s); rounds: guest "
          f"{rounds}, fuse1 {len(hosts[0].rounds)}, fuse2 {len(hosts[1].rounds)}; {runs} tool "
          f"runs, every one clean; fsck clean")
