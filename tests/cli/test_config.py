"""`.snapdiff.yaml`: found, read under the command line, and refused with its name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import V1, V2, run


def test_configuration_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".snapdiff.yaml").write_text("format: json\nexit_code: true\n")
    code, out, _ = run([V1, V2], capsys)
    assert code == 1 and json.loads(out)["filters"] == {}
    trusted = tmp_path / "trusted.yaml"  # a filter is read only from a file named with --config
    trusted.write_text("format: json\npackage: [py-jax]\nexit_code: true\n")
    code, out, _ = run([V1, V2, "--config", str(trusted)], capsys)
    data = json.loads(out)
    assert code == 1 and data["filters"] == {"package": ["py-jax"]}
    argv = [V1, V2, "--config", str(trusted), "--format", "markdown", "--package", "py-keras"]
    code, out, _ = run(argv, capsys)
    assert out.startswith("<!--") and "`py-keras`" in out and "`py-jax`" not in out


def test_configuration_at_the_repository_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".snapdiff.yaml").write_text("format: json\n")
    (tmp_path / "deep" / "er").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "deep" / "er")
    assert json.loads(run([V1, V2], capsys)[1])["schema_version"] == 1
    other = tmp_path / "other.yaml"
    other.write_text("for: github\n")
    assert run([V1, V2, "--config", str(other)], capsys)[1].startswith("<!--")


FINE = "for: github\nfail-on: [downgrade]\n"  # two good lines first


@pytest.mark.parametrize(
    ("content", "line", "expected"),
    [
        ("formt: json\n", 3, "unknown option 'formt' (did you mean 'format'?)"),
        ("max_char: 1000\n", 3, "unknown option 'max_char' (did you mean 'max-chars'?)"),
        ("exit-code: maybe\n", 3, "exit-code must be true or false"),
        ("format: [json]\n", 3, "format must be a single value"),
        (
            "\nformat: xml\nwarn-on: [stack-loss]\n",
            4,
            "argument -f/--format: invalid choice: 'xml'",
        ),
        ("keep-going: true\n", 3, "keep-going is not read from a configuration found in the"),
        ("for: gitlab\n", 3, "for is given twice (lines 1 and 3) (keep one)"),
        ("format: [json\n", 3, "not valid YAML: expected ',' or ']', but got '<stream end>'"),
        ("format: json\n  bad: indent\n", 4, "not valid YAML: mapping values are not allowed"),
        ("format:\n\t- json\n", 4, "not valid YAML: found character '\\t' that cannot start"),
        ("format: \x07\n", 3, "not valid YAML: special characters are not allowed (#x0007)"),
        ("format: &a json\nfor: *a\n", 4, "the configuration uses a YAML alias"),
        ("allow: {gate: downgrade}\n", 3, "allow must be a list of entries"),
        ("- a list\n", 1, "the configuration is not a mapping of options"),
    ],
)
def test_bad_configuration_is_one_line_naming_the_file_and_line(
    content: str,
    line: int,
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Invalid YAML and wrong types alike: `FILE:LINE: what (fix)`, one line, exit 2; a file
    found in the checkout (here: trusted with --config, but for keep-going) the same."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    path = tmp_path / ".snapdiff.yaml"
    path.write_text(FINE + content if line > 1 else content)
    argv = [V1, V2] if "keep-going" in content else [V1, V2, "--config", str(path)]
    code, out, err = run(argv, capsys)
    assert code == 2 and not out and err.count("\n") == 1
    assert err.startswith(f"snapdiff: error: {path}:{line}: {expected}")


def test_a_configuration_that_is_not_utf8_names_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"for: github\nformat: \xffjson\n")
    code, _, err = run([V1, V2, "--config", str(path)], capsys)
    assert code == 2 and err == f"snapdiff: error: {path}:2: not UTF-8 (byte 0xff) ({FIX})\n"


FIX = "see 'Configuration' in the README"


def test_the_readme_says_exactly_what_a_checkouts_configuration_may_set() -> None:
    """Every key is in the trust section once: in what a found file may set, or may not."""
    from snapdiff.config import TRUSTED_ONLY
    from snapdiff.options import parser

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### What snapdiff trusts\n")[1].split("\n### ")[0]
    found = section.split("A `.snapdiff.yaml` found automatically")[1].split("\n- ")[0]
    may, may_not = found.split("It may not set")
    keys = {o[2:] for a in parser()._actions for o in a.option_strings if o.startswith("--")}
    keys -= {"config", "no-config", "help", "version"}
    assert {k for k in keys | TRUSTED_ONLY if f"`{k}`" in may} == keys - TRUSTED_ONLY
    assert {k for k in keys | TRUSTED_ONLY if f"`{k}`" in may_not} == TRUSTED_ONLY


def test_config_imports_nothing_from_the_options_that_read_it() -> None:
    """options.py reads config.py; config.py takes the filters' names from model.Filters, so
    the two do not import each other."""
    import ast

    import snapdiff.config

    tree = ast.parse(Path(snapdiff.config.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "options" not in imported and "model" in imported
    from snapdiff.config import TRUSTED_ONLY
    from snapdiff.options import FILTERS

    assert set(FILTERS) <= TRUSTED_ONLY


# A configuration found in the checkout only ever adds gates: a pull request can change it.

DOWN = {"a": ("5.0", "0.9"), "b": ("5.0", "1.9"), "c": ("5.0", "0.1")}  # 3 downgrades


@pytest.fixture
def downgrades(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A checkout (the current directory) and two sides: 3 downgrades, and 3 specs removed with
    no successor (a configuration of each package dropped)."""
    from pagegen import spec, write_page

    for name, versions in DOWN.items():
        for side, version in zip(("old", "new"), versions, strict=True):
            specs = [spec(f"{name}{side}", version, ("e4s", "root"))]
            if side == "old":
                specs.append(spec(f"{name}gone", version, ("e4s", "root"), os="rhel8"))
            write_page(tmp_path / side, name, specs)
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return [str(tmp_path / "old"), str(tmp_path / "new")]


