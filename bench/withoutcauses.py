#!/usr/bin/env python3
"""`snapdiff OLD NEW` with the causes of rebuilds left out (a benchmark helper, not a test).

Usage: python bench/withoutcauses.py OLD NEW [snapdiff options...]

The command as `python -m snapdiff` runs it (its forked children included), except that working
out why specs were rebuilt (`compare.rebuilds.rebuild_causes`, in the causes' child with
`--jobs 2`) finds nothing: what everything else costs (the report then has no causes to render
either), so that a run's wall time minus this one's is what the causes, worked out and said, add
to it. The report it writes says no rebuild causes: never use it but to
time.
"""

from __future__ import annotations

import gc
import os
import sys

import snapdiff.cli as cli
import snapdiff.compare.causesapart as apart
import snapdiff.compare.diff as diff
from snapdiff.report import Rebuilds


def nothing(*_: object, **__: object) -> tuple[Rebuilds, tuple[str, ...]]:
    return Rebuilds((), (), (), (), ()), ()


def main() -> None:
    for module in (apart, diff):  # the child's, and the one `--jobs 1` calls
        setattr(module, "rebuild_causes", nothing)  # noqa: B010 - replaced for the timer
    gc.disable()  # as the command does
    code = cli.main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
