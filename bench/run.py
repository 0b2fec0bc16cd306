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
yardstick), CPU seconds (user and system, with every process the command waited for: git, forked
children), and peak RSS. snapdiff's git mode runs cold (an empty cache folder before each run)
and warm (the cache its warm-up run left); directory mode is set against bench/floor.py (read and
json-parse both sides). Last, `snapdiff log v1..v11` (10 commits, cold) per commit against one
cold pair diff. It also checks the counts snapdiff reports against gencat's ground truth.

Issue 28's whole-catalogue workloads (sizes release, release-all, log60, index), each against its
floor, the ratio being the median of per-round ratios, each first checked against its
generator's ground truth and for the same bytes (Markdown and JSON) from two runs:
  release, release-all: release → release at develop size and at all tags (every gencat event at
                100 % churn, in every tag: about 1 % of the pages stay the same), git cold and
                warm against the release floor (`semfloor.py --every`: read and `json.loads`
                every page's spec line, both sides), directories against bench/floor.py;
  log60:        `snapdiff log` over 60 daily develop-size commits (an event mix that keeps the
                catalogue's size: version bumps, rebuilds, stack membership, packages removed
                and added), cold and warm, against the log floor (`semfloor.py --log`: one
                `git log --raw` over the range, one `cat-file --batch` of the distinct changed
                blobs, `json.loads` each); the growth of peak RSS per step, from 30 to 60 steps;
  index:        a build-cache index pair of 200,000 records a side (bench/genindex.py,
                synthetic) against the index floor (bench/indexfloor.py: `json.loads` of both
                files, both kept, collector off, no interpreter teardown).
Beside each ratio, the least one its CPU seconds allow (spread perfectly over this machine's
cores, against the floor's wall time): when that is above a target, no overlap of processes can
meet it; only less CPU can.

Usage: python bench/run.py [--runs 5] [--sizes develop,all,log] [--out bench/out]
       python bench/run.py --runs 3 --sizes release,log60,index,release-all
Set SNAPDIFF to an installed snapdiff executable to measure that one (e.g. a wheel installed in
a virtual environment, so that editing the work tree cannot disturb a run).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
GENCAT = ROOT / "bench" / "gencat.py"  # the synthetic catalogue generator (labelled synthetic)
FLOOR = ROOT / "bench" / "floor.py"  # read and json-parse both sides: the directory floor
SEMFLOOR = ROOT / "bench" / "semfloor.py"  # the Python floor of a semantic git diff (issue 20)
ALL_TAGS = (
    "v0.21.2,v0.22.5,v0.23.1,develop-2025-03-09,develop-2025-03-16,develop-2025-03-23,develop"
)
GENINDEX = ROOT / "bench" / "genindex.py"  # the synthetic build-cache index generator
INDEXFLOOR = ROOT / "bench" / "indexfloor.py"  # json.loads of both index files: the index floor
CORES = os.cpu_count() or 1  # what the least ratio a command's CPU allows is spread over
SIZES = {
    "develop": ["--packages", "6000", "--specs-total", "60000"],
    "all": ["--tags", ALL_TAGS, "--packages", "6000", "--specs-total", "420000"],
}
# The next snapshot of each size: 5 % churn for a daily pair; a release pair changes every page
# (every event at 100 % churn: about 1 % of the pages stay the same), in every tag at all tags.
EVOLVE = {
    "develop": ["--churn", "0.05"],
    "all": ["--churn", "0.05"],
    "release": ["--churn", "1.0"],
    "release-all": ["--churn", "1.0", "--mutable", ALL_TAGS],
}
SHAPE = {"release": "develop", "release-all": "all"}  # the first snapshot of a release pair
LOG_COMMITS = 10
# A long history: 60 daily steps; the default event mix empties the catalogue by day ~30, this
# one keeps it the same size (packages removed and added, versions bumped, rebuilds, stacks).
LONG_LOG = 60
LONG_EVENTS = "version-bumps,rebuilds,stack-membership,remove-packages,add-packages"
INDEX_RECORDS = "200000"


def snapdiff_command() -> list[str]:
    """$SNAPDIFF, else the console script beside this interpreter (a pyenv shim adds ~50 ms)."""
    if os.environ.get("SNAPDIFF"):
        return [os.environ["SNAPDIFF"]]
    script = Path(sys.executable).parent / "snapdiff"
    return [str(script)] if script.exists() else [sys.executable, "-m", "snapdiff"]


def gencat(*args: str) -> None:
    subprocess.run([sys.executable, str(GENCAT), *args], check=True, stdout=subprocess.DEVNULL)


def pack(repo: Path) -> None:
    """Real clones are packed, and `git diff --stat` is twice as fast on a packed repository.

    Many commits start an automatic `git gc` in the background: wait for it first (it holds
    .git/gc.pid), or the explicit one fails, and a benchmark would run beside it."""
    while (repo / ".git" / "gc.pid").exists():
        time.sleep(1)
    subprocess.run(["git", "gc", "--quiet"], cwd=repo, check=True)


def made(base: Path) -> bool:
    """Whether a workload's data is there (its `done` file); else an empty folder for it."""
    if (base / "done").exists():
        return True
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    return False


def generate(out: Path, size: str) -> Path:
    """<out>/<size>/{v1,v2,git,truth.json}, made once (delete the folder to make it again)."""
    base = out / size
    if made(base):
        return base
    started = time.perf_counter()
    gencat(*SIZES[SHAPE.get(size, size)], "--seed", "1", "--out", str(base / "v1"))
    evolve = ["--evolve-from", str(base / "v1"), *EVOLVE[size], "--seed", "2"]
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


def generate_long_history(out: Path) -> Path:
    """<out>/log60/{git,truth.json}: LONG_LOG daily develop-size steps v1..v61, packed."""
    base = out / "log60"
    if made(base):
        return base
    started = time.perf_counter()
    gencat(
        *SIZES["develop"],
        *("--seed", "1", "--churn", "0.05", "--events", LONG_EVENTS, "--git"),
        *("--snapshots", str(LONG_LOG + 1), "--out", str(base / "git")),
        *("--truth", str(base / "truth.json")),
    )
    pack(base / "git")
    (base / "done").write_text("")
    print(f"generated log60 in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return base


def genindex(*args: str) -> None:
    subprocess.run([sys.executable, str(GENINDEX), *args], check=True, stderr=subprocess.DEVNULL)


def generate_index(out: Path) -> Path:
    """<out>/index/{v1,v2}/build_cache/index.json and truth.json: one merged index a side."""
    base = out / "index"
    if made(base):
        return base
    started = time.perf_counter()
    genindex(str(base / "v1"), "--records", INDEX_RECORDS, "--seed", "7", "--single")
    evolve = ["--evolve-from", str(base / "v1"), "--seed", "8", "--single"]
    genindex(str(base / "v2"), *evolve, "--truth", str(base / "truth.json"))
    (base / "done").write_text("")
    print(f"generated index in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return base


class Sample(NamedTuple):
    """One run: wall seconds, peak RSS (KiB), and CPU seconds (user and system) of the command
    and of every process it waited for (git, forked children)."""

    seconds: float
    peak: int
    cpu: float = 0.0


def _children_cpu() -> float:
    """CPU seconds of this script's children (and theirs) that have ended and been waited for."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _python_peaks(pid: int) -> dict[int, int]:
    """The `VmHWM` (KiB) of a process and of its children but its `git`s (the command's forked
    children, named as it is), by pid."""
    found: dict[int, int] = {}
    children = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        pids = [pid, *map(int, children.read_text().split())]
    except OSError:
        return found
    for each in pids:
        try:
            fields = dict(
                line.split(":", 1) for line in Path(f"/proc/{each}/status").read_text().splitlines()
            )
        except OSError:
            continue
        if each == pid or fields.get("Name", "").strip() != "git":
            found[each] = int(fields.get("VmHWM", "0 kB").split()[0])
    return found


def own_peak(command: list[str], cwd: Path) -> Sample:
    """Wall seconds and the command's own peak RSS (KiB): the largest `VmHWM` (a high-water mark,
    of one process only, reset by exec) of its process and of its children but its `git`s, read
    every 10 ms until it exits; growth in the last 10 ms of each is missed."""
    with tempfile.TemporaryFile() as stderr:  # a file: a full pipe would stop the process
        started = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=stderr)
        peaks: dict[int, int] = {}
        while proc.poll() is None:
            for each, peak in _python_peaks(proc.pid).items():
                peaks[each] = max(peaks.get(each, 0), peak)
            time.sleep(0.01)
        proc.wait()
        elapsed = time.perf_counter() - started
        if proc.returncode != 0:
            stderr.seek(0)
            sys.exit(f"{' '.join(command)} failed: {stderr.read().decode()}")
    return Sample(elapsed, max(peaks.values(), default=0))


def timed(command: list[str], cwd: Path) -> Sample:
    """Wall seconds and peak RSS (KiB) of one run; its output is discarded.

    The peak is GNU time's: a process this script starts directly inherits, through the kernel's
    accounting of exec, this script's own peak (hundreds of MiB after a big report was read);
    the process GNU time starts is born of a process of 2 MiB. GNU time's peak is the largest of
    the process tree, though: for `snapdiff log`, a `git cat-file` child's (its packs mapped),
    above snapdiff's own; `own_peak` reads snapdiff's."""
    if "log" in command:  # `snapdiff log`, however snapdiff is started
        return own_peak(command, cwd)
    with tempfile.NamedTemporaryFile() as peak:
        measured = ["/usr/bin/time", "-f", "%M", "-o", peak.name, *command]
        started = time.perf_counter()
        done = subprocess.run(measured, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed: {done.stderr.decode()}")
        return Sample(elapsed, int(Path(peak.name).read_text().split()[-1]))


def report_of(arguments: list[str], cwd: Path, hash_seed: str = "0") -> bytes:
    """What one snapdiff run writes to its standard output, under a given str hash seed."""
    return subprocess.run(
        [*snapdiff_command(), *arguments],
        cwd=cwd,
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
    ).stdout


def same_bytes(arguments: list[str], cwd: Path) -> str:
    """Whether runs of the same snapdiff command, Markdown and JSON, write the same bytes: with
    `--jobs 2` under two hash seeds, and with `--jobs 1` (no second process).

    The runs get different hash seeds, so that an order taken from a set or a dict of strings
    shows as a difference rather than by chance."""
    runs = [("--jobs", "2", "1"), ("--jobs", "2", "2"), ("--jobs", "1", "1")]
    changed = [
        form
        for form in ("markdown", "json")
        if len({report_of([*arguments, "--format", form, *run[:2]], cwd, run[2]) for run in runs})
        > 1
    ]
    if changed:
        return f"OUTPUT CHANGES between runs (seeds 1, 2; --jobs 2, 1): {changed}"
    return "same bytes run to run, and with --jobs 1 and 2"


def wrong_counts(summary: dict[str, int], truth: dict[str, int]) -> list[str]:
    """The counts of one snapdiff summary that disagree with one line of gencat's ground truth."""
    pairs = {
        "specs_added": "specs_added",
        "specs_removed": "specs_removed",
        "specs_changed": "specs_stacks_changed",
        "packages_added": "pages_added",
        "packages_removed": "pages_removed",
    }
    return [
        f"{ours}={summary[ours]} truth={truth[theirs]}"
        for ours, theirs in pairs.items()
        if summary[ours] != truth[theirs]
    ]


def verdict(wrong: list[str], truth: str) -> str:
    return f"counts match {truth}'s ground truth" if not wrong else "MISMATCH " + ", ".join(wrong)


def check_truth(base: Path) -> str:
    """snapdiff's counts against gencat's ground truth for the directory pair."""
    summary = json.loads(report_of(["v1", "v2", "--format", "json"], base))["summary"]
    truth = json.loads((base / "truth.json").read_text().splitlines()[0])
    return verdict(wrong_counts(summary, truth), "gencat")


def check_log_truth(base: Path) -> str:
    """Each step of `snapdiff log` against gencat's ground truth line for that day."""
    span = f"v1..v{LONG_LOG + 1}"
    steps = json.loads(report_of(["log", span, "--format", "json", "--no-cache"], base / "git"))
    truths = [json.loads(line) for line in (base / "truth.json").read_text().splitlines()]
    summaries = [step["summary"] for step in reversed(steps["steps"])]  # the log is newest first
    if len(summaries) != len(truths):
        return f"MISMATCH {len(summaries)} steps, truth has {len(truths)}"
    wrong = [
        f"v{day + 1}→v{day + 2}: {', '.join(bad)}"
        for day, (summary, truth) in enumerate(zip(summaries, truths, strict=True))
        if (bad := wrong_counts(summary, truth))
    ]
    return verdict(wrong, "gencat") + f" on all {len(truths)} steps"


def index_files(base: Path) -> list[str]:
    """The two index files (what the floor reads)."""
    return [str(base / side / "build_cache" / "index.json") for side in ("v1", "v2")]


def index_mirrors(base: Path) -> list[str]:
    """The two sides as snapdiff is given them: mirror folders, whose index is each side's
    `root` cache. Given as files, their place (`<mirror>/<stack>/build_cache/index.json`) would
    name stacks `v1` and `v2`: a stack move of every spec, and no migration (SPEC 2a wants a
    shared stack), which is neither genindex's ground truth nor the workload measured."""
    return [str(base / side) for side in ("v1", "v2")]


def check_index_truth(base: Path) -> str:
    """snapdiff's counts against genindex's ground truth: each spec genindex rebuilt (own change
    or cascade) is one spec removed and one added, paired as a rebuild, a version change or a
    migration; beside them, the new builds and the removed specs."""
    report = json.loads(report_of([*index_mirrors(base), "--format", "json"], base))
    truth = json.loads((base / "truth.json").read_text())
    paired = ("rebuilt", "upgrade", "downgrade", "migration")
    ours = {
        "specs_added": report["summary"]["specs_added"],
        "specs_removed": report["summary"]["specs_removed"],
        "paired (rebuilt, upgrade, downgrade, migration)": sum(
            report["specs_by_class"][name]["added"] for name in paired
        ),
    }
    expected = {
        "specs_added": truth["rebuilt"] + len(truth["built"]),
        "specs_removed": truth["rebuilt"] + len(truth["removed"]),
        "paired (rebuilt, upgrade, downgrade, migration)": truth["rebuilt"],
    }
    wrong = [
        f"{name}={ours[name]} truth={expected[name]}"
        for name in ours
        if ours[name] != expected[name]
    ]
    return verdict(wrong, "genindex")


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
            before = _children_cpu()
            run = timed(command, cwd)
            samples[name].append(run._replace(cpu=_children_cpu() - before))
    return samples


def table(samples: dict[str, list[Sample]], bases: dict[str, str]) -> list[str]:
    """A Markdown table: median seconds (min-max), ratios to each base, CPU seconds, peak RSS."""
    median = {name: statistics.median(s.seconds for s in got) for name, got in samples.items()}
    head = "| work | seconds, median (min–max) | " + " | ".join(f"× {b}" for b in bases)
    lines = [head + " | CPU s | peak RSS |", "|---|--:|" + "--:|" * len(bases) + "--:|--:|"]
    for name, got in samples.items():
        seconds = [s.seconds for s in got]
        ratios = " | ".join(f"{median[name] / median[base]:.2f}" for base in bases.values())
        lines.append(
            f"| {name} | {median[name]:.3f} ({min(seconds):.3f}–{max(seconds):.3f}) | {ratios} "
            f"| {_cpu(got)} | {max(s.peak for s in got) / 1024:.0f} MiB |"
        )
    return lines


def _cpu(got: list[Sample]) -> str:
    """The median CPU seconds of a command's runs."""
    return f"{statistics.median(s.cpu for s in got):.2f}"


def _v1_v2(base: Path, cache: Path) -> dict[str, Command]:
    """snapdiff on v1 and v2 in git mode, cold and warm, and as directories, with the read floor."""
    snapdiff = snapdiff_command()
    git = base / "git"
    return {
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
    }


def pair_commands(base: Path, cache: Path) -> dict[str, Command]:
    git = base / "git"
    return {
        "`git diff --stat`": (["git", "diff", "--stat", "v1", "v2"], git, _nothing),
        "semantic floor": ([sys.executable, str(SEMFLOOR), "v1", "v2"], git, _nothing),
        **_v1_v2(base, cache),
        "`snapdiff --version`": ([*snapdiff_command(), "--version"], base, _nothing),
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


def release_commands(base: Path, cache: Path) -> dict[str, Command]:
    floor = [sys.executable, str(SEMFLOOR), "--every", "v1", "v2"]
    return {"release floor": (floor, base / "git", _nothing), **_v1_v2(base, cache)}


def long_log_commands(base: Path, cache: Path) -> dict[str, Command]:
    snapdiff = snapdiff_command()
    git = base / "git"
    half, span = f"v1..v{LONG_LOG // 2 + 1}", f"v1..v{LONG_LOG + 1}"
    return {
        "log floor": ([sys.executable, str(SEMFLOOR), "--log", span], git, _nothing),
        f"snapdiff log {span}, cold": (
            [*snapdiff, "log", span, "--cache-dir", str(cache / "log60")],
            git,
            emptied(cache / "log60"),
        ),
        f"snapdiff log {span}, warm": (
            [*snapdiff, "log", span, "--cache-dir", str(cache / "log60-warm")],
            git,
            _nothing,
        ),
        f"snapdiff log {half}, cold": (
            [*snapdiff, "log", half, "--cache-dir", str(cache / "log30")],
            git,
            emptied(cache / "log30"),
        ),
    }


def index_commands(base: Path) -> dict[str, Command]:
    return {
        "index floor": ([sys.executable, str(INDEXFLOOR), *index_files(base)], base, _nothing),
        "snapdiff index pair": ([*snapdiff_command(), *index_mirrors(base)], base, _nothing),
    }


def median_ratios(samples: dict[str, list[Sample]], base: str) -> dict[str, float]:
    """Per workload, the median over rounds of its time over the base's time in the same round."""
    return {
        name: statistics.median(
            mine.seconds / theirs.seconds for mine, theirs in zip(got, samples[base], strict=True)
        )
        for name, got in samples.items()
    }


def best_ratios(samples: dict[str, list[Sample]], base: str) -> dict[str, float]:
    """Per workload, the median over rounds of the least time its CPU allows, spread perfectly
    over this machine's cores, over the base's wall time in the same round: above a target,
    that target cannot be met without spending less CPU, whatever runs side by side."""
    return {
        name: statistics.median(
            mine.cpu / CORES / theirs.seconds
            for mine, theirs in zip(got, samples[base], strict=True)
        )
        for name, got in samples.items()
    }


def ratio_table(samples: dict[str, list[Sample]], base: str) -> list[str]:
    """A Markdown table: median seconds (min-max), the median per-round ratio to base, CPU
    seconds and the least ratio they allow (`best_ratios`), peak RSS."""
    ratios, best = median_ratios(samples, base), best_ratios(samples, base)
    lines = [
        f"| work | seconds, median (min–max) | × {base} (median of rounds) | CPU s "
        f"| × {base} at best (CPU ÷ {CORES} cores) | peak RSS |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for name, got in samples.items():
        seconds = [s.seconds for s in got]
        lines.append(
            f"| {name} | {statistics.median(seconds):.3f} ({min(seconds):.3f}–{max(seconds):.3f})"
            f" | {ratios[name]:.2f} | {_cpu(got)} | {best[name]:.2f} "
            f"| {max(s.peak for s in got) / 1024:.0f} MiB |"
        )
    return lines


def whole_catalogue(size: str, out: Path, cache: Path, runs: int) -> None:
    """One of issue 28's workloads: truth, stable output, interleaved ratios to its floor."""
    if size == "log60":
        base = generate_long_history(out)
        truth = check_log_truth(base)
        stable = same_bytes(["log", f"v1..v{LONG_LOG + 1}", "--no-cache"], base / "git")
        samples = bench(long_log_commands(base, cache), runs)
        floor = "log floor"
        title = f"`snapdiff log` over {LONG_LOG} daily commits at develop size ({LONG_EVENTS})"
    elif size == "index":
        base = generate_index(out)
        truth = check_index_truth(base)
        stable = same_bytes(index_mirrors(base), base)
        samples = bench(index_commands(base), runs)
        floor = "index floor"
        megabytes = [Path(side).stat().st_size / 1e6 for side in index_files(base)]
        title = f"build-cache index pair, {INDEX_RECORDS} records a side ({megabytes[0]:.0f} MB,"
        title += f" {megabytes[1]:.0f} MB; synthetic: bench/genindex.py)"
    else:
        base = generate(out, size)
        truth = check_truth(base)
        stable = same_bytes(["v1", "v2", "--no-cache"], base)
        samples = bench(release_commands(base, cache), runs)
        floor = "release floor"
        title = f"release → release, {SHAPE[size]} size, every event at 100 % churn".replace(
            "all size", "all tags"
        )
    print(f"\n{title}: {truth}; {stable}\n")
    print("\n".join(ratio_table(samples, floor)))
    if size == "log60":
        peaks = {name: max(s.peak for s in got) for name, got in samples.items()}
        whole, half = (peaks[f"snapdiff log v1..v{n + 1}, cold"] for n in (LONG_LOG, LONG_LOG // 2))
        growth = (whole - half) / 1024 / (LONG_LOG - LONG_LOG // 2)
        print(
            f"\nmemory growth per step (peak over {LONG_LOG} steps vs {LONG_LOG // 2}): "
            f"{growth:.2f} MiB (target ≤ 0.5)"
        )
    if size in ("release", "release-all"):
        ratios = median_ratios(samples, "read floor (`floor.py`)")
        print(
            f"\ndirectories / read floor (median of rounds): {ratios['snapdiff directories']:.2f}"
        )


def loads() -> str:
    """The load averages over 1, 5 and 15 minutes."""
    return ", ".join(f"{load:.2f}" for load in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="develop,all,log")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args()
    # Time snapdiff byte-compiled, as an installed wheel runs: with PYTHONDONTWRITEBYTECODE set
    # (this project's machines set it), a work tree or an editable install compiled its ~80
    # modules again on every run, about 60 ms. Dropped for every command this script runs: the
    # warm-up run now writes snapdiff's bytecode.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    load = os.getloadavg()[0]
    print(
        f"machine: {CORES} cores, Python {sys.version.split()[0]}, load average "
        f"{load:.2f} at the start ({loads()}); medians of {args.runs} interleaved runs"
    )
    cache = args.out / "caches"
    for size in args.sizes.split(","):
        if size in ("release", "release-all", "log60", "index"):
            whole_catalogue(size, args.out, cache, args.runs)
            continue
        if size == "log":
            repo = generate_history(args.out)
            samples = bench(log_commands(repo, cache), args.runs)
            print(f"\nlog ({LOG_COMMITS} daily commits at develop size, 5% churn each):\n")
            print("\n".join(table(samples, {"one cold pair": "snapdiff v1 v2, cold"})))
            log = statistics.median(s.seconds for s in next(iter(samples.values())))
            pair = statistics.median(s.seconds for s in samples["snapdiff v1 v2, cold"])
            print(f"\nper commit: {log / LOG_COMMITS:.3f} s = {log / LOG_COMMITS / pair:.2f}×")
            print("one cold pair diff (target ≤ 0.35×)")
            continue
        base = generate(args.out, size)
        print(f"\n{size}: {check_truth(base)}\n")
        samples = bench(pair_commands(base, cache), args.runs)
        bases = {"`git diff --stat`": "`git diff --stat`", "semantic floor": "semantic floor"}
        print("\n".join(table(samples, bases)))
        median = {name: statistics.median(s.seconds for s in got) for name, got in samples.items()}
        target = 2.5 if size == "develop" else 3.0
        print(
            f"\nwarm / semantic floor {median['snapdiff git, warm'] / median['semantic floor']:.2f}"
            f" (target ≤ {target}); directories / read floor "
            f"{median['snapdiff directories'] / median['read floor (`floor.py`)']:.2f}"
            " (target warm ≤ 1.0, cold ≤ 1.5)"
        )
        best = best_ratios(samples, "semantic floor")["snapdiff git, warm"]
        print(f"warm / semantic floor at best, its CPU spread over every core: {best:.2f}")
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f} ({loads()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
