"""The GitHub Action end to end: action.yml's composite steps run as the runner runs them (bash,
GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP, the event file), on a pull request's history
in a throwaway repository, against a loopback stand-in for GitHub's REST API.

Only GitHub's own `uses:` steps (setup-python, cache, upload-artifact) are not run; `if:` and
`${{ }}` are evaluated by a small evaluator of the few forms action.yml uses, with GitHub's
rules (a missing property is null, `==` ignores case and compares null as 0, an `if:` without
a status function means `success() && ...`).
"""

from __future__ import annotations

import http.server
import json
import math
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
import yaml
from clirun import ROOT
from gitrepo import commit, git, new_repo
from jsonapi import JsonHandler, serving
from pagegen import spec, write_page

from snapdiff.ci.github import main as comment_main
from snapdiff.ci.key import main as key_main
from snapdiff.ci.sticky import with_key

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
TOKEN = "test-token"
BOT = "github-actions[bot]"
DAY_2 = "2025-04-02T04:00:00+0000"  # the pull request's commit, as gitrepo.commit dates it
RAW = "application/vnd.github.raw"  # a file's contents as they are

# ---------------------------------------------------------------- expressions


_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<tojson>toJSON\([a-z]+\))"
    r"|(?P<op>&&|\|\||==|!=|!|\(|\))"
    r"|(?P<call>[a-z]+)\(\)|(?P<path>[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*))"
)
Value = str | bool | None


def _number(value: Value) -> float:
    if value is None or value == "":
        return 0.0
    if isinstance(value, bool):
        return float(value)
    try:
        return float(value)
    except ValueError:
        return math.nan


def _equal(a: Value, b: Value) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    return _number(a) == _number(b)


class Expression:
    """`a.b == 'x' && !f() || (...)`: GitHub's expression syntax, as far as action.yml uses it."""

    def __init__(self, text: str, context: dict[str, Any], failed: bool) -> None:
        self.tokens: list[tuple[str, str]] = []
        at, text = 0, text.strip()
        while at < len(text):
            match = _TOKEN.match(text, at)
            assert match and match.end() > at, f"not understood: {text[at:]!r}"
            kind = match.lastgroup
            assert kind is not None
            self.tokens.append((kind, match[kind]))
            at = match.end()
        self.context, self.failed = context, failed

    def value(self) -> Value:
        found = self._or()
        assert not self.tokens, self.tokens
        return found

    def _next(self, *ops: str) -> bool:
        if self.tokens and self.tokens[0][0] == "op" and self.tokens[0][1] in ops:
            self.tokens.pop(0)
            return True
        return False

    def _or(self) -> Value:
        left = self._and()
        while self._next("||"):
            right = self._and()
            left = left or right
        return left

    def _and(self) -> Value:
        left = self._not()
        while self._next("&&"):
            right = self._not()
            left = left and right
        return left

    def _not(self) -> Value:
        if self._next("!"):
            return not self._not()
        left = self._primary()
        if self._next("=="):
            return _equal(left, self._primary())
        if self._next("!="):
            return not _equal(left, self._primary())
        return left

    def _primary(self) -> Value:
        kind, text = self.tokens.pop(0)
        if kind == "string":
            return text[1:-1].replace("''", "'")
        if kind == "call":
            return {"always": True, "success": not self.failed, "failure": self.failed}[text]
        if kind == "tojson":  # a whole context, pretty-printed as GitHub's toJSON does
            return json.dumps(self.context.get(text[len("toJSON(") : -1]), indent=2)
        if kind == "op":
            assert text == "(", text
            found = self._or()
            assert self._next(")")
            return found
        value: Any = self.context
        for part in text.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return value if value is None or isinstance(value, (str, bool)) else str(value)


def condition(text: str | None, context: dict[str, Any], failed: bool) -> bool:
    """A step's `if:`; without a status function it runs only while every step succeeded."""
    text = str(text or "success()").removeprefix("${{").removesuffix("}}")
    if not re.search(r"\b(always|success|failure|cancelled)\(\)", text):
        text = f"success() && ({text})"
    return bool(Expression(text, context, failed).value())


def interpolate(text: object, context: dict[str, Any]) -> str:
    """`${{ expr }}` in a value replaced by what it evaluates to (null: empty)."""

    def one(match: re.Match[str]) -> str:
        value = Expression(match[1], context, False).value()
        return "" if value is None else str(value).lower() if isinstance(value, bool) else value

    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


# ---------------------------------------------------------------- the forge's API


@dataclass
class Forge:
    """GitHub's issue-comment API for one pull request, in memory, recording each call."""

    comments: list[dict[str, Any]] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # OWNER/REPO/path@REF: its text

    def writes(self) -> list[tuple[str, str]]:
        return [call for call in self.calls if call[0] != "GET"]

    def ours(self) -> list[dict[str, Any]]:
        return [c for c in self.comments if c["body"].startswith("<!-- snapdiff report")]


