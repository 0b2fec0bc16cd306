"""The later packages of a big diff compared in a forked child (`compare/packagesapart.py`)
give the report comparing them here gives, byte for byte; a child that fails leaves them to be
compared here, said on stderr; an error meanwhile leaves no child behind; a small diff, or one
whose causes of rebuilds take the second core, forks no child for its packages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from clirun import V1, V2
from forks import no_child_left
from pagegen import spec, write_page
from test_golden import CASE_NAMES, CASES, FORMATS, render

from snapdiff.cli import main
from snapdiff.compare import packagesapart
from snapdiff.compare.causesapart import CausesApart
from snapdiff.compare.diff import diff_snapshots
from snapdiff.forked import Forked
from snapdiff.render import render_json, render_markdown
from snapdiff.report import PackageChange
from snapdiff.sources import load_pair


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The children forked for packages: every diff of two packages or more split, its first
    package compared here and the others apart."""
    made: list[int] = []

    class Counted(Forked[Any]):
        def __init__(self, *args: Any, **named: Any) -> None:
            super().__init__(*args, **named)
            made.append(self.pid)

    monkeypatch.setattr(packagesapart, "Forked", Counted)
    monkeypatch.setattr(packagesapart, "_LEAST", 0)
    monkeypatch.setattr(packagesapart, "_HERE", 0)
    return made


@pytest.mark.parametrize("expected_name", sorted(FORMATS))
@pytest.mark.parametrize("case", CASE_NAMES)
def test_every_golden_case_compared_in_two_processes_gives_its_golden_bytes(
    case: str,
    expected_name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    children: list[int],
) -> None:
    actual = render(case, FORMATS[expected_name], tmp_path, monkeypatch)
    assert actual == (CASES / case / expected_name).read_text(encoding="utf-8")
    assert no_child_left() and "second process" not in capsys.readouterr().err
    if case.startswith("causes-"):  # indexes: the causes' child has the second core
        assert not children
    elif len(json.loads((CASES / case / "expected.json").read_text())["packages"]) > 1:
        assert len(children) == 1 and children[0] > 0


def _field_changes(root: Path, versions: str, variants: str, note: bool) -> None:
    """Synthetic pages: 40 packages whose every hash stays, its fields changed across sides."""
    for number in range(40):
        extra: dict[str, Any] = {"note": "kept"} if note else {}
        specs = [
            spec(f"{number:03d}{n}", versions, variants=(variants, "+shared"), size=[n, note])
            | extra
            for n in range(3)
        ]
        write_page(root, f"pkg{number:03d}", specs)


def test_field_changes_come_back_as_the_json_report_writes_them(
    tmp_path: Path, children: list[int]
) -> None:
    """A field change's values are typed `object`: tuples, as made, however they travel (a
    page's own `size` keeps its lists)."""
    _field_changes(tmp_path / "old", "1.0", "~debug", note=False)
    _field_changes(tmp_path / "new", "1.1", "+debug", note=True)
    pair = load_pair(str(tmp_path / "old"), str(tmp_path / "new"))
    here = diff_snapshots(*pair)
    told: list[str] = []
    apart = diff_snapshots(*pair, apart=CausesApart(told.append))
    assert len(children) == 1 and children[0] > 0 and no_child_left() and not told
    assert apart == here  # the values' tuples too
    changed = [c for p in apart.packages for c in p.specs_changed]
    assert len(changed) == 120
    assert {f.name for f in changed[0].fields} == {"versions", "variants", "size", "note"}
    kinds = {"versions": tuple, "variants": tuple, "size": list, "note": str}
    assert all(type(f.new) is kinds[f.name] for f in changed[-1].fields)
    assert [f.missing for f in changed[-1].fields if f.name == "note"] == ["old"]
    assert render_json(apart) == render_json(here)
    assert render_markdown(apart) == render_markdown(here)


def test_what_msgpack_cannot_hold_comes_back_whole(tmp_path: Path, children: list[int]) -> None:
    """An integer over 64 bits in a page's field comes back from the child as it was
    (pickled), and nothing is said."""
    for side, size in (("old", 2**70), ("new", 2**70 + 1)):
        write_page(tmp_path / side, "aaa", [spec("a1", "1.0" if side == "old" else "2.0")])
        write_page(tmp_path / side, "big", [spec("b1", size=size), spec("b2", side)])
    pair = load_pair(str(tmp_path / "old"), str(tmp_path / "new"))
    told: list[str] = []
    apart = diff_snapshots(*pair, apart=CausesApart(told.append))
    assert len(children) == 1 and children[0] > 0 and no_child_left() and not told
    assert [p.name for p in apart.packages] == ["aaa", "big"]
    assert apart.packages[1].specs_changed[0].fields[0].new == 2**70 + 1
    here = diff_snapshots(*pair)
    assert render_json(apart) == render_json(here)
    assert render_markdown(apart) == render_markdown(here)


_ENCODE = packagesapart._encode


def _raising(found: list[PackageChange]) -> bytes:
    raise RuntimeError("a bug in the child")


def _cut_short(found: list[PackageChange]) -> bytes:
    return _ENCODE(found)[:-1]  # a bug of ours: the last byte left out (an internal error before)


