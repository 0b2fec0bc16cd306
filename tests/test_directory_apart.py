"""A directory NEW read in a forked child, which counts the content both sides hold
(`sources/dirapart.py`), while OLD is read and parsed here gives what reading it here gives: the
same pages, warnings, pages left out, errors and report."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec
import pytest
from forks import no_child_left
from gitrepo import git, new_repo
from pagegen import spec, write_page

from snapdiff.compare.diff import diff_snapshots
from snapdiff.errors import InputError
from snapdiff.model import Filters
from snapdiff.render import render_json
from snapdiff.sources import LoadOptions, SnapshotPair, dirapart, directory, load_pair
from snapdiff.sources.snapshot import PageCache

ROOT = Path(__file__).parent.parent
CASES = ROOT / "tests" / "cases"


@pytest.mark.parametrize(
    "sides",
    [
        (ROOT / "snapshots" / "v1", ROOT / "snapshots" / "v2"),
        (CASES / "real-v1-v2" / "old", CASES / "real-v1-v2" / "new"),
        (CASES / "release-to-release" / "old", CASES / "release-to-release" / "new"),
    ],
)
def test_a_directory_read_apart_is_the_directory_read_here(
    sides: tuple[Path, Path], forks: list[int]
) -> None:
    old, new = map(str, sides)
    here = load_pair(old, new, LoadOptions())
    assert not forks
    told: list[str] = []
    apart = load_pair(old, new, LoadOptions(apart=True, warn=told.append))
    assert len(forks) == 1 and no_child_left() and not told  # read there, not here again
    for mine, theirs in zip(here, apart, strict=True):
        assert mine.pages == theirs.pages and mine.warnings == theirs.warnings
    assert render_json(diff_snapshots(*apart)) == render_json(diff_snapshots(*here))


def sides(tmp_path: Path, bad: str) -> tuple[str, str]:
    """OLD and NEW directories, the `bad` one ("old" or "new") with a page that is not JSON."""
    for side in ("old", "new"):
        write_page(tmp_path / side, "zlib", [spec("a1"), spec("b2")])
    broken = write_page(tmp_path / bad, "zstd", [spec("c3")])
    broken.write_text(broken.read_text().replace('"hash"', "hash"))
    return str(tmp_path / "old"), str(tmp_path / "new")


def test_pages_left_out_apart_are_said_as_here(tmp_path: Path, forks: list[int]) -> None:
    old, new = sides(tmp_path, "new")
    here = load_pair(old, new, LoadOptions(keep_going=True))
    apart = load_pair(old, new, LoadOptions(keep_going=True, apart=True))
    assert len(forks) == 1 and no_child_left()
    assert apart.new.skipped == here.new.skipped and "zstd" in here.new.skipped[0]
    assert apart.new.skipped_keys == here.new.skipped_keys == {("develop", "zstd")}


def test_the_error_of_a_directory_read_apart_is_said_as_here(
    tmp_path: Path, forks: list[int]
) -> None:
    old, new = sides(tmp_path, "new")
    with pytest.raises(InputError) as here:
        load_pair(old, new, LoadOptions())
    with pytest.raises(InputError) as apart:
        load_pair(old, new, LoadOptions(apart=True))
    assert len(forks) == 1 and no_child_left()
    assert apart.value.message == here.value.message and "zstd" in here.value.message


def test_the_child_is_stopped_when_old_fails(tmp_path: Path, forks: list[int]) -> None:
    old, new = sides(tmp_path, "old")
    with pytest.raises(InputError, match=r"old/_cache/develop/zstd"):
        load_pair(old, new, LoadOptions(apart=True))
    assert len(forks) == 1 and no_child_left()


def test_a_child_that_fails_leaves_the_directory_to_be_read_here(
    tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    parent, read = os.getpid(), directory.read_directory

    def broken_there(*args: object) -> object:
        if os.getpid() != parent:
            raise RuntimeError("a bug in the child")
        return read(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(dirapart, "read_directory", broken_there)
    old, new = sides(tmp_path, "old")
    write_page(tmp_path / "old", "zstd", [spec("c3")])  # mended
    told: list[str] = []
    pair = load_pair(old, new, LoadOptions(apart=True, warn=told.append))
    assert len(forks) == 1 and no_child_left()
    assert told == [f"{new}: reading it in a second process failed (exit code 1); read here"]
    assert sorted(name for _, name in pair.new.pages) == ["zlib"]


def test_a_file_name_that_is_not_utf8_is_read_apart_as_here(
    tmp_path: Path, forks: list[int]
) -> None:
    """A name's undecodable bytes (lone surrogates in Python) cross to this process intact,
    in a page's path and in an error naming it."""
    old, new = sides(tmp_path, "old")
    write_page(tmp_path / "old", "zstd", [spec("c3")])  # mended
    named = os.path.join(os.fsencode(new), b"jax\xff.md")
    with open(named, "wb") as page:
        page.write((tmp_path / "old" / "_cache" / "develop" / "zstd" / "specs.md").read_bytes())
    here = load_pair(old, new, LoadOptions())
    told: list[str] = []
    apart = load_pair(old, new, LoadOptions(apart=True, warn=told.append))
    assert not told and len(forks) == 1 and no_child_left()
    assert [p.source for p in apart.new.pages.values()] == [
        p.source for p in here.new.pages.values()
    ]
    assert any("\udcff" in p.source for p in here.new.pages.values())
    linked = os.path.join(os.fsencode(new), b"_cache", b"develop", b"jax\xff")
    os.makedirs(linked)
    os.symlink(named, os.path.join(linked, b"specs.md"))  # refused as it is read: in the child
    with pytest.raises(InputError) as error_here:
        load_pair(old, new, LoadOptions())
    with pytest.raises(InputError) as error_apart:
        load_pair(old, new, LoadOptions(apart=True, warn=told.append))
    assert not told and error_apart.value.message == error_here.value.message
    assert "\\xff" in error_here.value.message
    kept_here = load_pair(old, new, LoadOptions(keep_going=True))
    kept_apart = load_pair(old, new, LoadOptions(keep_going=True, apart=True, warn=told.append))
    assert not told and kept_apart.new.skipped == kept_here.new.skipped
    assert kept_apart.new.skipped_keys == kept_here.new.skipped_keys == {("develop", "jax\udcff")}