def _handler(forge: Forge) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(JsonHandler):
        def _handle(self, method: str) -> None:
            url = urlsplit(self.path)
            forge.calls.append((method, url.path))
            if self.headers["Authorization"] != f"Bearer {TOKEN}":
                return self._answer(401, {"message": "Bad credentials"})
            length = int(self.headers.get("Content-Length") or 0)
            sent = json.loads(self.rfile.read(length)) if length else {}
            listing = re.fullmatch(r"/repos/owner/catalogue/issues/7/comments", url.path)
            one = re.fullmatch(r"/repos/owner/catalogue/issues/comments/(\d+)", url.path)
            content = re.fullmatch(r"/repos/([^/]+/[^/]+)/contents/(.+)", url.path)
            if method == "GET" and content and self.headers["Accept"] == RAW:
                ref = parse_qs(url.query)["ref"][0]
                text = forge.files.get(f"{content[1]}/{unquote(content[2])}@{ref}")
                if text is not None:
                    self.send_response(200)
                    self.end_headers()
                    self.wfile.write(text.encode())
                    return None
            if method == "GET" and listing:
                query = parse_qs(url.query)
                per_page, page = int(query["per_page"][0]), int(query["page"][0])
                return self._answer(200, forge.comments[(page - 1) * per_page :][:per_page])
            if method == "POST" and listing:
                made = {
                    "id": 1000 + len(forge.comments),
                    "body": sent["body"],
                    "user": {"login": BOT},
                }
                forge.comments.append(made)
                return self._answer(201, made)
            if method == "PATCH" and one:
                found = next(c for c in forge.comments if c["id"] == int(one[1]))
                found["body"] = sent["body"]
                return self._answer(200, found)
            return self._answer(404, {"message": "Not Found"})

        def do_GET(self) -> None:
            self._handle("GET")

        def do_POST(self) -> None:
            self._handle("POST")

        def do_PATCH(self) -> None:
            self._handle("PATCH")

    return Handler


@pytest.fixture
def forge() -> Iterator[tuple[Forge, str]]:
    """The stand-in and its address; 120 comments of others come first (a second page)."""
    found = Forge(
        [{"id": n, "body": f"looks good {n}", "user": {"login": "someone"}} for n in range(120)]
    )
    with serving(_handler(found)) as url:
        yield found, url


# ---------------------------------------------------------------- the runner


@dataclass
class Run:
    """One job's run of the Action: each step's fate, outputs and logs."""

    steps: dict[str, str] = field(default_factory=dict)  # name: success, failure, skipped, not run
    outputs: dict[str, str] = field(default_factory=dict)
    logs: dict[str, str] = field(default_factory=dict)
    withs: dict[str, dict[str, str]] = field(default_factory=dict)
    summary: str = ""
    failed: bool = False


def _shims(folder: Path) -> Path:
    """`python` as setup-python leaves it, with snapdiff installed: this interpreter; its `-m
    pip install` (the install step) is recorded instead of run (no network). Each `snapdiff`
    run is recorded too."""
    folder.mkdir(exist_ok=True)
    shim = folder / "python"
    shim.write_text(
        "#!/bin/bash\n"
        'if [ "$1 $2" = "-m pip" ]; then echo "$*" >> "$SHIM_LOG"; exit 0; fi\n'
        f'exec "{sys.executable}" "$@"\n'
    )
    snapdiff = folder / "snapdiff"
    snapdiff.write_text(
        '#!/bin/bash\necho "$*" >> "$SNAPDIFF_LOG"\n'
        'if [ -n "$SNAPDIFF_KILLED" ]; then kill -9 $$; fi\n'  # as the kernel ends it, say
        # ended early, saying SNAPDIFF_SAYS (a broken install: a traceback and exit status 1)
        'if [ -n "$SNAPDIFF_EXIT" ]; then echo "$SNAPDIFF_SAYS" >&2; exit "$SNAPDIFF_EXIT"; fi\n'
        f'exec "{sys.executable}" -m snapdiff "$@"\n'
    )
    for made in (shim, snapdiff):
        made.chmod(0o755)
    return folder


def run_action(
    workspace: Path,
    tmp: Path,
    event: dict[str, Any],
    api: str,
    inputs: dict[str, str] | None = None,
    matrix: dict[str, Any] | None = None,
) -> Run:
    """Every step of action.yml, in order, as a runner would run it in `workspace` (in a job of
    a matrix, with these values)."""
    temp = tmp / "runner-temp"
    temp.mkdir(exist_ok=True)
    (tmp / "event.json").write_text(json.dumps(event))
    summary = tmp / "step-summary"
    summary.write_text("")
    github = {
        "event": event,
        "repository": "owner/catalogue",
        "workflow": "release notes",
        "job": "notes",
        "token": TOKEN,
        "sha": event.get("after", ""),
    }
    context: dict[str, Any] = {"github": github, "runner": {"temp": str(temp), "os": "Linux"}}
    context["matrix"] = matrix  # null outside a matrix
    given = inputs or {}
    context["inputs"] = {
        name: given.get(name, interpolate(spec_.get("default", ""), context))
        for name, spec_ in ACTION["inputs"].items()
    }
    context["steps"] = {}
    path = f"{_shims(tmp / 'shims')}:{sysconfig.get_path('scripts')}:{os.environ['PATH']}"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "XDG_"))} | {
        "PATH": path,
        "HOME": str(tmp / "home"),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_EVENT_PATH": str(tmp / "event.json"),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_API_URL": api,
        "GITHUB_REPOSITORY": github["repository"],
        "RUNNER_TEMP": str(temp),
        "SHIM_LOG": str(tmp / "pip.log"),
        "SNAPDIFF_LOG": str(tmp / "snapdiff.log"),
    }
    run = Run()
    for number, step in enumerate(ACTION["runs"]["steps"]):
        name = step.get("name", step.get("uses"))
        if not condition(step.get("if"), context, run.failed):
            run.steps[name] = "skipped"
            continue
        if "uses" in step:  # GitHub's own action: not run here
            run.steps[name] = "not run"
            run.withs[name] = {k: interpolate(v, context) for k, v in step.get("with", {}).items()}
            continue
        output = tmp / f"output-{number}"
        output.write_text("")
        script = tmp / f"step-{number}.sh"
        script.write_text(step["run"])
        env = base | {k: interpolate(v, context) for k, v in step.get("env", {}).items()}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=env | {"GITHUB_OUTPUT": str(output)},
            capture_output=True,
            text=True,
            check=False,
        )
        outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": outputs}
        run.steps[name] = "success" if done.returncode == 0 else "failure"
        run.logs[name] = done.stdout + done.stderr
        run.failed = run.failed or done.returncode != 0
    run.outputs = {k: interpolate(v["value"], context) for k, v in ACTION["outputs"].items()}
    run.summary = summary.read_text()
    return run


