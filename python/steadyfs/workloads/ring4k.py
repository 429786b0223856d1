"""A logger's records in the record ring: ``ring4k``.

Appends ``append`` (4 KiB) records to steadyfs's record ring
(``steadyfs_ring_append``: durable on return, no file, no map, no
collection), ``total`` (32 MiB) bytes in all; one access = one append.
The ring laps as often as ``total`` asks (its oldest unit erased by the
append that starts a unit).  The target must be steadyfs formatted with a
ring: ``--param fs.ring_units=N --param fs.ring_sectors=K`` with
``K * sector payload >= append`` (2 on the default media for 4 KiB);
``--fill`` fills the files beside it, which the appends do not touch.
"""

from __future__ import annotations

from steadyfs.fstargets import FsRefused
from steadyfs.trace import Op
from steadyfs.workloads import Env, Param, Workload, WorkloadError, pattern


def run(env: Env) -> None:
    p = env.params
    t = env.target
    app, total = int(p["append"]), int(p["total"])
    n = max(1, total // app)
    env.total(n)
    dev = env.dev
    for i in range(n):
        data = pattern(app, i)
        t0 = dev.now_ns
        try:
            t.ring_append(data)
        except FsRefused as e:
            raise WorkloadError(f"ring4k: {e}") from e
        env.record(t0, app, Op.WRITE)
    env.meta["records"] = n


WORKLOADS = [
    Workload("ring4k", "record ring: 4 KiB appends, each durable on return", __doc__ or "", {
        "append": Param(4096, "size", "bytes per record"),
        "total": Param(32 * 1024 * 1024, "size", "bytes appended in all", scaled=True),
    }, run, files=True),
]
