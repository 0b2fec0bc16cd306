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


THREE_DOWN = {
    "a": [spec("a2", "0.9", ("e4s", "root"))],
    "b": [spec("b2", "1.9", ("e4s", "root"))],
    "c": [spec("c2", "0.1", ("e4s", "root"))],
}
THREE_UP = {name: [spec(f"{name}1", "5.0", ("e4s", "root"))] for name in THREE_DOWN}


def test_a_threshold_at_the_exact_count_passes_and_one_below_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sides = pair(tmp_path, THREE_UP, THREE_DOWN)
    assert run([*sides, "--fail-on", "downgrade>3"], capsys)[0] == 0
    code, _, err = run([*sides, "--fail-on", "downgrade>2,removed-specs>3"], capsys)
    assert code == 1
    assert err == (
        "snapdiff: gate failed: downgrade (3 packages' highest version went down: a, b, c, "
        "more than 2)\n"
    )


def test_warn_on_reports_and_annotates_but_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, _, err = run([*pair(tmp_path, THREE_UP, THREE_DOWN), "--warn-on", "downgrade"], capsys)
    assert code == 0
    assert "snapdiff: gate warning: downgrade (3 packages' highest version" in err
    assert "\n::warning title=snapdiff downgrade::downgrade (3 packages'" in err


def test_an_allow_list_entry_silences_exactly_its_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sides = pair(tmp_path, THREE_UP, THREE_DOWN)
    (tmp_path / ".snapdiff.yaml").write_text(
        "fail-on: [downgrade, removed-packages]\n"
        "allow:\n"
        '  - {gate: downgrade, package: "[ab]", reason: "pinned until 0.5"}\n'
    )
    monkeypatch.chdir(tmp_path)
    code, _, err = run(sides, capsys)
    assert code == 1
    assert err.splitlines() == [
        "snapdiff: allowed: downgrade [ab] (pinned until 0.5)",
        "snapdiff: gate failed: downgrade (1 package's highest version went down: c)",
    ]
    (tmp_path / ".snapdiff.yaml").write_text(
        'fail-on: downgrade\nallow: [{gate: downgrade, package: "*", reason: accepted}]\n'
    )
    code, _, err = run(sides, capsys)
    assert code == 0 and err == "snapdiff: allowed: downgrade * (accepted)\n"


@pytest.mark.parametrize(
    ("entry", "what"),
    [
        ("{gate: downgrade, package: a}", "needs one gate and a reason"),
        ("{gate: downgrad, package: a, reason: r}", "unknown gate 'downgrad'"),
        ("{gate: downgrade, reason: r}", "names a package or a stack"),
        ("{gate: downgrade, package: a, stack: s, reason: r}", "names a package or a stack"),
        ("{gate: downgrade, packages: a, reason: r}", "takes gate, package or stack"),
    ],
)
def test_a_bad_allow_entry_names_itself(
    entry: str,
    what: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / ".snapdiff.yaml").write_text(f"allow: [{entry}]\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = run([V1, V2], capsys)
    assert code == 2 and f".snapdiff.yaml: allow entry 1: {what}" in err


def test_a_mistyped_gate_gets_a_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([V1, V2, "--fail-on", "downgrades"], capsys)
    assert code == 2 and "unknown gate 'downgrades' (did you mean 'downgrade'?)" in err


def test_gate_messages_count_each_kind_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One package removed is '1 package removed'; `any` says what its total adds up."""
    sides = pair(tmp_path, BASE, {"b": BASE["b"]})
    code, _, err = run([*sides, "--fail-on", "any,removed-packages,removed-specs"], capsys)
    assert code == 1
    assert err.splitlines() == [
        "snapdiff: gate failed: any (3 changes: 1 package, 1 spec, 1 stack added, removed or "
        "changed)",
        "snapdiff: gate failed: removed-packages (1 package removed)",
        "snapdiff: gate failed: removed-specs (1 spec removed)",
    ]
