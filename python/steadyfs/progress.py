"""A small progress bar on stderr for long operations.

Shown only when it helps: the stream is a terminal and the operation has
already run for ``delay_s`` (1 s by default), so quick runs and piped or
logged output stay clean.  ``STEADY_PROGRESS=0`` hides it, ``=1`` shows it
even when stderr is not a terminal.

    with Progress(total=len(jobs), label="bench") as bar:
        for job in jobs:
            run(job)
            bar.update()

``update`` is cheap (a counter and a clock read), so it may be called for
every access of a long workload; the line is redrawn at most 10 times a second.
"""

from __future__ import annotations

import os
import sys
import time
from types import TracebackType
from typing import Iterable, Iterator, Sized, TextIO, TypeVar

T = TypeVar("T")


def _fmt_count(n: float) -> str:
    for div, pre in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.1f}{pre}"
    return f"{n:.0f}"


def _fmt_time(s: float) -> str:
    s = max(0.0, s)
    if s < 60:
        return f"{s:.0f}s"
    m, s = divmod(int(s), 60)
    return f"{m}m{s:02d}s" if m < 60 else f"{m // 60}h{m % 60:02d}m"


class Progress:
    """A progress bar; see the module docstring.

    ``total`` may be None (unknown): the line then shows a count and the
    elapsed time.  ``enabled`` forces the bar on or off regardless of the
    terminal and the environment.
    """

    def __init__(self, total: float | None = None, label: str = "", *, stream: TextIO | None = None,
                 delay_s: float = 1.0, enabled: bool | None = None, width: int = 28,
                 interval_s: float = 0.1) -> None:
        self.total = total
        self.label = label
        self.stream: TextIO = stream if stream is not None else sys.stderr
        self.done = 0.0
        self.delay_s = delay_s
        self.width = width
        self.interval_s = interval_s
        if enabled is None:
            env = os.environ.get("STEADY_PROGRESS", "")
            if env in ("0", "1"):
                enabled = env == "1"
            else:
                try:
                    enabled = self.stream.isatty()
                except (AttributeError, ValueError):
                    enabled = False
        self.enabled = enabled
        self._t0 = time.monotonic()
        self._next = self._t0 + delay_s
        self._drawn = False
        self._last_len = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @property
    def elapsed_s(self) -> float:
        """Seconds since the bar was created."""
        return time.monotonic() - self._t0

    def update(self, n: float = 1) -> None:
        """Advance by ``n`` units."""
        self.done += n
        if self.enabled:
            now = time.monotonic()
            if now >= self._next:
                self._next = now + self.interval_s
                self._draw(now)

    def set(self, done: float, label: str | None = None) -> None:
        """Set the absolute progress (and optionally change the label)."""
        self.done = done
        if label is not None:
            self.label = label
        self.update(0)

    def render(self, now: float | None = None) -> str:
        """The text of the bar as it would be drawn now."""
        el = (now if now is not None else time.monotonic()) - self._t0
        head = f"{self.label} " if self.label else ""
        if self.total:
            frac = min(1.0, max(0.0, self.done / self.total))
            fill = int(frac * self.width)
            bar = "#" * fill + "." * (self.width - fill)
            eta = el * (1 - frac) / frac if frac > 0 else 0.0
            return (f"{head}[{bar}] {frac * 100:5.1f}% {_fmt_count(self.done)}/"
                    f"{_fmt_count(self.total)} {_fmt_time(el)} eta {_fmt_time(eta)}")
        return f"{head}{_fmt_count(self.done)} done, {_fmt_time(el)}"

    def _draw(self, now: float) -> None:
        text = self.render(now)
        pad = " " * max(0, self._last_len - len(text))
        self.stream.write("\r" + text + pad)
        self.stream.flush()
        self._last_len = len(text)
        self._drawn = True

    def close(self) -> None:
        """Erase the bar (if it was ever drawn) so later output starts clean."""
        if self._drawn:
            self.stream.write("\r" + " " * self._last_len + "\r")
            self.stream.flush()
            self._drawn = False


def progress_iter(items: Iterable[T], total: float | None = None, label: str = "", *,
                  stream: TextIO | None = None, delay_s: float = 1.0,
                  enabled: bool | None = None) -> Iterator[T]:
    """Iterate over ``items`` with a :class:`Progress` bar advanced per item."""
    if total is None and isinstance(items, Sized):
        total = len(items)
    bar = Progress(total, label, stream=stream, delay_s=delay_s, enabled=enabled)
    try:
        for it in items:
            yield it
            bar.update()
    finally:
        bar.close()
