"""`snapdiff log` over a range of at least eight commits diffs its later half in a forked child
(`history/apart.py`) while it diffs the first: the same bytes as one walk, the same errors, each
warning once, and the whole range diffed here when the child fails."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from forks import no_child_left
from gitrepo import commit, git, place
from pagegen import HISTORY, SEEDS, spec, write_page

import snapdiff.history.apart as apart_module
from snapdiff.cli import main
from snapdiff.history import Pair, stepped
from snapdiff.sources import histories


def _real_range(root: Path) -> Path:
    """Ten commits of real pages after `base`, py-keras leaving in the first half and coming
    back in the second (a flapping spec across the halves), a site-only commit among them."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    place(root, HISTORY)
    commit(root, "base", 1)
    git(root, "tag", "base")
    keras = [s for s in SEEDS if "py-keras" in s.read_text()]
    for day in range(2, 12):
        if day == 3:
            shutil.rmtree(root / "_cache" / "develop" / "py-keras")
        elif day == 9:
            place(root, keras)
        elif day == 6:
            (root / "README.md").write_text("not a page\n")
        else:
            place(root, SEEDS if day % 2 else HISTORY)
            if day > 3 and day < 9:
                shutil.rmtree(root / "_cache" / "develop" / "py-keras", ignore_errors=True)
        commit(root, f"day {day}", day)
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _real_range(tmp_path_factory.mktemp("range") / "repo")


