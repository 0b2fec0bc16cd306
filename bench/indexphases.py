#!/usr/bin/env python3
"""Where one `snapdiff OLD NEW` spends its time, phase by phase (a benchmark helper, not a test).

Usage: python bench/indexphases.py OLD NEW [snapdiff options...]

Runs the command in this process with a timer around its phases: `load_pair` (both sides read;
with `--jobs 2` NEW in a child), the causes' child started (as soon as both graphs are read),
`diff_snapshots` and, inside it, the wait for that child (`CausesApart.join`), `render_report`
and `write_files`. Prints, on stderr, each phase's start and wall time from the process start,
and the parent's CPU time in it (a child's CPU is not counted).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

T0 = time.perf_counter()

import snapdiff.cli as cli  # noqa: E402 - timed from before the import
import snapdiff.sources as sources  # noqa: E402
from snapdiff.compare import causesapart  # noqa: E402

PHASES: list[tuple[str, float, float, float]] = []


def timed(label: str, call: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started, cpu = time.perf_counter(), time.process_time()
        try:
            return call(*args, **kwargs)
        finally:
            wall = time.perf_counter() - started
            PHASES.append((label, started - T0, wall, time.process_time() - cpu))

    return wrapper


def main(argv: list[str]) -> int:
    import snapdiff.compare.diff as diff

    apart = causesapart.CausesApart
    for owner, name, label in (
        (sources, "load_pair", "load_pair"),
        (diff, "diff_snapshots", "diff_snapshots"),
        (cli, "render_report", "render_report"),
        (cli, "write_files", "write_files"),
        (apart, "join", "  waiting for the causes' child"),
    ):
        setattr(owner, name, timed(label, getattr(owner, name)))
    start = apart.start

    def started(self: Any, old: Any, new: Any) -> None:
        if self.graphs is None:
            PHASES.append(("  the causes' child starts", time.perf_counter() - T0, 0.0, 0.0))
        start(self, old, new)

    setattr(apart, "start", started)  # noqa: B010 - a method replaced for the timer
    code = cli.main(argv)
    print("phase: from (s), wall (s), this process's CPU (s)", file=sys.stderr)
    for label, at, wall, cpu in sorted(PHASES, key=lambda phase: phase[1]):
        print(f"{label}: {at:.2f}, {wall:.2f}, {cpu:.2f}", file=sys.stderr)
    total = time.perf_counter() - T0
    print(f"total: {total:.2f} s, {time.process_time():.2f} CPU-s here", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
