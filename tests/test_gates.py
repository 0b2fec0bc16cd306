"""Gates (`--fail-on`): each fails exactly when its change is present."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from clirun import V1, V2, run
from pagegen import spec, write_page


def pair(tmp_path: Path, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    for side, pages in (("old", old), ("new", new)):
        for name, specs in pages.items():
            write_page(tmp_path / side, name, specs)
    return [str(tmp_path / "old"), str(tmp_path / "new")]


BASE = {"a": [spec("a1", "1.0", ("e4s", "root"))], "b": [spec("b1", "2.0", ("e4s", "root"))]}
GATE_CASES = {
    "nothing": (BASE, set()),
    "upgrade": (dict(BASE, a=[spec("a2", "1.1", ("e4s", "root"))]), {"any", "removed-specs"}),
    "downgrade": (
        dict(BASE, a=[spec("a2", "0.9", ("e4s", "root"))]),
        {"any", "removed-specs", "downgrade"},
    ),
    "stack left": (dict(BASE, a=[spec("a1", "1.0", ("root",))]), {"any", "stack-loss"}),
    "package gone": ({"b": BASE["b"]}, {"any", "removed-packages", "removed-specs", "stack-loss"}),
    "stack gone": (
        {k: [dict(s, stacks=["root"]) for s in v] for k, v in BASE.items()},
        {"any", "stack-loss"},
    ),
    "added": (dict(BASE, c=[spec("c1", "1.0")]), {"any"}),
}


@pytest.mark.parametrize("case", sorted(GATE_CASES))
def test_each_gate_fails_exactly_when_its_change_is_present(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new, expected = GATE_CASES[case]
    sides = pair(tmp_path, BASE, new)
    gates = ["any", "removed-packages", "removed-specs", "downgrade", "stack-loss"]
    for gate in gates:
        out = tmp_path / f"{gate}.md"
        code, _, err = run([*sides, "--fail-on", gate, "-o", str(out)], capsys)
        assert code == (1 if gate in expected else 0), (case, gate, err)
        assert out.exists()  # the report is written either way
        assert err.count("snapdiff: gate failed:") == (gate in expected)
    code, _, err = run([*sides, "--fail-on", ",".join(gates), "-o", str(tmp_path / "all")], capsys)
    assert err.count("\n") == len(expected) and code == (1 if expected else 0)


def test_an_unknown_gate_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([V1, V2, "--fail-on", "downgrades"], capsys)
    assert code == 2 and "--fail-on: unknown gate 'downgrades'" in err
