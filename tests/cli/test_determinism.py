"""Same input, same bytes, whatever the hash seed (SPEC section 2, issue: reports changed with it).

The case is a package whose configurations change with several candidate migrations of the same
size (4 old specs, 5 new, one kept): before ties were broken by content, its records came out in
the order Python's sets gave them, so two runs of the same commits gave two different reports.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gitrepo import commit, git, new_repo
from pagegen import spec, write_page

SEEDS = tuple(str(seed) for seed in range(8))

# (hash, version, os, compiler, target, variants, stacks): synthetic, found by a random search;
# the rhel8 spec was later put in `e4s` too, so that its configuration still migrates now that a
# migration's configurations must share a stack (SPEC section 2a: related)
_OLD = [
    ("00207e3161a", "nightly", "ubuntu24.04", "none", "x86_64_v3", ("build_system=cmake",), "ehr"),
    ("0020864d83e", "1.1", "ubuntu24.04", "gcc@12.3.0", "aarch64", ("~mpi",), "em"),
    ("002095c9dd9", "nightly", "ubuntu22.04", "none", "x86_64_v3", ("~mpi",), "em"),
    (
        "0020a54300c",
        "nightly",
        "ubuntu24.04",
        "gcc@12.3.0",
        "aarch64",
        ("build_system=cmake", "+mpi"),
        "hmr",
    ),
    ("0020b01a287", "1.1", "rhel8", "gcc@12.3.0", "x86_64_v3", ("build_system=cmake",), "eh"),
]
_NEW = [
    _OLD[3],
    (
        "0020c3833de",
        "1.0",
        "ubuntu24.04",
        "gcc@11.4.0",
        "x86_64_v3",
        ("build_system=cmake",),
        "ehm",
    ),
    ("0020de14534", "2.0", "rhel8", "none", "aarch64", ("~mpi",), "r"),
    ("0020e4159c6", "1.0", "ubuntu24.04", "oneapi@2024.2.0", "x86_64_v3", ("~mpi",), "e"),
    (
        "0020fa217e8",
        "1.0",
        "ubuntu24.04",
        "oneapi@2024.2.0",
        "x86_64_v3",
        ("build_system=cmake",),
        "ehm",
    ),
    (
        "00210022f2d",
        "2.0",
        "ubuntu22.04",
        "gcc@12.3.0",
        "x86_64_v3",
        ("build_system=cmake",),
        "emr",
    ),
]
_STACKS = {"e": "e4s", "h": "hep", "m": "ml", "r": "root"}


def _write(
    root: Path, rows: list[tuple[str, str, str, str, str, tuple[str, ...], str]], tag: str
) -> None:
    specs = [
        spec(h, v, tuple(_STACKS[s] for s in stacks), os=o, compiler=c, target=t, variants=var)
        for h, v, o, c, t, var, stacks in rows
    ]
    write_page(root, "ambiguous", specs, tag=tag)
    write_page(root, "steady", [spec("5", "1.0")], tag=tag)


_DRIVER = """
import sys
from snapdiff.cli import main
out = sys.argv[1]
for i, line in enumerate(sys.argv[2:]):
    argv = line.split("\\x1f")
    assert main([*argv, "--output", f"{out}/{i}.{argv[-1]}"]) == 0, argv
"""


def _outputs(tmp_path: Path, runs: list[list[str]], cwd: Path) -> dict[str, set[bytes]]:
    """Every output file of every run, as bytes, under each of the eight seeds."""
    found: dict[str, set[bytes]] = {}
    for seed in SEEDS:
        out = tmp_path / f"seed{seed}"
        out.mkdir()
        env = dict(os.environ, PYTHONHASHSEED=seed, XDG_CACHE_HOME=str(tmp_path / "cache"))
        lines = ["\x1f".join([*argv, "-f", fmt]) for argv in runs for fmt in _formats(argv)]
        done = subprocess.run(
            [sys.executable, "-c", _DRIVER, str(out), *lines],
            cwd=cwd,
            env=env,
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode()
        for path in sorted(out.iterdir()):
            found.setdefault(path.name, set()).add(path.read_bytes())
    assert len(found) == sum(len(_formats(argv)) for argv in runs)
    return found


def _formats(argv: list[str]) -> tuple[str, ...]:
    return ("json", "markdown") if argv[0] == "log" else ("json", "markdown", "text")


def test_directories_and_release_pairs_give_the_same_bytes_under_eight_seeds(
    tmp_path: Path,
) -> None:
    for name, (old_tag, new_tag) in {
        "day": ("develop", "develop"),
        "rel": ("v0.22.0", "v0.23.0"),
    }.items():
        _write(tmp_path / name / "old", _OLD, old_tag)
        _write(tmp_path / name / "new", _NEW, new_tag)
    runs = [[f"{name}/old", f"{name}/new"] for name in ("day", "rel")]
    found = _outputs(tmp_path, runs, tmp_path)
    assert {name: len(outputs) for name, outputs in found.items()} == dict.fromkeys(found, 1)
    # the case is the ambiguous one: four migrations, three of them of one spec each (tied)
    report = next(iter(found["0.json"]))
    assert report.count(b'"class": "migration"') == 4
    assert report.count(b"1 configuration, 1 \xe2\x86\x92 1 spec;") == 3


def test_git_revisions_and_log_give_the_same_bytes_under_eight_seeds(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    _write(repo, _OLD, "develop")
    commit(repo, "old", 1)
    _write(repo, _NEW, "develop")
    commit(repo, "new", 2)
    git(repo, "tag", "base", "HEAD~1")
    runs = [["base", "HEAD"], ["base", "HEAD", "--no-cache"], ["log", "base..HEAD"]]
    found = _outputs(tmp_path, runs, repo)
    assert {name: len(outputs) for name, outputs in found.items()} == dict.fromkeys(found, 1)
    assert git(repo, "status", "--porcelain") == ""
