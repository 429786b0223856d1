"""steadyfs images in the habits of Python's ``os``, ``io`` and ``shutil``.

An image file (docs/SIM-IMAGE.md) holds a simulated flash device whose
header names its profile and block count; :class:`Image` formats one or
mounts one and offers the file system as file objects and ``os``-like
calls::

    import steadyfs

    with steadyfs.Image.create("fs.img", device="mt29f1g01", blocks=64) as img:
        img.makedirs("/log", exist_ok=True)
        with img.open("/log/a.bin", "wb") as f:
            f.write(b"data")

    with steadyfs.Image.open("fs.img") as img:     # profile and size from the header
        print(img.listdir("/log"), img.stat("/log/a.bin").st_size)

Errors are ``OSError`` subclasses chosen by errno, as ``os`` raises them
(``FileNotFoundError``, ``FileExistsError``, ``IsADirectoryError``,
``NotADirectoryError``, ``OSError`` with ``errno.ENOSPC``, ...), with the
path in ``filename``.  Everything runs the C core (src/fs) through the
bindings of :mod:`steadyfs.native` and :mod:`steadyfs.fs`; docs/PYTHON.md is
the guide.
"""

from __future__ import annotations

import errno
import io
import os
import posixpath
import stat as stat_mod
import types
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import IO, Any, Callable, cast, overload

from steadyfs import fs as fsb
from steadyfs import native
from steadyfs.native import Device, DeviceError

#: open files and directories an image allows at once, unless told (open_max)
DEFAULT_OPEN_MAX = 8


def _oserror(e: OSError, path: str | None = None, path2: str | None = None) -> OSError:
    """The OSError subclass ``os`` would raise for e's errno, naming path."""
    if isinstance(e, fsb.SteadyFsError):
        code = -e.code
        if e.code <= -100:             # a device error under the file system
            code = errno.EIO
        text = fsb.strerror(e.code)
    elif isinstance(e, DeviceError):
        code, text = errno.EIO, str(e)
    else:
        return e
    if path2 is not None:
        return OSError(code, text, path, None, path2)
    return OSError(code, text, path)


def _norm(path: str | os.PathLike[str]) -> str:
    """An absolute path with '.' and '..' resolved (the core takes neither)."""
    p = os.fspath(path)
    if not isinstance(p, str):
        raise TypeError("paths in an image are str")
    return posixpath.normpath("/" + p.lstrip("/")) if p else "/"


@dataclass(frozen=True)
class DiskUsage:
    """What :meth:`Image.df` reports (bytes unless named otherwise)."""

    capacity: int        #: file data the format allows (the fill limit applied)
    used: int            #: bytes in live sectors, data and metadata
    free: int            #: capacity - used
    files: int           #: files and directories, the root not counted
    max_files: int       #: files and directories the format allows, root included
    fill_permille: int   #: the fill limit: live data per mille of the usable sectors
    sector_size: int


class DirEntry:
    """An entry of :meth:`Image.scandir`, shaped like ``os.DirEntry``."""

    def __init__(self, img: Image, parent: str, name: str, st: fsb.Stat) -> None:
        self.name = name
        self.path = posixpath.join(parent, name)
        self._img = img
        self._st = st

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        return self._st.is_dir

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        return not self._st.is_dir

    def is_symlink(self) -> bool:
        return False

    def inode(self) -> int:
        return self._st.id

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        return _stat_result(self._st)

    def __fspath__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return f"<DirEntry {self.name!r}>"