@pytest.mark.parametrize(
    ("encode", "why"),
    [(_raising, "exit code 1"), (_cut_short, "its message unreadable: DecodeError")],
)
def test_a_child_that_fails_or_whose_message_cannot_be_read_is_told_and_compared_here(
    encode: Callable[[list[PackageChange]], bytes],
    why: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    children: list[int],
) -> None:
    case = CASES / "many-packages"
    monkeypatch.setattr(packagesapart, "_encode", encode)
    monkeypatch.chdir(case)
    assert main(["old", "new", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert len(children) == 1 and no_child_left()
    assert captured.out == (case / "expected.json").read_text(encoding="utf-8")
    assert (
        f"snapdiff: warning: comparing packages in a second process failed ({why});"
        " compared here\n" in captured.err
    )


def test_an_error_while_comparing_the_stacks_leaves_no_child(
    monkeypatch: pytest.MonkeyPatch, children: list[int]
) -> None:
    from snapdiff.compare import diff

    def failing(*args: object) -> None:
        raise KeyboardInterrupt

    pair = load_pair(str(CASES / "many-packages" / "old"), str(CASES / "many-packages" / "new"))
    monkeypatch.setattr(diff, "stack_coverage", failing)
    with pytest.raises(KeyboardInterrupt):
        diff_snapshots(*pair, apart=CausesApart(print))
    assert len(children) == 1 and children[0] > 0 and no_child_left()


def test_a_library_call_and_a_small_diff_fork_nothing(forks: list[int]) -> None:
    pair = load_pair(V1, V2)  # 325 and 470 specs: far below what is worth a second process
    assert diff_snapshots(*pair).packages
    assert diff_snapshots(*pair, apart=CausesApart(print)).packages
    assert not forks


def test_the_child_takes_the_later_part_of_the_weight_of_a_diff_worth_sharing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(packagesapart, "_LEAST", 100)
    assert packagesapart._cut([10] * 9) is None  # 90 specs: all here
    assert packagesapart._cut([10] * 10) == 5  # 45 of 100 here, the rest apart
    assert packagesapart._cut([100, 1, 1, 1]) == 1
    assert packagesapart._cut([10] * 100) == 45
    assert packagesapart._cut([10] * 100_000) == 45_000  # no bound above


_SPLIT = """
import sys
from snapdiff.compare import packagesapart
packagesapart._LEAST, packagesapart._HERE = 0, 0.5
made = []
class Counted(packagesapart.Forked):
    def __init__(self, *args, **named):
        super().__init__(*args, **named)
        made.append(self.pid)
packagesapart.Forked = Counted
from snapdiff.cli import main
code = main(sys.argv[1:])
sys.exit(code if len(made) == 1 and made[0] > 0 else 3)  # 3: not split
"""


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_the_split_gives_the_same_bytes_whatever_the_hash_seed(fmt: str) -> None:
    """Cut in the middle, under two hash seeds, in a process of its own: the golden bytes."""
    case = CASES / "many-packages"
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", _SPLIT, "old", "new", "-f", fmt],
            cwd=case,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert done.returncode == 0 and not done.stderr, done.stderr
        assert done.stdout == (case / f"expected.{'md' if fmt == 'markdown' else fmt}").read_text()


@pytest.mark.parametrize(
    ("case", "freed_above", "freed"),
    [
        ("real-v1-v2", 0, True),  # a report above the bound: its pages freed before rendering
        ("real-v1-v2", 10**6, False),  # below it: kept to the end of the process
        ("causes-real-v8", 0, False),  # two indexes: their pages and graphs kept, whatever size
    ],
)
def test_the_command_frees_a_big_reports_pages_before_rendering_and_writes_the_same_report(
    case: str, freed_above: int, freed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from snapdiff import cli, process, sources
    from snapdiff.model import Page
    from snapdiff.render import formats

    read: set[int] = set()  # the pages' ids: a reference would keep them alive
    alive: list[int] = []

    def load_pair(*args: Any, **named: Any) -> Any:
        pair = sources_load_pair(*args, **named)
        read.update(id(page) for side in pair for page in side.pages.values())
        return pair

    def render_report(*args: Any) -> Any:
        alive.append(sum(id(o) in read for o in gc.get_objects() if isinstance(o, Page)))
        return cli_render_report(*args)

    sources_load_pair, cli_render_report = sources.load_pair, formats.render_report
    monkeypatch.setattr(sources, "load_pair", load_pair)
    monkeypatch.setattr(cli, "render_report", render_report)
    monkeypatch.setattr(process, "FREED_ABOVE", freed_above)
    monkeypatch.setattr(process.KEPT, "on", True)
    monkeypatch.setattr(process.KEPT, "_built", [])
    actual = render(case, "json", tmp_path, monkeypatch)
    assert actual == (CASES / case / "expected.json").read_text(encoding="utf-8")
    assert read and alive == [0 if freed else len(read)]  # no page of the pair left, or all
    kept = [type(found).__name__ for found in process.KEPT._built]
    assert kept == (["Report"] if freed else ["Snapshot", "Snapshot", "Report"])


class _Libc:
    """A C library with glibc's `malloc_trim`, recording its calls."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def malloc_trim(self, pad: int) -> int:
        self.calls.append(pad)
        return 1


@pytest.mark.parametrize(
    ("trimmed_above", "glibc", "trimmed"),
    [
        (9, True, [0]),  # 10 pages (5 a side), more than the bound: trimmed once
        (10, True, []),  # as many as the bound: not
        (0, False, None),  # another C library: nothing to call, nothing said
    ],
)
def test_after_loading_many_pages_the_c_allocators_free_memory_is_handed_back(
    trimmed_above: int,
    glibc: bool,
    trimmed: list[int] | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import ctypes

    from snapdiff import process

    libc = _Libc() if glibc else object()
    monkeypatch.setattr(ctypes, "CDLL", lambda name: libc)
    monkeypatch.setattr(process, "TRIMMED_ABOVE", trimmed_above)
    actual = render("real-v1-v2", "json", tmp_path, monkeypatch)
    assert actual == (CASES / "real-v1-v2" / "expected.json").read_text(encoding="utf-8")
    assert getattr(libc, "calls", None) == trimmed and not capsys.readouterr().err