def mixed(tmp_path: Path) -> tuple[str, str]:
    """OLD and NEW directories holding each case a side's pages can be in: content both hold
    (one page with a `meta` that disagrees, one bad), content one side holds (changed pages,
    one with a disagreeing `meta`, one bad on each side), and one content at two places (of
    each kind)."""
    old, new = tmp_path / "old", tmp_path / "new"
    for side in (old, new):
        write_page(side, "zlib", [spec("a1"), spec("b2")])
        lying = write_page(side, "cmake", [spec("c3")])
        lying.write_text(lying.read_text().replace('"num_specs": 1', '"num_specs": 4'))
        broken = write_page(side, "bzip2", [spec("d4")])
        broken.write_text(broken.read_text().replace('"hash"', "hash"))
    write_page(old, "curl", [spec("e5", "8.0")])
    write_page(new, "curl", [spec("e5", "8.1"), spec("f6", "8.1", ("e4s",))])
    for side, version in ((old, "1.0"), (new, "2.0")):
        lying = write_page(side, "xz", [spec("g7", version)])
        lying.write_text(lying.read_text().replace('"num_specs": 1', '"num_specs": 2'))
        broken = write_page(side, f"zstd-{side.name}", [spec("h8")])
        broken.write_text(broken.read_text().replace('"hash"', "hash"))
    copy = new / "notes" / "curl.md"  # a page by its content, where another place holds it
    copy.parent.mkdir()
    copy.write_bytes((new / "_cache" / "develop" / "curl" / "specs.md").read_bytes())
    first = new / "A-first" / "cmake.md"  # content both hold, first placed before `_cache`
    first.parent.mkdir()
    first.write_bytes((new / "_cache" / "develop" / "cmake" / "specs.md").read_bytes())
    return str(old), str(new)


def read_here_after_all(
    old: str, new: str, code: int, forks: list[int], filters: Filters | None = None
) -> tuple[SnapshotPair, SnapshotPair]:
    """The pair read without a child, and with one that fails (exit `code`, said once, then
    NEW read here): both, to compare."""
    here = load_pair(old, new, LoadOptions(keep_going=True), filters)
    told: list[str] = []
    options = LoadOptions(keep_going=True, apart=True, warn=told.append)
    apart = load_pair(old, new, options, filters)
    assert len(forks) == 1 and no_child_left()
    assert told == [f"{new}: reading it in a second process failed (exit code {code}); read here"]
    for mine, theirs in zip(here, apart, strict=True):
        assert mine.pages == theirs.pages and mine.skipped == theirs.skipped
    return here, apart


@pytest.mark.parametrize("filters", [None, Filters(package=("*",)), Filters(stack=("*",))])
def test_each_case_of_a_page_read_apart_is_as_read_here(
    tmp_path: Path, forks: list[int], filters: Filters | None
) -> None:
    old, new = mixed(tmp_path)
    with pytest.raises(InputError) as here:
        load_pair(old, new, LoadOptions(), filters)
    with pytest.raises(InputError) as apart:
        load_pair(old, new, LoadOptions(apart=True), filters)
    assert len(forks) == 1 and no_child_left()
    assert apart.value.message == here.value.message and "new/_cache" in here.value.message
    kept = load_pair(old, new, LoadOptions(keep_going=True), filters)
    told: list[str] = []
    options = LoadOptions(keep_going=True, apart=True, warn=told.append)
    open_before = os.listdir("/proc/self/fd")
    kept_apart = load_pair(old, new, options, filters)
    assert os.listdir("/proc/self/fd") == open_before  # no descriptor left open
    assert len(forks) == 2 and no_child_left() and not told
    for mine, theirs in zip(kept, kept_apart, strict=True):
        assert mine.pages == theirs.pages and mine.warnings == theirs.warnings
        assert mine.skipped == theirs.skipped and mine.skipped_keys == theirs.skipped_keys
    assert len(kept.new.skipped) == 4 and len(kept.old.skipped) == 2  # bzip2, zstd; 2 copies
    assert any("new/A-first/cmake.md" in w for w in kept.old.warnings)  # NEW's first place
    assert render_json(diff_snapshots(*kept_apart)) == render_json(diff_snapshots(*kept))