def _log(repo: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["log", "--repo", str(repo), "base..main", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _cmake_range(root: Path, day: Callable[[Path, int], None]) -> Path:
    """`base` with zlib, then ten daily commits each bumping cmake, `day` changing more."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_page(root, "zlib", [spec("a1", "1.0")])
    commit(root, "base", 1)
    git(root, "tag", "base")
    for number in range(2, 12):
        write_page(root, "cmake", [spec(f"c{number}", f"3.{number}")])
        day(root, number)
        commit(root, f"day {number}", number)
    return root


def _whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """No range long enough to be halved: one walk, here."""
    monkeypatch.setattr(histories, "_HALF_LEAST", 10**9)


@pytest.mark.parametrize("output", ["markdown", "json"])
def test_a_range_diffed_in_halves_is_the_range_diffed_whole(
    repo: Path,
    output: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    forks: list[int],
) -> None:
    halves = _log(repo, capsys, "--format", output)
    assert len(forks) == 1 and no_child_left()
    _whole(monkeypatch)
    whole = _log(repo, capsys, "--format", output)
    assert len(forks) == 1
    assert halves == whole and whole[0] == 0
    if output == "json":  # the walk's state crossed the halves: py-keras left, then came back
        assert '"flapping": [\n    {' in whole[1] and '"py-keras"' in whole[1]


def test_an_error_in_the_later_half_is_said_as_in_one_walk(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    forks: list[int],
) -> None:
    root = _real_range(tmp_path / "bad")
    bad = write_page(root, "zlib", [spec("a1")])
    bad.write_text(bad.read_text().replace('"hash"', "hash"))
    commit(root, "a broken page", 12)
    halves = _log(root, capsys)
    assert len(forks) == 1 and no_child_left()
    _whole(monkeypatch)
    assert halves == _log(root, capsys)
    assert halves[0] == 2 and "zlib" in halves[2] and halves[1] == ""


def test_a_warning_both_halves_give_is_said_once(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], forks: list[int]
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder\n")
    code = main(["log", "--repo", str(repo), "base..main", "--cache-dir", str(blocked)])
    err = capsys.readouterr().err
    assert code == 0 and len(forks) == 1 and no_child_left()
    assert err.count("cannot write the cache") == 1, err


def _child_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()

    def broken_there(*args: object) -> object:
        if os.getpid() != parent:
            raise RuntimeError("a bug in the child")
        return stepped(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(apart_module, "stepped", broken_there)


def _message_cut_short(monkeypatch: pytest.MonkeyPatch) -> None:
    """Was an internal error: the last step was unpickled late."""
    encode = apart_module._Later.encode
    monkeypatch.setattr(apart_module._Later, "encode", lambda later: encode(later)[:-1])


@pytest.mark.parametrize(
    ("broken", "why"),
    [(_child_raises, "exit code 1"), (_message_cut_short, "its message unreadable: ValueError")],
)
def test_a_child_that_fails_or_whose_message_is_cut_short_leaves_the_later_half_here(
    broken: Callable[[pytest.MonkeyPatch], None],
    why: str,
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    forks: list[int],
) -> None:
    _, expected, _ = _log(repo, capsys)
    forks.clear()
    broken(monkeypatch)
    code, out, err = _log(repo, capsys)
    assert code == 0 and out == expected and len(forks) == 1 and no_child_left()
    assert f"main: the later half failed in a second process ({why}); diffed here" in err


def test_a_page_twice_before_the_middle_reads_as_in_one_walk(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    forks: list[int],
) -> None:
    """A page outside `_cache/` claiming a package a tag folder holds turns the walk to
    holding every page from that step on (`MixedUnits`); the later half, from the middle, reads
    as one walk would, keeping going past the second page and after it is gone."""
    from pagegen import page_text

    def day(root: Path, number: int) -> None:
        if number == 3:
            (root / "site").mkdir()
            (root / "site" / "zlib.md").write_text(page_text("zlib", "develop", [spec("z9")]))
        if number == 9:
            shutil.rmtree(root / "site")

    root = _cmake_range(tmp_path / "twice", day)
    turned, whole_history = tmp_path / "turned", histories._whole_history

    def noted(*args: Any) -> Any:  # each process that turns to holding every page, noted
        with turned.open("a") as note:
            note.write(f"{os.getpid()}\n")
        return whole_history(*args)

    monkeypatch.setattr(histories, "_whole_history", noted)
    halves = _log(root, capsys, "--keep-going", "--format", "json")
    assert len(forks) == 1 and no_child_left()
    assert len(set(turned.read_text().split())) == 2  # both halves held every page
    _whole(monkeypatch)
    whole = _log(root, capsys, "--keep-going", "--format", "json")
    assert halves == whole and whole[0] == 0 and '"packages_changed": 1' in whole[1]


def test_the_later_half_s_warnings_come_before_its_error(forks: list[int]) -> None:
    """A half that warns, then fails: the warnings said, then its error, as one walk says them."""
    from snapdiff.errors import InputError
    from snapdiff.history.apart import history_apart

    def later(warn: Callable[[str], None]) -> Iterator[Pair]:
        warn("a cache file ignored")
        raise InputError("HEAD~3:_cache/develop/jax\udcff/specs.md", "not a page", "fix it")
        yield

    told: list[str] = []
    with pytest.raises(InputError) as error:
        history_apart([lambda warn: [], later], "A", "B", told.append)
    assert len(forks) == 1 and no_child_left()
    assert told == ["a cache file ignored"]
    assert error.value.message == "HEAD~3:_cache/develop/jax\\xff/specs.md: not a page (fix it)"


def test_a_bad_page_across_the_middle_is_left_out_as_in_one_walk(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    forks: list[int],
) -> None:
    """A page that is not JSON from before the middle to after it, kept going past: each half
    leaves it out where one walk does (the later half's first check is the middle commit's).
    Each page left out is said once, as a warning, and in the report, marked incomplete."""

    def day(root: Path, number: int) -> None:
        if number == 4:
            bad = write_page(root, "zstd", [spec("z1")])
            bad.write_text(bad.read_text().replace('"hash"', "hash"))
        if number == 9:
            write_page(root, "zstd", [spec("z1")])

    root = _cmake_range(tmp_path / "bad", day)
    least = histories._HALF_LEAST
    for output in ("json", "markdown"):
        monkeypatch.setattr(histories, "_HALF_LEAST", least)
        halves = _log(root, capsys, "--keep-going", "--format", output)
        _whole(monkeypatch)
        whole = _log(root, capsys, "--keep-going", "--format", output)
        assert halves == whole and whole[0] == 0 and "cmake" in whole[1]
        left_out = [line for line in whole[2].splitlines() if "warning: skipped" in line]
        assert len(left_out) == 5 and all("zstd" in line for line in left_out)  # days 4-8
        said = (
            ('"incomplete": true', '"skipped": [')
            if output == "json"
            else (
                "**⚠️ Incomplete:** 5 pages could not be read and were left out, counted once"
                " in each commit holding them (listed at the end).",
                "<summary>Pages left out (5)</summary>",
            )
        )
        assert all(words in whole[1] for words in said)
    assert len(forks) == 2 and no_child_left()  # one a format, for the halves
