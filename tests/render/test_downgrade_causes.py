"""A downgrade says its cause when the data shows it: the old highest version was built only in
stacks that no longer hold the package (removed, or kept without it), in Markdown (first screen
and version table), text and JSON (`bump.cause`), and only then.

Pages here are SYNTHETIC (tests/helpers/pagegen.py, and bench/gencat.py for a generated day).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from benchgen import generate
from clirun import run
from pagegen import load_real, spec, write_page

from snapdiff.versions import version_key

Pages = dict[str, list[dict[str, Any]]]


def in_data_vis(hash_: str, version: str) -> dict[str, Any]:
    """A spec of stack data-vis-sdk, in its own configuration."""
    return spec(hash_, version, ("data-vis-sdk", "root"), os="ubuntu20.04", compiler="gcc@11.1.0")


def sides(root: Path, old: Pages, new: Pages) -> list[str]:
    for side, pages in (("old", old), ("new", new)):
        for name, specs in pages.items():
            write_page(root / side, name, specs)
    return [str(root / "old"), str(root / "new"), "--no-config"]


NUMPY = [spec("n1", "2.0.1", ("ml-cpu", "root"))]  # keeps ml-cpu on both sides
OLD: Pages = {
    "catalyst": [
        in_data_vis("c1", "0.7.9"),
        spec("c2", "0.7.8", ("e4s", "root")),
    ],
    "paraview": [in_data_vis("p1", "5.12.0")],
    "py-numpy": NUMPY,
}
NEW: Pages = {"catalyst": [spec("c2", "0.7.8", ("e4s", "root"))], "py-numpy": NUMPY}
SAID = "`0.7.9` was built only in the removed stack `data-vis-sdk`"


def test_a_downgrade_says_the_removed_stack_that_held_its_only_builds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = sides(tmp_path, OLD, NEW)
    markdown = run(argv, capsys)[1]
    first_screen = markdown.split("<details>")[0]
    assert f"- **⚠️ 1 downgrade:** `catalyst` `0.7.9` → `0.7.8` ({SAID})\n" in first_screen
    assert f"| ⚠️ **`catalyst`** (downgrade) | `0.7.9` → `0.7.8` (`patch`): {SAID} |" in markdown
    text = run([*argv, "--format", "text"], capsys)[1]
    assert f"\n  catalyst 0.7.9 → 0.7.8 ({SAID.replace('`', '')})\n" in text
    report = json.loads(run([*argv, "--format", "json"], capsys)[1])
    (catalyst,) = [p for p in report["packages"] if p["name"] == "catalyst"]
    assert catalyst["bump"]["cause"] == {
        "version": "0.7.9",
        "specs": ["c1".ljust(32, "a")],
        "stacks_removed": ["data-vis-sdk"],
        "stacks_left": [],
        "text": SAID.replace("`", ""),
    }


LEFT = "was built only in the stack `ml-cpu`, which no longer builds the package"
CASES: dict[str, tuple[Pages, Pages, str | None]] = {
    # hdf5 1.14.5 only in ml-cpu, which still holds py-numpy but no hdf5
    "a stack kept without it": (
        {"hdf5": [spec("h1", "1.14.5", ("ml-cpu", "root")), spec("h2", "1.14.3")]},
        {"hdf5": [spec("h2", "1.14.3")]},
        f"`1.14.5` {LEFT}",
    ),
    "both": (
        {
            "hdf5": [
                spec("h1", "1.14.5", ("ml-cpu", "root")),
                in_data_vis("h3", "1.14.5"),
                spec("h2", "1.14.3"),
            ]
        },
        {"hdf5": [spec("h2", "1.14.3")]},
        "`1.14.5` was built only in the removed stack `data-vis-sdk` and the stack `ml-cpu`, "
        "which no longer builds the package",
    ),
    # e4s built zlib 1.3.1 too, and still builds zlib: its own downgrade, no stack's doing
    "also in a stack that still builds it": (
        {"zlib": [spec("z1", "1.3.1", ("e4s", "ml-cpu", "root")), spec("z2", "1.3")]},
        {"zlib": [spec("z2", "1.3")]},
        None,
    ),
    # one of the two builds of 1.3.1 was in no stack but root: no stack held every build
    "a build in root only": (
        {
            "zlib": [
                in_data_vis("z1", "1.3.1"),
                spec("z3", "1.3.1", ("root",)),
                spec("z2", "1.3"),
            ]
        },
        {"zlib": [spec("z2", "1.3")]},
        None,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_cause_is_said_only_when_every_build_was_in_stacks_the_package_lost(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, said = CASES[case]
    data_vis = {"paraview": OLD["paraview"]}  # data-vis-sdk is removed in every case
    argv = sides(tmp_path, {**old, **data_vis, "py-numpy": NUMPY}, {**new, "py-numpy": NUMPY})
    report = json.loads(run([*argv, "--format", "json"], capsys)[1])
    (downgrade,) = [p for p in report["packages"] if p["bump"]]
    assert downgrade["bump"]["kind"] == "downgrade"
    first_screen = run(argv, capsys)[1].split("<details>")[0]
    (line,) = [line for line in first_screen.splitlines() if "downgrade:**" in line]
    if said is None:
        assert downgrade["bump"]["cause"] is None and "built only" not in line
    else:
        assert downgrade["bump"]["cause"]["text"] == said.replace("`", "")
        assert line.endswith(f"({said})")


def test_an_upgrade_has_no_cause(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = sides(tmp_path, NEW, OLD)  # backwards: catalyst goes up
    report = json.loads(run([*argv, "--format", "json"], capsys)[1])
    (catalyst,) = [p for p in report["packages"] if p["name"] == "catalyst"]
    assert catalyst["bump"]["kind"] == "upgrade" and "cause" not in catalyst["bump"]


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A generated catalogue and its next day, a whole stack dropped (bench/gencat.py)."""
    root = tmp_path_factory.mktemp("day")
    for args in (
        ["--packages", "400", "--specs-total", "6000", "--seed", "1", "--out", "v1"],
        ["--evolve-from", "v1", "--churn", "0.6", "--seed", "2", "--events", "drop-stack"],
    ):
        out = [] if "--out" in args else ["--out", "v2"]
        generate("gencat", *args, *out, cwd=root)
    return root / "v1", root / "v2"


