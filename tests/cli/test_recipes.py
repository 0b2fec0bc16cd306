"""The GitHub Action (action.yml) and the CI recipes in docs/: checked offline, and the Action's
shell step run here against a real repository."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import yaml
from clirun import ROOT
from gitrepo import forked_repo, git

from snapdiff.options import parser

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
OPTIONS = {o for a in parser()._actions for o in a.option_strings}


def test_the_action_is_a_well_formed_composite_action() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert {"name", "description", "inputs", "outputs", "runs"} <= set(ACTION)
    declared = set(ACTION["inputs"])
    for name, spec_ in ACTION["inputs"].items():
        assert {"description", "required", "default"} <= set(spec_), name
    steps = ACTION["runs"]["steps"]
    text = (ROOT / "action.yml").read_text()
    assert set(re.findall(r"\binputs\.([a-z-]+)", text)) <= declared
    ids = {step.get("id") for step in steps}
    assert set(re.findall(r"\bsteps\.([a-z-]+)\.", text)) <= ids
    for step in steps:
        if "run" in step:
            assert step.get("shell") == "bash", step  # a composite step must name its shell
            assert "${{" not in step["run"], "inputs go through env, never into a script"
        else:
            assert re.fullmatch(r"[\w-]+/[\w-]+@v\d+", step["uses"]), step["uses"]


def test_the_action_uploads_the_report_even_on_failure_and_skips_forks() -> None:
    steps = {step.get("name", step.get("uses")): step for step in ACTION["runs"]["steps"]}
    assert steps["Keep the full report"]["if"] == "always()"
    comment = steps["Post or update the comment"]
    assert "head.repo.full_name == github.repository" in comment["if"]
    assert "steps.diff.outputs.written == 'true'" in comment["if"]
    assert "python -m snapdiff.ci.github" in comment["run"]  # tests/test_action.py runs it


@pytest.mark.parametrize("recipe", ["github-actions.yml", "gitlab-ci.yml"])
def test_the_recipes_parse_and_use_real_options(recipe: str) -> None:
    text = (ROOT / "docs" / recipe).read_text()
    assert yaml.safe_load(text)
    used = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", text))
    assert used <= OPTIONS
    assert "pip install snapdiff" not in text and 'pip install "${SNAPDIFF_PACKAGE' not in text


def test_the_github_recipe_gives_the_action_only_its_inputs() -> None:
    from snapdiff.config import allow_entries

    text = (ROOT / "docs" / "github-actions.yml").read_text()
    steps = yaml.safe_load(text)["jobs"]["release-notes"]["steps"]
    (used,) = [step for step in steps if "snapdiff@" in step["uses"]]
    assert set(used["with"]) <= set(ACTION["inputs"])
    assert allow_entries(yaml.safe_load(used["with"]["allow"]), "allow input")
    other = re.search(r"# config: (\S+)\n", text)  # another repository's file, commented out
    assert other and re.fullmatch(r"[\w-]+/[\w-]+/[\w./-]+@\w+", other[1])


def test_every_line_of_the_gitlab_recipe_is_bash() -> None:
    """Each line alone (tests/cli/test_gitlab.py runs them all, as a runner would)."""
    recipe = yaml.safe_load((ROOT / "docs" / "gitlab-ci.yml").read_text())
    for line in recipe["snapdiff"]["script"]:
        done = subprocess.run(["bash", "-n"], input=line, text=True, capture_output=True)
        assert done.returncode == 0, (line, done.stderr)


@pytest.mark.parametrize(("status", "ends"), [("1", 1), ("137", 137)])
def test_the_gitlab_recipe_says_a_snapdiff_that_ended_before_its_note(
    status: str, ends: int, tmp_path: Path
) -> None:
    """With no note written (a Python error exits 1, as a failed gate does; killed: 137), the
    job ends there, saying so, before posting anything."""
    script = yaml.safe_load((ROOT / "docs" / "gitlab-ci.yml").read_text())["snapdiff"]["script"]
    (checked,) = [line for line in script if line.startswith("test -f note.md")]
    done = subprocess.run(
        ["bash", "-c", f"status={status}\n{checked}"], cwd=tmp_path, capture_output=True, text=True
    )
    said = f"snapdiff ended with exit status {status} before writing its report\n"
    assert (done.returncode, done.stdout) == (ends, said)
    (tmp_path / "note.md").write_text("<!-- snapdiff report -->\n")
    posting = subprocess.run(["bash", "-c", f"status={status}\n{checked}"], cwd=tmp_path)
    assert posting.returncode == 0  # a note written: on to posting it


def _step(name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in ACTION["runs"]["steps"] if s.get("name") == name)
    return found


def run_compare(
    workdir: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], dict[str, str], str]:
    """The Action's comparing step, as GitHub would run it (bash, env, output files)."""
    step = _step("Compare the revisions")
    output, summary = workdir / "output", workdir / "summary"
    temp = workdir.parent / f"{workdir.name}-temp"  # RUNNER_TEMP: what the step writes
    for path in (output, summary):
        path.unlink(missing_ok=True)  # each run of the step starts afresh, as each job does
    defaults = dict.fromkeys(step["env"], "") | {"FORGE": "github", "FULL_REPORT": "full.md"}
    scripts = sysconfig.get_path("scripts")
    done = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=workdir,
        env=os.environ
        | defaults
        | env
        | {
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(temp),
            "PATH": f"{scripts}:{os.environ['PATH']}",
        },
        capture_output=True,
        text=True,
        check=False,
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return done, outputs, summary.read_text() if summary.exists() else ""


