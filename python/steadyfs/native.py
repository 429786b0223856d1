"""ctypes binding of the native library (include/steadyfs/host.h).

The library is $STEADYFS_LIB, else the one an installed package carries
(steadyfs/_libsteady.so, compiled by setup.py), else <repo>/build/libsteady.so
(`make build`; what an editable install uses).  Profiles come
from C as JSON (sh_profile_json), so nothing here mirrors a C struct except
the few plain-data records passed by pointer (geometry, stats, faults,
trace records), which are declared once below.
"""

from __future__ import annotations

import ctypes
import json
import os
from pathlib import Path
from types import TracebackType
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

TIMINGS = {"typical": 0, "tail": 1, "worst": 2}
OPS = {0: "read", 1: "prog", 2: "erase", 3: "sync"}

SBD_ERR = {
    -101: "ECC",
    -102: "PROG",
    -103: "ERASE",
    -104: "POWER",
    -105: "RULE",
    -106: "RANGE",
    -107: "BAD_BLOCK",
    -108: "IO",
    -109: "INVAL",
}
ERR_ECC, ERR_PROG, ERR_ERASE, ERR_POWER, ERR_RULE = -101, -102, -103, -104, -105
ERR_RANGE, ERR_BAD_BLOCK, ERR_IO, ERR_INVAL = -106, -107, -108, -109


class NativeLibraryMissing(RuntimeError):
    """The native library has not been built (or STEADYFS_LIB is wrong)."""


class DeviceError(OSError):
    """A block-device operation failed; .code is the SBD_ERR_* value."""

    def __init__(self, code: int, what: str) -> None:
        self.code = code
        super().__init__(code, f"{what}: {strerror(code)} ({SBD_ERR.get(code, code)})")


class Geometry(ctypes.Structure):
    _fields_ = [
        ("page_size", ctypes.c_uint32),
        ("spare_size", ctypes.c_uint32),
        ("pages_per_block", ctypes.c_uint32),
        ("block_count", ctypes.c_uint32),
        ("read_size", ctypes.c_uint32),
        ("prog_size", ctypes.c_uint32),
        ("big_erase_blocks", ctypes.c_uint32),
        ("ecc_bits", ctypes.c_uint16),
        ("ecc_codeword", ctypes.c_uint16),
        ("nop", ctypes.c_uint8),
        ("needs_erase", ctypes.c_uint8),
        ("erased_byte", ctypes.c_uint8),
        ("mid_erase_blocks", ctypes.c_uint8),
    ]

    def as_dict(self) -> dict[str, int]:
        names = [str(f[0]) for f in self._fields_]
        return {n: int(getattr(self, n)) for n in names}


class Stats(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_uint64)
        for n in ("reads", "progs", "erases", "syncs", "read_bytes", "prog_bytes", "power_cuts",
                  "read_errors")
    ]

    def as_dict(self) -> dict[str, int]:
        return {str(f[0]): int(getattr(self, str(f[0]))) for f in self._fields_}


class Faults(ctypes.Structure):
    _fields_ = [
        ("seed", ctypes.c_uint64),
        ("powercut_after", ctypes.c_uint64),
        ("flip_ppm", ctypes.c_uint32),
        ("flip_bits", ctypes.c_uint16),
        ("reserved", ctypes.c_uint16),
        ("wear_limit", ctypes.c_uint32),
        ("fail_ppm", ctypes.c_uint32),
        ("read_io_ppm", ctypes.c_uint32),
        ("read_io_burst", ctypes.c_uint32),
    ]


class TraceRec(ctypes.Structure):
    _fields_ = [
        ("start_ns", ctypes.c_uint64),
        ("dur_ns", ctypes.c_uint64),
        ("block", ctypes.c_uint32),
        ("off", ctypes.c_uint32),
        ("len", ctypes.c_uint32),
        ("rc", ctypes.c_int32),
        ("op", ctypes.c_uint32),
    ]


TRACE_DTYPE = np.dtype(
    [
        ("start_ns", "<u8"),
        ("dur_ns", "<u8"),
        ("block", "<u4"),
        ("off", "<u4"),
        ("len", "<u4"),
        ("rc", "<i4"),
        ("op", "<u4"),
    ],
    align=True,  # the C struct's padding: 40 bytes
)

_lib: ctypes.CDLL | None = None


