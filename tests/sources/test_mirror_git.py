"""Build-cache mirrors committed to git: revisions of such a repository are diffed, and walked by
`snapdiff log`, as the same mirrors in folders are (real git in tmp_path; the indexes are the real
samples of tests/data/spack-index)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from clirun import run
from gitrepo import commit, git, new_repo
from mirrors import V7, V8, layout2, layout3, report


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """`test_mirror.report`, less what names each side (its commit and date too)."""
    data = report(argv, capsys)
    for side in ("old", "new"):
        data[side].pop("commit")
        data[side].pop("date")
    return data


def _mirrors(root: Path, index: Path) -> None:
    """Two stacks: `e4s` in layout 2 and `ml` in layout 3, beside a README."""
    for child in root.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    layout2(root / "e4s", index)
    layout3(root / "ml", index)
    (root / "README.md").write_text("mirrors of the build cache, one folder per stack\n")


@pytest.fixture
def mirror_repo(tmp_path: Path) -> Path:
    """Day 1: both stacks hold the DB v7 sample; day 2: the DB v8 one; day 3: the README only."""
    repo = new_repo(tmp_path / "mirrors")
    _mirrors(repo, V7)
    commit(repo, "day 1", 1)
    _mirrors(repo, V8)
    commit(repo, "day 2", 2)
    (repo / "README.md").write_text("mirrors, updated daily\n")
    commit(repo, "day 3: docs only", 3)
    return repo


def test_revisions_of_a_mirror_repository_report_what_its_folders_do(
    mirror_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    _mirrors(old, V7)
    _mirrors(new, V8)
    folders = _json([str(old), str(new)], capsys)
    revisions = _json(["HEAD~2", "HEAD~1", "--repo", str(mirror_repo)], capsys)
    assert folders["packages"], "the days must differ"
    assert revisions == folders
    assert {s["name"] for s in _json([str(V7), str(old)], capsys)["stacks"]} == {"e4s", "ml"}


def test_a_mirror_revision_is_named_by_its_commit(
    mirror_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["HEAD~2", "HEAD~1", "--repo", str(mirror_repo), "-f", "json"], capsys)
    assert code == 0, err
    sides = json.loads(out)
    day1 = git(mirror_repo, "rev-parse", "HEAD~2")
    assert sides["old"]["commit"] == day1
    assert sides["old"]["date"].startswith("2025-04-01")


def test_log_over_a_mirror_repository_has_one_step_per_commit_changing_an_index(
    mirror_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["log", "HEAD~2..HEAD", "--repo", str(mirror_repo), "-f", "json"], capsys)
    assert code == 0, err
    steps = json.loads(out)["steps"]
    day2 = git(mirror_repo, "rev-parse", "HEAD~1")
    assert [step["commit"] for step in steps] == [day2]  # the docs commit is no step
    assert steps[0]["subject"] == "day 2"
    direct = _json(["HEAD~2", "HEAD~1", "--repo", str(mirror_repo)], capsys)["summary"]
    assert steps[0]["summary"] == direct


def test_a_commit_of_the_range_without_mirrors_is_one_line(
    mirror_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for stack in ("e4s", "ml"):
        git(mirror_repo, "rm", "-rq", stack)
    commit(mirror_repo, "mirrors gone", 4)
    code, out, err = run(["log", "HEAD~3..HEAD", "--repo", str(mirror_repo)], capsys)
    assert code == 2 and out == ""
    assert err.startswith("snapdiff: error: ") and "holds no build-cache mirror" in err
    assert len(err.splitlines()) == 1


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_an_index_committed_as_a_link_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = new_repo(tmp_path / "linked")
    (repo / "build_cache").mkdir()
    shutil.copyfile(V8, repo / "real.json")
    os.symlink("../real.json", repo / "build_cache" / "index.json")
    commit(repo, "a link", 1)
    code, out, err = run(["HEAD", "HEAD", "--repo", str(repo)], capsys)
    assert code == 2 and out == ""
    assert "HEAD:build_cache/index.json: a symbolic link" in err


def _log_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run(["log", *argv, "-f", "json"], capsys)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_log_over_mirror_folders_given_in_order_is_one_step_per_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    days = []
    for day, index in (("day1", V7), ("day2", V7), ("day3", V8)):
        folder = tmp_path / day
        folder.mkdir()
        _mirrors(folder, index)
        days.append(str(folder))
    walked = _log_json(days, capsys)
    assert walked["range"]["unit"] == "snapshot"
    assert [step["commit"] for step in walked["steps"]] == [days[2]]  # day2 changed nothing
    direct = _json([days[1], days[2]], capsys)["summary"]
    assert walked["steps"][0]["summary"] == direct
    code, out, _ = run(["log", *days], capsys)
    assert code == 0
    assert "1 snapshot changed the build caches." in out and "### Snapshots" in out
    assert out.splitlines()[1].startswith("## Build cache history: ")
    assert f"#### `{days[2]}`\n" in out  # no date: a folder has none


def test_log_over_snapshots_walks_any_kinds_in_order(
    mirror_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "today"
    folder.mkdir()
    _mirrors(folder, V7)
    walked = _log_json(
        ["HEAD~2", "HEAD~1", str(folder), "--repo", str(mirror_repo)], capsys
    )  # V7, V8, then V7 again: two steps, the second undoing the first
    first, second = reversed(walked["steps"])
    assert first["summary"]["specs_added"] == second["summary"]["specs_removed"] > 0
    assert walked["range"]["start"] == "HEAD~2" and walked["range"]["end"] == str(folder)


def test_log_with_one_snapshot_says_what_to_give(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["log", str(V7)], capsys)
    assert (code, out) == (2, "")
    assert err == (
        "snapdiff: error: give one range A..B, or two or more snapshots (see snapdiff log --help)\n"
    )


CAUSES = Path(__file__).parents[1] / "cases" / "causes-real-v8"


def test_log_over_indexes_says_why_specs_were_rebuilt_as_the_diff_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sides = [str(CAUSES / "old"), str(CAUSES / "new")]
    walked = _log_json(sides, capsys)
    code, out, err = run([*sides, "-f", "json"], capsys)
    assert code == 0, err
    rebuilds = json.loads(out)["rebuilds"]
    (step,) = walked["steps"]
    assert step["rebuilds"]["rebuilt"] == rebuilds["rebuilt"] > 0
    code, markdown, _ = run(sides, capsys)
    first_screen = markdown.split("**Why specs were rebuilt:**\n\n")[1].split("\n\n")[0]
    code, log, _ = run(["log", *sides], capsys)
    assert f"Why specs were rebuilt:\n\n{first_screen}\n" in log
    plain = [re.sub(r"\*\*(⚠️ )?|`", "", line[2:]) for line in first_screen.splitlines()]
    assert step["rebuilds"]["said"] == plain


def test_log_over_pages_says_nothing_of_rebuild_causes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cases = Path(__file__).parents[1] / "cases" / "real-v1-v2"
    walked = _log_json([str(cases / "old"), str(cases / "new")], capsys)
    assert [step["rebuilds"] for step in walked["steps"]] == [None]
    code, out, _ = run(["log", str(cases / "old"), str(cases / "new")], capsys)
    assert code == 0 and "rebuilt:" not in out