# ---------------------------------------------------------------- a pull request


def _readme_gates() -> str:
    """The README's example .snapdiff.yaml, as it stands there: a checkout may hold it."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```yaml\n(.*?)```", readme, re.DOTALL)
    assert block
    assert yaml.safe_load(block[1])["fail-on"] == ["downgrade", "removed-specs:100"]
    return block[1]


@pytest.fixture
def pull_request(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A catalogue repository whose pull-request branch downgrades py-a and adds a spec of zlib,
    checked out at the branch (as actions/checkout leaves it); and its pull_request event."""
    return make_pull_request(tmp_path)


def make_pull_request(
    tmp_path: Path, base_files: dict[str, str] | None = None
) -> tuple[Path, dict[str, Any]]:
    """The pull request of the fixture, its base commit holding these files too."""
    repo = new_repo(tmp_path / "catalogue")
    write_page(repo, "py-a", [spec("a1", "2.0")])
    write_page(repo, "zlib", [spec("z1", "1.3")])
    for name, text in (base_files or {}).items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    base = commit(repo, "catalogue", 1)
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-q", "-b", "pr")
    write_page(repo, "py-a", [spec("a0", "1.9")])
    write_page(repo, "zlib", [spec("z1", "1.3"), spec("z2", "1.3", target="zen4")])
    head = commit(repo, "downgrade py-a", 2)  # on DAY_2
    event = {
        "pull_request": {
            "number": 7,
            "base": {"sha": base},
            "head": {"sha": head, "repo": {"full_name": "owner/catalogue"}},
        }
    }
    return repo, event


def _configure(repo: Path, text: str, name: str = ".snapdiff.yaml") -> str:
    """The pull request's own configuration, committed: the new head."""
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(text)
    return commit(repo, "configure snapdiff", 3)


def _clean(repo: Path) -> None:
    assert git(repo, "status", "--porcelain", "--ignored") == ""


