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


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("formt: json\n", "unknown option 'formt' (did you mean 'format'?)"),
        ("max_char: 1000\n", "unknown option 'max_char' (did you mean 'max-chars'?)"),
        ("exit-code: maybe\n", "exit-code must be true or false"),
        ("format: [json]\n", "format must be a single value"),
        ("format: xml\n", "argument -f/--format: invalid choice: 'xml'"),
        ("- a list\n", "the configuration is not a mapping of options"),
    ],
)
def test_bad_configuration_names_the_file(
    content: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    code, _, err = run([V1, V2, "--config", str(path)], capsys)
    assert code == 2 and err.startswith(f"snapdiff: error: {path}: ") and expected in err


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
