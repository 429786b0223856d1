"""Issue 5's rotating data log: ``log4k``.

A logger appends ``append`` (4 KiB) records to the current file, syncing
after each, in files of ``file_size`` (4 MiB); when a file is full the
next one starts, and when a fourth would exist the oldest is deleted first
(so at most ``keep`` = 3 files plus the one being started).  One access =
one append + sync, plus -- on the append that starts a file -- closing the
full file, deleting the oldest and creating the new one: the logger must
do that work while data keeps arriving.  ``total`` (32 MiB) bytes are
appended.  Files live in ``/log``.

``file_size`` shrinks on small or full devices so that ``keep`` + 1 files
fit in the free space (rounded down to whole appends); the metadata records
the size used.  Needs a file system (``--fs``).
"""

from __future__ import annotations

from steadyfs.trace import Op
from steadyfs.workloads import Env, Param, Workload, WorkloadError, pattern


def run(env: Env) -> None:
    p = env.params
    t = env.target
    app, fsize, keep, total = int(p["append"]), int(p["file_size"]), int(p["keep"]), int(p["total"])
    free = t.capacity() - t.used()
    if (keep + 1) * fsize > free:
        fsize = free // (keep + 1) // app * app
        if fsize < app:
            raise WorkloadError(f"log4k: free space {free} bytes is too small for {keep + 1} files")
        env.notes.append(f"file size reduced to {fsize} bytes so that {keep + 1} files fit in the "
                         f"{free} free bytes")
    env.meta["file_size_bytes"] = fsize
    per_file = fsize // app
    n = max(1, total // app)
    env.total(n)
    if not t.exists("/log"):
        t.mkdir("/log")
    dev = env.dev
    files: list[str] = []
    f = None
    in_file = per_file
    for i in range(n):
        data = pattern(app, i)
        t0 = dev.now_ns
        if in_file == per_file:
            if f is not None:
                f.close()
            if len(files) == keep:
                t.unlink(files.pop(0))
            name = f"/log/{i // per_file:06d}.log"
            files.append(name)
            f = t.open(name, "w", sync_writes=True)
            in_file = 0
        assert f is not None
        f.write(data)
        f.sync()
        in_file += 1
        env.record(t0, app, Op.WRITE)
    if f is not None:
        f.close()
    env.meta["files_written"] = -(-n // per_file)


WORKLOADS = [
    Workload("log4k", "rotating log: 4 KiB appends + sync, 4 MiB files, keep 3", __doc__ or "", {
        "append": Param(4096, "size", "bytes per append (each followed by sync)"),
        "file_size": Param(4 * 1024 * 1024, "size", "bytes per log file (shrunk to fit)"),
        "keep": Param(3, "int", "files kept; the oldest is deleted when one more starts"),
        "total": Param(32 * 1024 * 1024, "size", "bytes appended in all", scaled=True),
    }, run, files=True),
]
