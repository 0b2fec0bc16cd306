"""The page diff's per-package work done once per distinct value (issue 28): what each entry is
built as, rebuilt counts, records made per version, moves found by set algebra."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pagegen import spec, write_page

from snapdiff.compare.builtas import built_of, rebuilt_count
from snapdiff.compare.classify import classify
from snapdiff.compare.diff import diff_snapshots
from snapdiff.model import Configuration, Entry, Spec
from snapdiff.render.jsonreport import render_json
from snapdiff.sources import load_pair
from snapdiff.sources.entries import Entries
from snapdiff.versions import version_of


def _entry(digest: str, version: str = "1.0", **fields: Any) -> Entry:
    return Entry.from_mapping(spec(digest, version, **fields))


def test_built_as_is_the_normalised_configuration_and_version() -> None:
    entries = [
        _entry("a", compiler="gcc@=11.4.0", variants=("~shared", "+pic")),
        _entry("b", version="2.0"),
        _entry("c", compiler="gcc@11.4.0", variants=("+pic", "~shared")),
    ]
    expected = [
        (Spec.from_entry(e).configuration(), version_of(Spec.from_entry(e).versions))
        for e in entries
    ]
    assert built_of(entries) == expected
    # two spellings of one configuration are one configuration
    assert expected[0] == expected[2]
    # a page's configurations with their versions (what explain asks of a package's pages)
    found = Entries({e.hash: e for e in entries}, "page").versions_by_configuration()
    assert found == {expected[0][0]: {"1.0"}, expected[1][0]: {"2.0"}}


def test_rebuilt_count_pairs_one_to_one() -> None:
    config = Configuration("ubuntu24.04", "linux", "x86_64", "gcc@13", ())
    other = config._replace(os="rhel8")
    removed = [(config, "1.0")] * 3 + [(other, "1.0")]
    added = [(config, "1.0")] * 2 + [(other, "2.0")]
    assert rebuilt_count(removed, added) == 2
    assert rebuilt_count(added, removed) == 2


def test_a_version_rebuilt_in_several_configurations_is_one_record() -> None:
    """classify pairs by (configuration, version) first: the rebuilt specs of a version are
    one record over every configuration (it was one record each, merged later)."""
    configs = [Configuration(os, "linux", "x86_64", "gcc@13", ()) for os in ("a", "b", "c")]
    removed = [(f"r{i}", (c, "1.0")) for i, c in enumerate(configs)]
    added = [(f"n{i}", (c, "1.0")) for i, c in enumerate(configs)]
    removed.append(("r9", (configs[0], "0.9")))
    sides = {c: {"1.0"} for c in configs}, {c: {"1.0"} for c in configs}
    sides[0][configs[0]].add("0.9")
    facts = sorted(classify(removed, added, *sides), key=lambda f: f.kind)
    assert [(f.kind, f.configurations_old, f.specs_old, f.specs_new) for f in facts] == [
        ("rebuilt", tuple(configs), ("r0", "r1", "r2"), ("n0", "n1", "n2")),
        ("version-retired", (configs[0],), ("r9",), ()),
    ]


def _report(old: Path, new: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(render_json(diff_snapshots(*load_pair(str(old), str(new)))))
    return data


def test_a_spec_that_moved_between_pages_is_changed_not_added(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    write_page(old, "zlib", [spec("a"), spec("b")])
    write_page(old, "zlib-ng", [spec("c")])
    write_page(new, "zlib", [spec("a")])
    write_page(new, "zlib-ng", [spec("b"), spec("c"), spec("d")])
    packages = {p["name"]: p for p in _report(old, new)["packages"]}
    moved = "b".ljust(32, "a")
    for name in ("zlib", "zlib-ng"):
        assert [c["hash"] for c in packages[name]["specs_changed"]] == [moved]
        assert packages[name]["specs_removed"] == []
    assert packages["zlib-ng"]["specs_added"] == ["d".ljust(32, "a")]


def test_a_diff_keeps_what_the_diff_before_it_worked_out_and_nothing_older() -> None:
    """A long history must not keep every configuration and version it met: each diff keeps
    what the one before worked out (looked up first), nothing older."""
    from snapdiff.compare import builtas

    entries = [_entry("a"), _entry("b", version="2.0"), _entry("c", version="3.0")]
    expected = built_of(entries)
    builtas.next_diff()
    builtas.next_diff()  # nothing left of other tests of this process
    built_of(entries[:2])
    builtas.next_diff()
    assert len(builtas._KNOWN) == 0 and len(builtas._KNOWN.before) == 2
    assert built_of(entries[1:]) == expected[1:]  # one kept from the diff before, one anew
    builtas.next_diff()
    assert set(builtas._KNOWN.before) == set(map(builtas._FIELDS, entries[1:]))  # not a's
    assert built_of(entries) == expected
