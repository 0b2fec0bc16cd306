"""Issue 29's first-screen check on a day of many causes: a SYNTHETIC 2,500-record pair from
bench/genindex.py (three version bumps, one of a build tool, recipe changes) whose first screen
must name the top trigger, its version change and its cascade count as the generator's ground
truth gives them (the truth is computed from what the generator changed, not from the files)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clirun import run
from indexgen import genindex


def test_the_first_screen_of_a_day_names_its_top_trigger(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, truth_file = tmp_path / "old", tmp_path / "new", tmp_path / "truth.json"
    genindex(str(old), "--records", "2500", "--stacks", "8", "--seed", "11")
    events = "version=2,build-tool=1,recipe=2"
    genindex(
        str(new),
        "--evolve-from",
        str(old),
        "--seed",
        "12",
        "--truth",
        str(truth_file),
        "--events",
        events,
    )
    truth = json.loads(truth_file.read_text())
    groups: dict[tuple[str, str, str], set[str]] = {}
    for trigger in truth["triggers"]:
        if trigger["changes"] == ["version"]:
            key = (trigger["name"], trigger["from"]["version"], trigger["to"]["version"])
            groups.setdefault(key, set()).update(trigger["cascade"])
    (name, before, after), cascade = max(groups.items(), key=lambda item: len(item[1]))
    code, out, err = run([str(old), str(new)], capsys)
    assert code == 0, err
    first_screen = out.split("\n### ")[0]  # everything before the first section
    lines = re.findall(r"^- (.*)$", first_screen.split("**Why specs were rebuilt:**")[1], re.M)
    top = f"`{name}` `{before}` → `{after}` (version, in "
    assert lines[0].startswith(top), lines[0]
    assert f"): {len(cascade):,} other specs rebuilt in " in lines[0]
    assert lines[-1].startswith(f"{truth['rebuilt']:,} distinct specs rebuilt in all")
