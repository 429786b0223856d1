"""Python binding of the steadyfs file system (include/steadyfs/steadyfs.h)
on a ``native.Device``, through the host's sh_fs API (src/host/fshost.c).

    with Device("mt29f1g01") as dev, SteadyFs(dev) as fs:
        fs.format(); fs.mount()
        fd = fs.open("/log.bin", O_WRONLY | O_CREAT | O_APPEND)
        fs.write(fd, b"...")
        fs.sync(fd)                # durable, atomically
        fs.close(fd)

The host mallocs the context, work area and sector buffer; every call is
the C call, so its device operations run on the device's virtual clock.
A negative result raises :class:`SteadyFsError` whose message carries the
call, the path and ``steadyfs_strerror``'s text (``.code`` is the negative
STEADYFS_E* value, whose magnitude is the Linux errno).
"""

from __future__ import annotations

import ctypes
import errno
import os
import weakref
from dataclasses import asdict, dataclass
from types import TracebackType
from typing import Any

from steadyfs import native
from steadyfs.native import Device

O_RDONLY, O_WRONLY, O_RDWR = 0x0000, 0x0001, 0x0002
O_CREAT, O_EXCL, O_TRUNC, O_APPEND = 0x0100, 0x0200, 0x0400, 0x0800
#: every write commits before it returns, in its last data sector (steadyfs.h)
O_DSYNC = 0x1000
#: writes leave the file's mtime and ctime (steadyfs.h: a logger's choice)
O_NOMTIME = 0x2000
SEEK_SET, SEEK_CUR, SEEK_END = 0, 1, 2
TYPE_FILE, TYPE_DIR = 1, 2
NAME_MAX = 255

#: mode strings of fstargets (and "x": create exclusively) -> open flags
MODE_FLAGS = {"r": O_RDONLY, "r+": O_RDWR, "w": O_WRONLY | O_CREAT | O_TRUNC,
              "a": O_WRONLY | O_CREAT | O_APPEND, "x": O_WRONLY | O_CREAT | O_EXCL}


class SteadyFsError(OSError):
    """A steadyfs call failed.  ``code``: the negative STEADYFS_E* value."""

    def __init__(self, code: int, call: str, path: str | None = None) -> None:
        self.code = code
        self.call = call
        self.path = path
        name = "EUCLEAN (corrupt)" if code == -117 else errno.errorcode.get(-code, str(code))
        where = f" {path}" if path is not None else ""
        text = strerror(code)
        super().__init__(-code, f"steadyfs: {call}{where}: {text} ({name})")


class Config(ctypes.Structure):
    """sh_fs_config: every field 0 takes the steadyfs_config default."""

    _fields_ = [(n, ctypes.c_uint32) for n in (
        "open_max", "pending_max", "replay_max", "max_inodes", "fill_permille",
        "file_pages_log2", "dir_pages", "sector_size", "erase_mult", "ring_units", "ring_sectors",
        "hold")]


CONFIG_KEYS = tuple(str(f[0]) for f in Config._fields_)


class _Counters(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("data", "copy", "map", "ckpt", "erase", "victim")]


class _Stat(ctypes.Structure):
    """steadyfs_stat (include/steadyfs/steadyfs.h), field for field."""

    _fields_ = [("id", ctypes.c_uint64), ("size", ctypes.c_uint64), ("type", ctypes.c_uint8),
                ("mode", ctypes.c_uint16), ("uid", ctypes.c_uint32), ("gid", ctypes.c_uint32),
                ("nlink", ctypes.c_uint32), ("mtime", ctypes.c_int64), ("ctime", ctypes.c_int64)]


class _Dirent(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint64), ("next", ctypes.c_uint64), ("type", ctypes.c_uint8),
                ("name_len", ctypes.c_uint8), ("name", ctypes.c_char * (NAME_MAX + 1))]


