#!/usr/bin/env python3
"""Benchmark `snapdiff log` on 30 daily commits at develop size (not a test; synthetic data).

Generates once, with bench/gencat.py --git --snapshots 31: a repository whose commits
v1..v31 each evolve the develop catalogue (6,000 pages, 60,000 specs, 5% churn). Then times
`snapdiff log v1..v31` against one full pair diff (`snapdiff v1 v2`, which loads both
revisions), and prints the time per commit of each.

Usage: python bench/log.py [--runs 3] [--out bench/out]   (SNAPDIFF= an installed snapdiff)
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run import GENCAT, snapdiff_command, timed

ROOT = Path(__file__).resolve().parent.parent


def generate(out: Path) -> Path:
    repo = out / "log-git"
    if (out / "log-done").exists():
        return repo
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            str(GENCAT),
            "--packages",
            "6000",
            "--specs-total",
            "60000",
            "--seed",
            "1",
            "--churn",
            "0.05",
            "--git",
            "--snapshots",
            "31",
            "--out",
            str(repo),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    (out / "log-done").write_text("")
    print(f"generated in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    repo = generate(args.out)
    snapdiff = snapdiff_command()
    log = [timed([*snapdiff, "log", "v1..v31", "--format", "json"], repo) for _ in range(args.runs)]
    pair = [timed([*snapdiff, "v1", "v2", "--format", "json"], repo) for _ in range(args.runs)]
    per_commit = statistics.median(s for s, _, _ in log) / 30
    one_pair = statistics.median(s for s, _, _ in pair)
    print(
        f"snapdiff log v1..v31: {per_commit * 30:.2f} s, {per_commit:.3f} s per commit, "
        f"peak RSS {max(r for _, r, _ in log) / 1024:.0f} MiB"
    )
    print(f"snapdiff v1 v2 (one full pair): {one_pair:.3f} s")
    print(f"ratio per commit / one full pair: {per_commit / one_pair:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
