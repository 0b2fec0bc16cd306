"""What the command does to its own process: SIGTERM handled, the collector paused, and what a
run built kept to the end (the library does none of these)."""

from __future__ import annotations

import gc
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Snapshot
    from .report import Report

__all__ = ["KEPT", "Kept", "collector_paused", "heap_returned", "terminated_cleanly"]


@contextmanager
def terminated_cleanly() -> Iterator[None]:
    """SIGTERM (what CI sends on cancel or timeout) ends the run as an exception would, so an
    output file being written is removed, never left half-written or as a temporary file."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only
        return
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The garbage collector off for one command (the process's own choice, not a library's).

    A diff allocates millions of small objects and no reference cycles worth collecting: with
    the collector on, loading a develop-size snapshot took about twice as long.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# Specs in a report (added, removed and changed) above which the pages it came from are freed
# before rendering, not kept to the end: release to release at all tags (743,000 of them), the
# rendering's data took another 400 MiB on top of the pages, for a peak of 985 MiB; freeing
# them first (0.24 s) left 859 MiB with the packages compared in two processes.
FREED_ABOVE = 400_000


class Kept:
    """What a run built, kept to the end of the process when the command ends it at once
    (`cli.console`): freeing a whole diff's objects one by one, and collecting them, cost about
    a tenth of a warm git run (measured paired, develop size); the operating system takes the
    memory back in one go. Off (nothing kept) for `main` called in a process that goes on. A
    big report's pages are the exception (`diffed`)."""

    def __init__(self) -> None:
        self.on = False
        self._built: list[object] = []

    def __call__(self, *built: object) -> None:
        if self.on:
            self._built.extend(built)

    def diffed(self, old: Snapshot, new: Snapshot, report: Report) -> None:
        """A diff's report kept, and its sides, unless the report is big (`FREED_ABOVE`): then
        they are freed as the caller lets go of them, and the rendering reuses their memory.
        Two build-cache indexes are always kept: their peak is in reading, and freeing their
        graphs only cost time (1.016x, the same peak)."""
        summary = report.summary
        big = summary.specs_added + summary.specs_removed + summary.specs_changed > FREED_ABOVE
        if not big or (old.graph is not None and new.graph is not None):
            self(old, new)
        self(report)


KEPT = Kept()


# Pages held (both sides, read or counted from their bytes: not a git revision's tallies)
# above which the C allocator's free memory is handed back after loading: all tags hold 84,000,
# develop size 12,000.
TRIMMED_ABOVE = 40_000


def heap_returned(old: Snapshot, new: Snapshot) -> None:
    """After loading a pair of many pages (`TRIMMED_ABOVE`), the memory the C allocator holds
    free handed back to the system (glibc's `malloc_trim`; with another C library, or a Python
    without ctypes, nothing). From directories at all tags, both sides' page bytes, read and
    parsed, left 300 MiB free there, which Python's small objects (from arenas of their own)
    never reuse: trimming it (0.02 s) took the peak from 1,023 to 855 MiB."""
    if len(old.pages) + len(new.pages) <= TRIMMED_ABOVE:
        return
    try:
        import ctypes  # 2 ms: only for such a pair

        trim = ctypes.CDLL(None).malloc_trim
    except (ImportError, AttributeError, OSError, TypeError):  # no ctypes, glibc or handle
        return
    trim(0)