class _Info(ctypes.Structure):
    _fields_ = [("capacity", ctypes.c_uint64), ("used", ctypes.c_uint64), ("free", ctypes.c_uint64)] + [
        (n, ctypes.c_uint32) for n in ("sector_size", "data_per_sector", "block_sectors", "blocks",
                                       "txn_sectors", "gc_ratio")]


@dataclass(frozen=True)
class Stat:
    id: int
    size: int
    type: int
    mode: int = 0        # permission bits (07777)
    uid: int = 0
    gid: int = 0
    nlink: int = 1
    mtime_ns: int = 0    # ns since the epoch (0: no clock when set)
    ctime_ns: int = 0

    @property
    def is_dir(self) -> bool:
        return self.type == TYPE_DIR


def _stat(st: _Stat) -> Stat:
    return Stat(int(st.id), int(st.size), int(st.type), int(st.mode), int(st.uid), int(st.gid),
                int(st.nlink), int(st.mtime), int(st.ctime))


@dataclass(frozen=True)
class Info:
    capacity: int
    used: int
    free: int
    sector_size: int
    data_per_sector: int
    block_sectors: int
    blocks: int
    txn_sectors: int
    gc_ratio: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


_declared = False


def _lib() -> ctypes.CDLL:
    """native.lib() with the sh_fs_* and steadyfs_* signatures declared."""
    global _declared
    L = native.lib()
    if _declared:
        return L
    p, u32, u64, i32, i64, s = (ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int,
                                ctypes.c_int64, ctypes.c_char_p)
    sigs: dict[str, tuple[Any, list[Any]]] = {
        "sh_fs_new": (p, [p, ctypes.POINTER(Config), ctypes.POINTER(i32)]),
        "sh_fs_free": (None, [p]),
        "sh_fs_format": (i32, [p]),
        "sh_fs_mount": (i32, [p]),
        "sh_fs_unmount": (i32, [p]),
        "sh_fs_mounted": (i32, [p]),
        "sh_fs_ctx": (p, [p]),
        "sh_fs_ram": (u32, [p]),
        "sh_fs_ram_parts": (None, [p, ctypes.POINTER(ctypes.c_uint32)]),
        "sh_fs_counters_get": (None, [p, ctypes.POINTER(_Counters)]),
        "sh_fs_probe": (i32, [p, ctypes.POINTER(Config)]),
        "steadyfs_info_get": (i32, [p, ctypes.POINTER(_Info)]),
        "steadyfs_open": (i32, [p, s, i32]),
        "steadyfs_close": (i32, [p, i32]),
        "steadyfs_read": (ctypes.c_int32, [p, i32, p, u32]),
        "steadyfs_write": (ctypes.c_int32, [p, i32, p, u32]),
        "steadyfs_seek": (i64, [p, i32, i64, i32]),
        "steadyfs_tell": (i64, [p, i32]),
        "steadyfs_size": (i64, [p, i32]),
        "steadyfs_truncate": (i32, [p, i32, u64]),
        "steadyfs_sync": (i32, [p, i32]),
        "steadyfs_fstat": (i32, [p, i32, ctypes.POINTER(_Stat)]),
        "steadyfs_stat_path": (i32, [p, s, ctypes.POINTER(_Stat)]),
        "steadyfs_unlink": (i32, [p, s]),
        "steadyfs_rename": (i32, [p, s, s]),
        "steadyfs_mkdir": (i32, [p, s]),
        "steadyfs_rmdir": (i32, [p, s]),
        "steadyfs_opendir": (i32, [p, s]),
        "steadyfs_readdir": (i32, [p, i32, ctypes.POINTER(_Dirent)]),
        "steadyfs_closedir": (i32, [p, i32]),
        "steadyfs_gc_step": (i32, [p, u32]),
        "steadyfs_ring_append": (i32, [p, ctypes.c_char_p, u32, ctypes.POINTER(ctypes.c_uint64)]),
        "steadyfs_ring_read": (ctypes.c_int32, [p, u64, p, u32]),
        "steadyfs_ring_span": (i32, [p, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)]),
        "steadyfs_strerror": (s, [i32]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(L, name)
        fn.restype = res
        fn.argtypes = args
    _declared = True
    return L


def strerror(code: int) -> str:
    """steadyfs_strerror (device codes <= -100 named by sbd_strerror)."""
    if code <= -100:
        return native.strerror(code)
    return str(_lib().steadyfs_strerror(code).decode())


#: the fields of Config a format fixes (the rest are run-time choices)
FORMAT_KEYS = ("max_inodes", "fill_permille", "file_pages_log2", "dir_pages", "sector_size",
               "erase_mult", "ring_units", "ring_sectors")


def probe(dev: Device, sector_size: int = 0, erase_mult: int = 0) -> dict[str, int]:
    """The format of the file system on ``dev`` (FORMAT_KEYS), read from
    its newest checkpoint (sh_fs_probe), so it mounts with no option
    repeated.  ``sector_size`` 0 tries every size the core accepts;
    ``erase_mult`` must be the format's (0: the medium's default).
    Raises SteadyFsError (ECORRUPT) when no checkpoint is found."""
    c = Config(sector_size=sector_size, erase_mult=erase_mult)
    rc = _lib().sh_fs_probe(dev.handle, ctypes.byref(c))
    if rc < 0:
        raise SteadyFsError(int(rc), "probe")
    return {k: int(getattr(c, k)) for k in FORMAT_KEYS}


def _path(path: str) -> bytes:
    b = os.fsencode(path)
    if b"\0" in b:
        raise ValueError(f"path {path!r} contains a NUL byte")
    return b


class SteadyFs:
    """A steadyfs context on ``dev`` (the device must outlive it).

    ``config``: sh_fs_config fields (``open_max``, ``fill_permille``,
    ``sector_size``, ``erase_mult``, ...; 0 or absent: the default).
    Neither formats nor mounts: call :meth:`format` / :meth:`mount`.
    """

    def __init__(self, dev: Device, config: dict[str, int] | None = None) -> None:
        cfg = dict(config or {})
        bad = [k for k in cfg if k not in CONFIG_KEYS]
        if bad:
            raise ValueError(f"unknown steadyfs option(s) {', '.join(bad)}: known {', '.join(CONFIG_KEYS)}")
        self.config = {k: int(v) for k, v in cfg.items()}
        if any(v < 0 for v in self.config.values()):
            raise ValueError("steadyfs options must be >= 0")
        L = _lib()
        err = ctypes.c_int(0)
        c = Config(**self.config)
        h = L.sh_fs_new(dev.handle, ctypes.byref(c), ctypes.byref(err))
        if not h:
            reason = L.sh_last_error().decode()
            raise SteadyFsError(err.value or -22, f"configure ({reason})")
        self.dev = dev
        self._h: int | None = h
        self._ctx = int(L.sh_fs_ctx(h))
        # Closing the device first unmounts this (commits open files) while
        # the handle is still valid; a weak reference, so the device does
        # not keep a released file system alive.
        me = weakref.ref(self)

        def _release() -> None:
            fs = me()
            if fs is not None:
                fs.release()
        dev.on_close(_release)

    # -- lifetime --------------------------------------------------------
    def release(self) -> None:
        """Unmount (errors ignored) and free the context.  Closing the
        device does this first, so the context never outlives it."""
        if self._h:
            h, self._h = self._h, None
            _lib().sh_fs_free(h)

    def __enter__(self) -> SteadyFs:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:
            pass

    @property
    def ctx(self) -> int:
        if not self._h:
            raise ValueError("steadyfs context released")
        return self._ctx

    @staticmethod
    def _check(rc: int, call: str, path: str | None = None) -> int:
        if rc < 0:
            raise SteadyFsError(int(rc), call, path)
        return int(rc)

    # -- volume ----------------------------------------------------------
    def format(self) -> None:
        """Erase the device and write an empty file system (left unmounted)."""
        self.ctx
        self._check(_lib().sh_fs_format(self._h), "format")

    def mount(self) -> None:
        self.ctx
        self._check(_lib().sh_fs_mount(self._h), "mount")

    def unmount(self) -> None:
        """Commit every open file and detach."""
        self.ctx
        self._check(_lib().sh_fs_unmount(self._h), "unmount")

    @property
    def mounted(self) -> bool:
        return bool(self._h) and bool(_lib().sh_fs_mounted(self._h))

    @property
    def ram_bytes(self) -> int:
        """Context + work area + sector buffer, as malloc'd by the host."""
        self.ctx
        return int(_lib().sh_fs_ram(self._h))

    def ram_parts(self) -> dict[str, int]:
        """The RAM of :attr:`ram_bytes` by part: context (sizeof steadyfs),
        work area (steadyfs_work_size), sector buffer and, with ``hold`` in
        the configuration, the held sector's buffer."""
        self.ctx
        out = (ctypes.c_uint32 * 4)()
        _lib().sh_fs_ram_parts(self._h, out)
        parts = {"context": int(out[0]), "work": int(out[1]), "sector_buffer": int(out[2])}
        if out[3]:
            parts["hold_buffer"] = int(out[3])
        return parts

    def counters(self) -> dict[str, int]:
        """The core's counters since mount: sectors written as data, GC
        copies, map, checkpoints; erases; victims picked."""
        self.ctx
        c = _Counters()
        _lib().sh_fs_counters_get(self._h, ctypes.byref(c))
        return {str(f[0]): int(getattr(c, str(f[0]))) for f in c._fields_}

    def info(self) -> Info:
        i = _Info()
        self._check(_lib().steadyfs_info_get(self.ctx, ctypes.byref(i)), "info")
        return Info(**{str(f[0]): int(getattr(i, str(f[0]))) for f in i._fields_})

    def gc_step(self, budget: int) -> int:
        """Up to ``budget`` idle-time GC steps; returns steps done (0: none left)."""
        return self._check(_lib().steadyfs_gc_step(self.ctx, budget), "gc_step")

    # -- files -----------------------------------------------------------
    def open(self, path: str, flags: int | str = O_RDONLY) -> int:
        """A handle (int).  ``flags``: O_* bits or a mode string of MODE_FLAGS."""
        if isinstance(flags, str):
            if flags not in MODE_FLAGS:
                raise ValueError(f"mode must be one of {', '.join(MODE_FLAGS)}")
            flags = MODE_FLAGS[flags]
        return self._check(_lib().steadyfs_open(self.ctx, _path(path), flags), "open", path)

    def close(self, fd: int) -> None:
        """Commit the file's transaction and free the handle."""
        self._check(_lib().steadyfs_close(self.ctx, fd), "close", f"fd {fd}")

    def read(self, fd: int, size: int) -> bytes:
        buf = ctypes.create_string_buffer(size)
        n = self._check(_lib().steadyfs_read(self.ctx, fd, buf, size), "read", f"fd {fd}")
        return buf.raw[:n]

    def readinto(self, fd: int, buf: bytearray | memoryview) -> int:
        """Read into a writable buffer; returns the bytes read (0: end)."""
        n = len(buf)
        if not n:
            return 0
        cbuf = (ctypes.c_char * n).from_buffer(buf)
        return self._check(_lib().steadyfs_read(self.ctx, fd, cbuf, n), "read", f"fd {fd}")

    def write(self, fd: int, data: bytes | bytearray | memoryview) -> int:
        """Bytes written (all unless an error after some progress)."""
        d = bytes(data)
        return self._check(_lib().steadyfs_write(self.ctx, fd, d, len(d)), "write", f"fd {fd}")

    def seek(self, fd: int, offset: int, whence: int = SEEK_SET) -> int:
        return self._check(_lib().steadyfs_seek(self.ctx, fd, offset, whence), "seek", f"fd {fd}")

    def tell(self, fd: int) -> int:
        return self._check(_lib().steadyfs_tell(self.ctx, fd), "tell", f"fd {fd}")

    def size(self, fd: int) -> int:
        return self._check(_lib().steadyfs_size(self.ctx, fd), "size", f"fd {fd}")

    def truncate(self, fd: int, size: int) -> None:
        self._check(_lib().steadyfs_truncate(self.ctx, fd, size), "truncate", f"fd {fd}")

    def sync(self, fd: int) -> None:
        """Commit: the file's data and size become durable together."""
        self._check(_lib().steadyfs_sync(self.ctx, fd), "sync", f"fd {fd}")

    # -- the record ring (a format with ring_units) ------------------------
    def ring_append(self, data: bytes | bytearray | memoryview) -> int:
        """Append one record to the ring, durable on return: its number."""
        d = bytes(data)
        n = ctypes.c_uint64()
        self._check(_lib().steadyfs_ring_append(self.ctx, d, len(d), ctypes.byref(n)), "ring_append")
        return int(n.value)

    def ring_read(self, number: int, cap: int = 1 << 17) -> bytes:
        """Record ``number`` (SteadyFsError ENOENT if the ring holds none)."""
        buf = ctypes.create_string_buffer(cap)
        n = self._check(_lib().steadyfs_ring_read(self.ctx, number, buf, cap), "ring_read",
                        f"record {number}")
        return buf.raw[:min(n, cap)]

    def ring_span(self) -> tuple[int, int]:
        """The record numbers the ring may hold: (first, next)."""
        a, b = ctypes.c_uint64(), ctypes.c_uint64()
        self._check(_lib().steadyfs_ring_span(self.ctx, ctypes.byref(a), ctypes.byref(b)), "ring_span")
        return int(a.value), int(b.value)

    def fstat(self, fd: int) -> Stat:
        st = _Stat()
        self._check(_lib().steadyfs_fstat(self.ctx, fd, ctypes.byref(st)), "fstat", f"fd {fd}")
        return _stat(st)

    # -- names -----------------------------------------------------------
    def stat(self, path: str) -> Stat:
        st = _Stat()
        self._check(_lib().steadyfs_stat_path(self.ctx, _path(path), ctypes.byref(st)), "stat", path)
        return _stat(st)

    def exists(self, path: str) -> bool:
        try:
            self.stat(path)
        except SteadyFsError as e:
            if e.code in (-2, -20):   # ENOENT, ENOTDIR
                return False
            raise
        return True

    def unlink(self, path: str) -> None:
        self._check(_lib().steadyfs_unlink(self.ctx, _path(path)), "unlink", path)

    def rename(self, src: str, dst: str) -> None:
        self._check(_lib().steadyfs_rename(self.ctx, _path(src), _path(dst)), "rename", f"{src} -> {dst}")

    def mkdir(self, path: str) -> None:
        self._check(_lib().steadyfs_mkdir(self.ctx, _path(path)), "mkdir", path)

    def rmdir(self, path: str) -> None:
        self._check(_lib().steadyfs_rmdir(self.ctx, _path(path)), "rmdir", path)

    def listdir(self, path: str = "/") -> list[tuple[str, Stat]]:
        """(name, Stat) of every entry, in directory order; the Stat's size
        is the file's (a directory's: its entries), read by a stat of each
        entry after the directory is read (readdir carries no size)."""
        L = _lib()
        dd = self._check(L.steadyfs_opendir(self.ctx, _path(path)), "opendir", path)
        out: list[tuple[str, Stat]] = []
        try:
            ent = _Dirent()
            while self._check(L.steadyfs_readdir(self.ctx, dd, ctypes.byref(ent)), "readdir", path):
                name = os.fsdecode(bytes(ent.name[:ent.name_len]))
                out.append((name, Stat(int(ent.id), 0, int(ent.type))))
        finally:
            rc = L.steadyfs_closedir(self.ctx, dd)
        self._check(rc, "closedir", path)
        base = path.rstrip("/")
        return [(name, self.stat(f"{base}/{name}")) for name, _ in out]


__all__ = ["CONFIG_KEYS", "FORMAT_KEYS", "Info", "MODE_FLAGS", "SteadyFs", "SteadyFsError", "Stat", "probe", "strerror"]
