#!/usr/bin/env python3
"""Benchmark snapdiff on full-size synthetic catalogues (not a test: nothing here asserts time).

Generates, once, with bench/gencat.py (synthetic data, labelled as such):
  develop size: 6,000 pages / 60,000 specs per side, 5% churn, as two directories and as a git
                repository with the same two snapshots committed and tagged v1, v2;
  all tags:     7 tag folders, ~42,000 pages / ~420,000 specs per side, 5% churn on develop.
Then runs every command --runs times, interleaved, and prints medians and ratios:
  directory mode against the floor (bench/floor.py: read and json-parse both sides),
  git mode against `git diff --stat v1 v2`, peak RSS, and `snapdiff --version` start-up.
  Beside git mode, bench/gitfloor.py: the least a Python tool does to read those pages with
  GitPython (start, list both trees, read the blobs a diff needs, or only the changed ones), and
  bench/semfloor.py, the Python floor of a semantic git diff (tree diff, changed blobs, each
  changed page's spec_details parsed): issue 20's yardstick. The repository is packed (git gc).
It also checks the counts snapdiff reports against gencat's ground truth.

Usage: python bench/run.py [--runs 5] [--sizes develop,all] [--out bench/out]
Set SNAPDIFF to an installed snapdiff executable to measure that one (e.g. a wheel installed in
a virtual environment, so that editing the work tree cannot disturb a run).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENCAT = ROOT / "bench" / "gencat.py"  # the synthetic catalogue generator (labelled synthetic)
FLOOR = ROOT / "bench" / "floor.py"  # read and json-parse both sides: the floor
GITFLOOR = ROOT / "bench" / "gitfloor.py"
SEMFLOOR = ROOT / "bench" / "semfloor.py"  # the Python floor of a semantic git diff (issue 20)
ALL_TAGS = (
    "v0.21.2,v0.22.5,v0.23.1,develop-2025-03-09,develop-2025-03-16,develop-2025-03-23,develop"
)
SIZES = {
    "develop": ["--packages", "6000", "--specs-total", "60000"],
    "all": ["--tags", ALL_TAGS, "--packages", "6000", "--specs-total", "420000"],
}


def snapdiff_command() -> list[str]:
    """$SNAPDIFF, else the console script beside this interpreter (a pyenv shim adds ~50 ms)."""
    if os.environ.get("SNAPDIFF"):
        return [os.environ["SNAPDIFF"]]
    script = Path(sys.executable).parent / "snapdiff"
    return [str(script)] if script.exists() else [sys.executable, "-m", "snapdiff"]


def snapdiff_python() -> str:
    """The interpreter snapdiff runs on (it has GitPython), for bench/gitfloor.py."""
    script = Path(snapdiff_command()[0])
    beside = script.parent / "python"
    return str(beside) if script.name == "snapdiff" and beside.exists() else sys.executable


def gencat(*args: str) -> None:
    subprocess.run([sys.executable, str(GENCAT), *args], check=True, stdout=subprocess.DEVNULL)


def generate(out: Path, size: str) -> Path:
    """<out>/<size>/{v1,v2,git,truth.json}, made once (delete the folder to make it again)."""
    base = out / size
    if (base / "done").exists():
        return base
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    started = time.perf_counter()
    gencat(*SIZES[size], "--seed", "1", "--out", str(base / "v1"))
    gencat(
        "--evolve-from",
        str(base / "v1"),
        "--churn",
        "0.05",
        "--seed",
        "2",
        "--out",
        str(base / "v2"),
        "--truth",
        str(base / "truth.json"),
    )
    gencat(
        "--git", "--commit-snapshots", f"{base / 'v1'},{base / 'v2'}", "--out", str(base / "git")
    )
    # real clones are packed, and `git diff --stat` is twice as fast on a packed repository
    subprocess.run(["git", "gc", "--quiet"], cwd=base / "git", check=True)
    (base / "done").write_text("")
    print(f"generated {size} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return base


def timed(command: list[str], cwd: Path) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (KiB) and CPU seconds (its own and its children's, such as git's)
    of one run; its output is discarded."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(command)} failed: {stderr}")
    return elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def check_truth(base: Path) -> str:
    """snapdiff's counts against gencat's ground truth for the directory pair."""
    out = subprocess.run(
        [*snapdiff_command(), "v1", "v2", "--format", "json"],
        cwd=base,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    summary = json.loads(out)["summary"]
    truth = json.loads((base / "truth.json").read_text().splitlines()[0])
    pairs = {
        "specs_added": "specs_added",
        "specs_removed": "specs_removed",
        "specs_changed": "specs_stacks_changed",
        "packages_added": "pages_added",
        "packages_removed": "pages_removed",
    }
    wrong = [
        f"{ours}={summary[ours]} truth={truth[theirs]}"
        for ours, theirs in pairs.items()
        if summary[ours] != truth[theirs]
    ]
    return "counts match gencat's ground truth" if not wrong else "MISMATCH " + ", ".join(wrong)


def bench(base: Path, runs: int) -> dict[str, tuple[float, int, float]]:
    """Median seconds, the largest peak RSS and median CPU seconds of each command, runs
    interleaved."""
    snapdiff = snapdiff_command()
    commands = {
        "floor": ([sys.executable, str(FLOOR), "v1", "v2"], base),
        "snapdiff dir": ([*snapdiff, "v1", "v2"], base),
        "git diff --stat": (["git", "diff", "--stat", "v1", "v2"], base / "git"),
        "git floor": ([snapdiff_python(), str(GITFLOOR), "v1", "v2"], base / "git"),
        "git floor, changed": (
            [snapdiff_python(), str(GITFLOOR), "v1", "v2", "--changed-only"],
            base / "git",
        ),
        "semantic floor": ([sys.executable, str(SEMFLOOR), "v1", "v2"], base / "git"),
        "snapdiff git": ([*snapdiff, "v1", "v2"], base / "git"),
        "snapdiff --version": ([*snapdiff, "--version"], base),
    }
    samples: dict[str, list[tuple[float, int, float]]] = {name: [] for name in commands}
    for command, cwd in commands.values():  # one warm-up run each
        timed(command, cwd)
    for _ in range(runs):
        for name, (command, cwd) in commands.items():
            samples[name].append(timed(command, cwd))
    return {
        name: (
            statistics.median(s for s, _, _ in got),
            max(r for _, r, _ in got),
            statistics.median(c for _, _, c in got),
        )
        for name, got in samples.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="develop,all")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, {sys.version.split()[0]}; medians of {args.runs}")
    for size in args.sizes.split(","):
        base = generate(args.out, size)
        print(f"\n{size}: {check_truth(base)}")
        result = bench(base, args.runs)
        for name, (seconds, rss, cpu) in result.items():
            print(
                f"  {name:<20} {seconds:7.3f} s   peak RSS {rss / 1024:7.0f} MiB   CPU {cpu:6.3f} s"
            )
        floor, git_stat = result["floor"][0], result["git diff --stat"][0]
        cores = os.cpu_count() or 1  # no wall time can be less than the CPU time over the cores
        ratios = {
            "snapdiff dir / floor": result["snapdiff dir"][0] / floor,
            "snapdiff git / git diff --stat": result["snapdiff git"][0] / git_stat,
            f"snapdiff git CPU / {cores} cores / git diff --stat": result["snapdiff git"][2]
            / cores
            / git_stat,
            "git floor / git diff --stat": result["git floor"][0] / git_stat,
            "git floor, changed / git diff --stat": result["git floor, changed"][0] / git_stat,
            "semantic floor / git diff --stat": result["semantic floor"][0] / git_stat,
            "snapdiff git / semantic floor": result["snapdiff git"][0]
            / result["semantic floor"][0],
        }
        width = max(map(len, ratios))
        for label, ratio in ratios.items():
            print(f"  ratio {label:<{width}} {ratio:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
