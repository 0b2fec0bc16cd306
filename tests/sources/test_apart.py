"""A local index side read in a forked child (`sources/mirror/apart.py`) while the other side
is read gives what reading it here gives: the same graph, pages, warnings, errors and report."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from forks import no_child_left

from snapdiff.compare.diff import diff_snapshots
from snapdiff.errors import InputError
from snapdiff.render import render_json
from snapdiff.sources import LoadOptions, load_pair
from snapdiff.sources.mirror import apart as apart_module
from snapdiff.sources.mirror.apart import Apart
from snapdiff.sources.mirror.index import Read

CASES = Path(__file__).parents[1] / "cases"


@pytest.mark.parametrize(
    "case", ["causes-generated", "causes-real-v7", "causes-real-v8", "causes-hash-scheme"]
)
def test_a_side_read_apart_is_the_side_read_here(case: str, forks: list[int]) -> None:
    old, new = str(CASES / case / "old"), str(CASES / case / "new")
    here = load_pair(old, new, LoadOptions())
    assert not forks
    told: list[str] = []
    apart = load_pair(old, new, LoadOptions(jobs=2, warn=told.append))
    assert len(forks) == 1 and no_child_left() and not told  # read there, not here again
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
    assert here == load_pair(old, new, LoadOptions(jobs=2))[1].warnings and len(forks) == 1
    assert any("1 dependency edges listed twice" in warning for warning in here)


@pytest.mark.parametrize("apart", [False, True])
def test_the_sides_share_their_values_and_count_their_own(tmp_path: Path, apart: bool) -> None:
    """Values equal on both sides are one object (compared by identity); each side's warnings
    count its own edges listed twice."""
    more = {"c" * 32: {"spec": {"name": "y", "dependencies": [EDGE, EDGE]}, "in_buildcache": True}}
    old = write(tmp_path / "old.json", {**GOOD, **TWICE})
    new = write(tmp_path / "new.json", {**GOOD, **TWICE, **more})
    pair = load_pair(old, new, LoadOptions(jobs=2 if apart else 1))
    assert pair.old.graph is not None and pair.new.graph is not None
    before, after = pair.old.graph.nodes, pair.new.graph.nodes
    assert [(k, v) for k, v in before.items() if k in after] == [(k, after[k]) for k in before]
    for digest in before:
        mine, theirs = before[digest], after[digest]
        assert mine is not theirs and mine.kinds is theirs.kinds and mine.name is theirs.name
        assert next(d for d in after if d == digest) is next(d for d in before if d == digest)
    assert any("1 dependency edges listed twice" in w for w in pair.old.warnings)
    assert any("2 dependency edges listed twice" in w for w in pair.new.warnings)


def test_the_error_of_a_side_read_apart_is_said_as_here(tmp_path: Path, forks: list[int]) -> None:
    old, new = write(tmp_path / "old.json", GOOD), write(tmp_path / "new.json", BAD)
    with pytest.raises(InputError) as here:
        load_pair(old, new, LoadOptions())
    with pytest.raises(InputError) as apart:
        load_pair(old, new, LoadOptions(jobs=2))
    assert len(forks) == 1 and no_child_left()
    assert apart.value.message == here.value.message and "arch" in here.value.message


def test_a_child_that_fails_leaves_the_side_to_be_read_here(
    tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(read: object) -> bytes:
        raise RuntimeError("a bug in the child")

    monkeypatch.setattr(apart_module, "_encode", broken)
    old, new = write(tmp_path / "old.json", GOOD), write(tmp_path / "new.json", {**GOOD, **TWICE})
    pair = load_pair(old, new, LoadOptions(jobs=2))
    assert len(forks) == 1 and no_child_left()
    assert pair[1].graph is not None and set(pair[1].graph.nodes) == {"a" * 32, "b" * 32}


def test_the_child_is_stopped_when_the_other_side_fails(tmp_path: Path, forks: list[int]) -> None:
    old, new = write(tmp_path / "old.json", BAD), write(tmp_path / "new.json", GOOD)
    with pytest.raises(InputError, match=r"old\.json"):
        load_pair(old, new, LoadOptions(jobs=2))
    assert len(forks) == 1 and no_child_left()


def test_an_error_the_child_cannot_send_is_said_by_this_process(
    tmp_path: Path, forks: list[int]
) -> None:
    """A path that is no UTF-8 cannot go down the pipe in msgpack: the child ends (never running
    the caller's code), and this process reads the side and says the error itself."""
    parent = os.getpid()
    folder = Path(os.fsdecode(bytes(tmp_path) + b"/bad\xff"))
    folder.mkdir()
    old, new = write(tmp_path / "old.json", GOOD), write(folder / "index.json", BAD)
    try:
        load_pair(old, new, LoadOptions(jobs=2))
    except InputError as error:
        if os.getpid() != parent:  # the child ran on into this test: tell the parent, and end
            (tmp_path / "escaped").write_text("child")
            os._exit(3)
        assert "arch" in error.message
    else:
        raise AssertionError("no error")
    assert len(forks) == 1 and no_child_left() and not (tmp_path / "escaped").exists()


def test_a_failed_fork_leaves_the_side_to_be_read_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refused)
    old, new = write(tmp_path / "old.json", GOOD), write(tmp_path / "new.json", {**GOOD, **TWICE})
    before = len(os.listdir("/proc/self/fd"))
    pair = load_pair(old, new, LoadOptions(jobs=2))
    assert pair[1].graph is not None and set(pair[1].graph.nodes) == {"a" * 32, "b" * 32}
    assert len(os.listdir("/proc/self/fd")) == before  # no pipe left open


