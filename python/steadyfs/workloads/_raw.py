"""A raw device seen as a flat byte space, the way a simple raw logger sees it.

Erase units (one block, or NOR's 64 KiB sector when ``big`` is asked) that
contain a bad block are skipped: logical unit i maps to the i-th good
physical unit (a bad-block table, as any raw NAND logger keeps; the
mt29f1g01 model places up to 20 factory bad blocks).  Reads and programs
are split at device block boundaries (the block-device contract).
"""

from __future__ import annotations

from steadyfs.native import Device


class RawSpace:
    def __init__(self, dev: Device, big: bool = False) -> None:
        self.dev = dev
        g = dev.geometry
        self.needs_erase = bool(g["needs_erase"])
        self.bs = dev.block_size
        self.eu_blocks = g["big_erase_blocks"] if big and g["big_erase_blocks"] > 1 else 1
        self.eu_bytes = self.eu_blocks * self.bs
        nunits = dev.block_count // self.eu_blocks
        bad = {b for b in range(dev.block_count) if dev.is_bad(b)} if self.needs_erase else set()
        self.units = [u for u in range(nunits)
                      if not any(b in bad for b in range(u * self.eu_blocks, (u + 1) * self.eu_blocks))]
        self.skipped_bad = nunits - len(self.units)
        self.capacity = len(self.units) * self.eu_bytes

    def _phys(self, addr: int) -> tuple[int, int]:
        u, rest = divmod(addr, self.eu_bytes)
        b, off = divmod(rest, self.bs)
        return self.units[u] * self.eu_blocks + b, off

    def erase_unit_at(self, addr: int) -> None:
        """Erase the erase unit holding ``addr`` (nothing on MRAM/SD)."""
        if not self.needs_erase:
            return
        u = addr // self.eu_bytes
        self.dev.erase(self.units[u] * self.eu_blocks, self.eu_blocks)

    def prog(self, addr: int, data: memoryview | bytes) -> None:
        mv = memoryview(data)
        pos = 0
        while pos < len(mv):
            blk, off = self._phys(addr + pos)
            n = min(len(mv) - pos, self.bs - off)
            self.dev.prog(blk, off, mv[pos:pos + n])
            pos += n

    def read(self, addr: int, n: int) -> None:
        """Read ``n`` bytes (the data is discarded: only the time matters)."""
        pos = 0
        while pos < n:
            blk, off = self._phys(addr + pos)
            k = min(n - pos, self.bs - off)
            rc, _ = self.dev.read_raw(blk, off, k)
            if rc < 0:
                self.dev.read(blk, off, k)   # raises DeviceError with the reason
            pos += k