#: the library an installed package carries (setup.py builds it)
PACKAGED_LIB = Path(__file__).resolve().with_name("_libsteady.so")
#: the library `make build` makes in the repo (editable installs use it)
REPO_LIB = Path(__file__).resolve().parents[2] / "build" / "libsteady.so"


def library_path() -> Path:
    """$STEADYFS_LIB, else the installed package's library, else the repo's
    build/libsteady.so."""
    env = os.environ.get("STEADYFS_LIB")
    if env:
        return Path(env)
    if PACKAGED_LIB.exists():
        return PACKAGED_LIB
    return REPO_LIB


def lib() -> ctypes.CDLL:
    """The loaded native library, with argument and result types declared."""
    global _lib
    if _lib is not None:
        return _lib
    path = library_path()
    if not path.exists():
        raise NativeLibraryMissing(
            f"native library {path} not found: build it with `make build` "
            "(or point STEADYFS_LIB at a libsteady.so)"
        )
    try:
        L = ctypes.CDLL(str(path))
    except OSError as e:   # not a shared object for this machine, or a half-built one
        raise NativeLibraryMissing(f"native library {path} cannot be loaded ({e}): rebuild it with "
                                   "`make build`") from e
    p, u32, u64, i32 = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int
    sigs: dict[str, tuple[Any, list[Any]]] = {
        "sh_open_sim": (p, [ctypes.c_char_p, ctypes.c_char_p, u32, i32, u64, i32,
                            ctypes.POINTER(i32)]),
        "sh_open_path": (p, [ctypes.c_char_p, i32, u32, u32, u64, ctypes.POINTER(i32)]),
        "sh_open_image": (p, [ctypes.c_char_p, ctypes.c_char_p, u32, i32, ctypes.POINTER(i32)]),
        "sh_create_image": (p, [ctypes.c_char_p, ctypes.c_char_p, u32, i32, u64,
                                ctypes.POINTER(i32)]),
        "sh_last_error": (ctypes.c_char_p, []),
        "sh_close": (None, [p]),
        "sh_bd": (p, [p]),
        "sh_sim": (p, [p]),
        "sh_name": (ctypes.c_char_p, [p]),
        "sh_geometry": (None, [p, ctypes.POINTER(Geometry)]),
        "sh_read": (i32, [p, u32, u32, p, u32, p, u32]),
        "sh_prog": (i32, [p, u32, u32, p, u32, p, u32]),
        "sh_erase": (i32, [p, u32, u32]),
        "sh_sync": (i32, [p]),
        "sh_is_bad": (i32, [p, u32]),
        "sh_mark_bad": (i32, [p, u32]),
        "sh_now_ns": (u64, [p]),
        "sh_last_ns": (u64, [p]),
        "sh_stats": (None, [p, ctypes.POINTER(Stats)]),
        "sh_set_faults": (i32, [p, ctypes.POINTER(Faults)]),
        "sh_set_timing": (i32, [p, i32]),
        "sh_power_restore": (i32, [p]),
        "sh_flip_bits": (i32, [p, u32, u32, u32]),
        "sh_erase_count": (u32, [p, u32]),
        "sh_is_direct": (i32, [p]),
        "sh_trace_enable": (i32, [p, u64]),
        "sh_trace_count": (u64, [p]),
        "sh_trace_copy": (u64, [p, u64, p, u64]),
        "sh_trace_clear": (None, [p]),
        "sh_profile_count": (ctypes.c_uint, []),
        "sh_profile_json": (i32, [ctypes.c_uint, ctypes.c_char_p, ctypes.c_size_t]),
        "sbd_strerror": (ctypes.c_char_p, [i32]),
    }
    for name, (res, args) in sigs.items():
        try:
            fn = getattr(L, name)
        except AttributeError as e:   # a library older or newer than this package
            raise NativeLibraryMissing(f"native library {path} has no {name}: it does not match this "
                                       "package; rebuild it with `make build`") from e
        fn.restype = res
        fn.argtypes = args
    _lib = L
    return L


def strerror(code: int) -> str:
    return str(lib().sbd_strerror(code).decode())


