"""Run the command line in-process, as the tests of its behaviour do."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapdiff.cli import main

ROOT = Path(__file__).parents[2]
V1, V2 = str(ROOT / "snapshots" / "v1"), str(ROOT / "snapshots" / "v2")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `snapdiff ARGV`."""
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err
