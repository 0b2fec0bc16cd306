"""Golden cases: tests/cases/<case>/{old,new} against expected.md, expected.json, expected.txt.

Regenerate deliberately with SNAPDIFF_UPDATE_GOLDEN=1, then review the diff of the expected files.
"""

from __future__ import annotations

import difflib
import os
import shlex
from pathlib import Path

import pytest

from snapdiff.cli import main

CASES = Path(__file__).parents[1] / "cases"
CASE_NAMES = sorted(
    p.name for p in CASES.iterdir() if (p / "old").is_dir() and (p / "new").is_dir()
)
UPDATE = os.environ.get("SNAPDIFF_UPDATE_GOLDEN") == "1"
FORMATS = {"expected.md": "markdown", "expected.json": "json", "expected.txt": "text"}


def render(case: str, fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the CLI in the case folder, so sources read `old` and `new` on every machine."""
    monkeypatch.chdir(CASES / case)
    args_file = CASES / case / "args"
    extra = shlex.split(args_file.read_text()) if args_file.exists() else []
    out = tmp_path / f"out.{fmt}"
    assert main(["old", "new", "--format", fmt, "-o", str(out), *extra]) == 0
    return out.read_text(encoding="utf-8")


def test_cases_are_found() -> None:
    assert {
        "real-v1-v2",
        "stack-order-only",
        "joined-stack",
        "downgrade",
        "appear-disappear",
        "release-to-release",
    } <= set(CASE_NAMES)


@pytest.mark.parametrize("expected_name", sorted(FORMATS))
@pytest.mark.parametrize("case", CASE_NAMES)
def test_golden(
    case: str, expected_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The case rendered twice in one process, stable: with --jobs 1 (everything in this
    process), then --jobs 2 (a side read and the causes of rebuilds worked out in a second
    process where that pays): the same bytes either way, and those of the golden file."""
    monkeypatch.setenv("SNAPDIFF_JOBS", "1")
    actual = render(case, FORMATS[expected_name], tmp_path, monkeypatch)
    monkeypatch.setenv("SNAPDIFF_JOBS", "2")
    two = render(case, FORMATS[expected_name], tmp_path, monkeypatch)
    assert two == actual, "--jobs 2 gives other bytes than --jobs 1"
    expected_path = CASES / case / expected_name
    if UPDATE:
        expected_path.write_text(actual, encoding="utf-8")
    expected = expected_path.read_text(encoding="utf-8")
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            f"{case}/{expected_name}",
            "actual",
        )
        pytest.fail("output differs from the golden file:\n" + "".join(diff), pytrace=False)


@pytest.mark.parametrize("case", CASE_NAMES)
def test_the_fast_path_reports_what_a_full_parse_reports(case: str) -> None:
    """Counting shared pages from their meta line must not change a byte of any golden case."""
    from snapdiff.compare.diff import diff_snapshots
    from snapdiff.model import Filters
    from snapdiff.render.jsonreport import render_json
    from snapdiff.render.markdown import render_markdown
    from snapdiff.sources import load_pair

    old, new = str(CASES / case / "old"), str(CASES / case / "new")
    fast = diff_snapshots(*load_pair(old, new))
    every_entry = Filters(os=("*",))  # a per-spec filter: every page read in full, to diff
    full = diff_snapshots(*load_pair(old, new, filters=every_entry))
    assert render_json(fast) == render_json(full)
    assert render_markdown(fast) == render_markdown(full)


@pytest.mark.parametrize("case", CASE_NAMES)
def test_reading_entries_as_text_reports_what_parsing_them_reports(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every page parsed whole (the text reading switched off) gives the same bytes."""
    from snapdiff.compare.diff import diff_snapshots
    from snapdiff.render.jsonreport import render_json
    from snapdiff.render.markdown import render_markdown
    from snapdiff.sources import load_pair
    from snapdiff.sources.entries import Entries

    old, new = str(CASES / case / "old"), str(CASES / case / "new")
    as_text = diff_snapshots(*load_pair(old, new))
    monkeypatch.setattr(Entries, "from_line", classmethod(lambda cls, line, source: None))
    parsed = diff_snapshots(*load_pair(old, new))
    assert render_json(as_text) == render_json(parsed)
    assert render_markdown(as_text) == render_markdown(parsed)


@pytest.mark.parametrize("case", CASE_NAMES)
def test_every_claim_of_every_case_is_true(case: str) -> None:
    """The independent claim checker (tests/checker.py) finds nothing false in any case."""
    import json

    from checker import check_markdown, check_report

    from snapdiff.compare.diff import diff_snapshots
    from snapdiff.render.jsonreport import render_json
    from snapdiff.render.markdown import render_markdown
    from snapdiff.sources import load_pair

    old, new = CASES / case / "old", CASES / case / "new"
    found = diff_snapshots(*load_pair(str(old), str(new)))
    data = json.loads(render_json(found))
    assert check_report(data, old, new) == []
    assert check_markdown(render_markdown(found), data) == []
