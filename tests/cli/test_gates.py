"""Gates (`--fail-on`): each fails exactly when its change is present."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from clirun import ROOT, V1, V2, run
from pagegen import spec, write_page

from snapdiff import diff_snapshots, load_pair
from snapdiff.errors import UsageError
from snapdiff.gates import REMOVED_SPECS, GateCheck, parse_gates, tripped
from snapdiff.options import parser


def pair(tmp_path: Path, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    for side, pages in (("old", old), ("new", new)):
        for name, specs in pages.items():
            write_page(tmp_path / side, name, specs)
    return [str(tmp_path / "old"), str(tmp_path / "new")]


BASE = {"a": [spec("a1", "1.0", ("e4s", "root"))], "b": [spec("b1", "2.0", ("e4s", "root"))]}
Pages = dict[str, list[dict[str, Any]]]
# (old, new, the gates that fail, the class of the specs removed)
GATE_CASES: dict[str, tuple[Pages, Pages, set[str], str | None]] = {
    "nothing": (BASE, BASE, set(), None),
    # removed specs with a successor: rebuilt, upgraded, downgraded, migrated
    "rebuilt": (BASE, dict(BASE, a=[spec("a2", "1.0", ("e4s", "root"))]), {"any"}, "rebuilt"),
    "upgrade": (BASE, dict(BASE, a=[spec("a2", "1.1", ("e4s", "root"))]), {"any"}, "upgrade"),
    "downgrade": (
        BASE,
        dict(BASE, a=[spec("a2", "0.9", ("e4s", "root"))]),
        {"any", "downgrade"},
        "downgrade",
    ),
    "migration": (
        BASE,
        dict(BASE, a=[spec("a2", "1.0", ("e4s", "root"), os="ubuntu24.04")]),
        {"any"},
        "migration",
    ),
    # removed specs with none: a configuration dropped, a version retired, a build fewer, all
    # the specs of a package removed
    "dropped configuration": (
        dict(BASE, a=[*BASE["a"], spec("a3", "1.0", ("e4s", "root"), target="aarch64")]),
        BASE,
        {"any", "removed-specs"},
        "dropped-configuration",
    ),
    "version retired": (
        dict(BASE, a=[*BASE["a"], spec("a4", "0.5", ("e4s", "root"))]),
        BASE,
        {"any", "removed-specs"},
        "version-retired",
    ),
    "fewer builds": (
        dict(BASE, a=[*BASE["a"], spec("a5", "1.0", ("e4s", "root"))]),
        BASE,
        {"any", "removed-specs"},
        "fewer-builds",
    ),
    "package gone": (
        BASE,
        {"b": BASE["b"]},
        {"any", "removed-packages", "removed-specs", "stack-loss"},
        "dropped-configuration",
    ),
    "stack left": (BASE, dict(BASE, a=[spec("a1", "1.0", ("root",))]), {"any", "stack-loss"}, None),
    "stack gone": (
        BASE,
        {k: [dict(s, stacks=["root"]) for s in v] for k, v in BASE.items()},
        {"any", "stack-loss"},
        None,
    ),
    "added": (BASE, dict(BASE, c=[spec("c1", "1.0")]), {"any"}, None),
}


@pytest.mark.parametrize("case", sorted(GATE_CASES))
def test_each_gate_fails_exactly_when_its_change_is_present(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, expected, removed_as = GATE_CASES[case]
    sides = pair(tmp_path, old, new)
    gates = ["any", "removed-packages", "removed-specs", "downgrade", "stack-loss"]
    for gate in gates:
        out = tmp_path / f"{gate}.md"
        code, _, err = run([*sides, "--fail-on", gate, "-o", str(out)], capsys)
        assert code == (1 if gate in expected else 0), (case, gate, err)
        assert out.exists()  # the report is written either way
        assert err.count("snapdiff: gate failed:") == (gate in expected)
    code, _, err = run([*sides, "--fail-on", ",".join(gates), "-o", str(tmp_path / "all")], capsys)
    assert err.count("\n") == len(expected) and code == (1 if expected else 0)
    report = json.loads(run([*sides, "--format", "json"], capsys)[1])
    classes = {k for k, n in report["specs_by_class"].items() if n["removed"]}
    assert classes == ({removed_as} if removed_as else set())  # the case is what it says


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
    trusted = ["--config", ".snapdiff.yaml"]  # allow: is read only from a file named so
    code, _, err = run([*sides, *trusted], capsys)
    assert code == 1
    assert err.splitlines() == [
        "snapdiff: allowed: downgrade [ab] (pinned until 0.5)",
        "snapdiff: gate failed: downgrade (1 package's highest version went down: c)",
    ]
    (tmp_path / ".snapdiff.yaml").write_text(
        'fail-on: downgrade\nallow: [{gate: downgrade, package: "*", reason: accepted}]\n'
    )
    code, _, err = run([*sides, *trusted], capsys)
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
    ok = "{gate: downgrade, package: b, reason: r}"
    (tmp_path / ".snapdiff.yaml").write_text(f"for: github\nallow:\n  - {ok}\n  - {entry}\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = run([V1, V2, "--config", ".snapdiff.yaml"], capsys)
    assert code == 2 and f".snapdiff.yaml:4: allow entry 2: {what}" in err  # its line


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
        "snapdiff: gate failed: removed-specs (1 spec removed with no rebuild, upgrade, "
        "downgrade or migration in its place: 1 in a dropped configuration)",
    ]


def test_a_threshold_is_written_with_a_colon_and_gt_is_still_read() -> None:
    assert parse_gates("downgrade,removed-specs:100") == [
        GateCheck("downgrade"),
        GateCheck("removed-specs", 100),
    ]
    assert parse_gates("removed-specs>100") == parse_gates("removed-specs:100")
    with pytest.raises(UsageError, match="threshold '' of removed-specs"):
        parse_gates("removed-specs:")


def _examples() -> list[tuple[str, str]]:
    """(where, line) of every line of the README, docs/, action.yml and --help that names a gate
    option: each is what someone will copy."""
    found = [("--help", line) for line in parser().format_help().splitlines()]
    for path in [ROOT / "README.md", ROOT / "action.yml", *sorted((ROOT / "docs").glob("*"))]:
        if path.suffix in (".md", ".yml"):
            found += [(path.name, line) for line in path.read_text().splitlines()]
    # a command (`snapdiff ... --fail-on`, any line of a CI recipe) or a YAML key, not prose
    command = r"(fail|warn)-on:|snapdiff .*--(fail|warn)-on"
    return [
        (w, line)
        for w, line in found
        if re.search(command if w.endswith(".md") or w == "--help" else r"(fail|warn)-on", line)
    ]


def _gate_values(line: str) -> list[str]:
    """The gate values a line gives: after --fail-on/--warn-on as a shell reads them (a `>`
    outside quotes is a redirection, a token of its own), or as YAML reads `fail-on: ...`."""
    option = re.search(r"--(fail|warn)-on.*", line)
    shell = option[0].split("`")[0] if option else ""  # to the end of a Markdown code span
    shell = "" if line.lstrip().startswith("#") else shell.removesuffix("\\")  # comment, `\`
    split = shlex.shlex(shell, posix=True, punctuation_chars=True)
    split.whitespace_split = True
    tokens = list(split)
    values = []
    for at, token in enumerate(tokens[:-1]):
        if token in ("--fail-on", "--warn-on"):
            values.append(tokens[at + 1])
            assert ">" not in tokens[at + 2 : at + 3], line  # `gate>N` unquoted: a redirection
    key = re.match(r"\s*-?\s*(fail|warn)-on:\s*(.+)", line)
    if key:
        loaded = yaml.safe_load(key[2])
        values.append(",".join(loaded) if isinstance(loaded, list) else str(loaded))
    # not examples: a metavar, a variable, prose (`a --fail-on gate failed`)
    return [v for v in values if re.match("[a-z]", v)]  # not a metavar or a variable


def test_every_gate_example_parses_and_survives_a_shell() -> None:
    examples = _examples()
    values = [value for _, line in examples for value in _gate_values(line)]
    assert "downgrade,removed-specs:100" in values  # the README's and the recipes' example
    for value in values:
        assert parse_gates(value), value
    for where, line in examples:
        assert not re.search(r"[a-z]>[0-9]", line), (where, line)  # `>` quoted or not


def test_the_report_names_failed_gates_warnings_and_exemptions_on_its_first_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    arm = {n: [spec(f"{n}9", "5.0", ("e4s", "root"), target="aarch64")] for n in ("a", "b")}
    with_arm = {n: THREE_UP[n] + arm.get(n, []) for n in THREE_UP}  # dropped: no successor
    sides = pair(tmp_path, with_arm, THREE_DOWN)
    (tmp_path / ".snapdiff.yaml").write_text(
        'fail-on: [downgrade, "removed-specs:1"]\n'
        "warn-on: [removed-packages, any]\n"
        "allow:\n"
        "  - {gate: downgrade, package: '[ab]', reason: 'pinned <b>`|` @team'}\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, err = run([*sides, "--for", "github", "--config", ".snapdiff.yaml"], capsys)
    assert code == 1
    first_screen = out.split("\n| |")[0].splitlines()
    assert first_screen[3:] == [
        "- **❌ Gate failed, `downgrade`:** 1 package's highest version went down: `c`",
        "- **❌ Gate failed, `removed-specs`:** 2 specs removed with no rebuild, upgrade, "
        "downgrade or migration in their place: 2 in dropped configurations, more than 1",
        "- **⚠️ Gate warning, `any`:** 12 changes: 3 packages, 8 specs, 1 stack added, removed "
        "or changed",
        "- **Exemption used, `downgrade`:** changes of packages `[ab]` not counted "
        "(``pinned <b>`\\|` @team``)",
    ]
    assert "::error title=snapdiff downgrade::downgrade (1 package's highest version" in err
    assert "::error title=snapdiff removed-specs::removed-specs (2 specs removed with" in err
    trusted = [*sides, "--config", ".snapdiff.yaml"]
    assert run([*trusted, "--for", "github"], capsys)[1] == out  # the same marker, every run
    code, out, _ = run([*trusted, "--format", "json"], capsys)
    gates = json.loads(out)["gates"]
    assert [(g["gate"], g["level"], g["tripped"], g["count"]) for g in gates] == [
        ("downgrade", "fail", True, 1),
        ("removed-specs", "fail", True, 2),
        ("any", "warn", True, 12),
    ]
    assert gates[0]["allowed"] == [
        {"package": "[ab]", "stack": None, "reason": "pinned <b>`|` @team"}
    ]
    assert gates[1]["text"] == (
        "removed-specs (2 specs removed with no rebuild, upgrade, downgrade or migration in "
        "their place: 2 in dropped configurations, more than 1)"
    )


def test_a_report_without_gates_says_nothing_of_them(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([V1, V2, "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["gates"] == []
    assert "Gate" not in run([V1, V2], capsys)[1]


def test_an_exemption_is_said_used_only_when_it_excused_something(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """py-jax went up, not down: an allow entry for its downgrade excused nothing and is not
    reported; an entry for `any` takes the package's changes out of the count it reports."""
    config = tmp_path / "trusted.yaml"
    config.write_text(
        "allow:\n"
        "  - {gate: downgrade, package: py-jax, reason: pinned}\n"
        "  - {gate: any, package: py-build, reason: noisy}\n"
    )
    sides = [V1, V2, "--config", str(config), "--format", "json"]
    code, out, _ = run([*sides, "--fail-on", "downgrade", "--warn-on", "any"], capsys)
    gates = {g["gate"]: g for g in json.loads(out)["gates"]}
    assert code == 0 and "downgrade" not in gates  # nothing tripped, nothing excused
    _, whole, _ = run([V1, V2, "--format", "json", "--no-config", "--warn-on", "any"], capsys)
    report = json.loads(whole)
    (everything,) = report["gates"]
    summary = report["summary"]
    kinds = ("packages", "specs", "stacks")
    whole_count = sum(summary[f"{k}_{s}"] for k in kinds for s in ("added", "removed", "changed"))
    assert everything["count"] == whole_count  # what the summary adds up, nothing excused
    build = next(p for p in report["packages"] if p["name"] == "py-build")
    build_changes = 1 + len(build["specs_added"]) + len(build["specs_removed"])
    build_changes += len(build["specs_changed"])
    assert gates["any"]["count"] == everything["count"] - build_changes
    assert gates["any"]["allowed"] == [{"package": "py-build", "stack": None, "reason": "noisy"}]


