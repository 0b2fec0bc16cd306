"""The causes of rebuilds worked out in a forked child (`compare/causesapart.py`) while the
pages are compared give what working them out here gives; a child that fails leaves them to be
worked out here, said on stderr; an error meanwhile leaves no child behind."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from snapdiff.cli import main
from snapdiff.compare import causesapart
from snapdiff.compare.causesapart import CausesApart
from snapdiff.compare.diff import diff_snapshots
from snapdiff.model import Filters, Graph
from snapdiff.render import render_json, render_markdown
from snapdiff.sources import LoadOptions, load_pair

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
def test_causes_worked_out_apart_are_those_worked_out_here(case: str, forks: list[int]) -> None:
    pair = load_pair(str(CASES / case / "old"), str(CASES / case / "new"))
    told: list[str] = []
    here = diff_snapshots(*pair)
    assert not forks
    apart = diff_snapshots(*pair, apart=CausesApart(told.append))
    assert len(forks) == 1 and no_child_left() and not told
    assert apart.rebuilds is not None and apart.rebuilds.rebuilt
    assert apart == here
    assert render_json(apart) == render_json(here)
    assert render_markdown(apart) == render_markdown(here)


def test_filters_narrow_the_causes_worked_out_apart(forks: list[int]) -> None:
    old, new = str(CASES / "causes-generated" / "old"), str(CASES / "causes-generated" / "new")
    narrow = Filters(package=("lib*", "a*"))
    pair = load_pair(old, new, filters=narrow)
    here = diff_snapshots(*pair, narrow)
    apart = diff_snapshots(*pair, narrow, apart=CausesApart(print))
    assert here.rebuilds is not None and len(forks) == 1
    assert apart.rebuilds == here.rebuilds


def test_pages_say_nothing_and_fork_nothing(forks: list[int]) -> None:
    pair = load_pair(str(Path("snapshots") / "v1"), str(Path("snapshots") / "v2"))
    assert diff_snapshots(*pair, apart=CausesApart(print)).rebuilds is None
    assert not forks


def test_a_child_that_fails_is_told_and_the_causes_worked_out_here(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(found: object) -> bytes:
        raise RuntimeError("a bug in the child")

    case = CASES / "causes-generated"
    expected = render_json(diff_snapshots(*load_pair(str(case / "old"), str(case / "new"))))
    monkeypatch.setattr(causesapart, "_encode", broken)
    out = main([str(case / "old"), str(case / "new"), "--format", "json"])
    captured = capsys.readouterr()
    assert out == 0 and captured.out == expected
    assert (
        "snapdiff: warning: working out why specs were rebuilt in a second process failed"
        " (status 256); worked out here\n" in captured.err
    )


def test_an_error_while_comparing_pages_leaves_no_child(
    monkeypatch: pytest.MonkeyPatch, forks: list[int]
) -> None:
    from snapdiff.compare import diff

    def failing(*args: object) -> None:
        raise KeyboardInterrupt

    pair = load_pair(
        str(CASES / "causes-generated" / "old"), str(CASES / "causes-generated" / "new")
    )
    monkeypatch.setattr(diff, "stack_coverage", failing)
    with pytest.raises(KeyboardInterrupt):
        diff_snapshots(*pair, apart=CausesApart(print))
    assert len(forks) == 1 and no_child_left()


def test_the_command_works_the_causes_out_apart(
    forks: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    case = CASES / "causes-real-v8"
    assert main([str(case / "old"), str(case / "new")]) == 0
    assert len(forks) == 2 and no_child_left()  # NEW read apart, then the causes
    assert capsys.readouterr().out == render_markdown(
        diff_snapshots(*load_pair(str(case / "old"), str(case / "new")))
    )


def test_causes_start_as_soon_as_both_graphs_are_read(forks: list[int]) -> None:
    causes, told = CausesApart(print), []

    def started(old: Graph, new: Graph) -> None:
        told.append((old, new))
        causes.start(old, new)

    case = CASES / "causes-real-v7"
    pair = load_pair(str(case / "old"), str(case / "new"), LoadOptions(graphs=started))
    assert len(forks) == 1 and len(told) == 1
    assert told[0][0] is pair.old.graph and told[0][1] is pair.new.graph
    report = diff_snapshots(*pair, apart=causes)
    assert len(forks) == 1 and no_child_left()  # joined, not started again
    assert report.rebuilds is not None and report == diff_snapshots(*pair)


def test_pages_tell_no_graphs() -> None:
    told: list[object] = []
    load_pair("snapshots/v1", "snapshots/v2", LoadOptions(graphs=lambda *g: told.append(g)))
    assert not told
