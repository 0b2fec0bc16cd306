"""`removed-specs` on a generated day: it counts specs that left with no successor.

SYNTHETIC data, made by the repository's own generator (bench/gencat.py, seeded): a catalogue of
400 packages, its next day of routine change (version bumps, rebuilds, stack membership,
packages added), and that same day with 150 specs dropped that nothing replaced (one package
removed, and some builds of packages the day left alone).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from benchgen import generate
from clirun import run
from pagegen import load_real, write_page

ROUTINE = "version-bumps,rebuilds,stack-membership,add-packages"
DROPPED = 150


def _drop(old: Path, day: Path, into: Path) -> str:
    """`into`: `day` with DROPPED specs gone from the pages `day` did not change against `old`,
    the first such package removed whole; its name."""
    shutil.copytree(day, into)
    left, removed = DROPPED, ""
    for page in sorted((into / "_cache" / "develop").glob("*/specs.md")):
        before = old / page.relative_to(into)
        if left == 0 or not before.exists() or before.read_bytes() != page.read_bytes():
            continue
        name, tag, _, specs = load_real(page)
        if not removed and len(specs) < left:
            removed = name
            shutil.rmtree(page.parent)
            left -= len(specs)
            continue
        gone = min(left, len(specs) // 2)
        if gone:
            write_page(into, name, specs[gone:], tag=tag)
            left -= gone
    assert left == 0 and removed
    return removed


@pytest.fixture(scope="module")
def days(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str, str]:
    """(old, a routine next day, that day with DROPPED specs lost, the package removed)."""
    root = tmp_path_factory.mktemp("days")
    for args in (
        ["--packages", "400", "--specs-total", "6000", "--seed", "1", "--out", "v1"],
        ["--evolve-from", "v1", "--churn", "0.05", "--seed", "2", "--events", ROUTINE],
    ):
        out = [] if "--out" in args else ["--out", "v2"]
        generate("gencat", *args, *out, cwd=root)
    removed = _drop(root / "v1", root / "v2", root / "v3")
    return str(root / "v1"), str(root / "v2"), str(root / "v3"), removed


def _report(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    code, out, err = run([*argv, "--format", "json", "--no-config"], capsys)
    return code, json.loads(out), err


def test_a_routine_day_passes_and_a_day_that_loses_specs_fails(
    days: tuple[str, str, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    old, routine, lossy, _ = days
    gate = ["--fail-on", "removed-specs:100"]
    code, report, err = _report([old, routine, *gate], capsys)
    by_class = report["specs_by_class"]
    assert report["summary"]["specs_removed"] > 100  # every one rebuilt or upgraded
    assert by_class["rebuilt"]["removed"] and by_class["upgrade"]["removed"]
    assert code == 0 and report["gates"] == [] and err == ""
    code, report, err = _report([old, lossy, *gate], capsys)
    assert code == 1
    (found,) = report["gates"]
    assert (found["gate"], found["tripped"], found["count"]) == ("removed-specs", True, DROPPED)
    lost = ("dropped-configuration", "fewer-builds", "version-retired")
    assert sum(report["specs_by_class"][k]["removed"] for k in lost) == DROPPED
    assert found["text"].startswith(
        f"removed-specs ({DROPPED} specs removed with no rebuild, upgrade, downgrade or "
        "migration in their place: "
    )
    assert err == f"snapdiff: gate failed: {found['text']}\n"


def test_an_allow_entry_takes_its_package_out_of_the_count(
    days: tuple[str, str, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, _, lossy, removed = days
    config = tmp_path / "trusted.yaml"
    config.write_text(
        f"allow: [{{gate: removed-specs, package: {removed}, reason: retired upstream}}]\n"
    )
    argv = [old, lossy, "--config", str(config), "--fail-on", "removed-specs"]
    code, out, err = run([*argv, "--format", "json"], capsys)
    report = json.loads(out)
    gone = next(p for p in report["packages"] if p["name"] == removed)
    assert code == 1 and gone["status"] == "removed"
    (found,) = report["gates"]
    assert found["count"] == DROPPED - len(gone["specs_removed"])
    assert found["allowed"] == [{"package": removed, "stack": None, "reason": "retired upstream"}]
    assert f"snapdiff: allowed: removed-specs {removed} (retired upstream)" in err
