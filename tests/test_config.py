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
    (tmp_path / ".snapdiff.yaml").write_text("format: json\npackage: [py-jax]\nexit_code: true\n")
    code, out, _ = run([V1, V2], capsys)
    data = json.loads(out)
    assert code == 1 and data["filters"] == {"package": ["py-jax"]}
    code, out, _ = run([V1, V2, "--format", "markdown", "--package", "py-keras"], capsys)
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
