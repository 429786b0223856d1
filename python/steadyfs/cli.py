"""The `steady` command line.

Each subcommand lives in its own module `steadyfs/cmd_<name>.py`, which
defines `register(subparsers) -> None`; the parser it adds sets
`func=<callable(args) -> int>`.  Modules are found by name, so adding a
command means adding one file.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import NoReturn

import steadyfs


class OneLineErrors(argparse.ArgumentParser):
    """A bad option (not a number where one is wanted, an unknown choice, a
    missing argument) is one line, `steady COMMAND: message`, and exit
    status 2, as the commands' own checks of values are; the usage stays
    in --help.  Subcommands' parsers are of this class too (argparse makes
    them of the parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrors(
        prog="steady",
        description="steadyfs: real-time flash file system, device models, latency benchmarks",
    )
    parser.add_argument("--version", action="version", version=f"steady {steadyfs.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in sorted(m.name for m in pkgutil.iter_modules(steadyfs.__path__)):
        if mod.startswith("cmd_"):
            importlib.import_module(f"steadyfs.{mod}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
