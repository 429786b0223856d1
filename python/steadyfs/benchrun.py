"""Running one benchmark: device + file-system target + workload -> trace + summary.

Used by ``steady bench`` (one run) and ``steady demo`` (many).  The steps:
open the device (a simulated profile in RAM, or a real file / block device),
mount the target (``--fs``; formatted first), fill it with static files to a
fraction of its capacity (``--fill``, not timed), run the workload (one trace
access per workload-level call, on the device clock), and summarise the
trace with ``analysis.summarize`` (JSON schema: docs/BENCH-JSON.md).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from steadyfs import native
from steadyfs.analysis import DEFAULT_RATES, summarize
from steadyfs.fstargets import FsError, FsRefused, FsTarget, open_target
from steadyfs.native import Device
from steadyfs.progress import Progress
from steadyfs.slowest import TRACE_CAPACITY, explain
from steadyfs.trace import Op, Trace, TraceWriter, make_metadata
from steadyfs.workloads import Env, Workload, WorkloadError, get, pattern


class BenchError(ValueError):
    """A run cannot start as asked; the message is for the user."""


@dataclass
class BenchResult:
    trace: Trace
    """Every access recorded (the sweep's reads included)."""
    summary: dict[str, Any]
    """summarize() of the analysed operations, plus bench fields."""
    notes: list[str] = field(default_factory=list)
    wall_s: float = 0.0


def is_profile(spec: str) -> bool:
    return spec in {p["name"] for p in native.profiles()}


def open_device(spec: str, *, timing: str = "typical", seed: int = 1, blocks: int = 0,
                allow_write: bool = False) -> Device:
    """A simulated profile (RAM image) or a real file / block device (PATH)."""
    if is_profile(spec):
        return Device(spec, blocks=blocks, timing=timing, seed=seed)
    if not Path(spec).exists():
        names = ", ".join(p["name"] for p in native.profiles())
        raise BenchError(f"--device {spec!r} is neither a profile ({names}) nor an existing path")
    if not allow_write:
        raise BenchError(f"--device {spec}: benchmarking a real device overwrites it (destructive); "
                         "pass --allow-write to proceed")
    return Device(path=spec, allow_write=True)


def default_fs(w: Workload, dev: Device) -> str:
    """raw for workloads defined on the raw device, FAT on 512-byte-sector
    devices (SD cards) for file workloads; otherwise the user must choose."""
    if w.raw:
        return "raw"
    if dev.page_size == 512 and not dev.geometry["needs_erase"]:
        return "fat"
    raise BenchError(f"workload {w.name} needs a file system on this device: pass --fs littlefs "
                     "or --fs steadyfs")


def fill(target: FsTarget, fraction: float, progress: bool = False, chunk: int = 64 * 1024,
         file_size: int = 1024 * 1024, of_device: bool = False) -> dict[str, Any]:
    """Write static files under /static (not timed): until ``fraction`` of
    the file system's capacity is used (as it reports its usage), or, with
    ``of_device``, until the files hold ``fraction`` of the device's bytes
    (the same bytes stored whatever the file system: the fair comparison).
    Returns what was done."""
    opt = "--fill-device" if of_device else "--fill"
    if not 0.0 <= fraction < 1.0:
        raise BenchError(f"{opt} must be in [0, 1), not {fraction}")
    cap = target.capacity()
    dev_bytes = int(target.dev.block_count) * int(target.dev.block_size)
    data = pattern(chunk, 7)
    nfiles = 0
    stored = 0
    used = target.used()
    goal = int(fraction * dev_bytes) if of_device else int(fraction * cap)
    with Progress(max(0, goal - (stored if of_device else used)), "fill",
                  enabled=None if progress else False) as bar:
        # File by file, re-reading the fs's own usage: per-file overhead
        # (metadata, littlefs's CTZ pointers, cluster rounding) counts too.
        while (stored if of_device else used) < goal:
            if nfiles == 0 and not target.exists("/static"):
                target.mkdir("/static")
            n_file = min(file_size, goal - (stored if of_device else used))
            try:
                with target.open(f"/static/s{nfiles:05d}.bin", "w") as f:
                    left = n_file
                    while left:
                        k = min(left, chunk)
                        f.write(data[:k])
                        left -= k
            except FsError as e:
                if not of_device:
                    raise
                raise BenchError(f"{opt} {fraction:g}: {target.name} holds only about {stored} bytes of "
                                 f"files on this device ({stored / dev_bytes:.1%} of its {dev_bytes} bytes; "
                                 f"its stated capacity is {cap} bytes): {e}") from e
            nfiles += 1
            stored += n_file
            new = target.used()
            bar.update(n_file if of_device else new - used)
            if new <= used and not of_device:
                break
            used = new
    # File systems state capacity differently (littlefs: every block;
    # steadyfs: the live data its format allows), so also say what the fill
    # is in raw device bytes.
    return {"fraction_asked": fraction, "of": "device" if of_device else "capacity",
            "fraction_used": used / cap if cap else 0.0, "files": nfiles, "stored_bytes": stored,
            "used_bytes": used, "capacity_bytes": cap, "device_bytes": dev_bytes,
            "fraction_of_device": round(used / dev_bytes, 4) if dev_bytes else 0.0,
            "stored_fraction_of_device": round(stored / dev_bytes, 4) if dev_bytes else 0.0}


def efficiency_sweet_spot(by_size: Sequence[dict[str, Any]], within: float = 0.10) -> int | None:
    """The smallest access size whose median throughput (size / p50 latency)
    is within ``within`` of the best size's: the size that fills the device's
    internal program unit (seed 004: 16 KiB on SD cards).  None without data."""
    pts = [(int(e["size_bytes"]), int(e["size_bytes"]) / float(e["p50_latency_us"]))
           for e in by_size if float(e.get("p50_latency_us") or 0) > 0]
    if not pts:
        return None
    best = max(v for _, v in pts)
    return min(s for s, v in pts if v >= (1.0 - within) * best)


def run_bench(device: str, workload: str, *, fs: str | None = None, timing: str = "typical",
              seed: int = 1, rates: Sequence[float] = DEFAULT_RATES, ram: Sequence[int] | None = None,
              fill_fraction: float | None = None, scale: float = 1.0, blocks: int = 0,
              params: dict[str, str] | None = None, allow_write: bool = False,
              progress: bool = False, label: str = "", fill_device: float | None = None,
              slowest: int = 0) -> BenchResult:
    """One benchmark run; raises BenchError / WorkloadError / FsError with a user message.
    ``fill_fraction``: static files up to that fraction of the file system's
    own capacity; ``fill_device``: static files holding that fraction of the
    device's bytes (one or the other).  ``slowest``: trace the device's
    operations during the workload and explain that many of the slowest
    accesses (summary["slowest"], python/steadyfs/slowest.py; simulated
    profiles only)."""
    if fill_fraction is not None and fill_device is not None:
        raise BenchError("--fill and --fill-device: give one (a fraction of the file system's "
                         "capacity, or of the device)")
    if slowest < 0:
        raise BenchError(f"--slowest {slowest}: want a number of accesses >= 0")
    if slowest and not is_profile(device):
        raise BenchError("--slowest needs a simulated profile (--device NAME): a real device's "
                         "operations are not traced")
    w = get(workload)
    wparams = {k: v for k, v in (params or {}).items() if not k.startswith("fs.")}
    fs_opts: dict[str, Any] = {k[3:]: v for k, v in (params or {}).items() if k.startswith("fs.")}
    resolved = w.resolve(wparams, scale)
    t_wall = time.monotonic()
    dev_ops = None
    with open_device(device, timing=timing, seed=seed, blocks=blocks, allow_write=allow_write) as dev:
        fs_name = fs or default_fs(w, dev)
        if fs_name == "raw" and not w.raw:
            raise FsRefused(f"workload {w.name} needs files and --fs raw has none: pass --fs fat "
                            "(SD cards), --fs littlefs or --fs steadyfs")
        if fs_name != "raw" and not w.files:
            raise FsRefused(f"workload {w.name} is defined on the raw device only: use --fs raw")
        if (fill_fraction or fill_device) and fs_name == "raw":
            raise FsRefused("--fill and --fill-device write static files, so each needs a file system (--fs)")
        target = open_target(fs_name, dev, options=fs_opts)
        try:
            fill_info = (fill(target, fill_fraction, progress) if fill_fraction else
                         fill(target, fill_device, progress, of_device=True) if fill_device else None)
            meta = make_metadata(device=device, fs=fs_name, workload=w.name, timing=timing, seed=seed,
                                 parameters=resolved, scale=scale, fs_config=target.describe(),
                                 device_geometry=dev.geometry)
            if fill_info:
                meta["fill"] = fill_info
            writer = TraceWriter(meta)
            bar = Progress(None, label or f"{w.name} on {device}", enabled=None if progress else False)

            def set_total(n: int) -> None:
                bar.total = n
            env = Env(dev, target, resolved, seed, writer, tick=bar.update, set_total=set_total)
            if slowest:
                dev.trace_enable(TRACE_CAPACITY)   # the workload's operations only, not the fill's
            try:
                w.run(env)
            except FsError as e:
                # Say where: a failure after thousands of accesses (ENOSPC
                # when GC pacing falls behind) is a different finding from
                # one at the start (the workload does not fit).
                fl = (f", fill {fill_fraction:g}" if fill_fraction else
                      f", fill-device {fill_device:g}" if fill_device else "")
                raise FsError(f"{e} [{fs_name}, {w.name} on {device}, after {len(writer)} recorded "
                              f"accesses{fl}]") from e
            finally:
                bar.close()
            stats = dev.stats()
            fs_stats = target.stats()
            dev_ops = dev.trace() if slowest else None
        finally:
            target.unmount()
    writer.metadata.update(env.meta)
    writer.metadata["notes"] = list(env.notes)
    writer.metadata["device_stats"] = stats
    if fs_stats:
        writer.metadata["fs_stats"] = fs_stats
    trace = writer.finish()
    summary = summarize(trace, rates, ram_bytes=list(ram) if ram else None, ops=w.analyse_ops)
    summary["analysed_ops"] = [Op(o).label for o in w.analyse_ops]
    summary["notes"] = list(env.notes)
    for k in ("fill", "fs_config", "scale", "device_stats", "fs_stats", *env.meta.keys()):
        if k in trace.metadata:
            summary[k] = trace.metadata[k]
    if "by_size" in summary:
        summary["sweet_spot_efficiency_bytes"] = efficiency_sweet_spot(summary["by_size"])
    reads = trace.select([Op.READ]) if Op.READ not in w.analyse_ops else None
    if reads is not None and len(reads):
        rs = summarize(reads, [])
        summary["read"] = {k: rs[k] for k in ("count", "bytes", "max_latency_us", "avg_throughput_kBps",
                                             "latency_us", "by_size") if k in rs}
    if dev_ops is not None:
        summary["slowest"] = explain(trace, dev_ops, slowest, w.analyse_ops,
                                     wrapped=len(dev_ops) >= TRACE_CAPACITY)
    summary["wall_s"] = round(time.monotonic() - t_wall, 3)
    return BenchResult(trace, summary, list(env.notes), summary["wall_s"])


__all__ = ["BenchError", "BenchResult", "WorkloadError", "fill", "open_device", "run_bench"]
