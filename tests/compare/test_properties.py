"""Properties over random snapshots (hypothesis): the invariants every diff must keep.

The hash seed's (PYTHONHASHSEED) is checked on the real pages, in test_cli."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from checker import check_markdown, check_report
from hypothesis import given, settings
from hypothesis import strategies as st
from pagegen import as_json
from snapshotgen import snapshots, unique, write

from snapdiff.compare.diff import diff_snapshots
from snapdiff.render.markdown import render_markdown
from snapdiff.render.text import render_text
from snapdiff.sources import load_pair


def report(
    old: dict[str, Any], new: dict[str, Any], reverse: bool = False, check: bool = False
) -> dict[str, Any]:
    """The JSON report of two snapshots; with `check`, every claim in it checked first."""
    with tempfile.TemporaryDirectory() as tmp:
        a = write(Path(tmp) / "a", old, reverse)
        b = write(Path(tmp) / "b", new, reverse)
        found = diff_snapshots(*load_pair(a, b))
        data = as_json(found)
        if check:
            assert check_report(data, Path(a), Path(b)) == []
            assert check_markdown(render_markdown(found), data) == []
    for side in ("old", "new"):
        data[side].pop("source")
    return data


# What each class of explanation becomes when the sides are swapped.
SWAPPED = {
    "upgrade": "downgrade",
    "downgrade": "upgrade",
    "version-retired": "version-added",
    "version-added": "version-retired",
    "more-builds": "fewer-builds",
    "fewer-builds": "more-builds",
    "new-configuration": "dropped-configuration",
    "dropped-configuration": "new-configuration",
}
FAST = settings()  # the profile's (tests/conftest.py)


@FAST
@given(snapshots)
def test_a_snapshot_against_itself_has_no_change(pages: dict[str, Any]) -> None:
    data = report(pages, pages)
    assert data["packages"] == [] and data["stacks"] == []
    assert all(v == 0 for v in data["summary"].values())


@FAST
@given(snapshots, snapshots)
def test_swapping_sides_swaps_every_direction(old: dict[str, Any], new: dict[str, Any]) -> None:
    forward, backward = report(old, new), report(new, old)
    f, b = forward["summary"], backward["summary"]
    for one, other in [
        ("packages_added", "packages_removed"),
        ("specs_added", "specs_removed"),
        ("version_bumps", "version_downgrades"),
        ("stacks_added", "stacks_removed"),
    ]:
        assert (f[one], f[other]) == (b[other], b[one]), one
    for kind, counts in forward["specs_by_class"].items():
        mirror = backward["specs_by_class"][SWAPPED.get(kind, kind)]
        assert (counts["removed"], counts["added"]) == (mirror["added"], mirror["removed"]), kind
    for same in ("packages_changed", "specs_changed", "specs_rebuilt", "stacks_changed"):
        assert f[same] == b[same], same
    assert {(p["name"], p["status"]) for p in forward["packages"]} == {
        (p["name"], {"added": "removed", "removed": "added"}.get(p["status"], p["status"]))
        for p in backward["packages"]
    }


@FAST
@given(snapshots, snapshots)
def test_every_claim_is_true_and_the_classes_add_up(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    data = report(old, new, check=True)  # the claim checker: every record, text and stack move
    s, by_class = data["summary"], data["specs_by_class"]
    assert s["specs_added"] == sum(c["added"] for c in by_class.values())
    assert s["specs_removed"] == sum(c["removed"] for c in by_class.values())
    assert s["specs_rebuilt"] == by_class["rebuilt"]["added"] == by_class["rebuilt"]["removed"]


def _coverage(pages: dict[str, list[dict[str, Any]]]) -> dict[str, tuple[int, set[str]]]:
    """SPEC section 2, read literally: per stack, its specs and the packages with one in it."""
    found: dict[str, tuple[int, set[str]]] = {}
    for name, entries in pages.items():
        for entry in entries:
            for stack in set(entry["stacks"]):
                count, names = found.get(stack, (0, set()))
                found[stack] = (count + 1, names | {name})
    return found


@FAST
@given(snapshots, snapshots, st.sets(st.sampled_from(["zlib", "cmake", "py-jax", "hdf5"])))
def test_stack_coverage_is_what_the_spec_says(
    old: dict[str, Any], other: dict[str, Any], kept: set[str]
) -> None:
    """Packages in `kept` keep their old page (content both sides hold, only counted)."""
    new = unique({**other, **{name: old[name] for name in kept if name in old}})
    data = report(old, new)
    before, after = _coverage(old), _coverage(new)
    expected = []
    for stack in sorted((before.keys() | after.keys()) - {"root"}):
        (old_count, old_pkgs), (new_count, new_pkgs) = (
            side.get(stack, (0, set())) for side in (before, after)
        )
        if (old_count, old_pkgs) != (new_count, new_pkgs):
            status = (
                "added" if stack not in before else "removed" if stack not in after else "changed"
            )
            expected.append(
                {
                    "tag": "develop",
                    "name": stack,
                    "status": status,
                    "specs_old": old_count,
                    "specs_new": new_count,
                    "packages_gained": sorted(new_pkgs - old_pkgs),
                    "packages_lost": sorted(old_pkgs - new_pkgs),
                }
            )
    assert data["stacks"] == expected
    assert (data["old"]["stacks"], data["new"]["stacks"]) == (
        len(before.keys() - {"root"}),
        len(after.keys() - {"root"}),
    )
    # `root` is said only where it is not its tag's total (on a side that holds the tag)
    totals = [sum(map(len, side.values())) for side in (old, new)]
    held = [side.get("root", (0, set()))[0] for side in (before, after)]
    short = "root" in before.keys() | after.keys() and any(
        total and count != total for total, count in zip(totals, held, strict=True)
    )
    assert data["root"] == (
        [
            {
                "tag": "develop",
                "specs_old": held[0],
                "specs_new": held[1],
                "tag_specs_old": totals[0],
                "tag_specs_new": totals[1],
            }
        ]
        if short
        else []
    )


@FAST
@given(snapshots, snapshots)
def test_file_order_does_not_change_a_byte(old: dict[str, Any], new: dict[str, Any]) -> None:
    assert json.dumps(report(old, new)) == json.dumps(report(old, new, reverse=True))


_SPAN = re.compile(r"`([^`]+)`")


@given(snapshots, snapshots)
def test_every_compiler_and_variant_printed_is_written_so_on_a_page(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    """A reader searching the pages finds each compiler and variant the Markdown and the text
    format name, as written there (`@=` read as `@`), whatever spelling SPEC section 2 reads as
    the same (`oneapi@=X` and `intel-oneapi-compilers@X`, `name:=v` and `name=v`)."""
    with tempfile.TemporaryDirectory() as tmp:
        a, b = write(Path(tmp) / "a", old), write(Path(tmp) / "b", new)
        found = diff_snapshots(*load_pair(a, b))
        written = "".join(
            path.read_text().replace("@=", "@")
            for root in (a, b)
            for path in Path(root).rglob("specs.md")
        )
    markdown, text = render_markdown(found), render_text(found)
    named = {span for span in _SPAN.findall(markdown) if "@" in span or "=" in span}
    # in the text format a variant moved carries its sign (`+patches:=abc`): snapdiff's own
    named |= {
        word.rstrip(",;:").lstrip("−+") for word in text.split() if "@" in word or "=" in word
    }
    for value in named:
        assert f'"{value}"' in written, value


# "1 specs", "→ 1 configurations", "1 spec with new hashes", and in a summary line "1 more
# builds", "1 in new configurations", "1 of versions retired": a count of one with a plural noun
# (a signed delta, "+1 −1 specs", is a column of counts, not a count of one)
_ONE_PLURAL = re.compile(
    r"(?<![\d,.+−])1 (?:(?:more |fewer )?(?:specs|configurations|packages|stacks|builds)"
    r"|hashes|variant values)\b"
    r"|(?<![\d,.+−])1 (?:in|of) (?:\w+ )?(?:configurations|versions)\b"
    r"|\b1 (?:spec|more build) with new hashes"
)


@given(snapshots, snapshots)
def test_a_count_of_one_reads_in_the_singular(old: dict[str, Any], new: dict[str, Any]) -> None:
    """Every sentence, note and line of the Markdown and text says one thing in the singular
    (a stack move's counts left to the stack parts of the templates)."""
    with tempfile.TemporaryDirectory() as tmp:
        a, b = write(Path(tmp) / "a", old), write(Path(tmp) / "b", new)
        found = diff_snapshots(*load_pair(a, b))
    lines = render_markdown(found).splitlines() + render_text(found).splitlines()
    for line in lines:
        assert not _ONE_PLURAL.search(line), line
