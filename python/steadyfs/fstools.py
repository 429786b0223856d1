"""Other people's file-system tools against steadyfs (issue 14 item 5).

Debian's `stress-ng` (file-system stressors), `dbench` and `fio` run over a
FUSE mount of `steady serve` (`steady mount --fsoc`) and over Linux's v9fs
in the QEMU guest (python/steadyfs/guest.py).  This module holds what both
sides share:

- the stress-ng stressors that must pass, in groups that run at once, with
  options sized for a small device and its shared open-file table, and the
  ones left out, each with the failure it shows and why (EXCLUDED);
- a dbench load file written here (`dbench_load`): the Debian package's
  own client.txt holds up to 23 files open at once per client, and
  `steady serve` shares 24 steadyfs handles among all its clients, so the
  load that several clients run at once is this smaller one;
- parsers that turn each tool's output into a verdict (`check_stress_ng`,
  `check_dbench`, `check_fio`), so a test fails on the tool's own word;
- a round of every tool on a host directory (`host_round`) and the guest
  script's settings and files (`guest_env`, `guest_files`, `guest_rounds`
  to judge what it printed);
- `guest_bundle`: the tools with the shared libraries they load, as files
  for the guest's initramfs (the guest is otherwise busybox only).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIO_JOBS = REPO / "tests" / "interop" / "fio-verify.fio"

# ------------------------------------------------------------------ stress-ng
# Each group runs as one stress-ng invocation (its stressors at once, one
# worker each); groups run one after the other.  Sizes keep every group well
# inside a 512-block mt29f1g01 image and its 1024 inodes.  Groups are small
# because every client of one server shares its 24 steadyfs handles
# (open_max): three clients each running a group of seven stressors met
# ENFILE (errno 23) at once, and so did three running iomix beside others.
#
# A group either runs for the round's seconds (timed) or until each of its
# stressors has done the bogo ops its `--<stressor>-ops N` asks for
# (BOUNDED_GROUPS).  Bounded are the stressors whose set-up, or whose first
# bogo op or few, can take the whole of a few seconds on a loaded machine:
# stress-ng stops a set-up when the timeout comes, and then either reports
# no bogo op ("no bogo ops reported": readahead, sync-file) or counts one
# for a pass that did nothing (chdir's do-while loop), or checks what the
# set-up should have made (file-ioctl's FIOQSIZE).  The counts finish in
# about a second on an idle FUSE mount and within about 8 s on the loaded
# v9fs guest.  Timed are those that count each write or call from their
# first second (data, fd: at least 30 ops in 3 s on a loaded guest).
STRESS_GROUPS: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    # data: written, read back and checked (--verify) through the mount
    "data": [
        ("hdd", ("--hdd-bytes", "1m")),
        ("seek", ("--seek-size", "1m")),
    ],
    # iomix's eight processes each open the file: alone, and not in the
    # three-client run (THREE_CLIENT_GROUPS).  Bounded: its set-up writes
    # its 1 MiB file in 8 KiB pieces (no fallocate on FUSE or v9fs) before
    # the eight start, and a timeout there left them a short file
    "mix": [
        ("iomix", ("--iomix-bytes", "1m", "--iomix-ops", "1000")),
    ],
    # bounded: readahead writes its 1 MiB file (256 writes of 4 KiB) before
    # its first read; one sync-file op rewrites its 1 MiB file three times
    # (8 KiB pieces) around its sync_file_range calls.  Under three clients
    # on 2 loaded cores a 3 s run ended in their set-up ("no bogo ops"): the
    # guest's readahead did 8 reads in 3 s, sync-file never more than 1 op.
    # readahead: 256 verified random 4 KiB reads (16 rounds of readahead
    # calls); revio: 256 writes of 1 KiB backwards (about three files);
    # sync-file: one op (the stressor's smallest file is 1 MiB)
    "data2": [
        ("readahead", ("--readahead-bytes", "1m", "--readahead-ops", "256")),
        ("revio", ("--revio-bytes", "1m", "--revio-ops", "256")),
        ("sync-file", ("--sync-file-bytes", "1m", "--sync-file-ops", "1")),
    ],
    # the namespace: create, rename, list and remove files and directories.
    # Bounded: every op here is a create, mkdir or rename, which beside two
    # other clients on loaded cores came 2-10 a second in the guest, and a
    # loaded pair of runs saw rename do no op in 3 s on a FUSE client (its
    # set-up is two mkdirs and a create).  An op is one name made (dentry,
    # dir, dirdeep's tree), one file touched (dirdeep after its tree) or
    # one rename, so each count is a pass and one more (a pass's last
    # phases run only while the count is not yet reached): dentry two passes
    # of 16 names (made, looked up, removed), dir one of 64 directories
    # (made, listed, removed), dirdeep a tree of 16 directories and then its
    # entries touched, rename 32 renames between two directories
    "namespace": [
        ("dentry", ("--dentries", "16", "--dentry-ops", "33")),
        ("dir", ("--dir-dirs", "64", "--dir-ops", "65")),
        ("dirdeep", ("--dirdeep-inodes", "16", "--dirdeep-ops", "32")),
        ("rename", ("--rename-ops", "32")),
    ],
    # bounded: chdir makes and opens its 64 directories before its first
    # pass; under three clients that took the whole 3 s in every run, and
    # its loop then counted one op for a pass that did nothing.  One chdir
    # op: a chdir into each of the 64 and back; one touch op: a file
    # created, closed and removed
    "namespace2": [
        ("touch", ("--touch-ops", "32")),
        ("chdir", ("--chdir-dirs", "64", "--chdir-ops", "4")),
    ],
    # modes, owners and times (kept since issue 14): access checks
    # access(2) against each mode it sets, chmod sweeps every mode bit
    # through chmod and fchmod, chown sets owners, utime sets times and
    # checks them.  Bounded: one op is many calls, one chmod op took 3-4.5 s
    # on a FUSE mount beside two other clients
    "meta": [
        ("access", ("--access-ops", "4")),
        ("chmod", ("--chmod-ops", "1")),
        ("chown", ("--chown-ops", "4")),
        ("utime", ("--utime-ops", "8")),
    ],
    # descriptors, flock, asynchronous I/O
    "fd": [
        ("flock", ()),
        ("dup", ()),
        ("aio", ("--aio-requests", "8")),
    ],
    # sync(2): one io op is one sync of every file system of the machine,
    # which waits for all of its dirty data, not only the mount's.  Bounded:
    # timed in fd, a CI run (after make test's C tests had written their
    # images) reported no io op in 2 s while flock beside it did 3.6 million
    "sync": [
        ("io", ("--io-ops", "4")),
    ],
    # file ioctls, ended by its bogo-op count, not by the clock
    # (BOUNDED_GROUPS): its set-up writes its 1 MiB file in 8 KiB pieces
    # (no fallocate on FUSE or v9fs) and stops writing when the timeout
    # comes, but its loop then checks the size once anyway: under load that
    # was "ioctl FIOQSIZE failed, size 1048576 (filesize) vs 778240
    # (reported)", the size it had written (95 x 8192), docs/P9.md
    "ioctl": [
        ("file-ioctl", ("--file-ioctl-ops", "500")),
    ],
    # POSIX record locks: on FUSE the host kernel keeps them (the mount has
    # no lock calls); v9fs sends them to the server as Tlock/Tgetlock, one
    # table of 1024 locks for every client (docs/P9.md "Locks").  Bounded:
    # lockf's two processes each keep up to 1024 locks of 8 bytes before
    # they drop the oldest, so a guest that did more than about 1000 lockf
    # ops in a timed run filled the table ("lockf F_ULOCK failed, errno=37
    # (No locks available)", and fcntl's F_SETLKW the same); 256 lockf ops
    # never hold more than 256.  (A lock another process of the guest holds
    # is waited for in the guest's kernel, which v9fs asks before the
    # server, so lockf's two processes never meet the server's BLOCKED.)
    # One fcntl op is a sweep of its fcntl commands, locks among them
    "locks": [
        ("fcntl", ("--fcntl-ops", "8")),
        ("lockf", ("--lockf-ops", "256")),
    ],
}
# Groups that end when their stressors have done the bogo ops their options
# ask for; the timeout (seconds) only stops one that hangs.
BOUNDED_GROUPS: dict[str, int] = {
    "mix": 120,
    "data2": 120,
    "namespace": 120,
    "namespace2": 120,
    "meta": 120,
    "ioctl": 120,
    "locks": 120,
    "sync": 120,
    "symlink": 300,
}
# What each client runs when three share one server: every group but iomix
# (eight handles per client).
THREE_CLIENT_GROUPS = ("data", "data2", "namespace", "namespace2", "meta", "fd", "sync",
                       "ioctl", "locks")
GUEST_GROUPS = ("data", "data2", "mix", "namespace", "namespace2", "meta", "fd", "sync",
                "ioctl", "locks")


def guest_groups(groups: tuple[str, ...]) -> list[str]:
    """The groups of `groups` the v9fs guest runs: those in GUEST_GROUPS."""
    return [g for g in groups if g in GUEST_GROUPS]
# Stressors that pass alone but starve whatever runs beside them, or take
# too long for make test: run one at a time, in the soak only
# (`make soak-tools`).
SOLO_STRESSORS: dict[str, tuple[str, ...]] = {
    "open": (),
    "dirmany": (),
    "filename": (),
    "symlink": ("--symlink-ops", "1"),
}

# Tried on the FUSE mount (stress-ng 0.15.06, one worker, --verify) and
# left out: the stressor, what it reports, and why.  Re-checked against the
# server with modes, owners, times and symlinks (issue 14): access, chmod,
# chown and utime pass and run (group meta); lockofd and symlink pass.
EXCLUDED: dict[str, str] = {
    "symlink": "passes, ended by its bogo ops; one op makes 8192 symlinks, each read back "
               "(readlink, readlinkat, lstat), and removes them: 26 s on an idle FUSE mount "
               "(past the 1024 inodes the rest are ENOSPC, which it retries), and a timed run "
               "counts one op for the pass its timeout cut short; in the soak only, bounded "
               "(SOLO_STRESSORS)",
    "link": "skipped by stress-ng (link calls not allowed on the filesystem): link(2) gets "
            "EPERM, steadyfs has no hard links",
    "mknod": "passes on the FUSE mount, where regular-file nodes are made through create and "
             "FIFOs, sockets and device nodes get EPERM, which it ignores; on v9fs every "
             "mknod, a regular file's too, is a Tmknod, which the server answers EPERM: no "
             "bogo op there",
    "xattr": "skipped by stress-ng (filesystem does not support xattr)",
    "fiemap": "skipped by stress-ng (FS_IOC_FIEMAP not supported on the file system)",
    "copy-file": "fail: ftruncated failed, errno=2 (No such file or directory): the call that "
                 "failed is ftruncate of its 256 MB file, with EFBIG (strace), more than "
                 "steadyfs's largest file on these images (its smallest file is 128 MB); the "
                 "errno printed is that of its statfs of the file's name, unlinked just before",
    "aiol": "info: aiol: unexpected data mismatch in buffer 0 (maybe a wait timeout issue), "
            "exit 0: its writes go to random offsets of ~170 MB, past steadyfs's largest "
            "file, and fail with EFBIG (io_getevents res=-27), which it does not check; "
            "the reads then return 0 bytes.  It also opens its file once per request (64): "
            "it took all 24 steadyfs handles, the other 40 opens met ENFILE (strace)",
    "lockofd": "passes, ended by its bogo ops; timed, beside two other clients' tools it did "
               "no bogo op in 3 s: its 1 MiB set-up (256 writes of 4 KiB before the first "
               "lock) was not done.  Its locks are F_OFD_GETLK and F_OFD_SETLK, which fcntl "
               "makes too: left out to keep the runs short",
    "getdent": "passes, but lists /proc, /dev, /tmp, /sys and /run, never its --temp-path: "
               "the mount only when it lies four levels below /tmp, as pytest's mounts do "
               "(then it opens their roots, other runs' as well)",
    "fallocate": "no bogo op in 3 s: its default 1 GB file is made by glibc's posix_fallocate "
                 "fallback, a 1-byte write per 4 KiB block (the FUSE mount and v9fs have no "
                 "fallocate: EOPNOTSUPP); with --fallocate-bytes 1m it passes, 0.8 s per op "
                 "on an idle mount, every fallocate mode it tries EOPNOTSUPP",
    "fpunch": "passes, but its hole punches are all EOPNOTSUPP (no fallocate): what is left "
              "are its pwrites, which hdd and seek make",
    "fsize": "passes with info lines (fallocate unexpectedly succeeded ... expecting EFBIG): "
             "no fallocate in the FUSE mount, so RLIMIT_FSIZE is never met there",
    "dirmany": "passes alone; it creates files until ENOSPC (the inode table), which makes "
               "every stressor beside it fail: run alone, in the soak only (SOLO_STRESSORS)",
    "filename": "passes, but spends its first seconds probing the longest name: no work "
                "done in make test's few seconds; in the soak only (SOLO_STRESSORS)",
    "open": "passes alone; it holds files open until ENFILE (the 24 steadyfs handles that "
            "every client of the server shares), so stressors beside it fail with errno=23: "
            "run alone, in the soak only (SOLO_STRESSORS)",
}

_FAIL = re.compile(r"stress-ng: (fail|error): +\[\d+\] (.*)")
_METRIC = re.compile(r"stress-ng: metrc: +\[\d+\] ([a-z0-9-]+) +(\d+) +[\d.]+ ")


def _group(group: str) -> list[tuple[str, tuple[str, ...]]]:
    if group in STRESS_GROUPS:
        return STRESS_GROUPS[group]
    return [(group, SOLO_STRESSORS[group])]


# A bounded group's counts are those of make test's runs (3 s or less);
# a longer run (the soak's STEADYFS_TOOLS_STRESS_S) multiplies them by
# seconds / 3, rounded.  A lone stressor's count (SOLO_STRESSORS, the soak
# only) is already the soak's.
BOUNDED_SECONDS = 3


def bounded_counts(group: str, seconds: float) -> dict[str, int]:
    """The bogo ops each stressor of a BOUNDED_GROUPS group is asked for in
    a run of `seconds` (its counts, times `seconds` / BOUNDED_SECONDS when
    that is 2 or more, for a group of STRESS_GROUPS); empty for a timed
    group."""
    if group not in BOUNDED_GROUPS:
        return {}
    scale = max(1, round(seconds / BOUNDED_SECONDS)) if group in STRESS_GROUPS else 1
    return {name: int(opts[opts.index(f"--{name}-ops") + 1]) * scale
            for name, opts in _group(group)}


def stress_ng_args(group: str, directory: str, seconds: float) -> list[str]:
    """The stress-ng command line (after the program name) of one group (a
    name of STRESS_GROUPS, or of SOLO_STRESSORS for that one alone): it
    runs `seconds`, or, a group of BOUNDED_GROUPS, until its bogo ops
    (bounded_counts) are done (its timeout there only stops a hang)."""
    counts = bounded_counts(group, seconds)
    args: list[str] = []
    for name, opts in _group(group):
        args += [f"--{name}", "1"]
        for i, o in enumerate(opts):
            ops = i > 0 and opts[i - 1] == f"--{name}-ops"
            args.append(str(counts[name]) if ops else o)
    timeout = BOUNDED_GROUPS.get(group, max(1, round(seconds)))
    return [*args, "--timeout", f"{timeout}s", "--temp-path", directory,
            "--verify", "--metrics-brief"]


@dataclass
class ToolResult:
    ok: bool
    problems: list[str] = field(default_factory=list)
    ops: dict[str, int] = field(default_factory=dict)   # stress-ng bogo ops, dbench op counts
    tolerated: int = 0                                   # known lines let through
    throughput: float = 0.0                              # dbench MB/s


def check_stress_ng(group: str, rc: int, output: str, seconds: float) -> ToolResult:
    """stress-ng's verdict on one group run as stress_ng_args(group, _,
    seconds) asks: exit 0, no fail/error line, every stressor of the group
    did work (bogo ops > 0), and in a bounded group each did all the bogo
    ops it was asked for (fewer: its hang bound, the timeout, stopped it)."""
    r = ToolResult(ok=True)
    if rc != 0:
        r.problems.append(f"stress-ng exit status {rc}")
    for line in output.splitlines():
        if re.search(r"mismatch|corrupt", line, re.I):   # some say so at info level
            r.problems.append(line.strip())
            continue
        m = _FAIL.search(line)
        if m:
            r.problems.append(m.group(2).strip())
        m = _METRIC.search(line)
        if m:
            r.ops[m.group(1)] = int(m.group(2))
    counts = bounded_counts(group, seconds)
    for name, _ in _group(group):
        if r.ops.get(name, 0) <= 0:
            r.problems.append(f"{name}: no bogo ops reported")
        elif r.ops[name] < counts.get(name, 0):
            r.problems.append(f"{name}: {r.ops[name]} of its {counts[name]} bogo ops, then "
                              f"stopped by its {BOUNDED_GROUPS[group]} s timeout")
    r.ok = not r.problems
    return r


# ------------------------------------------------------------------ dbench
def dbench_load(files: int = 6, size: int = 24576) -> str:
    """A dbench load file (dbench's NT-call syntax; dbench runs it in a
    loop for -t seconds, each client under clients/clientN).  Per round:
    a directory, `files` files written in uneven pieces, flushed, read back
    with the sizes they must have (dbench reports a short read), stat'ed,
    listed, renamed, the old names opened and expected absent (dbench
    reports an open that should have failed), unlinked, and the directory
    removed.  At most two files
    are open at once, and every call states the status it must get, which
    dbench checks."""
    c = "\\clients\\client1"
    lines = [f'Deltree "{c}" NT_STATUS_OK',
             'Mkdir "\\clients" NT_STATUS_OK',
             f'Mkdir "{c}" NT_STATUS_OK',
             f'Mkdir "{c}\\work" NT_STATUS_OK']
    pieces = (1000, 4096, 3000, 8192, 1)
    for i in range(files):
        p = f"{c}\\work\\f{i}.dat"
        lines.append(f'NTCreateX "{p}" 0x40 0x2 {100 + i} NT_STATUS_OK')
        off = 0
        k = 0
        while off < size + 37 * i:
            n = min(pieces[(i + k) % len(pieces)], size + 37 * i - off)
            lines.append(f"WriteX {100 + i} {off} {n} {n} NT_STATUS_OK")
            off += n
            k += 1
        lines.append(f"Flush {100 + i} NT_STATUS_OK")
        lines.append(f"QUERY_FILE_INFORMATION {100 + i} 1005 NT_STATUS_OK")
        if i % 2 == 1:   # two open at once: the previous one still is
            lines.append(f"Close {100 + i - 1} NT_STATUS_OK")
            lines.append(f"Close {100 + i} NT_STATUS_OK")
    if files % 2 == 1:
        lines.append(f"Close {100 + files - 1} NT_STATUS_OK")
    for i in range(files):
        p = f"{c}\\work\\f{i}.dat"
        total = size + 37 * i
        lines.append(f'NTCreateX "{p}" 0x40 0x1 {200 + i} NT_STATUS_OK')
        lines.append(f"ReadX {200 + i} 0 {total} {total} NT_STATUS_OK")
        lines.append(f"ReadX {200 + i} {total - 100} 4096 100 NT_STATUS_OK")
        lines.append(f"Close {200 + i} NT_STATUS_OK")
        lines.append(f'QUERY_PATH_INFORMATION "{p}" 1004 NT_STATUS_OK')
    lines.append(f'FIND_FIRST "{c}\\work\\*" 260 1366 {files + 2} NT_STATUS_OK')
    for i in range(files):
        lines.append(f'Rename "{c}\\work\\f{i}.dat" "{c}\\work\\g{i}.dat" NT_STATUS_OK')
        # an open of the old name must fail (dbench checks opens both ways)
        lines.append(f'NTCreateX "{c}\\work\\f{i}.dat" 0x40 0x1 {300 + i} '
                     "NT_STATUS_OBJECT_NAME_NOT_FOUND")
    for i in range(files):
        lines.append(f'Unlink "{c}\\work\\g{i}.dat" 0x6 NT_STATUS_OK')
    lines.append(f'NTCreateX "{c}\\work\\g0.dat" 0x40 0x1 399 NT_STATUS_OBJECT_NAME_NOT_FOUND')
    lines.append(f'Deltree "{c}\\work" NT_STATUS_OK')
    return "\n".join(lines) + "\n"


_DB_OP = re.compile(r"^ (\w+) +(\d+) +[\d.]+ +[\d.]+$")
_DB_TPUT = re.compile(r"^Throughput ([\d.]+) MB/sec")


def check_dbench(rc: int, output: str) -> ToolResult:
    """dbench's verdict: exit 0, no error line, an operation table and a
    throughput line."""
    r = ToolResult(ok=True)
    if rc != 0:
        r.problems.append(f"dbench exit status {rc}")
    for line in output.splitlines():
        m = _DB_OP.match(line)
        if m:
            r.ops[m.group(1)] = int(m.group(2))
            continue
        m = _DB_TPUT.match(line)
        if m:
            r.throughput = float(m.group(1))
            continue
        if line.strip() == "failed to create barrier semaphore":
            # the second: dbench's start barrier, when a SysV semaphore cannot
            # be had; it starts its clients without one
            r.tolerated += 1
        elif re.search(r"ERROR|failed|succeeded for handle|Unknown", line):
            r.problems.append(line.strip())
    if not r.ops:
        r.problems.append("dbench printed no operation table")
    r.ok = not r.problems
    return r


# ------------------------------------------------------------------ the guest's copy
GUEST_TOOLS = ("stress-ng", "dbench", "fio")


def _libraries(binary: Path) -> list[Path]:
    """Every shared object `binary` loads (ldd's list, the loader included)."""
    out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    libs = []
    for line in out.splitlines():
        m = re.search(r"(/\S+) \(0x", line)
        if m:
            libs.append(Path(m.group(1)))
    return libs


def missing_tools(names: tuple[str, ...] = GUEST_TOOLS) -> str | None:
    """Why the tools cannot run here, or None."""
    for n in names:
        if shutil.which(n) is None:
            return f"{n} is not installed (scripts/debian-packages.txt)"
    if shutil.which("ldd") is None:
        return "ldd is not installed"
    return None


def guest_bundle(names: tuple[str, ...] = GUEST_TOOLS) -> dict[str, tuple[bytes, int]]:
    """The tools and their shared libraries as initramfs files: path in the
    guest -> (contents, mode).  Each library goes where the host has it,
    so the loader finds it as on the host (the guest runs the host's own
    Debian userland for these programs)."""
    files: dict[str, tuple[bytes, int]] = {}
    for n in names:
        exe = shutil.which(n)
        assert exe is not None, n
        files[f"usr/bin/{n}"] = (Path(exe).read_bytes(), 0o755)
        for lib in _libraries(Path(exe)):
            real = lib.resolve()
            rel = str(lib).lstrip("/")
            if rel not in files:
                files[rel] = (real.read_bytes(), 0o755)
    return files


# ------------------------------------------------------------------ a round of every tool
@dataclass
class Round:
    """What one run of the tools did on one client: each run's verdict."""
    client: str
    runs: dict[str, ToolResult] = field(default_factory=dict)

    def problems(self) -> list[str]:
        return [f"{self.client} {name}: {p}" for name, r in self.runs.items() for p in r.problems]


def check_fio(rc: int, output: str) -> ToolResult:
    """fio's verdict: exit 0 (verify_fatal: the first bad block fails), no
    error line, and each of the job file's three jobs ran."""
    r = ToolResult(ok=True)
    if rc != 0:
        r.problems.append(f"fio exit status {rc}")
    for line in output.splitlines():
        if re.search(r"verify|crc32c|fio: |error=", line) and "err= 0" not in line:
            r.problems.append(line.strip())
        m = re.match(r"^(seq|rand|odd): \(groupid=\d+, jobs=1\): err= *(\d+)", line)
        if m:
            r.ops[m.group(1)] = 1
            if m.group(2) != "0":
                r.problems.append(line.strip())
        if re.match(r"^ +read: IOPS=", line):   # the verifying read-back
            r.ops["reads"] = r.ops.get("reads", 0) + 1
    for job in ("seq", "rand", "odd"):
        if job not in r.ops:
            r.problems.append(f"fio job {job} did not report")
    if r.ops.get("reads", 0) < 3:
        r.problems.append("fio: not every job read its data back")
    r.ok = not r.problems
    return r


@dataclass
class Lengths:
    """How long each run of a round is (make test: short; the soak: longer
    rounds, repeated for minutes)."""
    fio_size: str = "1m"
    stress_seconds: int = 3
    # the guest's (under TCG, several times slower: iomix did no bogo op
    # there in 3 s, so the three-client run leaves it out as well)
    guest_stress_seconds: int = 3
    dbench_seconds: int = 4
    groups: tuple[str, ...] = tuple(STRESS_GROUPS)


def host_round(client: str, directory: Path, n: int, lengths: Lengths,
               load: Path) -> Round:
    """One round of every tool in `directory` (a FUSE mount's), as the guest
    script runs them: fio, each stress-ng group, dbench."""
    rnd = Round(client)
    env = {"SIZE": lengths.fio_size, "PATH": "/usr/bin:/bin"}
    work = directory / "fio"
    work.mkdir()
    with tempfile.TemporaryDirectory(prefix="steady-fio-") as cwd:   # its *-verify.state files
        p = subprocess.run(["fio", f"--directory={work}", str(FIO_JOBS)], capture_output=True,
                           text=True, env=env, timeout=600, cwd=cwd)
    rnd.runs[f"fio-{n}"] = check_fio(p.returncode, p.stdout + p.stderr)
    shutil.rmtree(work)
    for g in lengths.groups:
        d = directory / f"sn-{g}"
        d.mkdir()
        p = subprocess.run(["stress-ng", *stress_ng_args(g, str(d), lengths.stress_seconds)],
                           capture_output=True, text=True, timeout=600)
        rnd.runs[f"stress-{g}-{n}"] = check_stress_ng(g, p.returncode, p.stdout + p.stderr,
                                                      lengths.stress_seconds)
        shutil.rmtree(d)
    d = directory / "db"
    d.mkdir()
    p = subprocess.run(["dbench", "-c", str(load), "-D", str(d), "-t", str(lengths.dbench_seconds),
                        "1"], capture_output=True, text=True, timeout=600)
    rnd.runs[f"dbench-{n}"] = check_dbench(p.returncode, p.stdout + p.stderr)
    shutil.rmtree(d)
    return rnd


def guest_env(lengths: Lengths, seconds: float) -> dict[str, str]:
    """/etc/guest.env settings for tests/interop/v9fs-tools.sh (the groups
    of `lengths` that v9fs can run: GUEST_GROUPS)."""
    groups = guest_groups(lengths.groups)
    env = {"TOOLS_SECONDS": str(int(seconds)), "FIO_SIZE": lengths.fio_size,
           "DBENCH_SECONDS": str(lengths.dbench_seconds),
           "STRESS_GROUPS": " ".join(groups)}
    for g in groups:
        key = "STRESS_" + g.upper().replace("-", "_")
        env[key] = " ".join(stress_ng_args(g, "@DIR@", lengths.guest_stress_seconds))
    return env


def guest_files(load_text: str) -> dict[str, tuple[bytes, int]]:
    """Everything v9fs-tools.sh needs in the initramfs."""
    return {**guest_bundle(), "etc/fio-verify.fio": (FIO_JOBS.read_bytes(), 0o644),
            "etc/dbench.load": (load_text.encode(), 0o644)}


def guest_rounds(console: str, lengths: Lengths) -> Round:
    """The guest's tool runs, judged from its console ("TOOL run line",
    "TOOLRC run status"), as guest_env(lengths, _) set them."""
    outs: dict[str, list[str]] = {}
    rcs: dict[str, int] = {}
    for line in console.splitlines():
        if line.startswith("TOOL "):
            _, run, *rest = line.split(" ", 2)
            outs.setdefault(run, []).append(rest[0] if rest else "")
        elif line.startswith("TOOLRC "):
            _, run, status = line.split()
            rcs[run] = int(status)
    rnd = Round("guest")
    for run, rc in rcs.items():
        text = "\n".join(outs.get(run, []))
        if run.startswith("fio-"):
            rnd.runs[run] = check_fio(rc, text)
        elif run.startswith("dbench-"):
            rnd.runs[run] = check_dbench(rc, text)
        else:
            group = run[len("stress-"):].rsplit("-", 1)[0]
            rnd.runs[run] = check_stress_ng(group, rc, text, lengths.guest_stress_seconds)
    return rnd
