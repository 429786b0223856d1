"""Raw sequential sweeps over access sizes: seed 003 and seed 004.

``seed003-sweep`` (seed 003, "MRAM vs NOR vs NAND"): for each access size
(2..64 KiB) write ``total`` bytes (64 MiB) sequentially from address 0,
wrapping at ``wrap`` (8 MiB); on flash each erase unit is erased just
before its first page is programmed, inside the write access that
programs it, so erase time is part of the write latency and throughput.
Then a read pass per size over the same addresses.  NOR erases 64 KiB
sectors (``big_erase``, seed 003's 150 ms MT25Q erase), NAND 128 KiB
blocks; MRAM needs no erase.  On a device smaller than ``wrap`` (e.g.
``--blocks``), ``wrap`` becomes half the usable capacity (rounded down to
whole erase units and 64 KiB) and ``total`` shrinks in proportion; the run's
metadata says so.

``seed004-sizes`` (seed 004, SD write time vs transfer size): for each
transfer size (512 B..64 KiB) write ``per_size`` bytes sequentially into a
fresh region (4 MiB aligned: an SD allocation unit), one access per
command.  Two sweet-spot figures are reported: ``sweet_spot_bytes``
(analysis.sweet_spot: the largest size whose median latency stays within
1.25x of the smallest size's -- the knee below which an access costs a
fixed overhead) and ``sweet_spot_efficiency_bytes`` (the smallest size whose
median throughput, size / median latency, is within 10 % of the best size's
-- where the card's 16 KiB program unit is filled; seed 004's "sweet spot at
multiples of 16 KiB").
On a device that needs erase, erase units are erased before first use as in
the seed 003 sweep.
"""

from __future__ import annotations

from steadyfs.trace import Op
from steadyfs.workloads import Env, Param, Workload, WorkloadError, pattern
from steadyfs.workloads._raw import RawSpace

KiB, MiB = 1024, 1024 * 1024
SEED003_SIZES = [2 * KiB, 4 * KiB, 8 * KiB, 16 * KiB, 32 * KiB, 64 * KiB]
SEED004_SIZES = [512, KiB, 2 * KiB, 4 * KiB, 8 * KiB, 16 * KiB, 24 * KiB, 32 * KiB, 48 * KiB, 64 * KiB]


def run_seed003(env: Env) -> None:
    p = env.params
    sizes: list[int] = sorted(p["sizes"])
    space = RawSpace(env.dev, big=bool(p["big_erase"]))
    wrap, total = int(p["wrap"]), int(p["total"])
    step = max(max(sizes), space.eu_bytes if space.needs_erase else 1, 64 * KiB)
    if space.capacity < wrap:
        new_wrap = (space.capacity // 2) // step * step
        if new_wrap < step:
            raise WorkloadError(f"device too small for seed003-sweep ({space.capacity} usable bytes)")
        total = max(max(sizes), total * new_wrap // wrap)
        env.notes.append(f"device of {space.capacity} usable bytes is smaller than {wrap}: wrap "
                         f"scaled to {new_wrap} (half the device) and total to {total} bytes")
        wrap = new_wrap
    if wrap % step:
        raise WorkloadError(f"wrap {wrap} must be a multiple of {step} (largest size / erase unit)")
    env.meta.update(wrap_bytes=wrap, total_bytes_per_size=total, erase_unit_bytes=space.eu_bytes,
                    skipped_bad_erase_units=space.skipped_bad)
    reads = bool(p["reads"])
    counts = [total // s for s in sizes]
    env.total(sum(counts) * (2 if reads else 1))
    buf = memoryview(pattern(max(sizes)))
    dev = env.dev
    for s, n in zip(sizes, counts):
        addr = 0
        data = buf[:s]
        for _ in range(n):
            t0 = dev.now_ns
            a = addr
            while a < addr + s:           # erase each unit at its first page
                if space.needs_erase and a % space.eu_bytes == 0:
                    space.erase_unit_at(a)
                a = (a // space.eu_bytes + 1) * space.eu_bytes
            space.prog(addr, data)
            env.record(t0, s, Op.WRITE)
            addr = (addr + s) % wrap
        if reads:
            addr = 0
            for _ in range(n):
                t0 = dev.now_ns
                space.read(addr, s)
                env.record(t0, s, Op.READ)
                addr = (addr + s) % wrap


def run_seed004(env: Env) -> None:
    p = env.params
    sizes: list[int] = sorted(p["sizes"])
    per = int(p["per_size"])
    space = RawSpace(env.dev)
    region = -(-max(per, 4 * MiB) // (4 * MiB)) * (4 * MiB)
    if space.needs_erase:
        region = -(-region // space.eu_bytes) * space.eu_bytes
    if region * len(sizes) > space.capacity:
        raise WorkloadError(f"seed004-sizes needs {region * len(sizes)} bytes ({len(sizes)} regions of "
                            f"{region}); the device has {space.capacity}: lower per_size or sizes")
    counts = [max(1, per // s) for s in sizes]
    env.total(sum(counts))
    env.meta.update(region_bytes=region)
    buf = memoryview(pattern(max(sizes)))
    dev = env.dev
    for i, (s, n) in enumerate(zip(sizes, counts)):
        addr = i * region
        for _ in range(n):
            t0 = dev.now_ns
            if space.needs_erase and addr % space.eu_bytes == 0:
                space.erase_unit_at(addr)
            space.prog(addr, buf[:s])
            env.record(t0, s, Op.WRITE)
            addr += s


WORKLOADS = [
    Workload(
        name="seed003-sweep",
        summary="raw sequential writes then reads per access size (2..64 KiB), erase inside write time",
        doc=__doc__ or "",
        params={
            "sizes": Param(SEED003_SIZES, "sizes", "access sizes in bytes"),
            "total": Param(64 * MiB, "size", "bytes written (and read) per access size", scaled=True),
            "wrap": Param(8 * MiB, "size", "addresses wrap to 0 here"),
            "big_erase": Param(True, "bool", "erase with the largest erase unit (NOR 64 KiB sector)"),
            "reads": Param(True, "bool", "a read pass per size after its write pass"),
        },
        run=run_seed003, raw=True),
    Workload(
        name="seed004-sizes",
        summary="raw sequential write time vs transfer size (512 B..64 KiB): the SD sweet spot",
        doc=__doc__ or "",
        params={
            "sizes": Param(SEED004_SIZES, "sizes", "transfer sizes in bytes"),
            "per_size": Param(1 * MiB, "size", "bytes written per transfer size", scaled=True),
        },
        run=run_seed004, raw=True),
]
