"""The first screen of a pull-request comment (issue 17): what matters, before any fold.

The day's change is synthetic, made by the repository's own generator (bench/gencat.py): a
catalogue of 250 packages and its next day with version bumps, removed and added packages, a
dropped stack and an OS migration; read backwards, the bumps are downgrades.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from benchgen import generate
from clirun import run
from pagegen import spec, write_page

EVENTS = "drop-stack,version-bumps,remove-packages,os-migration,add-packages"


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    root = tmp_path_factory.mktemp("day")
    for args in (
        ["--packages", "250", "--specs-total", "3000", "--seed", "4", "--out", "v1"],
        ["--evolve-from", "v1", "--churn", "0.1", "--seed", "5", "--events", EVENTS, "--out", "v2"],
    ):
        generate("gencat", *args, cwd=root)
    return str(root / "v1"), str(root / "v2")


def first_screen(text: str) -> str:
    return text.split("<details>")[0]


@pytest.mark.parametrize("backwards", [False, True], ids=["forwards", "backwards"])
def test_the_first_screen_names_what_matters(
    day: tuple[str, str], backwards: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = day[::-1] if backwards else day
    code, markdown, _ = run([old, new], capsys)
    assert code == 0
    data = json.loads(run([old, new, "--format", "json"], capsys)[1])
    screen = first_screen(markdown)
    downgrades = [
        p["name"] for p in data["packages"] if p["bump"] and p["bump"]["kind"] == "downgrade"
    ]
    removed_stacks = [s["name"] for s in data["stacks"] if s["status"] == "removed"]
    assert downgrades if backwards else removed_stacks  # the case has what the test is about
    for name in downgrades[:5]:
        assert f"`{name}`" in screen
    if len(downgrades) > 5:
        assert f"… and {len(downgrades) - 5} more" in screen
    for name in removed_stacks:
        assert f"`{name}`" in screen
    assert next(line for line in markdown.splitlines() if line.startswith("#")).startswith("## ")
    assert len([line for line in markdown.splitlines() if line.startswith("## ")]) == 1
    tables = re.findall(r"(?:^\|.*\n)+", screen, re.M)
    assert tables and all(len(t.splitlines()) <= 30 for t in tables)
    specs = data["old"]["specs"]
    assert specs >= 1000 and f"| Specs | {specs:,} |" in screen  # separators, not code spans


def test_the_budget_never_cuts_the_first_screen(
    day: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = day[::-1]
    whole = first_screen(run([old, new], capsys)[1])
    for budget in (3_000, 20_000):
        cut = run([old, new, "--max-chars", str(budget)], capsys)[1]
        assert len(cut.encode()) <= budget
        assert first_screen(cut).split("\n", 1)[1] == whole.split("\n", 1)[1]  # marker aside


def _tagged(root: Path, old: dict[str, str], new: dict[str, str]) -> list[str]:
    """Sides holding the page of `zlib` in each tag given, at the version given."""
    for side, tags in (("old", old), ("new", new)):
        for tag, version in tags.items():
            digest = f"{tag}{version}".replace(".", "")
            write_page(root / side, "zlib", [spec(digest, version)], tag=tag)
    return [str(root / "old"), str(root / "new")]


def test_changes_in_one_of_several_tags_say_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Labels leave the tag out when every change is in one tag; the report then says which, so
    `zlib 1.3 → 1.3.1` is not read as true of every tag."""
    sides = _tagged(
        tmp_path, {"develop": "1.3", "v0.23.1": "1.3"}, {"develop": "1.3.1", "v0.23.1": "1.3"}
    )
    markdown = run(sides, capsys)[1]
    said = "Every change is in cache tag `develop`; the other tag (`v0.23.1`) did not change. "
    said += "Counts are per cache tag: a package, spec or stack in several of the 2 tags counts "
    assert said + "once in each." in first_screen(markdown).splitlines()
    assert "- **Largest version bump (1):** `zlib` `1.3` → `1.3.1`" in markdown
    text = run([*sides, "--format", "text"], capsys)[1].splitlines()
    assert text[1] == "every change is in cache tag develop; the other tag did not change"
    assert text[2] == "counted per cache tag (2 tags)"


def test_changes_in_several_tags_are_labelled_and_need_no_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sides = _tagged(
        tmp_path, {"develop": "1.3", "v0.23.1": "1.3"}, {"develop": "1.4", "v0.23.1": "1.3.1"}
    )
    markdown = run(sides, capsys)[1]
    assert "`develop/zlib` `1.3` → `1.4`" in markdown and "Every change is in" not in markdown
    assert "Counts are per cache tag" in markdown


def test_release_to_release_needs_no_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each side's one tag is its label, already in the title."""
    markdown = run(_tagged(tmp_path, {"v0.22.0": "1.3"}, {"v0.23.0": "1.3.1"}), capsys)[1]
    assert "`v0.22.0`" in markdown.splitlines()[1] and "cache tag" not in markdown
