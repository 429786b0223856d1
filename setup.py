"""Builds the C core into the package (pyproject.toml has the metadata).

``pip install .`` and ``pip wheel .`` compile the freestanding core
(src/util, src/bd, src/fs) and the host glue the bindings call
(src/host: simulated devices, Linux files, the file system handle, the
bounds) into ``steadyfs/_libsteady.so``: a plain shared library, not a
Python extension module, which ``steadyfs.native`` loads with ctypes.
An editable install (``make setup``) builds nothing: the package then
uses the repo's ``build/libsteady.so`` from ``make build``.
"""

from __future__ import annotations

import glob
import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HOST_GLUE = ["simhost.c", "linuxdev.c", "fshost.c", "fs_bound.c"]
SOURCES = sorted(glob.glob("src/util/*.c") + glob.glob("src/bd/*.c") + glob.glob("src/fs/*.c")) \
    + [f"src/host/{name}" for name in HOST_GLUE]
LIBNAME = "steadyfs._libsteady"


class BuildLib(build_ext):  # type: ignore[misc]  # setuptools is untyped here
    """build_ext for a ctypes library: named _libsteady.so (no Python ABI
    tag, it has no Python in it); skipped in editable installs."""

    def get_ext_filename(self, fullname: str) -> str:
        # called with the full dotted name and with its last part alone
        if fullname.split(".")[-1] == LIBNAME.split(".")[-1]:
            return os.path.join(*fullname.split(".")) + ".so"
        return str(super().get_ext_filename(fullname))

    def _editable(self) -> bool:
        return bool(getattr(self, "editable_mode", False))

    def run(self) -> None:
        if self._editable():
            print("steadyfs: editable install: the C core comes from `make build` (build/libsteady.so)")
            return
        super().run()

    def get_outputs(self) -> list[str]:
        return [] if self._editable() else list(super().get_outputs())

    def get_output_mapping(self) -> dict[str, str]:
        return {} if self._editable() else dict(super().get_output_mapping())


cmdclass: dict[str, type] = {"build_ext": BuildLib}
try:  # setuptools >= 70.1 has bdist_wheel; older ones take it from wheel
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        bdist_wheel = None

if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):  # type: ignore[misc,valid-type]
        """py3-none-<platform>: the library has no Python in it, so one
        wheel serves every Python 3 on the platform."""

        def get_tag(self) -> tuple[str, str, str]:
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = PlatformWheel

setup(
    ext_modules=[
        Extension(
            LIBNAME,
            sources=SOURCES,
            include_dirs=["include", "src"],
            extra_compile_args=["-std=c11", "-O2"],
            libraries=["m"],
        )
    ],
    cmdclass=cmdclass,
    options={"build": {"build_base": "build/pip"}},
)
