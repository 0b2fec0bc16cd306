"""Git revisions as snapshots, on throwaway repositories built from real catalogue pages."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest
from gitrepo import ENV, commit, forked_repo, git, new_repo, place, reorder_stacks
from pagegen import HISTORY, SEEDS, spec, write_page

from snapdiff.cli import main
from snapdiff.sources import LoadOptions, load_pair, pages


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalogue repository: the site's own files beside `_cache`, one commit a day.

    c1 (tag v1): the older real pages; c2 (tag v2): the newest real pages; c3: the same pages
    with every stacks list reversed; c4: one page removed and a synthetic one added.
    """
    repo = tmp_path_factory.mktemp("catalogue")
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("# cache.spack.io\n")
    (repo / "index.md").write_text("---\nlayout: default\ntitle: Home\n---\nWelcome\n")
    (repo / "_layouts").mkdir()
    (repo / "_layouts" / "cache.html").write_text("<html>{{ content }}</html>\n")
    place(repo, HISTORY)
    commit(repo, "catalogue 1", 1)
    git(repo, "tag", "v1")
    shutil.rmtree(repo / "_cache")
    place(repo, SEEDS)
    commit(repo, "catalogue 2", 2)
    git(repo, "tag", "v2")
    reorder_stacks(repo)
    commit(repo, "catalogue 3: stacks reordered", 3)
    shutil.rmtree(repo / "_cache" / "develop" / "py-keras")
    write_page(repo, "zlib-ng", [spec("z1", "2.2.1")])
    commit(repo, "catalogue 4", 4)
    return repo


def export(repo: Path, rev: str, into: Path) -> Path:
    """A checkout of a revision, made without touching the repository's work tree."""
    archive = into.with_suffix(".tar")
    git(repo, "archive", "-o", str(archive), rev)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into


