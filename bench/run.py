#!/usr/bin/env python3
"""Benchmark snapdiff on full-size synthetic catalogues (not a test: nothing here asserts time).

Generates, once, with bench/gencat.py (synthetic data, labelled as such):
  develop size: 6,000 pages / 60,000 specs per side, 5% churn, as two directories and as a git
                repository with the same two snapshots committed and tagged v1, v2;
  all tags:     7 tag folders, ~42,000 pages / ~420,000 specs per side, 5% churn;
  a history:    31 daily develop-size commits v1..v31 (5% churn each), of which `log` reads 10.
Every repository is packed (`git gc`), as real clones are.

Then runs each command --runs times, interleaved, and prints a Markdown table per size: the
median and the spread (min-max) of wall seconds, the ratios to `git diff --stat` and to the
semantic floor (bench/semfloor.py: the tree diff, the changed blobs of both sides through one
`git cat-file --batch`, and `json.loads` of each changed page's `spec_details`: issue 20's
yardstick), and peak RSS. snapdiff's git mode runs cold (an empty cache folder before each run)
and warm (the cache its warm-up run left); directory mode is set against bench/floor.py (read and
json-parse both sides). Last, `snapdiff log v1..v11` (10 commits, cold) per commit against one
cold pair diff. It also checks the counts snapdiff reports against gencat's ground truth.

Usage: python bench/run.py [--runs 5] [--sizes develop,all,log] [--out bench/out]
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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENCAT = ROOT / "bench" / "gencat.py"  # the synthetic catalogue generator (labelled synthetic)
FLOOR = ROOT / "bench" / "floor.py"  # read and json-parse both sides: the directory floor
SEMFLOOR = ROOT / "bench" / "semfloor.py"  # the Python floor of a semantic git diff (issue 20)
ALL_TAGS = (
    "v0.21.2,v0.22.5,v0.23.1,develop-2025-03-09,develop-2025-03-16,develop-2025-03-23,develop"
)
SIZES = {
    "develop": ["--packages", "6000", "--specs-total", "60000"],
    "all": ["--tags", ALL_TAGS, "--packages", "6000", "--specs-total", "420000"],
}
LOG_COMMITS = 10


def snapdiff_command() -> list[str]:
    """$SNAPDIFF, else the console script beside this interpreter (a pyenv shim adds ~50 ms)."""
    if os.environ.get("SNAPDIFF"):
        return [os.environ["SNAPDIFF"]]
    script = Path(sys.executable).parent / "snapdiff"
    return [str(script)] if script.exists() else [sys.executable, "-m", "snapdiff"]


def gencat(*args: str) -> None:
    subprocess.run([sys.executable, str(GENCAT), *args], check=True, stdout=subprocess.DEVNULL)


def pack(repo: Path) -> None:
    """Real clones are packed, and `git diff --stat` is twice as fast on a packed repository."""
    subprocess.run(["git", "gc", "--quiet"], cwd=repo, check=True)


def generate(out: Path, size: str) -> Path:
    """<out>/<size>/{v1,v2,git,truth.json}, made once (delete the folder to make it again)."""
    base = out / size
    if (base / "done").exists():
        return base
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    started = time.perf_counter()
    gencat(*SIZES[size], "--seed", "1", "--out", str(base / "v1"))
    evolve = ["--evolve-from", str(base / "v1"), "--churn", "0.05", "--seed", "2"]
    gencat(*evolve, "--out", str(base / "v2"), "--truth", str(base / "truth.json"))
    pair = f"{base / 'v1'},{base / 'v2'}"
    gencat("--git", "--commit-snapshots", pair, "--out", str(base / "git"))
    pack(base / "git")
    (base / "done").write_text("")
    print(f"generated {size} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return base


def generate_history(out: Path) -> Path:
    """<out>/log-git: 31 daily develop-size commits v1..v31, packed."""
    repo = out / "log-git"
    if (out / "log-done").exists():
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    sizes = SIZES["develop"]
    gencat(
        *sizes, "--seed", "1", "--churn", "0.05", "--git", "--snapshots", "31", "--out", str(repo)
    )
    pack(repo)
    (out / "log-done").write_text("")
    return repo


Sample = tuple[float, int]  # wall seconds, peak RSS (KiB)


def timed(command: list[str], cwd: Path) -> Sample:
    """Wall seconds and peak RSS (KiB) of one run; its output is discarded."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(command)} failed: {stderr}")
    return elapsed, usage.ru_maxrss


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


def emptied(folder: Path) -> Callable[[], None]:
    """Before a cold run: no cache."""
    return lambda: shutil.rmtree(folder, ignore_errors=True)


def _nothing() -> None:
    """Before a warm run: the cache as the run before left it."""