class ScandirIterator(Iterator[DirEntry]):
    """What :meth:`Image.scandir` returns: an iterator of :class:`DirEntry`
    that is also a context manager, as ``os.scandir``'s is (the directory
    is read whole when scandir is called, so closing frees nothing)."""

    def __init__(self, entries: list[DirEntry]) -> None:
        self._it = iter(entries)

    def __next__(self) -> DirEntry:
        return next(self._it)

    def close(self) -> None:
        self._it = iter(())

    def __enter__(self) -> ScandirIterator:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _stat_result(st: fsb.Stat) -> os.stat_result:
    """os.stat_result of a steadyfs stat: st_ino is the 64-bit id (inode and
    generation), st_size the bytes (a directory's: 0; a symlink's: its
    target's length); mode, owner, link count, mtime and ctime as stored
    (atime is not kept: it is the mtime)."""
    kind = (stat_mod.S_IFDIR if st.type == fsb.TYPE_DIR
            else stat_mod.S_IFLNK if st.type == 3 else stat_mod.S_IFREG)
    sec = st.mtime_ns // 1_000_000_000
    csec = st.ctime_ns // 1_000_000_000
    return os.stat_result((kind | st.mode, st.id, 0, st.nlink, st.uid, st.gid, st.size,
                           sec, sec, csec, st.mtime_ns / 1e9, st.mtime_ns / 1e9, st.ctime_ns / 1e9,
                           st.mtime_ns, st.mtime_ns, st.ctime_ns))