def test_without_configuration_the_comment_is_posted_once_and_the_job_passes(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    repo, event = pull_request
    api, url = forge
    run = run_action(repo, tmp_path, event, url)
    assert run.steps == {
        "actions/setup-python@v5": "not run",
        "Install snapdiff from this action's own source": "success",
        "Restore snapdiff's cache of revision counts": "not run",
        "Compare the revisions": "success",
        "Keep the full report": "not run",
        "Post or update the comment": "success",
        "Fail when snapdiff did": "skipped",
    }, run.logs
    assert run.outputs == {"status": "0"} and not run.failed
    assert (tmp_path / "pip.log").read_text() == f"-m pip install --quiet {ROOT}\n"
    (ours,) = api.ours()
    assert ours["body"].split("\n")[0].endswith(" key=release%20notes/notes -->")
    assert "| Specs | 2 | 3 | 2 | 1 | 0 |" in ours["body"] and "Gate" not in ours["body"]
    assert run.summary.startswith("<!-- snapdiff report sha256:")
    assert Path(run.withs["Keep the full report"]["path"]).is_file()
    # one run writes the comment, the full report and the job summary
    assert len((tmp_path / "snapdiff.log").read_text().splitlines()) == 1
    assert api.writes() == [("POST", "/repos/owner/catalogue/issues/7/comments")]
    assert ("GET", "/repos/owner/catalogue/issues/7/comments") in api.calls
    _clean(repo)
    again = run_action(repo, tmp_path, event, url)  # a re-run of the same commits
    assert not again.failed and len(api.writes()) == 1  # nothing rewritten
    assert "is up to date" in again.logs["Post or update the comment"]


def test_a_force_pushed_head_with_the_same_tree_updates_the_title(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    """Same tree, same date, new commit id: the report says the same (same digest), but its
    title names commits that no longer are the pull request's."""
    repo, event = pull_request
    api, url = forge
    run_action(repo, tmp_path, event, url)
    (before,) = api.ours()
    title = before["body"].split("\n")[1]
    old = event["pull_request"]["head"]["sha"]
    assert f"`{old[:7]}`" in title
    git(repo, "commit", "-q", "--amend", "-m", "downgrade py-a, reworded", date=DAY_2)
    new = event["pull_request"]["head"]["sha"] = git(repo, "rev-parse", "HEAD")
    assert git(repo, "rev-parse", f"{new}^{{tree}}") == git(repo, "rev-parse", f"{old}^{{tree}}")
    run = run_action(repo, tmp_path, event, url)
    assert "updated comment" in run.logs["Post or update the comment"]
    (after,) = api.ours()
    assert after["body"].split("\n")[0] == before["body"].split("\n")[0]  # the same digest
    assert after["body"].split("\n")[1] == title.replace(old[:7], new[:7])
    again = run_action(repo, tmp_path, event, url)
    assert "is up to date" in again.logs["Post or update the comment"]
    assert len(api.writes()) == 2


def test_a_failed_gate_of_the_configuration_is_commented_then_fails_the_job(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    repo, event = pull_request
    _configure(repo, _readme_gates())
    event["pull_request"]["head"]["sha"] = git(repo, "rev-parse", "HEAD")
    api, url = forge
    run = run_action(repo, tmp_path, event, url)
    assert run.outputs == {"status": "1"} and run.failed
    assert run.steps["Compare the revisions"] == "success"
    assert run.steps["Post or update the comment"] == "success"
    assert run.steps["Fail when snapdiff did"] == "failure"
    (ours,) = api.ours()
    gate = "- **❌ Gate failed, `downgrade`:** 1 package's highest version went down: `py-a`"
    assert gate in ours["body"].splitlines()
    log = run.logs["Compare the revisions"]
    assert "::error title=snapdiff downgrade::downgrade (1 package's highest version" in log
    assert log.count("snapdiff: gate failed:") == 1  # the gates applied once: not again
    last = run.logs["Fail when snapdiff did"].splitlines()
    assert last == [
        "snapdiff: gate failed: downgrade (1 package's highest version went down: py-a)"
    ]
    assert run.summary.startswith("<!-- snapdiff report") and gate in run.summary.splitlines()
    _clean(repo)
    again = run_action(repo, tmp_path, event, url)
    assert again.outputs == {"status": "1"} and len(api.writes()) == 1  # the same comment kept


def test_exit_code_in_the_configuration_fails_the_job_after_the_comment_and_summary(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    repo, event = pull_request
    _configure(repo, "exit-code: true\n")
    api, url = forge
    run = run_action(repo, tmp_path, event, url, {"warn-on": "downgrade"})
    assert run.outputs == {"status": "1"} and run.steps["Fail when snapdiff did"] == "failure"
    assert len(api.ours()) == 1 and run.summary.startswith("<!-- snapdiff report")
    assert "::warning title=snapdiff downgrade::" in run.logs["Compare the revisions"]
    assert "⚠️ Gate warning, `downgrade`" in api.ours()[0]["body"]
    assert run.logs["Fail when snapdiff did"] == "snapdiff: there were changes (exit-code)\n"


def test_a_pull_request_from_a_fork_gets_the_gates_in_the_job_summary(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    """A fork's pull request gets a read-only token: no comment, and the job summary says why
    the job failed."""
    repo, event = pull_request
    _configure(repo, _readme_gates())
    event["pull_request"]["head"] = {
        "sha": git(repo, "rev-parse", "HEAD"),
        "repo": {"full_name": "someone/catalogue"},
    }
    api, url = forge
    run = run_action(repo, tmp_path, event, url)
    assert run.outputs == {"status": "1"} and run.failed
    assert run.steps["Post or update the comment"] == "skipped" and api.calls == []
    gate = "- **❌ Gate failed, `downgrade`:** 1 package's highest version went down: `py-a`"
    assert gate in run.summary.splitlines()


# ---------------------------------------------------------------- trusted configuration

PINNED = "allow: [{gate: downgrade, package: py-a, reason: pinned until 2.1}]\n"


def _failed(run: Run) -> list[str]:
    """The gates the job's last step says failed."""
    last = run.logs.get("Fail when snapdiff did", "").splitlines()
    return [line.split(" (")[0].removeprefix("snapdiff: gate failed: ") for line in last]


def test_an_allow_in_the_base_commits_configuration_exempts_its_package(
    tmp_path: Path, forge: tuple[Forge, str]
) -> None:
    """The base commit's `.snapdiff.yaml` is trusted: its `allow:` is read (the checkout's copy
    of it, the same file, was an error: exit 2)."""
    repo, event = make_pull_request(tmp_path, {".snapdiff.yaml": "fail-on: [downgrade]\n" + PINNED})
    api, url = forge
    run = run_action(repo, tmp_path, event, url)
    assert run.outputs == {"status": "0"} and not run.failed, run.logs
    log = run.logs["Compare the revisions"]
    base = event["pull_request"]["base"]["sha"][:12]
    assert f"snapdiff: trusted configuration: .snapdiff.yaml at the base commit {base}" in log
    assert "snapdiff: allowed: downgrade py-a (pinned until 2.1)" in log
    assert "not read" not in log  # the checkout's copy says what the base's does
    (ours,) = api.ours()
    assert "pinned until 2.1" in ours["body"]
    _clean(repo)


@pytest.mark.parametrize(
    "own",
    [
        "fail-on: []\n",  # emptied
        "fail-on: ['any:1000']\n",  # weakened
        "fail-on: [downgrade]\nallow: [{gate: downgrade, package: '*', reason: mine}]\n",
        "",  # removed
    ],
)
def test_a_pull_request_cannot_empty_or_weaken_the_gates_in_its_own_configuration(
    own: str, tmp_path: Path, forge: tuple[Forge, str]
) -> None:
    base = "fail-on: [downgrade, 'any:0']\n"
    repo, event = make_pull_request(tmp_path, {".snapdiff.yaml": base})
    if own:
        event["pull_request"]["head"]["sha"] = _configure(repo, own)
    else:
        (repo / ".snapdiff.yaml").unlink()
        event["pull_request"]["head"]["sha"] = commit(repo, "no gates", 3)
    api, url = forge
    run = run_action(repo, tmp_path, event, url)
    assert run.outputs == {"status": "1"} and run.failed
    assert _failed(run) == ["downgrade", "any"]
    assert "more than" not in run.logs["Fail when snapdiff did"]  # any:0 is any at all
    assert ("allow not read" in run.logs["Compare the revisions"]) == ("allow" in own)
    assert "Gate failed, `any`" in api.ours()[0]["body"]


def test_a_pull_request_may_add_gates_in_its_own_configuration(
    tmp_path: Path, forge: tuple[Forge, str]
) -> None:
    repo, event = make_pull_request(tmp_path, {".snapdiff.yaml": "warn-on: [any]\n"})
    event["pull_request"]["head"]["sha"] = _configure(repo, "fail-on: [downgrade]\n")
    _, url = forge
    run = run_action(repo, tmp_path, event, url)
    assert run.outputs == {"status": "1"} and _failed(run) == ["downgrade"]
    assert "snapdiff: gate warning: any" in run.logs["Compare the revisions"]


def test_the_config_input_names_a_file_at_the_base_commit(
    tmp_path: Path, forge: tuple[Forge, str]
) -> None:
    """`config: ci/snapdiff.yaml` is read at the base commit: the pull request's change to that
    file (dropping the exemption) is not what is read."""
    trusted = "fail-on: [downgrade]\n" + PINNED
    repo, event = make_pull_request(tmp_path, {"ci/snapdiff.yaml": trusted})
    event["pull_request"]["head"]["sha"] = _configure(repo, "fail-on: [any]\n", "ci/snapdiff.yaml")
    _, url = forge
    run = run_action(repo, tmp_path, event, url, {"config": "./ci/snapdiff.yaml"})
    assert run.outputs == {"status": "0"} and not run.failed, run.logs
    log = run.logs["Compare the revisions"]
    assert "snapdiff: trusted configuration: ci/snapdiff.yaml at the base commit" in log
    assert "snapdiff: allowed: downgrade py-a (pinned until 2.1)" in log
    for missing, said in (
        ("ci/nope.yaml", "config: no file ci/nope.yaml at the base commit"),
        ("../ci/snapdiff.yaml", "config: '../ci/snapdiff.yaml' is not a path inside"),
    ):
        refused = run_action(repo, tmp_path, event, url, {"config": missing})
        assert refused.failed and refused.steps["Compare the revisions"] == "failure"
        assert (
            f"::error title=snapdiff::snapdiff: error: {said}"
            in refused.logs["Compare the revisions"]
        )
        assert refused.steps["Post or update the comment"] == "skipped"


def test_the_config_input_names_another_repositorys_file(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    """`OWNER/REPO/path@REF`, read through the contents API with config-token, as
    dependency-review-action reads its config-file."""
    repo, event = pull_request
    api, url = forge
    api.files["org/policies/ci/snapdiff.yaml@v2"] = "fail-on: [any]\n" + PINNED
    named = {"config": "org/policies/ci/snapdiff.yaml@v2", "fail-on": ""}
    run = run_action(repo, tmp_path, event, url, named)
    assert run.outputs == {"status": "1"} and _failed(run) == ["any"]
    log = run.logs["Compare the revisions"]
    assert "snapdiff: trusted configuration: org/policies/ci/snapdiff.yaml at v2" in log
    assert "snapdiff: allowed:" not in log  # py-a's downgrade is no gate here
    assert ("GET", "/repos/org/policies/contents/ci/snapdiff.yaml") in api.calls
    missing = run_action(repo, tmp_path, event, url, {"config": "org/policies/nope.yaml@v2"})
    assert missing.failed and missing.steps["Compare the revisions"] == "failure"
    said = "::error title=snapdiff::snapdiff: error: org/policies/nope.yaml@v2: HTTP 404"
    assert said in missing.logs["Compare the revisions"]
    wrong = {"config": "org/policies/ci/snapdiff.yaml@v2", "config-token": "wrong"}
    assert "HTTP 401" in run_action(repo, tmp_path, event, url, wrong).logs["Compare the revisions"]


def test_the_allow_input_exempts_as_the_base_configurations_entries_do(
    tmp_path: Path, forge: tuple[Forge, str]
) -> None:
    base = "fail-on: [downgrade, removed-specs]\n"
    repo, event = make_pull_request(tmp_path, {".snapdiff.yaml": base})
    _, url = forge
    allow = "- {gate: downgrade, package: py-a, reason: accepted}\n"
    allow += "- {gate: removed-specs, package: 'py-*', reason: accepted}\n"
    run = run_action(repo, tmp_path, event, url, {"allow": allow})
    assert run.outputs == {"status": "0"} and not run.failed, run.logs
    log = run.logs["Compare the revisions"]
    assert ".snapdiff.yaml at the base commit" in log and "2 entries of the allow input" in log
    assert "snapdiff: allowed: downgrade py-a (accepted)" in log
    bad = run_action(repo, tmp_path, event, url, {"allow": "[{gate: downgrade, package: a}]"})
    assert bad.failed and bad.steps["Compare the revisions"] == "failure"
    said = "snapdiff: error: allow input: allow entry 1: needs one gate and a reason"
    assert said in bad.logs["Compare the revisions"]


def test_a_format_in_the_configuration_leaves_the_comment_markdown(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    """A checked-in .snapdiff.yaml may set `format` (for people running snapdiff by hand): the
    comment and the job summary are Markdown whatever it says."""
    repo, event = pull_request
    api, url = forge
    for chosen in ("json", "text"):
        _configure(repo, f"format: {chosen}\n")
        event["pull_request"]["head"]["sha"] = git(repo, "rev-parse", "HEAD")
        run = run_action(repo, tmp_path, event, url)
        assert run.outputs == {"status": "0"} and not run.failed, run.logs
        (ours,) = api.ours()
        assert "| Specs | 2 | 3 | 2 | 1 | 0 |" in ours["body"]
        assert run.summary.startswith("<!-- snapdiff report sha256:")


def test_a_long_comment_key_still_fits_github_s_limit(
    tmp_path: Path, forge: tuple[Forge, str]
) -> None:
    """The key goes into the marker line after snapdiff has fitted the comment to GitHub's
    65,536 characters: a report over the limit, with a long key, still fits."""
    repo = new_repo(tmp_path / "catalogue")
    for number in range(500):  # a report of about 100 KB
        write_page(repo, f"pkg-{number:04}", [spec(f"a{number:04}", "1.0")])
    base = commit(repo, "catalogue", 1)
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-q", "-b", "pr")
    for number in range(500):
        write_page(repo, f"pkg-{number:04}", [spec(f"b{number:04}", "1.0", ("e4s",))])
    head = commit(repo, "rebuild everything", 2)
    head_repo = {"sha": head, "repo": {"full_name": "owner/catalogue"}}
    pr = {"number": 7, "base": {"sha": base}, "head": head_repo}
    api, url = forge
    key = "release-notes/" + "k" * 8000
    run = run_action(repo, tmp_path, {"pull_request": pr}, url, {"comment-key": key})
    assert run.outputs == {"status": "0"} and not run.failed, run.logs
    (ours,) = api.ours()
    assert f" key={key} -->" in ours["body"].split("\n")[0]
    full = Path(run.withs["Keep the full report"]["path"]).read_text()
    assert len(ours["body"]) <= 65_536 < len(full)
    name = run.withs["Keep the full report"]["name"]  # the key cut, and its digest
    assert re.fullmatch(r"snapdiff-full-report-release-notes%2Fk{32}-[0-9a-f]{11}", name)
    # the cuts name that artifact; no path of the runner reaches the comment or the summary
    assert f"see the artifact `{name}`." in ours["body"]  # the summary fits: uncut
    assert str(tmp_path) not in ours["body"] + run.summary and "runner-temp" not in ours["body"]


def test_two_comment_keys_keep_two_comments(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    repo, event = pull_request
    api, url = forge
    run_action(repo, tmp_path, event, url, {"comment-key": "develop"})
    run_action(repo, tmp_path, event, url, {"comment-key": "releases", "fail-on": "any"})
    assert len(api.ours()) == 2 and len(api.writes()) == 2
    third = run_action(
        repo, tmp_path, event, url, {"comment-key": "develop", "fail-on": "downgrade"}
    )
    develop, releases = api.ours()
    assert "key=develop -->" in develop["body"] and "Gate failed, `downgrade`" in develop["body"]
    assert "key=releases -->" in releases["body"] and "Gate failed, `any`" in releases["body"]
    assert api.writes()[-1] == ("PATCH", f"/repos/owner/catalogue/issues/comments/{develop['id']}")
    # two uses in one job: a folder and an artifact each (one artifact name twice fails a run)
    tagged = run_action(repo, tmp_path, event, url, {"comment-key": "releases/v1.0 (tag)"})
    kept = [run.withs["Keep the full report"] for run in (third, tagged)]
    assert [k["name"] for k in kept] == [
        "snapdiff-full-report-develop",
        "snapdiff-full-report-releases%2Fv1%2E0%20%28tag%29",
    ]
    assert len({k["path"] for k in kept}) == 2 and all(Path(k["path"]).is_file() for k in kept)


def test_the_jobs_of_a_matrix_keep_a_comment_and_an_artifact_each(
    pull_request: tuple[Path, dict[str, Any]],
    forge: tuple[Forge, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 47: two jobs of one matrix (an environment each, say) with the default comment-key
    overwrote one comment and uploaded one artifact name twice, which fails the second upload.
    One job's run of the Action names its folder and artifact (snapdiff stands in, ending at
    once: the names come first); the other job's are what `python -m snapdiff.ci.key` says
    there; the comment script posts as each job's would."""
    repo, event = pull_request
    api, url = forge
    monkeypatch.setenv("SNAPDIFF_EXIT", "2")
    casper: dict[str, Any] = {"environment": "casper"}
    derecho: dict[str, Any] = {"environment": "derecho", "spack": 1.0}
    kept = run_action(repo, tmp_path, event, url, matrix=derecho).withs["Keep the full report"]
    name = "release%20notes%2Fnotes%20%28derecho%2C%201%2E0%29"
    assert kept["name"] == f"snapdiff-full-report-{name}"
    assert Path(kept["path"]).parent.name == name
    env = {"DEFAULT_KEY": "release notes/notes"}  # no comment-key given: the same in each job
    assert key_main(env | {"MATRIX": json.dumps(casper, indent=2)}) == 0
    assert capsys.readouterr().out == "release%20notes%2Fnotes%20%28casper%29 28\n"
    # a key given is kept as it is (its comment found again), matrix or not
    given = env | {"COMMENT_KEY": "notes-casper", "MATRIX": json.dumps(casper)}
    assert key_main(given) == 0 and capsys.readouterr().out == "notes-casper 12\n"
    comment = tmp_path / "comment.md"
    comment.write_text("<!-- snapdiff report sha256:0123abcd -->\n## Catalogue changes\n")
    env |= {
        "GITHUB_API_URL": url,
        "GITHUB_REPOSITORY": "owner/catalogue",
        "GITHUB_TOKEN": TOKEN,
        "PR_NUMBER": "7",
    }
    for matrix in (casper, derecho, casper):  # each job, then the first one's re-run
        assert comment_main([str(comment)], env | {"MATRIX": json.dumps(matrix, indent=2)}) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "snapdiff: comment 1120 is up to date"
    markers = [c["body"].split("\n")[0] for c in api.ours()]
    assert [m.split(" key=")[1] for m in markers] == [
        "release%20notes/notes%20%28casper%29 -->",
        "release%20notes/notes%20%28derecho%2C%201.0%29 -->",
    ]


@pytest.mark.parametrize(
    ("matrix", "said"),
    [
        ("null", "k 1\n"),  # outside a matrix: the key alone
        ("{}", "k 1\n"),
        (
            '{"n": 3, "os": {"name": "x"}, "b": true}',
            "k%20%283%2C%20%7B%22name%22%3A%20%22x%22%7D%2C%20true%29 26\n",
        ),
        ("[1]", "::error title=snapdiff::MATRIX is not a JSON object (pass toJSON(matrix))\n"),
    ],
)
def test_a_jobs_key_holds_its_matrix_values_in_order(
    matrix: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert key_main({"DEFAULT_KEY": "k", "MATRIX": matrix}) == (2 if "error" in said else 0)
    assert capsys.readouterr().out == said


def test_outside_a_pull_request_old_and_new_are_required(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    repo, _ = pull_request
    api, url = forge
    push = {"after": git(repo, "rev-parse", "HEAD")}
    run = run_action(repo, tmp_path, push, url)
    assert run.failed and run.steps["Compare the revisions"] == "failure"
    assert (
        "::error title=snapdiff::not a pull request: set the inputs old and new"
        in (run.logs["Compare the revisions"])
    )
    assert not (tmp_path / "runner-temp" / "snapdiff").exists()  # snapdiff never ran
    assert run.steps["Post or update the comment"] == "skipped" and api.calls == []
    run = run_action(repo, tmp_path, push, url, {"old": "main", "new": "pr"})
    assert run.outputs == {"status": "0"} and not run.failed
    assert run.steps["Post or update the comment"] == "skipped"  # no pull request to comment on
    assert "| Specs | 2 | 3 | 2 | 1 | 0 |" in run.summary
    _clean(repo)


def test_the_old_and_new_inputs_are_revisions_never_options(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    """Issue 47: `old: --output=FILE` was read as snapdiff's option, writing where it named."""
    repo, _ = pull_request
    _, url = forge
    push = {"after": git(repo, "rev-parse", "HEAD")}
    planted = tmp_path / "planted.md"
    run = run_action(repo, tmp_path, push, url, {"old": f"--output={planted}", "new": "pr"})
    assert run.failed and not planted.exists()
    assert "snapdiff: error: OLD: --output=" in run.logs["Compare the revisions"]
    _clean(repo)


def test_a_bad_revision_is_one_error_line_and_fails_the_job(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    repo, event = pull_request
    api, url = forge
    run = run_action(repo, tmp_path, event, url, {"old": "no%0Ape"})
    assert run.outputs == {"status": "2"} and run.steps["Post or update the comment"] == "skipped"
    said = "::error title=snapdiff::snapdiff: error: OLD: no%250Ape:"  # `%` escaped: no break
    assert said in run.logs["Compare the revisions"]
    assert run.logs["Fail when snapdiff did"].startswith("snapdiff: error: OLD: no%0Ape:")
    assert api.calls == [] and run.summary == ""


def test_a_snapdiff_killed_is_said_as_such_and_nothing_is_posted(
    pull_request: tuple[Path, dict[str, Any]],
    forge: tuple[Forge, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Killed (out of memory on a runner, say): exit status 137, neither a gate nor changes;
    what an earlier use with the same key wrote is not taken for its report."""
    repo, event = pull_request
    api, url = forge
    assert not run_action(repo, tmp_path, event, url).failed and api.calls
    api.calls.clear()
    monkeypatch.setenv("SNAPDIFF_KILLED", "1")
    run = run_action(repo, tmp_path, event, url)
    assert run.outputs == {"status": "137"} and run.failed
    assert run.steps["Compare the revisions"] == "success"
    assert run.steps["Post or update the comment"] == "skipped"
    said = "::error title=snapdiff::snapdiff ended with exit status 137 before writing its report"
    assert said in run.logs["Compare the revisions"]
    last = "snapdiff: ended with exit status 137 before writing its report\n"
    assert run.logs["Fail when snapdiff did"] == last
    assert api.calls == [] and run.summary == ""


@pytest.mark.parametrize(
    ("status", "says"),
    [("1", "ImportError: no module"), ("2", ""), ("2", "snapdiff: warning: a warning, last")],
)
def test_a_snapdiff_that_fails_before_its_report_is_not_taken_for_changes(
    status: str,
    says: str,
    pull_request: tuple[Path, dict[str, Any]],
    forge: tuple[Forge, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Exit status 1 with no report written (a Python error before snapdiff's own handling, as
    a broken install gives), or 2 with no error line (a warning is none), is neither a failed
    gate nor changes, and nothing is posted."""
    repo, event = pull_request
    api, url = forge
    monkeypatch.setenv("SNAPDIFF_EXIT", status)
    monkeypatch.setenv("SNAPDIFF_SAYS", says)
    run = run_action(repo, tmp_path, event, url, {"comment-key": "k"})
    assert run.outputs == {"status": status} and run.failed
    assert run.steps["Compare the revisions"] == "success"
    assert run.steps["Post or update the comment"] == "skipped"
    log = run.logs["Compare the revisions"]
    assert says in log
    said = f"snapdiff ended with exit status {status} before writing its report"
    assert f"::error title=snapdiff::{said}" in log
    assert run.logs["Fail when snapdiff did"] == f"snapdiff: {said.removeprefix('snapdiff ')}\n"
    assert api.calls == [] and run.summary == ""


def test_the_full_report_may_be_in_a_folder_of_the_runner_s_temporary_folder_only(
    pull_request: tuple[Path, dict[str, Any]], forge: tuple[Forge, str], tmp_path: Path
) -> None:
    repo, event = pull_request
    api, url = forge
    run = run_action(repo, tmp_path, event, url, {"full-report": "reports/full.md"})
    assert run.outputs == {"status": "0"} and not run.failed, run.logs
    folder = tmp_path / "runner-temp" / "snapdiff" / "release%20notes%2Fnotes"  # the key's
    assert (folder / "reports" / "full.md").is_file()
    for outside in ("../full.md", "/tmp/full.md", "reports/../../full.md"):
        refused = run_action(repo, tmp_path, event, url, {"full-report": outside})
        assert refused.failed and refused.steps["Compare the revisions"] == "failure"
        said = "::error title=snapdiff::full-report: a file name inside the runner's temporary"
        assert said in refused.logs["Compare the revisions"]
    assert not (tmp_path / "full.md").exists() and len(api.writes()) == 1
    for own in ("comment.md", "summary.md", "./snapdiff.err"):
        refused = run_action(repo, tmp_path, event, url, {"full-report": own})
        assert refused.failed and refused.steps["Compare the revisions"] == "failure"
        said = f"full-report: '{own.lstrip('./')}' is a file the action writes itself"
        assert said in refused.logs["Compare the revisions"]


def test_the_comment_key_cannot_end_the_marker_and_api_errors_are_one_line(
    forge: tuple[Forge, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "<!-- snapdiff report sha256:0123abcd -->\n## Catalogue changes\n"
    keyed = with_key(body, "a --> b")
    assert keyed.split("\n")[0] == "<!-- snapdiff report sha256:0123abcd key=a%20--%3E%20b -->"
    comment = tmp_path / "comment.md"
    comment.write_text(body)
    api, url = forge
    env = {
        "GITHUB_API_URL": url,
        "GITHUB_REPOSITORY": "owner/catalogue",
        "GITHUB_TOKEN": "wrong",
        "PR_NUMBER": "7",
        "COMMENT_KEY": "k",
    }
    assert comment_main([str(comment)], env) == 2
    assert capsys.readouterr().out == (
        f"::error title=snapdiff comment::GET {url}/repos/owner/catalogue/issues/7/comments"
        "?per_page=100&page=1: HTTP 401 Unauthorized (check that the job's token may write to "
        "owner/catalogue's pull requests: the workflow's permissions need pull-requests: write)\n"
    )
    assert comment_main([str(comment)], env | {"GITHUB_TOKEN": ""}) == 2
    assert "not set: GITHUB_TOKEN" in capsys.readouterr().out
    comment.write_text("no marker\n")
    assert comment_main([str(comment)], env | {"GITHUB_TOKEN": TOKEN}) == 2
    assert "does not start with snapdiff's marker" in capsys.readouterr().out
    assert api.writes() == []


def test_a_pull_request_changing_a_lockfile_is_commented_environment_and_roots_first(
    forge: tuple[Forge, str], tmp_path: Path
) -> None:
    """Issue 44: an environment repository (real NCAR casper lockfiles, cut down: the golden
    case environment-casper) whose pull request adds a root and re-concretizes another."""
    case = ROOT / "tests" / "cases" / "environment-casper"
    repo = new_repo(tmp_path / "environments")
    (repo / "envs" / "casper").mkdir(parents=True)
    shutil.copyfile(case / "old" / "spack.lock", repo / "envs" / "casper" / "spack.lock")
    base = commit(repo, "casper", 1)
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-q", "-b", "pr")
    shutil.copyfile(case / "new" / "spack.lock", repo / "envs" / "casper" / "spack.lock")
    head = commit(repo, "Add visit with netcdf", 2)
    event = {  # the stand-in forge serves owner/catalogue's pull request 7
        "pull_request": {
            "number": 7,
            "base": {"sha": base},
            "head": {"sha": head, "repo": {"full_name": "owner/catalogue"}},
        }
    }
    api, url = forge
    run = run_action(repo, tmp_path, event, url)
    assert run.outputs == {"status": "0"} and not run.failed, run.logs
    (ours,) = api.ours()
    body = ours["body"]
    first = body.split("\n### ")[0]
    assert "## Environment changes: " in first and "| Stacks |" not in first
    said = first.splitlines()
    lines = [i for i, line in enumerate(said) if line.startswith("- **")]
    assert said[lines[0]].startswith("- **Spack** `0.21.0.dev0` (`7cf939f`)")
    assert said[lines[1]].startswith("- **+1 root added:** `visit@3.3.3%gcc@12.2.0")
    assert said[lines[2]].startswith("- **1 root re-concretized:** `ncl`")