@pytest.fixture(scope="module")
def forked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """main moved on three commits after `branch` forked; the branch adds one spec."""
    return forked_repo(tmp_path_factory.mktemp("action") / "repo")


def test_the_default_range_is_what_the_pull_request_changes(forked: Path) -> None:
    work = forked.parent / "default"
    shutil.copytree(forked, work)
    env = {
        "PR_BASE": git(forked, "rev-parse", "main"),
        "PR_HEAD": git(forked, "rev-parse", "branch"),
        "FAIL_ON": "downgrade",
    }
    done, outputs, summary = run_compare(work, env)
    assert done.returncode == 0 and outputs["status"] == "0", done.stderr
    written = Path(outputs["folder"])  # no comment-key here: the folder `default`
    assert written == forked.parent / "default-temp" / "snapdiff" / "default"
    comment = (written / "comment.md").read_text()
    assert "| Specs | 1 | 2 | 1 | 0 | 0 |" in comment  # exactly the one spec the branch adds
    assert summary.startswith("<!-- snapdiff report sha256:")
    assert (written / "full.md").exists()


def test_a_failed_gate_and_a_bad_revision(forked: Path) -> None:
    work = forked.parent / "gates"
    shutil.copytree(forked, work)
    env = {"OLD": "branch", "NEW": "main", "FAIL_ON": "removed-specs"}
    done, outputs, _ = run_compare(work, env)
    assert outputs["status"] == "1" and "gate failed: removed-specs" in done.stderr
    done, outputs, summary = run_compare(work, {"OLD": "nope", "NEW": "main"})
    assert done.returncode == 0 and outputs["status"] == "2"  # the next steps still run
    assert "::error title=snapdiff::snapdiff: error: OLD: nope: no such directory" in done.stdout
    assert summary == ""


def test_the_readme_and_recipes_name_no_bare_package(tmp_path: Path) -> None:
    text = (ROOT / "README.md").read_text() + json.dumps(ACTION)
    assert "pip install snapdiff" not in text
    assert "$GITHUB_ACTION_PATH" in _step("Install snapdiff from this action's own source")["run"]


def test_the_recipes_keep_snapdiffs_cache_where_it_writes_it(forked: Path, tmp_path: Path) -> None:
    """The Action caches ~/.cache/snapdiff, where its snapdiff writes with no XDG_CACHE_HOME
    (a runner sets none); the GitLab recipe points XDG_CACHE_HOME into the project, which its
    `cache:` keeps."""
    cached = _step("Restore snapdiff's cache of revision counts")
    assert cached["uses"] == "actions/cache@v4" and cached["if"] == "inputs.cache == 'true'"
    assert cached["with"]["path"] == "~/.cache/snapdiff"
    assert cached["with"]["restore-keys"] in cached["with"]["key"]
    work = tmp_path / "cached"
    shutil.copytree(forked, work)
    home = tmp_path / "home"
    env = {"OLD": "main", "NEW": "branch", "CACHE": "true", "HOME": str(home)}
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("XDG_CACHE_HOME", raising=False)
        done, outputs, _ = run_compare(work, env)
        assert outputs["status"] == "0", done.stderr
        assert any((home / ".cache" / "snapdiff").rglob("*"))
        shutil.rmtree(home / ".cache" / "snapdiff")
        run_compare(work, env | {"CACHE": "false"})  # --no-cache: nothing written
        assert not (home / ".cache" / "snapdiff").exists()
    recipe = yaml.safe_load((ROOT / "docs" / "gitlab-ci.yml").read_text())["snapdiff"]
    assert recipe["variables"]["XDG_CACHE_HOME"] == "$CI_PROJECT_DIR/.cache"
    assert recipe["cache"]["paths"] == [".cache/snapdiff/"]