def profiles() -> list[dict[str, Any]]:
    """Every device profile with all its parameters (from C, as JSON)."""
    L = lib()
    out: list[dict[str, Any]] = []
    for i in range(L.sh_profile_count()):
        n = L.sh_profile_json(i, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        L.sh_profile_json(i, buf, n + 1)
        out.append(json.loads(buf.value.decode()))
    return out


def profile(name: str) -> dict[str, Any]:
    for prof in profiles():
        if prof["name"] == name:
            return prof
    raise KeyError(f"unknown device profile {name!r}; known: "
                   + ", ".join(p["name"] for p in profiles()))


Buffer = bytes | bytearray | memoryview


class Device:
    """A simulated device (profile name) or a real file / block device (path).

    Every operation advances `now_ns` by its duration and leaves it in
    `last_ns` (virtual nanoseconds for simulated devices, wall clock for real
    ones).  Failures raise DeviceError; `read` returns the data and the
    number of bit errors the ECC corrected.
    """

    def __init__(
        self,
        profile: str | None = None,
        *,
        image: str | os.PathLike[str] | None = None,
        blocks: int = 0,
        timing: str = "typical",
        seed: int = 0,
        fresh: bool = False,
        path: str | os.PathLike[str] | None = None,
        allow_write: bool = False,
        page_size: int = 0,
        block_size: int = 0,
        size_bytes: int = 0,
    ) -> None:
        L = lib()
        err = ctypes.c_int(0)
        if path is not None:
            h = L.sh_open_path(os.fsencode(path), int(allow_write), page_size, block_size,
                               size_bytes, ctypes.byref(err))
        else:
            if profile is None:
                raise ValueError("Device needs a profile name or a path")
            if timing not in TIMINGS:
                raise ValueError(f"timing must be one of {', '.join(TIMINGS)}")
            h = L.sh_open_sim(profile.encode(), os.fsencode(image) if image else None, blocks,
                              TIMINGS[timing], seed, int(fresh), ctypes.byref(err))
        if not h:
            reason = L.sh_last_error().decode()
            raise DeviceError(err.value or ERR_INVAL, f"cannot open device: {reason}")
        self._attach(h, profile)

    @classmethod
    def open_image(cls, image: str | os.PathLike[str], *, timing: str = "typical") -> Device:
        """An existing image file as its header describes it (profile and
        block count, docs/SIM-IMAGE.md; sh_open_image): nothing is created
        or formatted."""
        return cls._open_with("sh_open_image", os.fsencode(image), None, 0,
                              cls._timing(timing))

    @classmethod
    def create_image(cls, image: str | os.PathLike[str], profile: str, *, blocks: int = 0,
                     timing: str = "typical", seed: int = 0) -> Device:
        """A new image file (refused if it exists) of ``profile`` with
        ``blocks`` blocks (0: the profile's), erased, factory bad blocks
        from ``seed`` (sh_create_image)."""
        return cls._open_with("sh_create_image", os.fsencode(image), profile.encode(), blocks,
                              cls._timing(timing), seed)

    @staticmethod
    def _timing(timing: str) -> int:
        if timing not in TIMINGS:
            raise ValueError(f"timing must be one of {', '.join(TIMINGS)}")
        return TIMINGS[timing]

    @classmethod
    def _open_with(cls, fn: str, *args: Any) -> Device:
        L = lib()
        err = ctypes.c_int(0)
        h = getattr(L, fn)(*args, ctypes.byref(err))
        if not h:
            reason = L.sh_last_error().decode()
            raise DeviceError(err.value or ERR_INVAL, f"cannot open device: {reason}")
        dev = cls.__new__(cls)
        dev._attach(h, L.sh_name(h).decode())
        return dev

    def _attach(self, h: int, profile: str | None) -> None:
        L = lib()
        self._h: int | None = h
        # Things built on this device (a mounted file system) to release
        # before the device itself goes, so none outlives its handle.
        self._closers: list[Callable[[], None]] = []
        self.profile_name = profile
        geo = Geometry()
        L.sh_geometry(h, ctypes.byref(geo))
        self.geometry = geo.as_dict()
        self.page_size = geo.page_size
        self.spare_size = geo.spare_size
        self.pages_per_block = geo.pages_per_block
        self.block_count = geo.block_count
        self.block_size = geo.page_size * geo.pages_per_block
        self.is_sim = bool(L.sh_sim(h))

    # -- lifetime --------------------------------------------------------
    def close(self) -> None:
        if self._h:
            for fn in reversed(self._closers):
                try:
                    fn()
                except Exception:   # a dependant's failure must not leak the handle
                    pass
            self._closers.clear()
            lib().sh_close(self._h)
            self._h = None

    def on_close(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` when the device closes, before its handle is freed."""
        self._closers.append(fn)

    def __enter__(self) -> Device:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    @property
    def handle(self) -> int:
        """The sh_dev pointer (for other native code, e.g. the file system)."""
        if not self._h:
            raise ValueError("device is closed")
        return self._h

    @property
    def bd(self) -> int:
        """The `const sbd *` of this device."""
        return int(lib().sh_bd(self.handle))

    def _check(self, rc: int, what: str) -> int:
        if rc < 0:
            raise DeviceError(rc, what)
        return rc

    # -- operations ------------------------------------------------------
    def read(self, block: int, off: int, length: int, spare_len: int = 0
             ) -> tuple[bytes, int] | tuple[bytes, int, bytes]:
        buf = ctypes.create_string_buffer(length)
        sp = ctypes.create_string_buffer(spare_len) if spare_len else None
        rc = lib().sh_read(self.handle, block, off, buf, length, sp, spare_len)
        self._check(rc, f"read block {block} off {off} len {length}")
        if sp is not None:
            return buf.raw, rc, sp.raw
        return buf.raw, rc

    def read_raw(self, block: int, off: int, length: int) -> tuple[int, bytes]:
        """Read without raising: (rc, data); data is raw on SBD_ERR_ECC."""
        buf = ctypes.create_string_buffer(length)
        rc = lib().sh_read(self.handle, block, off, buf, length, None, 0)
        return rc, buf.raw

    def prog(self, block: int, off: int, data: Buffer, spare: Buffer | None = None) -> None:
        d = bytes(data)
        s = bytes(spare) if spare else b""
        rc = lib().sh_prog(self.handle, block, off, d, len(d), s or None, len(s))
        self._check(rc, f"prog block {block} off {off} len {len(d)}")

    def erase(self, block: int, count: int = 1) -> None:
        self._check(lib().sh_erase(self.handle, block, count), f"erase block {block}")

    def sync(self) -> None:
        self._check(lib().sh_sync(self.handle), "sync")

    def is_bad(self, block: int) -> bool:
        return bool(self._check(lib().sh_is_bad(self.handle, block), f"is_bad {block}"))

    def mark_bad(self, block: int) -> None:
        self._check(lib().sh_mark_bad(self.handle, block), f"mark_bad {block}")

    # -- clock and stats -------------------------------------------------
    @property
    def now_ns(self) -> int:
        return int(lib().sh_now_ns(self.handle))

    @property
    def last_ns(self) -> int:
        return int(lib().sh_last_ns(self.handle))

    def stats(self) -> dict[str, int]:
        st = Stats()
        lib().sh_stats(self.handle, ctypes.byref(st))
        return st.as_dict()

    @property
    def is_direct(self) -> bool:
        return bool(lib().sh_is_direct(self.handle))

    # -- simulation controls ---------------------------------------------
    def set_faults(self, *, seed: int = 0, powercut_after: int = 0, flip_ppm: int = 0,
                   flip_bits: int = 0, wear_limit: int = 0, fail_ppm: int = 0) -> None:
        f = Faults(seed, powercut_after, flip_ppm, flip_bits, 0, wear_limit, fail_ppm)
        self._check(lib().sh_set_faults(self.handle, ctypes.byref(f)), "set_faults")

    def set_timing(self, timing: str) -> None:
        self._check(lib().sh_set_timing(self.handle, TIMINGS[timing]), "set_timing")

    def power_restore(self) -> None:
        self._check(lib().sh_power_restore(self.handle), "power_restore")

    def flip_bits(self, block: int, page: int, nbits: int) -> None:
        self._check(lib().sh_flip_bits(self.handle, block, page, nbits), "flip_bits")

    def erase_count(self, block: int) -> int:
        return int(lib().sh_erase_count(self.handle, block))

    # -- tracing ---------------------------------------------------------
    def trace_enable(self, capacity: int) -> None:
        self._check(lib().sh_trace_enable(self.handle, capacity), "trace_enable")

    def trace_clear(self) -> None:
        lib().sh_trace_clear(self.handle)

    def trace(self) -> npt.NDArray[Any]:
        """Recorded operations as a numpy structured array (TRACE_DTYPE);
        op codes are keys of OPS."""
        n = int(lib().sh_trace_count(self.handle))
        out = np.zeros(n, dtype=TRACE_DTYPE)
        if n:
            got = lib().sh_trace_copy(self.handle, 0, out.ctypes.data, n)
            out = out[:got]
        return out