def _stacks_of_builds(page: Path, version: str) -> list[set[str]]:
    """The stacks of each spec of a page that lists this version (read apart from snapdiff)."""
    specs = load_real(page)[3]
    key = version_key(version)
    return [set(s["stacks"]) for s in specs if any(version_key(v) == key for v in s["versions"])]


def test_on_a_generated_day_each_cause_is_true_of_the_pages(
    day: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = day
    report = json.loads(run([str(old), str(new), "--format", "json", "--no-config"], capsys)[1])
    removed = {s["name"] for s in report["stacks"] if s["status"] == "removed"}
    new_stacks = {
        s
        for p in new.glob("_cache/develop/*/specs.md")
        for x in load_real(p)[3]
        for s in x["stacks"]
    }
    downgrades = [p for p in report["packages"] if p["bump"] and p["bump"]["kind"] == "downgrade"]
    assert removed and any(p["bump"]["cause"] for p in downgrades)  # what the test is about
    for p in downgrades:
        page = old / "_cache" / p["tag"] / p["name"] / "specs.md"
        builds = _stacks_of_builds(page, p["bump"]["from"])
        after = new / "_cache" / p["tag"] / p["name"] / "specs.md"
        still = set().union(*(set(x["stacks"]) for x in load_real(after)[3]))
        held = [b - {"root"} for b in builds]
        true = all(held) and all(not (b & still) for b in held)
        cause = p["bump"]["cause"]
        assert bool(cause) == true, p["name"]
        if cause:
            stacks = set().union(*held)
            assert set(cause["stacks_removed"]) == stacks & removed
            assert set(cause["stacks_left"]) == stacks - removed
            assert not stacks & removed & new_stacks  # a removed stack holds nothing new
