"""A local index side read in a forked child (`sources/mirror/apart.py`) while the other side
is read gives what reading it here gives: the same graph, pages, warnings, errors and report."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from snapdiff.compare.diff import diff_snapshots
from snapdiff.errors import InputError
from snapdiff.render import render_json
from snapdiff.sources import LoadOptions, load_pair
from snapdiff.sources.mirror import apart as apart_module

CASES = Path(__file__).parent / "cases"


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The children forked (their pids), `os.fork` otherwise unchanged."""
    made: list[int] = []
    fork: Callable[[], int] = os.fork

    def counted() -> int:
        pid = fork()
        if pid:
            made.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counted)
    return made


def no_child_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.mark.parametrize(
    "case", ["causes-generated", "causes-real-v7", "causes-real-v8", "causes-hash-scheme"]
)
def test_a_side_read_apart_is_the_side_read_here(case: str, forks: list[int]) -> None:
    old, new = str(CASES / case / "old"), str(CASES / case / "new")
    here = load_pair(old, new, LoadOptions())
    assert not forks
    apart = load_pair(old, new, LoadOptions(apart=True))
    assert len(forks) == 1 and no_child_left()
    for mine, theirs in zip(here, apart, strict=True):
        assert mine.graph is not None and theirs.graph is not None
        assert list(mine.graph.nodes.items()) == list(theirs.graph.nodes.items())
        assert dict(mine.graph.stacks) == dict(theirs.graph.stacks)
        assert mine.pages == theirs.pages and mine.warnings == theirs.warnings
    assert render_json(diff_snapshots(*here)) == render_json(diff_snapshots(*apart))


def write(path: Path, installs: dict[str, Any]) -> str:
    path.write_text(json.dumps({"database": {"version": "8", "installs": installs}}))
    return str(path)


GOOD = {"a" * 32: {"spec": {"name": "zlib", "version": "1.3"}, "in_buildcache": True}}
EDGE = {"name": "zlib", "hash": "a" * 32, "parameters": {"deptypes": ["link"], "virtuals": []}}
TWICE = {"b" * 32: {"spec": {"name": "x", "dependencies": [EDGE, EDGE]}, "in_buildcache": True}}
BAD = {"a" * 32: {"spec": {"name": "zlib", "version": "1.3", "arch": 3}, "in_buildcache": True}}


def test_an_edge_listed_twice_is_told_from_apart(tmp_path: Path, forks: list[int]) -> None:
    old, new = write(tmp_path / "old.json", GOOD), write(tmp_path / "new.json", {**GOOD, **TWICE})
    here = load_pair(old, new, LoadOptions())[1].warnings
    assert here == load_pair(old, new, LoadOptions(apart=True))[1].warnings and len(forks) == 1
    assert any("1 dependency edges listed twice" in warning for warning in here)


def test_the_error_of_a_side_read_apart_is_said_as_here(tmp_path: Path, forks: list[int]) -> None:
    old, new = write(tmp_path / "old.json", GOOD), write(tmp_path / "new.json", BAD)
    with pytest.raises(InputError) as here:
        load_pair(old, new, LoadOptions())
    with pytest.raises(InputError) as apart:
        load_pair(old, new, LoadOptions(apart=True))
    assert len(forks) == 1 and no_child_left()
    assert apart.value.message == here.value.message and "arch" in here.value.message


def test_a_child_that_fails_leaves_the_side_to_be_read_here(
    tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(read: object) -> bytes:
        raise RuntimeError("a bug in the child")

    monkeypatch.setattr(apart_module, "_encode", broken)
    old, new = write(tmp_path / "old.json", GOOD), write(tmp_path / "new.json", {**GOOD, **TWICE})
    pair = load_pair(old, new, LoadOptions(apart=True))
    assert len(forks) == 1 and no_child_left()
    assert pair[1].graph is not None and set(pair[1].graph.nodes) == {"a" * 32, "b" * 32}


def test_the_child_is_stopped_when_the_other_side_fails(tmp_path: Path, forks: list[int]) -> None:
    old, new = write(tmp_path / "old.json", BAD), write(tmp_path / "new.json", GOOD)
    with pytest.raises(InputError, match=r"old\.json"):
        load_pair(old, new, LoadOptions(apart=True))
    assert len(forks) == 1 and no_child_left()