class FileIO(io.RawIOBase):
    """A file in an image, unbuffered (``Image.open(..., buffering=0)``);
    the buffered and text objects of :meth:`Image.open` wrap one.

    Data written becomes durable, atomically with the file's size, at
    :meth:`sync` or :meth:`close` (or at every write with ``dsync``)."""

    def __init__(self, img: Image, path: str, flags: int, mode: str) -> None:
        super().__init__()
        self._img = img
        self.name = path
        self.mode = mode
        self._fd: int | None = None
        self._readable = (flags & 3) != fsb.O_WRONLY
        self._writable = (flags & 3) != fsb.O_RDONLY
        fs = img._fs
        try:
            self._fd = fs.open(path, flags)
            if fs.fstat(self._fd).is_dir:
                fs.close(self._fd)
                self._fd = None
                raise OSError(errno.EISDIR, os.strerror(errno.EISDIR), path)
            if flags & fsb.O_APPEND:
                fs.seek(self._fd, 0, fsb.SEEK_END)
        except fsb.SteadyFsError as e:
            raise _oserror(e, path) from None
        img._raws.add(self)

    def _h(self) -> int:
        if self._fd is None or self._img.closed:
            raise ValueError("I/O operation on closed file")
        return self._fd

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(self._h(), *args)
        except fsb.SteadyFsError as e:
            raise _oserror(e, self.name) from None

    def readable(self) -> bool:
        self._h()
        return self._readable

    def writable(self) -> bool:
        self._h()
        return self._writable

    def seekable(self) -> bool:
        self._h()
        return True

    def readinto(self, buffer: Any) -> int:
        if not self._readable:
            raise io.UnsupportedOperation("not readable")
        mv = memoryview(buffer).cast("B")
        return int(self._call(self._img._fs.readinto, mv))

    def readall(self) -> bytes:
        left = max(int(self._call(self._img._fs.size)) - self.tell(), 0)
        out = bytearray()
        while True:
            chunk = self.read(max(left, io.DEFAULT_BUFFER_SIZE))
            if not chunk:
                return bytes(out)
            out += chunk
            left -= len(chunk)

    def write(self, b: Any) -> int:
        if not self._writable:
            raise io.UnsupportedOperation("not writable")
        return int(self._call(self._img._fs.write, memoryview(b).cast("B")))

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence not in (io.SEEK_SET, io.SEEK_CUR, io.SEEK_END):
            raise ValueError(f"invalid whence ({whence})")
        return int(self._call(self._img._fs.seek, offset, whence))

    def tell(self) -> int:
        return int(self._call(self._img._fs.tell))

    def truncate(self, size: int | None = None) -> int:
        if not self._writable:
            raise io.UnsupportedOperation("not writable")
        if size is None:
            size = self.tell()
        self._call(self._img._fs.truncate, size)
        return size

    def sync(self) -> None:
        """Commit: the data written so far and the size, durable together
        (steadyfs_sync; ``os.fsync`` of a file in an image)."""
        self._call(self._img._fs.sync)

    def fileno(self) -> int:
        raise io.UnsupportedOperation("a file in a steadyfs image has no OS file descriptor")

    def close(self) -> None:
        """Commit (as :meth:`sync`) and free the handle."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            self._img._raws.discard(self)
            if not self._img.closed:
                try:
                    self._img._fs.close(fd)
                except fsb.SteadyFsError as e:
                    super().close()
                    raise _oserror(e, self.name) from None
        super().close()

    def __repr__(self) -> str:
        return f"<steadyfs.FileIO name={self.name!r} mode={self.mode!r}>"


def _parse_mode(mode: str) -> tuple[int, bool, str]:
    """open() mode -> (O_* flags, binary, the raw mode)."""
    chars = set(mode)
    if len(chars) != len(mode) or not chars <= set("rwxab+t") \
            or len(chars & set("rwxa")) != 1 or {"b", "t"} <= chars:
        raise ValueError(f"invalid mode: {mode!r}")
    plus = "+" in chars
    acc = fsb.O_RDWR if plus else None
    if "r" in chars:
        flags, raw = (acc if plus else fsb.O_RDONLY), "rb+" if plus else "rb"
    elif "w" in chars:
        flags, raw = (acc or fsb.O_WRONLY) | fsb.O_CREAT | fsb.O_TRUNC, "wb+" if plus else "wb"
    elif "x" in chars:
        flags, raw = (acc or fsb.O_WRONLY) | fsb.O_CREAT | fsb.O_EXCL, "xb+" if plus else "xb"
    else:
        flags, raw = (acc or fsb.O_WRONLY) | fsb.O_CREAT | fsb.O_APPEND, "ab+" if plus else "ab"
    return int(flags or 0), "b" in chars, raw


class _ClassOrInstance:
    """``Image.open``: on the class, mount an image file; on an image, open
    a file in it (the two habits the name has: littlefs-python's and io's)."""

    def __init__(self, for_class: Callable[..., Image], for_instance: Callable[..., IO[Any]]
                 ) -> None:
        self._c = for_class
        self._i = for_instance
        self.__doc__ = f"{for_class.__doc__}\n\nOn an image: {for_instance.__doc__}"

    @overload
    def __get__(self, obj: None, cls: type[Image]) -> Callable[..., Image]: ...

    @overload
    def __get__(self, obj: Image, cls: type[Image]) -> Callable[..., IO[Any]]: ...

    def __get__(self, obj: Image | None, cls: type[Image]) -> Callable[..., Any]:
        if obj is None:
            return types.MethodType(self._c.__func__, cls)  # type: ignore[attr-defined]
        return types.MethodType(self._i, obj)


class Image:
    """A mounted steadyfs file system in an image file.

    Make one with :meth:`create` or :meth:`open`; close it (or leave its
    ``with`` block) to commit every open file, unmount and write the image
    back.  ``device`` is the :class:`steadyfs.native.Device` (virtual clock,
    statistics, fault injection) and ``fs`` the :class:`steadyfs.fs.SteadyFs`
    beneath, for what this class does not wrap.
    """

    def __init__(self, path: str | os.PathLike[str], dev: Device, config: dict[str, int],
                 *, format: bool) -> None:
        """Use :meth:`create` or :meth:`open`."""
        self.path = os.fspath(path)
        self.device = dev
        # open file objects as open() returned them (closed first, so their
        # buffers reach the file) and the FileIO under each
        self._files: weakref.WeakSet[io.IOBase] = weakref.WeakSet()
        self._raws: weakref.WeakSet[FileIO] = weakref.WeakSet()
        self._closed = True
        try:
            self._fs = fsb.SteadyFs(dev, config)
            if format:
                self._fs.format()
            self._fs.mount()
            #: the format (FORMAT_KEYS) as the medium records it
            self.format = fsb.probe(dev, config.get("sector_size", 0),
                                    config.get("erase_mult", 0))
        except fsb.SteadyFsError as e:
            dev.close()
            raise _oserror(e, self.path) from None
        except BaseException:
            dev.close()
            raise
        self._closed = False

    @classmethod
    def create(cls, path: str | os.PathLike[str], device: str = "mt29f1g01", blocks: int = 0,
               *, seed: int = 0, timing: str = "typical", **config: int) -> Image:
        """Create the image file ``path`` (FileExistsError if it exists) for
        the device profile ``device`` (``steady devices``) with ``blocks``
        blocks (0: the profile's whole size; the file is sparse), format it
        and mount it.  ``config``: format fields (``max_inodes``,
        ``fill_permille``, ``file_pages_log2``, ``dir_pages``, ``sector_size``,
        ``erase_mult``) and run-time ones (``open_max``, default 8; ...), as
        in :data:`steadyfs.fs.CONFIG_KEYS`.  ``seed`` places factory bad
        blocks.  On any failure no file is left at ``path``."""
        p = os.fspath(path)
        prof = _profile(device)
        if prof.get("kind") == "sd":
            raise ValueError(f"{device} is an SD card: steadyfs runs on raw NAND, NOR and MRAM")
        if blocks < 0 or blocks > int(prof["geometry"]["block_count"]):
            raise ValueError(f"blocks={blocks}: {device} has {prof['geometry']['block_count']}")
        cfg = _config(config)
        if os.path.lexists(p):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), p)
        try:
            dev = Device.create_image(p, device, blocks=blocks, timing=timing, seed=seed)
        except DeviceError as e:
            raise _device_error(e, p) from None
        try:
            return cls(p, dev, cfg, format=True)
        except BaseException:
            os.unlink(p)
            raise

    @classmethod
    def _open_image(cls, path: str | os.PathLike[str], *, timing: str = "typical",
                    **config: int) -> Image:
        """Mount the file system in the image file ``path``: the device
        profile and block count come from the image header, the format from
        the medium, the erase unit included (so nothing given at create is
        repeated).  ``config``: run-time fields
        (``open_max``, default 8, ...)."""
        p = os.fspath(path)
        if not os.path.exists(p):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), p)
        cfg = _config(config)
        try:
            dev = Device.open_image(p, timing=timing)
        except DeviceError as e:
            raise _device_error(e, p) from None
        try:
            found = fsb.probe(dev, cfg.get("sector_size", 0), cfg.get("erase_mult", 0))
        except fsb.SteadyFsError:
            dev.close()
            raise OSError(errno.EINVAL, "no steadyfs file system in the image (not formatted, "
                          "or the anchor units are damaged)", p) from None
        return cls(p, dev, {**found, **{k: v for k, v in cfg.items() if k not in found}},
                   format=False)

    # -- lifetime --------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def profile(self) -> str:
        """The device profile the image header names."""
        return str(native.lib().sh_name(self.device.handle).decode())

    @property
    def fs(self) -> fsb.SteadyFs:
        """The file system beneath (integer handles, the C calls one to one)."""
        return self._live()

    @property
    def blocks(self) -> int:
        return int(self.device.block_count)

    def close(self) -> None:
        """Close every open file (committing it), unmount, write back."""
        if self._closed:
            return
        first: OSError | None = None
        for f in [*self._files, *self._raws]:
            try:
                f.close()
            except OSError as e:
                first = first or e
        try:
            self._fs.unmount()
        except fsb.SteadyFsError as e:
            first = first or _oserror(e, self.path)
        finally:
            self._closed = True
            self._fs.release()
            self.device.close()
        if first is not None:
            raise first

    def __enter__(self) -> Image:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{self.profile}, {self.blocks} blocks"
        return f"<steadyfs.Image {self.path!r} ({state})>"

    def _live(self) -> fsb.SteadyFs:
        if self._closed:
            raise ValueError("operation on a closed image")
        return self._fs

    def _do(self, fn: Callable[..., Any], path: str, *args: Any) -> Any:
        try:
            return fn(path, *args)
        except fsb.SteadyFsError as e:
            raise _oserror(e, path) from None

    # -- files -----------------------------------------------------------
    def _open_file(self, path: str | os.PathLike[str], mode: str = "r", buffering: int = -1,
                   encoding: str | None = None, errors: str | None = None,
                   newline: str | None = None, *, dsync: bool = False) -> IO[Any]:
        """A file object, as the built-in ``open``: modes r, w, x, a with
        b, t and +; ``buffering=0`` (binary only) gives the :class:`FileIO`
        itself.  ``dsync``: every write is durable when it returns
        (STEADYFS_O_DSYNC: the commit rides in the last data sector)."""
        fs = self._live()
        p = _norm(path)
        flags, binary, raw_mode = _parse_mode(mode)
        if binary and (encoding is not None or errors is not None or newline is not None):
            raise ValueError("binary mode takes no encoding, errors or newline")
        if not binary and buffering == 0:
            raise ValueError("can't have unbuffered text I/O")
        if dsync:
            flags |= fsb.O_DSYNC
        del fs
        raw = FileIO(self, p, flags, raw_mode)
        try:
            if buffering == 0:
                self._files.add(raw)
                return cast("IO[Any]", raw)
            size = buffering if buffering > 1 else io.DEFAULT_BUFFER_SIZE
            buf: io.BufferedIOBase
            if raw.readable() and raw.writable():
                buf = io.BufferedRandom(raw, size)
            elif raw.writable():
                buf = io.BufferedWriter(raw, size)
            else:
                buf = io.BufferedReader(raw, size)
            if binary:
                self._files.add(buf)
                return buf
            text = io.TextIOWrapper(buf, encoding or "utf-8", errors, newline,
                                    line_buffering=buffering == 1)
            text.mode = mode  # type: ignore[misc]
            self._files.add(text)
            return text
        except BaseException:
            raw.close()
            raise

    #: ``Image.open(path)`` mounts an image file (:meth:`_open_image`);
    #: ``img.open(path, mode)`` opens a file in it (:meth:`_open_file`)
    open = _ClassOrInstance(_open_image, _open_file)

    def fsync(self, f: IO[Any]) -> None:
        """Flush a file object of :meth:`open` and commit it (its data and
        size durable together), as ``os.fsync`` does for an OS file."""
        f.flush()
        raw: Any = f
        while not isinstance(raw, FileIO):
            nxt = getattr(raw, "buffer", None) or getattr(raw, "raw", None)
            if nxt is None:
                raise TypeError("not a file of a steadyfs image")
            raw = nxt
        raw.sync()

    def read_bytes(self, path: str | os.PathLike[str]) -> bytes:
        with self.open(path, "rb") as f:
            return bytes(f.read())

    def write_bytes(self, path: str | os.PathLike[str], data: bytes) -> int:
        with self.open(path, "wb") as f:
            return int(f.write(data))

    # -- names -----------------------------------------------------------
    def stat(self, path: str | os.PathLike[str]) -> os.stat_result:
        """``os.stat_result``: st_mode (S_IFDIR, S_IFREG or S_IFLNK and the
        permission bits), st_ino (the 64-bit id: inode and generation, never
        reused), st_size (bytes; a directory's: 0), st_nlink, st_uid,
        st_gid, st_mtime and st_ctime (st_atime is the mtime: not kept)."""
        p = _norm(path)
        return _stat_result(self._do(self._live().stat, p))

    def exists(self, path: str | os.PathLike[str]) -> bool:
        try:
            self.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return False
        return True

    def isdir(self, path: str | os.PathLike[str]) -> bool:
        try:
            return stat_mod.S_ISDIR(self.stat(path).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            return False

    def isfile(self, path: str | os.PathLike[str]) -> bool:
        try:
            return stat_mod.S_ISREG(self.stat(path).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            return False

    def scandir(self, path: str | os.PathLike[str] = "/") -> ScandirIterator:
        """The entries of a directory, in directory order, each with its
        stat (size included) read as the directory is listed; usable in a
        ``with`` statement like ``os.scandir``."""
        p = _norm(path)
        entries = self._do(self._live().listdir, p)
        return ScandirIterator([DirEntry(self, p, name, st) for name, st in entries])

    def listdir(self, path: str | os.PathLike[str] = "/") -> list[str]:
        return [e.name for e in self.scandir(path)]

    def walk(self, top: str | os.PathLike[str] = "/", topdown: bool = True,
             onerror: Callable[[OSError], None] | None = None
             ) -> Iterator[tuple[str, list[str], list[str]]]:
        """(dirpath, dirnames, filenames) as ``os.walk``; with topdown,
        dirnames may be pruned in place."""
        top_p = _norm(top)
        try:
            entries = list(self.scandir(top_p))
        except OSError as e:
            if onerror is not None:
                onerror(e)
            return
        dirs = [e.name for e in entries if e.is_dir()]
        files = [e.name for e in entries if not e.is_dir()]
        if topdown:
            yield top_p, dirs, files
        for d in dirs:
            yield from self.walk(posixpath.join(top_p, d), topdown, onerror)
        if not topdown:
            yield top_p, dirs, files

    def mkdir(self, path: str | os.PathLike[str]) -> None:
        p = _norm(path)
        self._do(self._live().mkdir, p)

    def makedirs(self, path: str | os.PathLike[str], exist_ok: bool = False) -> None:
        """mkdir with every missing parent, as ``os.makedirs``."""
        p = _norm(path)
        parent = posixpath.dirname(p)
        if parent != p and not self.exists(parent):
            self.makedirs(parent, exist_ok=True)
        try:
            self.mkdir(p)
        except FileExistsError:
            if not exist_ok or not self.isdir(p):
                raise

    def remove(self, path: str | os.PathLike[str]) -> None:
        """Remove a file (IsADirectoryError for a directory).  An open file
        loses its name at once; its open handles go on reading and writing
        it, and its space returns when the last of them closes (POSIX)."""
        p = _norm(path)
        self._do(self._live().unlink, p)

    unlink = remove

    def rmdir(self, path: str | os.PathLike[str]) -> None:
        """Remove an empty directory (OSError ENOTEMPTY otherwise)."""
        p = _norm(path)
        self._do(self._live().rmdir, p)

    def rename(self, src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        """Rename; an existing file at dst is replaced atomically."""
        s, d = _norm(src), _norm(dst)
        try:
            self._live().rename(s, d)
        except fsb.SteadyFsError as e:
            raise _oserror(e, s, d) from None

    replace = rename

    def df(self) -> DiskUsage:
        """Capacity and use: bytes, files and directories, the fill limit."""
        info = self._live().info()
        files = sum(len(d) + len(f) for _, d, f in self.walk("/"))
        return DiskUsage(capacity=info.capacity, used=info.used, free=info.free, files=files,
                         max_files=self.format["max_inodes"],
                         fill_permille=self.format["fill_permille"],
                         sector_size=info.sector_size)


def _device_error(e: DeviceError, path: str) -> OSError:
    """An image file refused by sh_open_image / sh_create_image: EINVAL
    (not an image, wrong geometry) or EIO, with the C side's one-line reason
    (which names the file)."""
    reason = native.lib().sh_last_error().decode() or str(e)
    prefix = f"{path}: "
    if reason.startswith(prefix):
        reason = reason[len(prefix):]
    return OSError(errno.EINVAL if e.code == native.ERR_INVAL else errno.EIO, reason, path)


def _profile(name: str) -> dict[str, Any]:
    try:
        return native.profile(name)
    except KeyError as e:
        raise ValueError(str(e.args[0])) from None


def _config(config: dict[str, int]) -> dict[str, int]:
    bad = [k for k in config if k not in fsb.CONFIG_KEYS]
    if bad:
        raise TypeError(f"unknown steadyfs option(s) {', '.join(bad)}: "
                        f"known {', '.join(fsb.CONFIG_KEYS)}")
    cfg = {k: int(v) for k, v in config.items()}
    cfg.setdefault("open_max", DEFAULT_OPEN_MAX)
    return cfg


__all__ = ["DEFAULT_OPEN_MAX", "DirEntry", "DiskUsage", "FileIO", "Image", "ScandirIterator"]
