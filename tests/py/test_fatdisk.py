"""FAT (fatfs-ng, ChaN's FatFs) on the simulated SD cards, and the seed 001
calibration: the three workloads at full seed 001 size on a 128 MiB card.

Target ranges are the seed 001 tables (4 consumer, 3 industrial cards) and
the issue's calibration goals: industrial max block latency ~15-25 ms,
consumer 100-500 ms, average throughput within the tables' ranges.
"""

from __future__ import annotations

import pytest

from steadyfs.fatdisk import FatVolume, seed001
from steadyfs.native import Device

# (profile, workload): (max latency ms range, average kB/s range)
TARGETS = {
    ("sd-industrial", "seed001-naive"): ((15, 25), (48.4, 112.3)),
    ("sd-industrial", "seed001-open"): ((15, 25), (378.4, 402.1)),
    ("sd-industrial", "seed001-2k"): ((15, 25), (968, 1334)),
    ("sd-consumer", "seed001-naive"): ((100, 500), (18.7, 148.4)),
    ("sd-consumer", "seed001-open"): ((100, 500), (114.0, 436.2)),
    ("sd-consumer", "seed001-2k"): ((100, 500), (363, 1169)),
}


def test_fat_round_trip() -> None:
    with Device("sd-industrial", blocks=256, seed=1) as dev, FatVolume(dev) as vol:
        with vol.open("/a.txt", "w") as f:
            f.write(b"hello " * 1000)
        for _ in range(3):
            with vol.open("/a.txt", "a") as f:
                f.write(b"more")
        with vol.open("/a.txt", "r") as f:
            data = f.read(100000)
        assert data == b"hello " * 1000 + b"more" * 3
        assert dev.stats()["progs"] > 0 and dev.now_ns > 0


@pytest.mark.parametrize("profile,workload", sorted(TARGETS))
def test_seed001_calibration(profile: str, workload: str) -> None:
    (lo_ms, hi_ms), (lo_avg, hi_avg) = TARGETS[(profile, workload)]
    with Device(profile, blocks=2048, seed=1) as dev, FatVolume(dev) as vol:
        r = seed001(vol, workload)
    print(f"{profile} {workload}: max {r.max_latency_ms:.1f} ms, "
          f"guaranteed {r.guaranteed_kBps:.1f} kB/s, average {r.avg_kBps:.1f} kB/s")
    assert lo_ms <= r.max_latency_ms <= hi_ms
    assert lo_avg <= r.avg_kBps <= hi_avg
    # seed 001: average well above guaranteed (3.9x for its best industrial
    # card on the naive workload, 10x and more elsewhere)
    assert r.avg_kBps > 3 * r.guaranteed_kBps