def test_an_interrupt_while_waiting_for_the_child_stays_an_interrupt(
    tmp_path: Path, forks: list[int]
) -> None:
    def slow(shared: object) -> Read:
        time.sleep(30)
        raise AssertionError("never read")

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    apart = Apart(slow, told=lambda code: None)
    was = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(KeyboardInterrupt):
            apart.join()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, was)
    apart.cancel()  # as load_pair does: no error of its own
    assert len(forks) == 1 and no_child_left()


def test_a_child_that_fails_is_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(read: object) -> bytes:
        raise RuntimeError("a bug in the child")

    monkeypatch.setattr(apart_module, "_encode", broken)
    told: list[str] = []
    old, new = write(tmp_path / "old.json", GOOD), write(tmp_path / "new.json", GOOD)
    load_pair(old, new, LoadOptions(jobs=2, warn=told.append))
    assert told == [f"{new}: reading it in a second process failed (exit code 1); read here"]


def test_a_compiler_is_spelled_from_the_index_that_holds_its_record(tmp_path: Path) -> None:
    """Two mirrors: the first lists a compiler edge without the compiler's record, the second
    holds the record; each record's compiler comes from its own index (not a spelling kept from
    the other)."""
    gcc = {
        "name": "gcc",
        "hash": "g" * 32,
        "parameters": {"deptypes": ["build"], "virtuals": ["c"]},
    }

    def record(name: str) -> dict[str, Any]:
        return {
            "spec": {"name": name, "version": "1", "dependencies": [gcc]},
            "in_buildcache": True,
        }

    compiler = {"spec": {"name": "gcc", "version": "13.2.0"}, "in_buildcache": False}
    for stack, installs in (
        ("a", {"z" * 32: record("zlib")}),
        ("b", {"y" * 32: record("bzip2"), "g" * 32: compiler}),
    ):
        (tmp_path / "m" / stack / "build_cache").mkdir(parents=True)
        write(tmp_path / "m" / stack / "build_cache" / "index.json", installs)
    graph = load_pair(str(tmp_path / "m"), str(tmp_path / "m"))[1].graph
    assert graph is not None
    assert (graph.nodes["z" * 32].compiler, graph.nodes["y" * 32].compiler) == ("gcc", "gcc@13.2.0")


def test_the_child_says_nothing_on_the_terminal(
    tmp_path: Path, forks: list[int], capfd: pytest.CaptureFixture[str]
) -> None:
    """Progress is this process's alone: a line the child rewrote would be left on screen."""
    old, new = write(tmp_path / "old.json", GOOD), write(tmp_path / "new.json", GOOD)

    def progress(what: str) -> None:
        print(what, file=sys.stderr, flush=True)

    load_pair(old, new, LoadOptions(jobs=2, progress=progress))
    said = capfd.readouterr().err
    assert len(forks) == 1 and f"{old}: decoding" in said and f"{new}: decoding" not in said