Command = tuple[list[str], Path, Callable[[], None]]


def bench(commands: dict[str, Command], runs: int) -> dict[str, list[Sample]]:
    """Every command `runs` times, interleaved, after one warm-up run each."""
    samples: dict[str, list[Sample]] = {name: [] for name in commands}
    for command, cwd, prepare in commands.values():
        prepare()
        timed(command, cwd)
    for _ in range(runs):
        for name, (command, cwd, prepare) in commands.items():
            prepare()
            samples[name].append(timed(command, cwd))
    return samples


def table(samples: dict[str, list[Sample]], bases: dict[str, str]) -> list[str]:
    """A Markdown table: median seconds (min-max), ratios to each base, peak RSS."""
    median = {name: statistics.median(s for s, _ in got) for name, got in samples.items()}
    head = "| work | seconds, median (min–max) | " + " | ".join(f"× {b}" for b in bases)
    lines = [head + " | peak RSS |", "|---|--:|" + "--:|" * len(bases) + "--:|"]
    for name, got in samples.items():
        seconds = [s for s, _ in got]
        ratios = " | ".join(f"{median[name] / median[base]:.2f}" for base in bases.values())
        lines.append(
            f"| {name} | {median[name]:.3f} ({min(seconds):.3f}–{max(seconds):.3f}) | {ratios} "
            f"| {max(r for _, r in got) / 1024:.0f} MiB |"
        )
    return lines


def pair_commands(base: Path, cache: Path) -> dict[str, Command]:
    snapdiff = snapdiff_command()
    git = base / "git"
    return {
        "`git diff --stat`": (["git", "diff", "--stat", "v1", "v2"], git, _nothing),
        "semantic floor": ([sys.executable, str(SEMFLOOR), "v1", "v2"], git, _nothing),
        "snapdiff git, cold": (
            [*snapdiff, "v1", "v2", "--cache-dir", str(cache / "cold")],
            git,
            emptied(cache / "cold"),
        ),
        "snapdiff git, warm": (
            [*snapdiff, "v1", "v2", "--cache-dir", str(cache / "warm")],
            git,
            _nothing,
        ),
        "read floor (`floor.py`)": ([sys.executable, str(FLOOR), "v1", "v2"], base, _nothing),
        "snapdiff directories": ([*snapdiff, "v1", "v2", "--no-cache"], base, _nothing),
        "`snapdiff --version`": ([*snapdiff, "--version"], base, _nothing),
    }


def log_commands(repo: Path, cache: Path) -> dict[str, Command]:
    snapdiff = snapdiff_command()
    span = f"v1..v{LOG_COMMITS + 1}"
    return {
        f"snapdiff log {span} ({LOG_COMMITS} commits), cold": (
            [*snapdiff, "log", span, "--format", "json", "--cache-dir", str(cache / "log")],
            repo,
            emptied(cache / "log"),
        ),
        "snapdiff v1 v2, cold": (
            [*snapdiff, "v1", "v2", "--format", "json", "--cache-dir", str(cache / "pair")],
            repo,
            emptied(cache / "pair"),
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="develop,all,log")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(
        f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load average "
        f"{load:.2f} at the start; medians of {args.runs} interleaved runs"
    )
    cache = args.out / "caches"
    for size in args.sizes.split(","):
        if size == "log":
            repo = generate_history(args.out)
            samples = bench(log_commands(repo, cache), args.runs)
            print(f"\nlog ({LOG_COMMITS} daily commits at develop size, 5% churn each):\n")
            print("\n".join(table(samples, {"one cold pair": "snapdiff v1 v2, cold"})))
            log = statistics.median(s for s, _ in next(iter(samples.values())))
            pair = statistics.median(s for s, _ in samples["snapdiff v1 v2, cold"])
            print(f"\nper commit: {log / LOG_COMMITS:.3f} s = {log / LOG_COMMITS / pair:.2f}×")
            print("one cold pair diff (target ≤ 0.35×)")
            continue
        base = generate(args.out, size)
        print(f"\n{size}: {check_truth(base)}\n")
        samples = bench(pair_commands(base, cache), args.runs)
        bases = {"`git diff --stat`": "`git diff --stat`", "semantic floor": "semantic floor"}
        print("\n".join(table(samples, bases)))
        median = {name: statistics.median(s for s, _ in got) for name, got in samples.items()}
        target = 2.5 if size == "develop" else 3.0
        print(
            f"\nwarm / semantic floor {median['snapdiff git, warm'] / median['semantic floor']:.2f}"
            f" (target ≤ {target}); directories / read floor "
            f"{median['snapdiff directories'] / median['read floor (`floor.py`)']:.2f}"
            " (target warm ≤ 1.0, cold ≤ 1.5)"
        )
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
