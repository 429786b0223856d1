"""Running the `steady` command line from tests: one helper for the suites
that check its answers and its one-line errors, a FUSE mount, a server."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[2]


def steady(*args: str) -> subprocess.CompletedProcess[str]:
    """`steady ARGS` from the repo root, output captured."""
    return subprocess.run([sys.executable, "-m", "steadyfs.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def assert_one_line_error(r: subprocess.CompletedProcess[str], *needles: str) -> None:
    """A non-zero exit with one line on stderr, starting `steady `, naming each needle."""
    err = r.stderr.strip()
    assert r.returncode != 0, r.stdout
    assert "Traceback" not in r.stderr, r.stderr
    assert len(err.splitlines()) == 1 and err.startswith("steady "), err
    for n in needles:
        assert n in err, err


def mount_fsoc(spec: str, mnt: Path) -> None:
    """`steady mount --fsoc SPEC MNT` (MNT is made first)."""
    mnt.mkdir()
    r = subprocess.run([sys.executable, "-m", "steadyfs.cli", "mount", "--fsoc", spec, str(mnt)],
                       cwd=REPO, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr


def _below(path: str, top: str) -> bool:
    path = path.removesuffix(" (deleted)")
    return path == top or path.startswith(top + "/")


def mount_users(mnt: Path) -> list[str]:
    """The processes that use something below `mnt`, as /proc shows them:
    "PID COMM: cwd|root|exe|fd N|map PATH" for each working directory,
    root, program, open file or mapped file there.  Only links and maps are
    read, nothing is asked of the mount itself (its server may be gone).
    What the kernel alone holds (a file in flight in asynchronous I/O, a
    path lookup in progress) is not seen."""
    top = os.path.abspath(mnt)
    users: list[str] = []
    for pid in sorted((p for p in os.listdir("/proc") if p.isdigit()), key=int):
        proc = f"/proc/{pid}"
        try:
            with open(f"{proc}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue   # gone, or not ours to read
        try:
            fds = [f"fd/{fd}" for fd in sorted(os.listdir(f"{proc}/fd"), key=int)]
        except OSError:
            fds = []
        seen: list[str] = []
        for link in ["cwd", "root", "exe", *fds]:
            try:
                t = os.readlink(f"{proc}/{link}")
            except OSError:
                continue   # gone meanwhile, or not ours to read
            if _below(t, top):
                seen.append(f"{link.replace('/', ' ')} {t}")
        maps: set[str] = set()
        try:
            with open(f"{proc}/maps") as f:
                for line in f:
                    fields = line.split(None, 5)   # address perms offset dev inode path
                    if len(fields) == 6 and _below(fields[5].strip(), top):
                        maps.add(fields[5].strip())
        except OSError:
            pass
        seen += [f"map {t}" for t in sorted(maps)]
        users += [f"{pid} {comm}: {x}" for x in seen]
    return users


# How long an unmount waits for what holds the mount to let go.
UNMOUNT_WAIT_S = 60.0


def unmount(mnt: Path, wait_s: float = UNMOUNT_WAIT_S) -> list[str]:
    """`fusermount3 -u MNT`.  While the kernel refuses because the mount is
    busy, wait for its users (mount_users) to let go and try again, for at
    most `wait_s` seconds; returns the users waited for (each once; empty
    if the first try did it).  A busy mount is not always this test's doing:
    another run's stress-ng io stressor holds every mount point in
    /proc/mounts open for its whole run (to syncfs each), and its getdent
    stressor opens every directory four levels below /tmp, pytest's mounts
    among them.  If the mount is still busy after `wait_s` s, or the
    unmount fails otherwise, it is detached lazily (nothing is left behind)
    and AssertionError names the users."""
    t0 = time.monotonic()
    waited: dict[str, None] = {}
    while True:
        u = subprocess.run(["fusermount3", "-u", str(mnt)], capture_output=True, text=True)
        if u.returncode == 0:
            break
        busy = "busy" in u.stderr
        users = mount_users(mnt) if busy else []
        waited.update(dict.fromkeys(users))
        if not busy or time.monotonic() - t0 >= wait_s:
            subprocess.run(["fusermount3", "-u", "-z", str(mnt)], capture_output=True)
            why = (f"still busy after {wait_s:g} s, used by: "
                   + ("; ".join(users) if users else "no process (a reference only the kernel "
                      "holds)")) if busy else "not busy"
            raise AssertionError(f"{mnt}: {u.stderr.strip()} ({why}); unmounted lazily")
        time.sleep(0.1)
    if waited:
        print(f"{mnt}: busy at unmount, unmounted after {time.monotonic() - t0:.1f} s of "
              f"waiting for: {'; '.join(waited)}", file=sys.stderr)
    return list(waited)


@contextlib.contextmanager
def fuse_mount(spec: str, mnt: Path) -> Iterator[Path]:
    """`steady mount --fsoc SPEC MNT` for the body, unmounted after
    (`unmount`: waits for what still uses the mount; lazily and failing if
    it never lets go, so nothing is left behind)."""
    mount_fsoc(spec, mnt)
    try:
        yield mnt
    finally:
        unmount(mnt)


class Served:
    """A `steady serve` started by `serve`: its address while it runs, its
    exit status and log once it stopped."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.port = int(spec.rsplit(":", 1)[1])
        self.returncode: int | None = None
        self.log = ""


@contextlib.contextmanager
def serve(image: Path, *args: str) -> Iterator[Served]:
    """`steady-serve --image IMAGE ARGS --listen tcp:127.0.0.1:0` for the
    body, stopped with SIGTERM after it (its status and log then in the
    Served); the image is made with --create unless it exists."""
    from steadyfs import cmd_serve
    log = tempfile.TemporaryFile()
    create = () if image.exists() else ("--create",)
    srv = subprocess.Popen([str(cmd_serve.binary()), "--image", str(image), *create, *args,
                            "--listen", "tcp:127.0.0.1:0"],
                           stdout=subprocess.PIPE, stderr=log, text=True)
    served = None
    try:
        assert srv.stdout is not None
        m = re.match(r"listening on (tcp:127\.0\.0\.1:\d+)", srv.stdout.readline())
        assert m, "steady serve did not start"
        served = Served(m.group(1))
        yield served
    finally:
        if srv.poll() is None:
            srv.send_signal(signal.SIGTERM)
        try:
            srv.wait(timeout=60)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()
        log.seek(0)
        if served is not None:
            served.returncode = srv.returncode
            served.log = log.read().decode(errors="replace")


def fsck(image: Path) -> subprocess.CompletedProcess[str]:
    """`steady fsck --image IMAGE`, output captured."""
    return subprocess.run([sys.executable, "-m", "steadyfs.cli", "fsck", "--image", str(image)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
