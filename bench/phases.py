#!/usr/bin/env python3
"""Where a warm snapdiff run spends its time, phase by phase, in process (not a test).

Usage: python bench/phases.py [--runs 5] [--out bench/out]
Reads what bench/run.py generated in --out (run it first). Each run is a fresh interpreter, as
the command is, with the garbage collector paused, as the command pauses it; it times importing
the library, loading a pair (git mode, warm cache), diffing and rendering Markdown, for the
develop-size pair, and per step of `snapdiff log v1..v11` the loading and the diffing. It prints
medians and spreads (min-max). The semantic floor (bench/semfloor.py) is timed as a whole process
beside, for scale.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEMFLOOR = ROOT / "bench" / "semfloor.py"

PAIR = """
import gc, json, sys, time
gc.disable()
started = time.perf_counter()
from snapdiff import diff_snapshots, load_pair, render_markdown
from snapdiff.sources import LoadOptions
imported = time.perf_counter()
pair = load_pair("v1", "v2", LoadOptions(cache_dir=sys.argv[1]))
loaded = time.perf_counter()
report = diff_snapshots(pair.old, pair.new)
diffed = time.perf_counter()
render_markdown(report)
rendered = time.perf_counter()
print(json.dumps({"import": imported - started, "load": loaded - imported,
                  "diff": diffed - loaded, "render": rendered - diffed}))
"""

LOG = """
import gc, json, sys, time
gc.disable()
import snapdiff.history as history
from snapdiff.sources import LoadOptions, load_history
spent = {"load": 0.0, "diff": 0.0}
diff_snapshots = history.diff_snapshots

def timed_loads(*args, **kwargs):
    steps = load_history(*args, **kwargs)
    while True:
        started = time.perf_counter()
        step = next(steps, None)
        spent["load"] += time.perf_counter() - started
        if step is None:
            return
        yield step

def timed_diff(*args, **kwargs):
    started = time.perf_counter()
    found = diff_snapshots(*args, **kwargs)
    spent["diff"] += time.perf_counter() - started
    return found

history.diff_snapshots = timed_diff
started = time.perf_counter()
found = history.history(timed_loads("v1", "v11", LoadOptions(cache_dir=sys.argv[1])), "v1", "v11")
total = time.perf_counter() - started
steps = len(found.steps)
print(json.dumps({"load per step": spent["load"] / steps, "diff per step": spent["diff"] / steps,
                  "the rest per step": (total - spent["load"] - spent["diff"]) / steps}))
"""


def child(script: str, cwd: Path, cache: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", script, str(cache)], cwd=cwd, capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(done.stderr)
    found: dict[str, float] = json.loads(done.stdout)
    return found


def whole(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def report(title: str, runs: list[dict[str, float]]) -> None:
    print(f"\n{title}\n\n| phase | seconds, median (min–max) |\n|---|--:|")
    for phase in runs[0]:
        got = [run[phase] for run in runs]
        print(f"| {phase} | {statistics.median(got):.3f} ({min(got):.3f}–{max(got):.3f}) |")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args()
    pair, history = args.out / "develop" / "git", args.out / "log-git"
    if not (pair.exists() and history.exists()):
        sys.exit(f"no benchmark data in {args.out}: run bench/run.py --out {args.out} first")
    cache = args.out / "caches" / "phases"
    child(PAIR, pair, cache)  # warm-ups: the cache filled, files in the page cache
    child(LOG, history, cache)
    pairs, logs, floors = [], [], []
    for _ in range(args.runs):
        pairs.append(child(PAIR, pair, cache))
        logs.append(child(LOG, history, cache))
        floors.append(
            {
                "semantic floor, whole process": whole(
                    [sys.executable, str(SEMFLOOR), "v1", "v2"], pair
                )
            }
        )
    print(f"medians of {args.runs} runs, each in a fresh interpreter")
    report("develop-size pair, git mode, warm cache, in process:", pairs)
    report("for scale:", floors)
    report("`snapdiff log v1..v11`, warm cache, in process:", logs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