def _failed(err: str) -> list[str]:
    return [line.split(" (")[0] for line in err.splitlines() if "gate failed" in line]


@pytest.mark.parametrize(
    "found",
    ["fail-on: []", "fail-on: ['removed-specs:1000']", "fail-on: removed-specs:5", "{}"],
)
def test_a_found_configuration_cannot_remove_or_weaken_a_trusted_gate(
    found: str, downgrades: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    Path("base.yaml").write_text("fail-on: ['removed-specs:1']\n")  # the base commit's
    Path(".snapdiff.yaml").write_text(found + "\n")  # the pull request's
    code, _, err = run([*downgrades, "--config", "base.yaml"], capsys)
    assert code == 1 and _failed(err) == ["snapdiff: gate failed: removed-specs"]
    assert "more than 1)" in err  # the trusted threshold, not the found one
    Path("base.yaml").write_text("")  # gates of the command line stay alike
    given = ["--fail-on", "removed-specs:2"]
    code, _, err = run([*downgrades, "--config", "base.yaml", *given], capsys)
    assert code == 1 and "more than 2)" in err
    code, _, err = run([*downgrades, "--fail-on", "removed-specs:2"], capsys)  # no trusted file
    assert code == 1 and "more than 2)" in err


def test_a_found_configuration_adds_gates_and_makes_thresholds_stricter(
    downgrades: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    Path("base.yaml").write_text("fail-on: ['removed-specs:1000']\nwarn-on: [stack-loss]\n")
    Path(".snapdiff.yaml").write_text("fail-on: [downgrade, 'removed-specs:2']\nwarn-on: []\n")
    code, _, err = run([*downgrades, "--config", "base.yaml", "--warn-on", "any"], capsys)
    assert code == 1 and _failed(err) == [
        "snapdiff: gate failed: removed-specs",
        "snapdiff: gate failed: downgrade",
    ]
    assert "more than 2)" in err and "gate warning: any" in err
    Path(".snapdiff.yaml").write_text("fail-on: [downgrade]\n")  # no trusted file: added too
    code, _, err = run([*downgrades, "--fail-on", "removed-specs:1000"], capsys)
    assert code == 1 and _failed(err) == ["snapdiff: gate failed: downgrade"]
    Path(".snapdiff.yaml").write_text("exit-code: true\n")
    assert run([*downgrades, "--config", "base.yaml"], capsys)[0] == 1
    Path(".snapdiff.yaml").write_text("exit-code: false\n")  # cannot turn the command's off
    assert run([*downgrades, "--config", "base.yaml", "--exit-code"], capsys)[0] == 1
    Path(".snapdiff.yaml").write_text("fail-on: [downgrad]\n")  # a bad gate: file and line
    code, _, err = run([*downgrades, "--config", "base.yaml"], capsys)
    assert code == 2 and err.startswith(f"snapdiff: error: {Path.cwd() / '.snapdiff.yaml'}:1: ")
    assert "unknown gate 'downgrad' (did you mean 'downgrade'?)" in err


@pytest.mark.parametrize(
    ("content", "line", "expected"),
    [
        ("warn-on: [stack-loss]\nfail-on: [downgrad]\n", 2, "unknown gate 'downgrad'"),
        ("format: json\nexit-code: maybe\n", 2, "exit-code must be true or false"),
        ("format: json\nfail-on: [downgrade\n", 2, "not valid YAML: expected ',' or ']'"),
        ("fail-on: [any]\nfail-on: [downgrade]\n", 2, "fail-on is given twice (lines 1 and 2)"),
        ("format: json\nformt: text\n", 2, "unknown option 'formt' (did you mean 'format'?)"),
    ],
)
@pytest.mark.parametrize("beside", [False, True], ids=["alone", "beside --config"])
def test_a_found_configurations_error_names_its_file_and_line(
    content: str,
    line: int,
    expected: str,
    beside: bool,
    downgrades: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Read for its gates alone or for more, a found file's error is one line: `FILE:LINE:`."""
    Path("base.yaml").write_text("fail-on: [downgrade]\n")
    Path(".snapdiff.yaml").write_text(content)
    code, out, err = run([*downgrades, *(["--config", "base.yaml"] if beside else [])], capsys)
    found = Path.cwd() / ".snapdiff.yaml"
    assert code == 2 and not out and err.count("\n") == 1
    assert err.startswith(f"snapdiff: error: {found}:{line}: {expected}")


def test_beside_a_trusted_file_a_found_one_exempts_nothing_and_says_what_was_not_read(
    downgrades: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The base commit's `allow:` exempts; the pull request's own entries are not read (said,
    not an error: the job still reports), and what it shares with the base is not said."""
    entry = "{gate: downgrade, package: a, reason: pinned}"
    Path("base.yaml").write_text(f"fail-on: [downgrade]\nallow: [{entry}]\nformat: json\n")
    Path(".snapdiff.yaml").write_text(f"fail-on: [downgrade]\nallow: [{entry}]\nformat: json\n")
    code, _, err = run([*downgrades, "--config", "base.yaml"], capsys)
    assert code == 1 and "snapdiff: allowed: downgrade a (pinned)" in err
    assert "not read" not in err and "went down: b, c)" in err
    everything = "{gate: downgrade, package: '*', reason: mine}"
    Path(".snapdiff.yaml").write_text(f"allow: [{entry}, {everything}]\nformat: text\n")
    code, out, err = run([*downgrades, "--config", "base.yaml"], capsys)
    assert code == 1 and "went down: b, c)" in err and json.loads(out)
    found = Path.cwd() / ".snapdiff.yaml"
    said = [line for line in err.splitlines() if "not read" in line]
    assert said == [
        f"snapdiff: warning: {found}: {key} not read: beside --config base.yaml, a "
        "configuration found in the checkout only adds gates"
        for key in ("allow", "format")
    ]
    Path(".snapdiff.yaml").write_text(f"allow: [{everything}]\n")  # alone: refused, as before
    code, _, err = run(downgrades, capsys)
    assert code == 2 and "allow is not read from a configuration found in the checkout" in err


def test_strictest_keeps_every_gate_at_its_lowest_threshold() -> None:
    from snapdiff.gates import parse_gates, spelled, strictest

    given = parse_gates("removed-specs:100,downgrade"), parse_gates("removed-specs:1000,any:3")
    assert spelled(strictest(*given)) == "removed-specs:100,downgrade,any:3"
    assert spelled(strictest(parse_gates("downgrade:5"), parse_gates("downgrade"))) == "downgrade"
    assert strictest() == [] and parse_gates(spelled(strictest(*given))) == strictest(*given)


def test_a_found_configuration_that_is_a_link_or_huge_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 47: a pull request's `.snapdiff.yaml` linked to a file of the runner was followed,
    and a 300 MiB one read whole."""
    from snapdiff.config import CONFIG_BYTES

    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    secret = tmp_path / "elsewhere.yaml"
    secret.write_text("format: json\n")
    (tmp_path / ".snapdiff.yaml").symlink_to(secret)
    code, _, err = run(["snapshots-a", "snapshots-b"], capsys)
    assert code == 2 and "a configuration found in the checkout is a link" in err
    (tmp_path / ".snapdiff.yaml").unlink()
    (tmp_path / ".snapdiff.yaml").write_text("# " + "x" * CONFIG_BYTES + "\n")
    code, _, err = run(["snapshots-a", "snapshots-b"], capsys)
    assert code == 2 and "larger than 1 MiB: not a configuration" in err
