"""snapdiff as a library: the public API works and leaves the calling process alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import snapdiff

ROOT = Path(__file__).parents[2]
V1, V2 = str(ROOT / "snapshots" / "v1"), str(ROOT / "snapshots" / "v2")


def test_the_public_api_as_the_readme_shows_it() -> None:
    old, new = snapdiff.load_pair(V1, V2)
    report = snapdiff.diff_snapshots(old, new)
    assert report.summary.version_bumps == 5
    assert json.loads(snapdiff.render_json(report))["summary"]["specs_added"] == 470
    assert snapdiff.render_markdown(report).startswith("<!-- snapdiff report sha256:")
    assert len(snapdiff.load_snapshot(V1).pages) == 5


def test_loading_leaves_the_garbage_collector_as_it_was() -> None:
    """In a fresh interpreter, exactly the issue's check: `True 0`."""
    code = (
        "import gc, snapdiff; snapdiff.load_snapshot('snapshots/v1'); "
        "snapdiff.diff_snapshots(*snapdiff.load_pair('snapshots/v1', 'snapshots/v2')); "
        "print(gc.isenabled(), gc.get_freeze_count())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout == "True 0\n"


def test_rendering_writes_nothing_outside_its_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No template cache unless the command line opts in (it does: see test_templates)."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    report = snapdiff.diff_snapshots(*snapdiff.load_pair(V1, V2))
    snapdiff.render_markdown(report)
    assert list(tmp_path.iterdir()) == []


def test_the_readme_library_example_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = readme.split("## Library use")[1].split("```python\n")[1].split("```")[0]
    monkeypatch.chdir(ROOT)
    exec(compile(example, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "5"
    assert "py-mpi4py upgrade 3.1.5 → 4.0.1 in 2 linux configurations: 28 → 42 specs" in printed


def test_sides_of_two_different_pairs_are_refused_in_one_line(tmp_path: Path) -> None:
    """A library caller mixing sides of two pairs read in O(changed) gets a SnapdiffError that
    says how to load them, not an AssertionError from inside the diff."""
    from gitrepo import commit, git, new_repo
    from pagegen import spec, write_page

    repo = new_repo(tmp_path / "repo")
    for day, (first, second) in enumerate((("1.0", "1.0"), ("1.1", "1.0"), ("1.1", "1.1")), 1):
        write_page(repo, "zlib", [spec("a", first)])
        write_page(repo, "cmake", [spec("b", second, ("hep", "root"))])
        write_page(repo, "steady", [spec("c", "1.0")])
        commit(repo, f"day {day}", day)
    from snapdiff.errors import UsageError
    from snapdiff.sources import LoadOptions

    options = LoadOptions(str(repo))
    early = snapdiff.load_pair(git(repo, "rev-parse", "HEAD~2"), "HEAD~1", options)
    late = snapdiff.load_pair("HEAD~1", "HEAD", options)
    assert early.old.rest != late.new.rest  # each pair counted a different page as unchanged
    with pytest.raises(UsageError, match="load both sides together"):
        snapdiff.diff_snapshots(early.old, late.new)
