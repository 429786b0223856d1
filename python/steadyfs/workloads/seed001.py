"""Seed 001 ("microSD performance on memory-constrained devices"): appends to one file.

* ``seed001-naive``: open the file, append a 512 B block, close it; repeat
  until 8 MB (8 000 000 bytes) are written.  One access = open + append + close.
* ``seed001-open``: open once, append 512 B blocks, 8 MB.  One access = one
  append; the final close is added to the last access.
* ``seed001-2k``: as ``seed001-open`` with 2 KiB blocks, 32 MiB.

On SD card profiles these run through FatFs (``--fs fat``, the default
there), as the article did; on other devices through any file-system
target.  Block k holds ``workloads.pattern(block, k)``, so a read-back
checks order as well as content.  The file is created (empty) before the
first timed access.
"""

from __future__ import annotations

from steadyfs.trace import Op
from steadyfs.workloads import Env, Param, Workload, pattern


def run(env: Env) -> None:
    p = env.params
    block, total, reopen, path = int(p["block"]), int(p["total"]), bool(p["reopen"]), str(p["path"])
    n = max(1, total // block)
    env.total(n)
    env.meta["blocks"] = n
    t = env.target
    dev = env.dev
    t.open(path, "w").close()
    f = None if reopen else t.open(path, "a")
    for i in range(n):
        data = pattern(block, i)
        t0 = dev.now_ns
        if reopen:
            with t.open(path, "a") as g:
                g.write(data)
        else:
            assert f is not None
            f.write(data)
            if i == n - 1:
                f.close()
        env.record(t0, block, Op.WRITE)


def _params(block: int, total: int, reopen: bool) -> dict[str, Param]:
    return {
        "block": Param(block, "size", "bytes appended per access"),
        "total": Param(total, "size", "bytes written in all", scaled=True),
        "reopen": Param(reopen, "bool", "open and close the file around every append"),
        "path": Param("/log.bin", "str", "file written"),
    }


WORKLOADS = [
    Workload("seed001-naive", "open, append 512 B, close, repeat; 8 MB", __doc__ or "",
             _params(512, 8_000_000, True), run, files=True),
    Workload("seed001-open", "open once, append 512 B blocks; 8 MB", __doc__ or "",
             _params(512, 8_000_000, False), run, files=True),
    Workload("seed001-2k", "open once, append 2 KiB blocks; 32 MiB", __doc__ or "",
             _params(2048, 32 * 1024 * 1024, False), run, files=True),
]