def report(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main([*argv, "--format", "json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def without_sources(data: dict[str, Any]) -> dict[str, Any]:
    drop = ("source", "commit", "date")
    return data | {
        side: {k: v for k, v in data[side].items() if k not in drop} for side in ("old", "new")
    }


@pytest.mark.parametrize(
    ("old", "new"), [("v1", "v2"), ("v2", "HEAD"), ("v1", "HEAD"), ("HEAD~2", "HEAD~1")]
)
def test_revisions_report_what_checkouts_report(
    catalogue: Path, tmp_path: Path, old: str, new: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from_git = report([old, new, "--repo", str(catalogue)], capsys)
    a, b = export(catalogue, old, tmp_path / "a"), export(catalogue, new, tmp_path / "b")
    from_dirs = report([str(a), str(b)], capsys)
    assert without_sources(from_git) == without_sources(from_dirs)
    assert from_git["old"]["source"] == old and from_git["new"]["source"] == new


def test_sources_carry_revision_commit_and_date(
    catalogue: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = report(["v1", "v2", "--repo", str(catalogue)], capsys)
    assert data["old"]["commit"] == git(catalogue, "rev-parse", "v1")  # the full id
    assert data["old"]["date"] == "2025-04-01T04:00:00+00:00"
    assert data["new"]["date"] == "2025-04-02T04:00:00+00:00"
    assert main(["v1", "v2", "--repo", str(catalogue)]) == 0
    title = capsys.readouterr().out.splitlines()[1]
    old, new = data["old"]["commit"], data["new"]["commit"]
    assert (
        title
        == (  # shown short, as forges show an id
            f"## Catalogue changes: `v1` (`{old[:7]}`, 2025-04-01) → `v2` (`{new[:7]}`, 2025-04-02)"
        )
    )
    base = "https://github.com/spack/cache.spack.io"
    assert main(["v1", "v2", "--repo", str(catalogue), "--link-base", base]) == 0
    title = capsys.readouterr().out.splitlines()[1]
    assert (
        title
        == (  # linked by the full id
            f"## Catalogue changes: `v1` ([`{old[:7]}`]({base}/commit/{old}), 2025-04-01) → "
            f"`v2` ([`{new[:7]}`]({base}/commit/{new}), 2025-04-02)"
        )
    )


def test_a_commit_that_only_reorders_stacks_is_no_change(catalogue: Path) -> None:
    assert (
        main(["HEAD~2", "HEAD~1", "--repo", str(catalogue), "--exit-code", "-o", os.devnull]) == 0
    )
    assert main(["HEAD~1", "HEAD", "--repo", str(catalogue), "--exit-code", "-o", os.devnull]) == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["v1..v2"],
        ["v1", "v2"],
        ["main~3", "main~2"],
        ["v1^{commit}", "v2"],
        ["v1..HEAD~2"],
        ["v1:_cache", "v2:_cache"],
        ["v1:_cache/develop", "v2:_cache/develop"],
    ],
)
def test_git_spellings(
    catalogue: Path,
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(catalogue / "_cache")  # inside the repository: found without --repo
    data = report(argv, capsys)
    assert (data["summary"]["version_bumps"], data["summary"]["specs_added"]) == (5, 470)


def test_short_ids_and_ranges_with_one_end(
    catalogue: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short = git(catalogue, "rev-parse", "--short", "v2")
    assert (
        report([f"{short}..", "--repo", str(catalogue)], capsys)["summary"]["packages_removed"] == 1
    )  # v2..HEAD


def test_a_directory_against_a_revision(
    catalogue: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = export(catalogue, "v1", tmp_path / "v1-checkout")
    data = report([str(old), "v2", "--repo", str(catalogue)], capsys)
    assert data["summary"]["version_bumps"] == 5


def test_an_existing_directory_wins_over_a_revision(
    catalogue: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    write_page(tmp_path / "v1", "only-here", [spec("o1")])
    data = report(["v1", "v2", "--repo", str(catalogue)], capsys)
    assert [p["name"] for p in data["packages"] if p["status"] == "removed"] == ["only-here"]


def state(repo: Path) -> dict[str, str]:
    """Everything snapdiff must not touch: work tree, index, stash, refs, HEAD."""
    index = hashlib.sha256((repo / ".git" / "index").read_bytes()).hexdigest()
    return {
        "status": git(repo, "status", "--porcelain", "--untracked-files=all"),
        "diff": git(repo, "diff"),
        "staged": git(repo, "diff", "--cached"),
        "index": index,
        "refs": git(repo, "show-ref"),
        "stash": git(repo, "stash", "list"),
        "head": git(repo, "symbolic-ref", "HEAD"),
        "files": "\n".join(
            sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if ".git" not in p.parts)
        ),
    }


def test_the_work_tree_index_stash_and_refs_are_untouched(tmp_path: Path, catalogue: Path) -> None:
    repo = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(catalogue), str(repo))
    (repo / "README.md").write_text("edited, not committed\n")
    (repo / "untracked.txt").write_text("new\n")
    (repo / "index.md").write_text("staged change\n")
    git(repo, "add", "index.md")
    git(repo, "stash", "push", "-q", "--", "README.md")
    (repo / "README.md").write_text("edited again\n")
    before = state(repo)
    assert main(["v1", "HEAD", "--repo", str(repo), "-o", str(tmp_path / "out.md")]) == 0
    assert main(["HEAD~1..HEAD", "--repo", str(repo), "-o", str(tmp_path / "out.md")]) == 0
    assert state(repo) == before


def test_only_changed_blobs_are_parsed(catalogue: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = pages.parse_page

    def counting(data: bytes, source: str, digest: str, full: bool = True) -> Any:
        parsed.append(source)
        return real(data, source, digest, full)

    monkeypatch.setattr("snapdiff.sources.snapshot.parse_page", counting)
    old, new = load_pair("HEAD~1", "HEAD", LoadOptions(repo=str(catalogue)))
    changed = git(catalogue, "diff", "--name-only", "--no-renames", "HEAD~1", "HEAD").split()
    assert sorted(changed) == [
        "_cache/develop/py-keras/specs.md",
        "_cache/develop/zlib-ng/specs.md",
    ]
    assert sorted(parsed) == [
        "HEAD:_cache/develop/zlib-ng/specs.md",
        "HEAD~1:_cache/develop/py-keras/specs.md",
    ]
    # the pages both revisions hold alike are only counted, and the same on both sides
    assert ("develop", "py-jax") not in new.pages and ("develop", "py-jax") not in old.pages
    assert old.rest == new.rest
    files = git(catalogue, "ls-tree", "-r", "--name-only", "HEAD", "_cache/develop").split()
    same = [f for f in files if f not in changed]
    specs = sum(git(catalogue, "show", f"HEAD:{f}").count('"hash":') for f in same)
    assert new.rest.pages == {"develop": len(same)} and new.rest.specs == {"develop": specs}
    assert new.page_count == len(files) and old.page_count == len(same) + 1


def test_unchanged_pages_with_inconsistent_meta_are_counted_from_spec_details(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """meta's spec count is checked against the page's hashes; a mismatch is parsed instead."""
    repo = new_repo(tmp_path / "repo")
    page = write_page(repo, "zlib", [spec("a1"), spec("a2")])
    page.write_text(page.read_text().replace('"num_specs": 2', '"num_specs": 5'))
    write_page(repo, "cmake", [spec("c1")])
    commit(repo, "one", 1)
    write_page(repo, "cmake", [spec("c2")])
    commit(repo, "two", 2)
    argv = ["HEAD~1", "HEAD", "--repo", str(repo), "--cache-dir", str(tmp_path / "cache")]
    data = report(argv, capsys)
    assert (data["old"]["specs"], data["new"]["specs"]) == (3, 3)
    warning = "HEAD:_cache/develop/zlib/specs.md: meta says 5 specs, spec_details has 2"
    assert any(w.startswith(warning) for w in data["warnings"])
    assert report(argv, capsys) == data  # warm: the counts and the warning from the tally


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["nope", "v2"], "nope: no such directory or git revision (check the name with git log"),
        (["/elsewhere:v1", "v2"], "git log, in "),  # a repository is no part of a revision
        (["/elsewhere:v1", "v2"], " (another repository: --repo PATH)"),
        (["v1:_cache/nope", "v2"], "v1:_cache/nope: path '_cache/nope' does not exist in v1"),
        (["v1:README.md", "v2"], "v1:README.md: names a file, not a folder"),
        (["v1", "--", "-v2"], "-v2: a revision may not start with '-'"),
        (["nope...v2"], "nope: no such commit"),
        (["v1"], "give OLD and NEW, or one range A..B"),
        (["..."], "range '...': an empty range (name both sides, e.g. main...HEAD; outside"),
        ([".."], "range '..': an empty range (name both sides, e.g. main..HEAD"),
        (["...v2"], "range '...v2': no revision before '...' (name the old side, e.g. main...v2)"),
        (["..v2"], "range '..v2': no revision before '..' (name the old side, e.g. main..v2)"),
        ([":_cache", "v2"], ":_cache: no revision before ':'"),
    ],
)
def test_bad_revisions(
    catalogue: Path, argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--repo", str(catalogue), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("snapdiff: error: ") and err.count("\n") == 1, err
    assert expected in err


def test_not_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["v1", "v2", "--repo", str(tmp_path)]) == 2
    assert (
        f"v1 (in {tmp_path}): no such directory (not a git repository)" in capsys.readouterr().err
    )


def test_a_missing_object_names_the_revision(
    tmp_path: Path, catalogue: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "broken"
    git(tmp_path, "clone", "-q", "--no-local", str(catalogue), str(repo))
    for pack in list((repo / ".git" / "objects" / "pack").glob("*.pack")):
        moved = tmp_path / pack.name  # out of the repository, then unpacked as loose objects
        pack.rename(moved)
        pack.with_suffix(".idx").unlink()
        with moved.open("rb") as handle:
            subprocess.run(
                ["git", "-C", str(repo), "unpack-objects", "-q"],
                stdin=handle,
                check=True,
                env=dict(os.environ, **ENV),
            )
    blob = git(repo, "rev-parse", "v1:_cache/develop/py-jax/specs.md")
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    assert main(["v1", "v2", "--repo", str(repo), "-o", str(tmp_path / "out.md")]) == 2
    err = capsys.readouterr().err
    assert f"v1: object {blob} is missing from the repository" in err
    assert "git fetch --unshallow" in err and err.count("\n") == 1
    assert not (tmp_path / "out.md").exists()


def test_a_shallow_clone_says_so(
    tmp_path: Path, catalogue: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{catalogue}", str(repo))
    assert main(["HEAD~1", "HEAD", "--repo", str(repo)]) == 2
    assert (
        "HEAD~1: no such directory or git revision (this clone is shallow"
        in capsys.readouterr().err
    )


def test_a_merge_base_missing_from_a_shallow_clone_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both tips are there, their merge base is not: the clone is named shallow, with the fix."""
    origin = forked_repo(tmp_path / "origin")
    repo = tmp_path / "shallow"
    url = f"file://{origin}"
    git(tmp_path, "clone", "-q", "--depth", "1", "--no-single-branch", url, str(repo))
    assert main(["origin/main...origin/branch", "--repo", str(repo)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "snapdiff: error: origin/main...origin/branch: no common ancestor in this shallow clone "
        "(fetch the history: git fetch --unshallow, or fetch-depth: 0 in actions/checkout)\n"
    )
    git(repo, "fetch", "-q", "--unshallow")
    assert main(["origin/main...origin/branch", "--repo", str(repo), "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["old"]["source"] == git(
        repo, "merge-base", "origin/main", "origin/branch"
    )


def test_pages_in_a_flat_folder_committed_to_git(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside `_cache`, a file is a page by its front matter, in git as on disk."""
    repo = new_repo(tmp_path / "flat")
    for page in HISTORY:
        shutil.copyfile(page, repo / f"{page.parent.name}.md")
    (repo / "notes.md").write_text("---\nlayout: post\n---\n")
    commit(repo, "old", 1)
    for page in repo.glob("*.md"):
        if page.name != "notes.md":
            page.unlink()
    for page in SEEDS:
        shutil.copyfile(page, repo / page.name)
    commit(repo, "new", 2)
    data = report(["HEAD~1", "HEAD", "--repo", str(repo)], capsys)
    assert data["summary"]["version_bumps"] == 5 and data["new"]["packages"] == 5


def test_a_pull_request_range_starts_at_the_merge_base(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A branch forked three commits back adds one spec; main moved on meanwhile."""
    repo = forked_repo(tmp_path / "repo")
    argv = ["--repo", str(repo), "--format", "json"]
    assert main(["main...branch", *argv]) == 0
    data = json.loads(capsys.readouterr().out)
    (package,) = data["packages"]
    assert package["specs_added"] == ["b".ljust(32, "a")] and package["specs_removed"] == []
    base = git(repo, "merge-base", "main", "branch")
    assert data["old"]["source"] == base and data["new"]["source"] == "branch"
    assert main(["main..branch", *argv]) == 0  # the tip of main: what main did looks undone
    assert len(json.loads(capsys.readouterr().out)["packages"][0]["specs_removed"]) == 1


def test_sides_that_look_swapped_are_warned_about(
    catalogue: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["v2", "v1", "--repo", str(catalogue), "--format", "json"]) == 0
    err = capsys.readouterr().err
    assert re.search(
        r"warning: the new side \([0-9a-f]+, 2025-04-01\) is older than the old side "
        r"\([0-9a-f]+, 2025-04-02\): are OLD and NEW swapped\?",
        err,
    )


def test_a_title_of_full_commit_ids_is_one_short_line(
    catalogue: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CI names revisions by 40-character ids: the title shows each short id once, and its date."""
    old, new = (git(catalogue, "rev-parse", rev) for rev in ("v1", "v2"))
    assert main([old, new, "--repo", str(catalogue)]) == 0
    title = capsys.readouterr().out.splitlines()[1]
    assert title == f"## Catalogue changes: `{old[:7]}` 2025-04-01 → `{new[:7]}` 2025-04-02"
