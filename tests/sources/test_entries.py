"""Entries decoded in one call: the records agree with a full parse, and lines they cannot hold
are left to it (which names what is wrong)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pagegen import HISTORY, SEEDS, spec, write_page

from snapdiff.cli import main
from snapdiff.errors import InputError
from snapdiff.model import Configuration, Spec, configuration_of
from snapdiff.sources import load_pair
from snapdiff.sources.entries import Entries, check_entries

ROOT = Path(__file__).parents[2]
REAL_PAGES = HISTORY + SEEDS + sorted((ROOT / "snapshots").glob("*/_cache/*/*/specs.md"))


def details_line(path: Path) -> bytes:
    """The `spec_details` value of a page, as bytes."""
    for line in path.read_bytes().split(b"\n"):
        if line.startswith(b"spec_details: "):
            return line[len(b"spec_details: ") :]
    raise AssertionError(f"{path} has no spec_details line")


def line_of(entries: list[dict[str, Any]]) -> bytes:
    """A spec_details line as the generator writes it (synthetic entries)."""
    return json.dumps(entries, sort_keys=True).encode()


def both_ways(line: bytes) -> tuple[Entries, Entries]:
    """The line decoded in one call (it must be in the generator's form) and parsed in full."""
    fast = Entries.from_line(line, "page")
    assert fast is not None, "expected the generator's form"
    return fast, Entries.from_read(check_entries(orjson.loads(line), "page"), "page")


def assert_same(fast: Entries, full: Entries) -> None:
    assert list(fast) == list(full)
    assert all(fast[digest] == full[digest] for digest in full)
    assert (fast.counts, fast.stacks, fast.versions) == (full.counts, full.stacks, full.versions)
    assert fast.versions_by_configuration() == full.versions_by_configuration()
    assert fast.stacks_by_configuration() == full.stacks_by_configuration()
    assert fast.spellings() == full.spellings()
    assert set(fast.versions_by_configuration()) == {configuration_of(full[d]) for d in full}
    stacks: dict[Configuration, set[str]] = {}
    for digest in full:
        stacks.setdefault(configuration_of(full[digest]), set()).update(full[digest].stacks)
    assert fast.stacks_by_configuration() == stacks


@pytest.mark.parametrize("path", REAL_PAGES, ids=lambda p: "/".join(p.parts[-3:]))
def test_real_pages_decoded_in_one_call_equal_a_full_parse(path: Path) -> None:
    """Both generations (the older one writes `tarball`, in another key order)."""
    assert_same(*both_ways(details_line(path)))


def test_a_stack_listed_twice_counts_once_and_variants_are_a_set() -> None:
    entry = spec("a", stacks=("root", "e4s", "root"), variants=("~b", "+a", "~b"))
    fast, full = both_ways(line_of([entry, spec("b", "2.0", ("root",), compiler="gcc@=12.1.0")]))
    assert_same(fast, full)
    assert fast.counts == (("e4s", 1), ("root", 2))
    config = Configuration(
        "ubuntu22.04", "linux", "x86_64_v3", "gcc@12.1.0", ("build_system=cmake",)
    )
    assert fast.versions_by_configuration()[config] == {"2.0"}
    assert fast.spellings()["gcc@12.1.0"] == "gcc@12.1.0"


def test_unsorted_entries_come_out_sorted() -> None:
    fast, full = both_ways(line_of([spec("c"), spec("a"), spec("b")]))
    assert list(fast) == sorted(full) and next(iter(fast)).startswith("a")


@pytest.mark.parametrize(
    "line",
    [
        line_of([spec("a", os='ubuntu"22')]),  # an escape in a string
        line_of([spec("a", target="x{86}")]),  # a brace in a string
        line_of([spec("a", stacks=("e4s]", "root"))]),  # a bracket in a list's string
        line_of([{k: v for k, v in spec("a").items() if k != "os"}]),  # a key missing
        json.dumps([dict(reversed(spec("a").items()))]).encode(),  # keys not sorted
        json.dumps([spec("a")], sort_keys=True, separators=(",", ":")).encode(),  # compact
        line_of([spec("a", tarball="https://x", size=12)]),  # the older generation
    ],
    ids=["escape", "brace", "bracket", "missing-key", "unsorted-keys", "compact", "tarball"],
)
def test_lines_in_any_layout_of_the_known_keys_are_decoded(line: bytes) -> None:
    assert_same(*both_ways(line))


@pytest.mark.parametrize(
    "line",
    [
        line_of([spec("a", zz={"nested": 1})]),  # a key a newer generator may add
        line_of([spec("a", extra=[["zz", "1"]])]),  # a key named as the record's own field
        line_of([spec("a", size={"nested": 1})]),  # a nested size
        line_of([spec("a", tarball=1)]),  # a tarball that is no string
        line_of([spec("a"), spec("a", "2.0")]),  # one hash twice
        line_of([spec("a", versions=[1])]),  # not a list of strings
        line_of([{k: v for k, v in spec("a").items() if k != "stacks"}]),  # no stacks
        line_of([spec("a")]).replace(b'"' + b"a" * 32 + b'"', b'""'),  # an empty hash
        line_of([spec("a", os="ubunt\u00fc")]).replace(b"\\u00fc", "ü".encode("latin-1")),
        line_of([spec("a")])[:-2] + b", tru}]",  # not JSON
    ],
    ids=[
        "another-key",
        "key-extra",
        "nested-size",
        "tarball-not-string",
        "hash-twice",
        "not-strings",
        "no-stacks",
        "empty-hash",
        "not-utf8",
        "not-json",
    ],
)
def test_lines_the_records_cannot_hold_are_left_to_a_full_parse(line: bytes) -> None:
    assert Entries.from_line(line, "page") is None


def test_other_keys_are_kept_as_canonical_json_after_a_full_parse() -> None:
    line = line_of([spec("a", extra=[["zz", "1"]], zz={"b": 1, "a": [2]})])
    full = Entries.from_read(check_entries(orjson.loads(line), "page"), "page")
    entry = full["a".ljust(32, "a")]
    assert entry.extra == (("extra", '[["zz", "1"]]'), ("zz", '{"a": [2], "b": 1}'))
    assert Spec.from_entry(entry).as_entry()["zz"] == {"a": [2], "b": 1}


def test_non_ascii_text_is_decoded() -> None:
    line = line_of([spec("a", variants=("cflags=é",))]).replace(b"\\u00e9", "é".encode())
    assert_same(*both_ways(line))


def test_an_empty_list() -> None:
    fast = Entries.from_line(b"[]", "page")
    assert (
        fast is not None
        and len(fast) == 0
        and fast.counts == ()
        and not fast.versions_by_configuration()
    )


def test_entries_that_differ_are_found_by_comparing_records() -> None:
    old = Entries.from_line(line_of([spec("a"), spec("b"), spec("c")]), "old")
    new = Entries.from_line(line_of([spec("a"), spec("b", stacks=("root",)), spec("d")]), "new")
    assert old is not None and new is not None
    assert new.differing(old) == ["b".ljust(32, "a"), "d".ljust(32, "a")]
    assert old.differing(new) == ["b".ljust(32, "a"), "c".ljust(32, "a")]
    d = "d".ljust(32, "a")
    assert new[d].versions == ("1.0",) and new[d] is new[d]  # decoded once, when read


def test_a_bad_entry_in_a_changed_page_is_found_while_loading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The line still looks like the generator's form, but one changed entry is not JSON: the
    page is refused whole, naming its line and the column."""
    old, new = tmp_path / "old", tmp_path / "new"
    write_page(old, "zlib", [spec("a"), spec("b")])
    write_page(old, "cmake", [spec("c")])
    write_page(new, "zlib", [spec("a"), spec("b", zz="x")])
    write_page(new, "cmake", [spec("c", "2.0")])
    bad = new / "_cache" / "develop" / "zlib" / "specs.md"
    bad.write_text(bad.read_text().replace('"zz": "x"', '"zz": tru'))
    assert Entries.from_line(details_line(bad), "x") is None
    with pytest.raises(InputError, match=f"^{bad}:6: spec_details is not valid JSON .* column"):
        load_pair(str(old), str(new))
    assert main([str(old), str(new), "--keep-going", "-f", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["incomplete"] and str(bad) in report["skipped"][0]
    assert [p["name"] for p in report["packages"]] == ["cmake"]


# Plain strings, and strings with every character a reading of the text could be fooled by.
plain = st.text(alphabet=st.sampled_from("ab1.-_=+@é"), max_size=6)
awkward = st.text(alphabet=st.sampled_from('ab1.-_"\\{}[], :é\u2028'), max_size=6)


def extras(strings: st.SearchStrategy[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Keys the generator may add: after `versions` (zz), or between others (tarball)."""
    return st.dictionaries(st.sampled_from(["zz", "tarball"]), strings | st.integers(), max_size=1)


def entries(strings: st.SearchStrategy[str]) -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(
        st.builds(
            lambda h, version, stacks, os_, variants, extra: spec(
                h, version, tuple(stacks), os=os_, variants=tuple(variants), **extra
            ),
            st.sampled_from([f"h{i}" for i in range(8)]),
            strings,
            st.lists(strings, max_size=3),
            strings,
            st.lists(strings, max_size=3),
            st.dictionaries(
                st.sampled_from(["zz", "tarball"]), strings | st.integers(), max_size=1
            ),
        ),
        max_size=6,
    )


@given(entries(plain) | entries(awkward), st.booleans())
@settings(max_examples=120, deadline=None)
def test_decoding_never_disagrees_with_a_full_parse(
    found: list[dict[str, Any]], sort_keys: bool
) -> None:
    """Whatever the strings hold, the decoded records agree with a full parse; they decline
    only a key of a newer generator or a tarball that is no string."""
    line = json.dumps(found, sort_keys=sort_keys, ensure_ascii=False).encode()
    fast = Entries.from_line(line, "page")
    try:
        full = Entries.from_read(check_entries(orjson.loads(line), "page"), "page")
    except InputError:
        assert fast is None  # a hash twice: only a full parse can say so
        return
    if fast is None:
        assert any("zz" in entry or type(entry.get("tarball", "")) is not str for entry in found)
    else:
        assert_same(fast, full)


def test_a_bad_entry_is_found_while_loading_even_when_both_sides_hold_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every entry of a page read is decoded and checked, with or without per-spec filters."""
    old, new = tmp_path / "old", tmp_path / "new"
    for root, version in ((old, "1.0"), (new, "2.0")):
        page = write_page(root, "zlib", [spec("a", zz="x"), spec("b", version)])
        page.write_text(page.read_text().replace('"zz": "x"', '"zz": tru'))  # a: not JSON
        write_page(root, "cmake", [spec("c", version)])
    for filters in ([], ["--os", "ubuntu*"]):
        assert main([str(old), str(new), *filters, "-f", "json"]) == 2
        assert "spec_details is not valid JSON" in capsys.readouterr().err
        assert main([str(old), str(new), *filters, "--keep-going", "-f", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["incomplete"] and [p["name"] for p in report["packages"]] == ["cmake"]


def test_equal_field_values_are_shared_between_records() -> None:
    """Records hold one copy of each distinct value (but the hash), across pages: the memory
    of a whole catalogue is that of its distinct values, not of its records' copies."""
    one = Entries.from_line(line_of([spec("a"), spec("b")]), "one")
    other = Entries.from_line(line_of([spec("c")]), "other")
    assert one is not None and other is not None
    a, b, c = one["a".ljust(32, "a")], one["b".ljust(32, "a")], other["c".ljust(32, "a")]
    assert a.variants is b.variants is c.variants and a.stacks is c.stacks
    assert a.compiler is c.compiler and a.os is c.os and a.versions is c.versions
    assert a.hash is not c.hash and a == Entries.from_read({a.hash: spec("a")}, "x")[a.hash]
