"""Progress on stderr: for long work, on a terminal only, never in pipes or CI logs."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from clirun import V1, V2, run

from snapdiff.output import TerminalProgress
from snapdiff.sources import LoadOptions, load_pair, pagesource


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_loading_tells_its_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pagesource, "_EVERY", 2)
    said: list[str] = []
    load_pair(V1, V2, LoadOptions(progress=said.append))
    assert said == [f"{side}: {n} of 5 pages" for side in (V2, V1) for n in (2, 4)]


def test_a_terminal_sees_one_line_rewritten_then_cleared() -> None:
    terminal = Terminal()
    progress = TerminalProgress(terminal, after=0)
    progress("old: 2,000 of 6,000 pages")
    progress("new\nline: 4,000 of 6,000 pages")
    progress.done()
    assert terminal.getvalue() == (
        "\r\x1b[Ksnapdiff: old: 2,000 of 6,000 pages"
        "\r\x1b[Ksnapdiff: new\\x0aline: 4,000 of 6,000 pages\r\x1b[K"
    )


def test_quick_work_and_pipes_see_nothing() -> None:
    terminal, pipe = Terminal(), io.StringIO()
    for stream, after in ((terminal, 60.0), (pipe, 0.0)):
        progress = TerminalProgress(stream, after=after)
        progress("anything")
        progress.done()
    assert terminal.getvalue() == pipe.getvalue() == ""


def test_the_command_line_prints_no_progress_to_a_pipe(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(pagesource, "_EVERY", 1)
    assert run([V1, V2], capsys)[2] == ""


def test_loading_build_cache_indexes_tells_each_index(tmp_path: Path) -> None:
    """Issue 29: a 300 MB index takes seconds to decode and read; a terminal is told."""
    index = Path(__file__).parents[1] / "data" / "spack-index" / "db-v8-index.json"
    for stack in ("e4s", "ml"):
        (tmp_path / stack / "build_cache").mkdir(parents=True)
        shutil.copyfile(index, tmp_path / stack / "build_cache" / "index.json")
    said: list[str] = []
    load_pair(str(tmp_path), str(index), LoadOptions(progress=said.append))
    assert [line.split(": ")[-1] for line in said] == ["decoding 0 MB", "reading 7 records"] * 3
    assert sum("e4s" in line for line in said) == 2