@pytest.mark.parametrize("word", ["removed-specs:x", "removed-specs>", "downgrade:-1"])
def test_a_bad_threshold_of_a_known_gate_is_named_as_such(word: str) -> None:
    """Not "unknown gate ... did you mean removed-specs?": the gate is known, its number is not."""
    name = word.replace(">", ":").partition(":")[0]
    with pytest.raises(UsageError, match=f"threshold .* of {name}") as found:
        parse_gates(word)
    assert found.value.fix == f"write {name}:N, N a count"


def test_what_removed_specs_counts_is_said_wherever_it_is_listed() -> None:
    """--help, the README's gate list, docs/json.md and the gate's own line say the same rule."""
    rule = "removed with no rebuild, upgrade, downgrade or migration in their place"
    assert REMOVED_SPECS.startswith("specs " + rule)
    assert " ".join(parser().format_help().split()).count(rule) == 1
    readme = (ROOT / "README.md").read_text()
    assert f"`removed-specs` (specs {rule}: in dropped configurations" in readme
    assert rule in " ".join((ROOT / "docs" / "json.md").read_text().split())


def test_a_report_without_explanations_counts_every_removed_spec(tmp_path: Path) -> None:
    """A report made without explanations cannot tell a successor: nothing is let through."""
    old, new = GATE_CASES["upgrade"][:2]
    old_dir, new_dir = pair(tmp_path, old, new)
    before, after = load_pair(old_dir, new_dir)
    report = diff_snapshots(before, after, describe=False)
    (found,) = tripped(report, [GateCheck("removed-specs")])
    assert found.tripped and found.count == 1
    assert found.plain().endswith("in its place: 1 unclassified)")
    assert tripped(diff_snapshots(before, after), [GateCheck("removed-specs")]) == []
