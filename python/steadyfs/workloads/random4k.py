"""Seed 000's random 4 KiB writes: ``seed000-random4k``.

``count`` (4000) writes of ``size`` (4 KiB) at random ``size``-aligned
offsets in a ``region`` (1 MiB), repeated ``repeat`` (5) times; the trace
keeps the repetition with the longest total duration, as the article did
("the access sequence with the longest total duration").  The offsets of
each repetition come from the run's seed.

* On a file system: the region is a file (``/random.bin``) written in full
  and synced before the first repetition (not timed); one access = seek +
  write 4 KiB + sync.  Repetitions run one after another on the same
  file system, so its state carries over as on a real device.
* Raw: offsets in the first ``region`` bytes of the device (bad erase units
  skipped).  Erase policy, that of a simple raw logger with no FTL:
  **erase on rewrite** -- a write to a 4 KiB unit that has been programmed
  since its erase unit (NAND 128 KiB block, NOR 4 KiB subsector) was last
  erased first erases that erase unit, inside the same access; what else
  the unit held is discarded (a timing benchmark, not a store).  The region
  is erased (untimed) before the first repetition.  MRAM and SD cards need
  no erase: writes go straight to the device.
"""

from __future__ import annotations

import numpy as np

from steadyfs.trace import Op
from steadyfs.workloads import Env, Param, Workload, WorkloadError, pattern
from steadyfs.workloads._raw import RawSpace


def run(env: Env) -> None:
    p = env.params
    size, count, region, repeat = int(p["size"]), int(p["count"]), int(p["region"]), int(p["repeat"])
    if region < size or region % size:
        raise WorkloadError(f"region {region} must be a positive multiple of size {size}")
    if env.target.has_files:
        # a small device filled close to its capacity: the file shrinks to
        # the free space, less 1/8 for its map sectors and slack, said in the notes
        free = env.target.capacity() - env.target.used()
        fit = (free - free // 8) // size * size
        if fit < region:
            if fit < size:
                raise WorkloadError(f"seed000-random4k: free space {free} bytes is too small for a file")
            env.notes.append(f"file size reduced to {fit} bytes to fit the {free} free bytes")
            region = fit
    slots = region // size
    dev = env.dev
    data = memoryview(pattern(size, 1))
    env.total(count * repeat)
    seqs: list[tuple[np.ndarray, np.ndarray]] = []
    if env.target.has_files:
        path = str(p["path"])
        chunk = pattern(min(region, 64 * 1024))
        with env.target.open(path, "w") as f:
            left = region
            while left:
                n = min(left, len(chunk))
                f.write(chunk[:n])
                left -= n
            f.sync()
        f = env.target.open(path, "r+", sync_writes=True)

        def access(off: int) -> None:
            f.seek(off)
            f.write(bytes(data))
            f.sync()
    else:
        space = RawSpace(dev)
        if region > space.capacity:
            raise WorkloadError(f"region {region} exceeds the device's usable {space.capacity} bytes")
        eu = space.eu_bytes
        programmed = np.zeros(slots, dtype=bool)
        per_eu = max(1, eu // size)
        if space.needs_erase:
            for a in range(0, -(-region // eu) * eu, eu):
                space.erase_unit_at(a)
        env.meta["erase_policy"] = "erase on rewrite"

        def access(off: int) -> None:
            k = off // size
            if space.needs_erase and programmed[k]:
                space.erase_unit_at(off)
                first = (off // eu) * per_eu
                programmed[first:first + per_eu] = False
            space.prog(off, data)
            programmed[k] = True

    for _ in range(repeat):
        offs = env.rng.integers(0, slots, size=count) * size
        starts = np.empty(count, dtype=np.int64)
        durs = np.empty(count, dtype=np.int64)
        for i, off in enumerate(offs.tolist()):
            t0 = dev.now_ns
            access(off)
            starts[i] = t0
            durs[i] = dev.now_ns - t0
            env.tick()
        seqs.append((starts, durs))
    if env.target.has_files:
        f.close()
    totals = [int(d.sum()) for _, d in seqs]
    best = int(np.argmax(totals))
    env.meta.update(repeat_totals_ms=[t / 1e6 for t in totals], kept_repeat=best)
    st, du = seqs[best]
    env.writer.extend(du, size, int(Op.WRITE), start_ns=st)


WORKLOADS = [
    Workload("seed000-random4k", "4000 random 4 KiB writes (with sync on a fs), longest of N runs",
             __doc__ or "", {
                 "size": Param(4096, "size", "bytes per write"),
                 "count": Param(4000, "int", "writes per repetition", scaled=True),
                 "region": Param(1024 * 1024, "size", "span of the random offsets (file size on a fs)"),
                 "repeat": Param(5, "int", "repetitions; the longest is kept"),
                 "path": Param("/random.bin", "str", "the file (fs targets)"),
             }, run, raw=True, files=True),
]
