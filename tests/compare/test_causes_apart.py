"""The causes of rebuilds worked out in a forked child (`compare/causesapart.py`) while the
pages are compared give what working them out here gives; a child that fails leaves them to be
worked out here, said on stderr; an error meanwhile leaves no child behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from subprocess import PIPE

import pytest
from clirun import V1, V2
from forks import no_child_left

from snapdiff.cli import main
from snapdiff.compare import causesapart
from snapdiff.compare.causesapart import CausesApart
from snapdiff.compare.diff import diff_snapshots
from snapdiff.errors import InputError
from snapdiff.model import Filters
from snapdiff.render import render_json, render_markdown
from snapdiff.report import Cascade, NewBuild, Rebuilds, Trigger
from snapdiff.sources import LoadOptions, load_pair

CASES = Path(__file__).parents[1] / "cases"


@pytest.mark.parametrize(
    "case", ["causes-generated", "causes-real-v7", "causes-real-v8", "causes-hash-scheme"]
)
def test_causes_worked_out_apart_are_those_worked_out_here(case: str, forks: list[int]) -> None:
    pair = load_pair(str(CASES / case / "old"), str(CASES / case / "new"))
    told: list[str] = []
    here = diff_snapshots(*pair)
    assert not forks
    apart = diff_snapshots(*pair, jobs=2, told=told.append)
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
    told: list[str] = []
    apart = diff_snapshots(*pair, narrow, jobs=2, told=told.append)
    assert here.rebuilds is not None and len(forks) == 1 and not told
    assert apart.rebuilds == here.rebuilds


def test_pages_say_nothing_and_fork_nothing(forks: list[int]) -> None:
    pair = load_pair(V1, V2)
    assert diff_snapshots(*pair, jobs=2).rebuilds is None
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
        " (exit code 1); worked out here\n" in captured.err
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
        diff_snapshots(*pair, jobs=2)
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


def test_the_causes_travel_whole() -> None:
    # what the golden cases lack: a new build with a cascade and a build-only part, lists two
    # cascades share, empty ones, a trigger with no cascade
    a, b, c, t, q, n = (letter * 32 for letter in "abctqn")
    trigger = Trigger(
        t,
        "zlib",
        "p" * 32,
        ("version",),
        (("version", "1"),),
        (("version", "2"),),
        (a, b, c),
        (b,),
        ("root",),
        (("cmake", 2), ("ninja", 1)),
        "2",
    )
    quiet = Trigger(q, "xz", "r" * 32, ("recipe",), (), (), (), (), ("root",))
    built = NewBuild(n, "bzip2", "1.0", (a, b), (a,), ("root",), (("cmake", 1), ("ninja", 1)))
    cascades = (
        Cascade(a, "cmake", "x" * 32, (n, t), (n,), (), (n,)),
        Cascade(b, "ninja", "y" * 32, (n, t), (t,), (a,), ()),
        Cascade(c, "cmake", "z" * 32, (t,), (), (b,), (b,)),
    )
    rebuilds = Rebuilds((trigger, quiet), cascades, ("h" * 32,), (), (), (built,))
    message = causesapart._encode((rebuilds, ("a note",)))
    assert causesapart._decode(memoryview(message)) == (rebuilds, ("a note",))


def test_one_job_forks_nothing_and_gives_the_same_bytes(forks: list[int]) -> None:
    case = CASES / "causes-real-v7"
    pair = load_pair(str(case / "old"), str(case / "new"), LoadOptions(jobs=1))
    assert render_json(diff_snapshots(*pair, jobs=1)) == render_json(diff_snapshots(*pair, jobs=2))
    assert len(forks) == 1  # the second diff's causes only


def test_an_interrupt_while_joining_leaves_no_child(
    monkeypatch: pytest.MonkeyPatch, forks: list[int]
) -> None:
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    case = CASES / "causes-generated"
    pair = load_pair(str(case / "old"), str(case / "new"))
    monkeypatch.setattr(causesapart, "missing_dependencies", interrupted)
    with pytest.raises(KeyboardInterrupt):
        diff_snapshots(*pair, jobs=2)
    assert len(forks) == 1 and no_child_left()


def test_a_library_user_leaving_the_context_stops_the_child(forks: list[int]) -> None:
    case = CASES / "causes-real-v8"
    pair = load_pair(str(case / "old"), str(case / "new"))
    assert pair.old.graph is not None and pair.new.graph is not None
    with pytest.raises(InputError), CausesApart(print) as causes:
        causes.start(pair.old.graph, pair.new.graph)
        assert len(forks) == 1 and causes.child is not None
        raise InputError("here", "a failure after the graphs were read", "")
    assert no_child_left() and causes.child is None


def test_the_command_on_mirrors_in_git_neither_hangs_nor_waits(tmp_path: Path) -> None:
    """The causes' child is forked while `git cat-file` runs for the command: it must not hold
    git's input open (the command would wait for git, git for its input, the child for the
    command to read a message larger than a pipe holds)."""
    from gitrepo import commit, new_repo
    from indexgen import generate

    # about 300 KB of cascades in the JSON
    generate(tmp_path / "made", "version=4,build-tool=2,recipe=2", 5, "--records", "800")
    repo = new_repo(tmp_path / "mirrors")
    for day, side in enumerate(("old", "new"), start=1):
        for stale in repo.iterdir():
            if stale.name != ".git":
                shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
        shutil.copytree(tmp_path / "made" / side, repo, dirs_exist_ok=True)
        commit(repo, f"day {day}", day)
    command = [
        sys.executable,
        "-m",
        "snapdiff",
        "HEAD~1",
        "HEAD",
        "--repo",
        str(repo),
        "-f",
        "json",
    ]
    with subprocess.Popen(command, stdout=PIPE, stderr=PIPE, start_new_session=True) as done:
        try:
            out, err = done.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(done.pid, signal.SIGKILL)  # the command, its children and git
            done.communicate()
            raise AssertionError("snapdiff still waiting after 60 s") from None
    assert done.returncode == 0, err
    rebuilds = json.loads(out)["rebuilds"]
    assert len(json.dumps(rebuilds["cascades"])) > 1 << 16  # more than a pipe holds


def test_a_child_ends_on_an_interrupt_whatever_the_caller_handles(forks: list[int]) -> None:
    """The caller's SIGINT and SIGTERM handlers never run in a child (one raising there would
    unwind the caller's code in it): the child has the default ones, and the caller's signal
    mask is as it was."""
    from snapdiff.forked import Forked

    def handler(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    was = signal.signal(signal.SIGTERM, handler)
    try:
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
        child = Forked(
            lambda: [
                signal.getsignal(s) is signal.SIG_DFL for s in (signal.SIGINT, signal.SIGTERM)
            ],
            lambda found: bytes(found),
            bytes,
            lambda code: None,
        )
        assert child.join() == bytes([True, True]) and len(forks) == 1 and no_child_left()
        assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == mask
        assert signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, was)


def test_an_error_message_from_the_child_that_cannot_be_read_leaves_the_work_here(
    forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child's error is raised here as it was; one whose message cannot be read (a bug of
    ours) is said, and the work done here, as for a child that failed."""
    from snapdiff import forked
    from snapdiff.errors import InputError

    def failing() -> bytes:
        raise InputError("page.md", "bad", "fix it")

    told: list[str] = []
    child = forked.Forked(lambda: b"done here", bytes, bytes, told.append, there=failing)
    with pytest.raises(InputError, match=r"page\.md: bad"):
        child.join()
    monkeypatch.setattr(forked.Failed, "of", classmethod(lambda cls, exc: ["not", "a", "Failed"]))
    child = forked.Forked(lambda: b"done here", bytes, bytes, told.append, there=failing)
    assert child.join() == b"done here" and len(forks) == 2 and no_child_left()
    assert told == ["its message unreadable: ValidationError"]