def test_a_child_that_fails_after_listing_leaves_the_counting_here(
    tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = mixed(tmp_path)
    parent, parse = os.getpid(), PageCache.parse

    def broken_there(cache: PageCache, raw: object) -> object:
        if os.getpid() != parent:
            raise RuntimeError("a bug in the child")
        return parse(cache, raw)  # type: ignore[arg-type]

    monkeypatch.setattr(PageCache, "parse", broken_there)
    here, apart = read_here_after_all(old, new, 1, forks)
    for mine, theirs in zip(here, apart, strict=True):
        assert mine.warnings == theirs.warnings


def test_a_directory_beside_a_revision_is_read_apart_as_here(
    tmp_path: Path, forks: list[int]
) -> None:
    """OLD a git revision, whose pages its own load reads."""
    old, new = mixed(tmp_path)
    repo = new_repo(tmp_path / "repo")
    os.rename(old, repo / "catalogue")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "old")
    sides = ("HEAD:catalogue", new)
    here = load_pair(*sides, LoadOptions(repo=str(repo), keep_going=True))
    told: list[str] = []
    options = LoadOptions(repo=str(repo), keep_going=True, apart=True, warn=told.append)
    apart = load_pair(*sides, options)
    assert len(forks) == 1 and no_child_left() and not told
    for mine, theirs in zip(here, apart, strict=True):
        assert mine.pages == theirs.pages and mine.warnings == theirs.warnings
        assert mine.skipped == theirs.skipped
    assert any("new/A-first/cmake.md" in w for w in here.new.warnings)  # NEW counted it


def test_the_child_counts_while_old_s_own_pages_are_parsed_here(
    tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The split itself: the child counts the content both sides hold (sent back counted),
    and this process parses OLD's own pages before it waits for the child. A pair of 2,100
    pages a side: its listing (over 200 KB) and its answer (1,680 digests, about 70 KB) are
    each more than a pipe holds (64 KiB)."""
    old, new = tmp_path / "old", tmp_path / "new"
    for number in range(2100):
        for side in (old, new):
            write_page(side, f"p{number:04}", [spec(f"a{number:04}")])
        if number % 5 == 0:
            write_page(new, f"p{number:04}", [spec(f"b{number:04}")])
    events: list[str] = []
    parse, joined = PageCache.parse, dirapart._ReadApart._joined
    rebuilt = dirapart._Counted.parsed

    def parsed_here(cache: PageCache, raw: Any) -> Any:
        events.append("parsed " + raw.source)
        return parse(cache, raw)

    def join(self: Any) -> Any:
        events.append("joined")
        return joined(self)

    monkeypatch.setattr(PageCache, "parse", parsed_here)
    monkeypatch.setattr(dirapart._ReadApart, "_joined", join)

    def counted(self: Any) -> Any:
        events.append("counted")
        return rebuilt(self)

    monkeypatch.setattr(dirapart._Counted, "parsed", counted)
    pair = load_pair(str(old), str(new), LoadOptions(apart=True))
    assert len(forks) == 1 and no_child_left()
    here = load_pair(str(old), str(new), LoadOptions())
    assert pair.new.pages == here.new.pages and pair.old.pages == here.old.pages
    assert events.count("counted") == 1680  # the pages both sides hold, counted there
    wait = events.index("joined")
    before = [e for e in events[:wait] if e.startswith("parsed ")]
    assert len(before) == 420 and all("/old/" in e for e in before)  # OLD's own, beside it


def test_a_child_gone_before_it_hears_what_both_hold_leaves_the_reading_here(
    tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child lists NEW and ends before reading the answer (its end of that pipe closed
    first, so the answer meets no reader): this process says so and reads NEW itself."""

    def gone(arg: str, keep_going: bool, listed: int, answered: int) -> object:
        os.close(answered)
        pages, _ = dirapart._read(arg, keep_going)
        with os.fdopen(listed, "wb") as pipe:
            pipe.write(msgspec.msgpack.encode(dirapart._listing(pages)))
        os._exit(5)

    monkeypatch.setattr(dirapart, "_there", gone)
    old, new = mixed(tmp_path)
    read_here_after_all(old, new, 5, forks, Filters(stack=("*",)))  # every entry: an answer `[]`


def test_a_listing_cut_short_leaves_the_reading_here(
    tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def cut(arg: str, keep_going: bool, listed: int, answered: int) -> object:
        pages, _ = dirapart._read(arg, keep_going)
        with os.fdopen(listed, "wb") as pipe:
            pipe.write(msgspec.msgpack.encode(dirapart._listing(pages))[:-9])
        os._exit(6)

    monkeypatch.setattr(dirapart, "_there", cut)
    old, new = mixed(tmp_path)
    read_here_after_all(old, new, 6, forks)
