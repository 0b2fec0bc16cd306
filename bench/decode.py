#!/usr/bin/env python3
"""Decoding cost of `spec_details` (a benchmark helper, not a test): json and orjson dicts,
dropped at once or all kept, against msgspec typed Structs, for issue 20's "parse faster"
question.

Usage: python bench/decode.py DIR [DIR ...]  (e.g. bench/out/develop/v1 bench/out/develop/v2,
made by bench/run.py). msgspec is not a dependency: install it to measure it.
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson


def lines(folders: list[str]) -> list[bytes]:
    """The `spec_details` line of every catalogue page below the folders."""
    found = []
    for folder in folders:
        for path in Path(folder).glob("_cache/*/*/specs.md"):
            data = path.read_bytes()
            start = data.find(b"\nspec_details: ") + 15
            found.append(data[start : data.find(b"\n", start)])
    return found


def median(
    decode: Callable[[bytes], Any], found: list[bytes], runs: int = 5, keep: bool = False
) -> float:
    """Median seconds to decode every line, each result dropped at once or all kept (as a diff
    keeps both sides until it has compared them); the collector paused, as snapdiff pauses it."""
    times = []
    gc.disable()
    for _ in range(runs):
        started = time.perf_counter()
        kept = (
            [decode(line) for line in found] if keep else [decode(line) and None for line in found]
        )
        times.append(time.perf_counter() - started)
        del kept
    gc.enable()
    return statistics.median(times)


def main(folders: list[str]) -> int:
    found = lines(folders)
    print(f"{len(found):,} lines, {sum(map(len, found)) / 2**20:.0f} MiB")
    print(f"json, dicts dropped {median(json.loads, found):.3f} s")
    print(f"json, dicts kept    {median(json.loads, found, keep=True):.3f} s")
    print(f"orjson, dicts       {median(orjson.loads, found):.3f} s")
    print(f"orjson, dicts kept  {median(orjson.loads, found, keep=True):.3f} s")
    try:
        import msgspec
    except ImportError:
        print("msgspec not installed: pip install msgspec to measure it")
        return 0

    class Entry(msgspec.Struct):
        hash: str
        stacks: list[str]
        versions: list[str]
        compiler: str = ""
        os: str = ""
        platform: str = ""
        target: str = ""
        variants: list[str] = []
        size: Any = None

    print(f"msgspec, Structs    {median(msgspec.json.Decoder(list[Entry]).decode, found):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
