"""The GitLab recipe end to end: docs/gitlab-ci.yml's script run as a runner runs it (one bash
script, `set -eo pipefail`, its variables expanded), on a merge request's history in a throwaway
repository, against a loopback stand-in for GitLab's REST API."""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from clirun import ROOT
from gitrepo import commit, git, new_repo
from jsonapi import JsonHandler, serving
from pagegen import spec, write_page

RECIPE = yaml.safe_load((ROOT / "docs" / "gitlab-ci.yml").read_text())["snapdiff"]
TOKEN = "glpat-test"
BOT, SOMEONE = 42, 7  # user ids: the token's own, and a reviewer's
NOTES = "/api/v4/projects/5/merge_requests/3/notes"


@dataclass
class GitLab:
    """GitLab's merge-request notes API for one merge request, in memory, recording each call."""

    notes: list[dict[str, Any]] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)

    def writes(self) -> list[tuple[str, str]]:
        return [call for call in self.calls if call[0] != "GET"]

    def markers(self) -> list[dict[str, Any]]:
        return [n for n in self.notes if n["body"].startswith("<!-- snapdiff report")]


def _handler(lab: GitLab) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(JsonHandler):
        def _handle(self, method: str) -> None:
            url = urlsplit(self.path)
            lab.calls.append((method, url.path))
            if self.headers["PRIVATE-TOKEN"] != TOKEN:
                return self._answer(401, {"message": "401 Unauthorized"})
            length = int(self.headers.get("Content-Length") or 0)
            sent = json.loads(self.rfile.read(length)) if length else {}
            one = re.fullmatch(re.escape(NOTES) + r"/(\d+)", url.path)
            if method == "GET" and url.path == "/api/v4/user":
                return self._answer(200, {"id": BOT, "username": "project_5_bot_1"})
            if method == "GET" and url.path == NOTES:
                query = parse_qs(url.query)
                per_page, page = int(query["per_page"][0]), int(query["page"][0])
                return self._answer(200, lab.notes[(page - 1) * per_page :][:per_page])
            if method == "POST" and url.path == NOTES:
                made = {"id": 5000 + len(lab.notes), "body": sent["body"], "author": {"id": BOT}}
                lab.notes.append(made | {"system": False})
                return self._answer(201, made)
            if method == "PUT" and one:
                found = next(n for n in lab.notes if n["id"] == int(one[1]))
                if found["author"]["id"] != BOT:
                    return self._answer(403, {"message": "403 Forbidden"})
                found["body"] = sent["body"]
                return self._answer(200, found)
            return self._answer(404, {"message": "404 Not Found"})

        def do_GET(self) -> None:
            self._handle("GET")

        def do_POST(self) -> None:
            self._handle("POST")

        def do_PUT(self) -> None:
            self._handle("PUT")

    return Handler


@pytest.fixture
def gitlab() -> Iterator[tuple[GitLab, str]]:
    """The stand-in and its API address; 120 notes of others come first (a second page), one a
    system note."""
    lab = GitLab(
        [
            {"id": n, "body": f"looks good {n}", "author": {"id": SOMEONE}, "system": n == 3}
            for n in range(120)
        ]
    )
    with serving(_handler(lab)) as url:
        yield lab, f"{url}/api/v4"


def merge_request(tmp_path: Path, base_files: dict[str, str] | None = None) -> tuple[Path, str]:
    """A catalogue whose merge request downgrades py-a and adds a spec of zlib, checked out at
    its head (GitLab's detached checkout); the base commit holds these files too."""
    repo = new_repo(tmp_path / "catalogue")
    write_page(repo, "py-a", [spec("a1", "2.0")])
    write_page(repo, "zlib", [spec("z1", "1.3")])
    for name, text in (base_files or {}).items():
        (repo / name).write_text(text)
    base = commit(repo, "catalogue", 1)
    git(repo, "checkout", "-q", "-b", "mr")
    write_page(repo, "py-a", [spec("a0", "1.9")])
    write_page(repo, "zlib", [spec("z1", "1.3"), spec("z2", "1.3", target="zen4")])
    commit(repo, "downgrade py-a", 2)
    return repo, base


@dataclass
class Job:
    """One run of the recipe's job: its exit status and its log."""

    status: int
    log: str


def run_job(
    repo: Path, base: str, api: str, tmp_path: Path, variables: dict[str, str] | None = None
) -> Job:
    """The recipe's script, as GitLab's runner runs it in the checkout: its `variables:` (with
    any given instead) expanded against the predefined ones, then every line in one shell."""
    shims = tmp_path / "shims"
    shims.mkdir(exist_ok=True)
    (shims / "python").write_text(  # the image's python with snapdiff installed: this one
        f'#!/bin/bash\nif [ "$1 $2" = "-m pip" ]; then exit 0; fi\nexec "{sys.executable}" "$@"\n'
    )
    (shims / "snapdiff").write_text(f'#!/bin/bash\nexec "{sys.executable}" -m snapdiff "$@"\n')
    for made in shims.iterdir():
        made.chmod(0o755)
    predefined = {
        "CI_API_V4_URL": api,
        "CI_PROJECT_ID": "5",
        "CI_MERGE_REQUEST_IID": "3",
        "CI_MERGE_REQUEST_DIFF_BASE_SHA": base,
        "CI_COMMIT_SHA": git(repo, "rev-parse", "HEAD"),
        "CI_PROJECT_DIR": str(repo),
        "CI_JOB_NAME": "snapdiff",
        "SNAPDIFF_TOKEN": TOKEN,
        "SNAPDIFF_SOURCE": "git+https://forge.example/org/snapdiff@v0.1.0",
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CI_", "GITHUB_", "XDG_"))}
    env |= predefined | {"PATH": f"{shims}:{sysconfig.get_path('scripts')}:{env['PATH']}"}
    for name, value in {**RECIPE["variables"], **(variables or {})}.items():
        env[name] = re.sub(r"\$(\w+)", lambda m: env.get(m[1], ""), str(value))
    script = "set -eo pipefail\n" + "\n".join(RECIPE["script"]) + "\n"
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return Job(done.returncode, done.stdout + done.stderr)


def test_the_recipe_leaves_another_users_marker_note_alone(
    gitlab: tuple[GitLab, str], tmp_path: Path
) -> None:
    """A reviewer's note that starts with the very marker of this job's note (pasted, say) is
    not ours to edit: the job writes its own, then keeps it."""
    lab, api = gitlab
    repo, base = merge_request(tmp_path)
    first = run_job(repo, base, api, tmp_path, {"SNAPDIFF_ALLOW": ""})
    assert first.status == 1 and "snapdiff: gate failed: downgrade" in first.log  # a gate
    (ours,) = lab.markers()
    assert ours["author"]["id"] == BOT and " key=snapdiff -->" in ours["body"].split("\n")[0]
    pasted = {"id": 4000, "author": {"id": SOMEONE}, "system": False, "body": ours["body"]}
    lab.notes.remove(ours)
    lab.notes.insert(0, pasted)  # first of all: the old recipe took the first marker it saw
    again = run_job(repo, base, api, tmp_path, {"SNAPDIFF_ALLOW": ""})
    assert again.status == 1 and "snapdiff: created comment" in again.log, again.log
    assert pasted["body"] == ours["body"] and ("PUT", f"{NOTES}/4000") not in lab.calls
    mine = [n for n in lab.markers() if n["author"]["id"] == BOT]
    assert len(mine) == 1 and ("GET", "/api/v4/user") in lab.calls
    third = run_job(repo, base, api, tmp_path, {"SNAPDIFF_ALLOW": ""})
    assert "is up to date" in third.log and len(lab.writes()) == 2
    written = git(repo, "status", "--porcelain", "--ignored").splitlines()
    assert written == ["?? .cache/", "?? note.md", "?? snapdiff-full.md"]  # the cache, artifacts


def test_the_recipe_keeps_a_note_per_comment_key(
    gitlab: tuple[GitLab, str], tmp_path: Path
) -> None:
    lab, api = gitlab
    repo, base = merge_request(tmp_path)
    for key in ("develop", "releases/v1.0 (tag)", "develop"):
        job = run_job(repo, base, api, tmp_path, {"SNAPDIFF_COMMENT_KEY": key})
        assert job.status == 1 and "snapdiff: gate failed: downgrade" in job.log, job.log
    firsts = sorted(n["body"].split("\n")[0] for n in lab.markers())
    assert [f.split(" key=")[1] for f in firsts] == ["develop -->", "releases/v1.0%20%28tag%29 -->"]
    assert len(lab.writes()) == 2


def test_the_recipe_trusts_the_configuration_of_the_base_commit(
    gitlab: tuple[GitLab, str], tmp_path: Path
) -> None:
    """The base commit's `allow:` exempts py-a (the checkout's copy was an error: exit 2); the
    merge request's own entry, for every package, is not read."""
    lab, api = gitlab
    allow = "allow: [{gate: downgrade, package: py-a, reason: pinned until 2.1}]\n"
    repo, base = merge_request(tmp_path, {".snapdiff.yaml": allow})
    job = run_job(repo, base, api, tmp_path)
    assert job.status == 0, job.log
    assert f"trusted configuration: .snapdiff.yaml at the base commit {base[:12]}" in job.log
    assert "snapdiff: allowed: downgrade py-a (pinned until 2.1)" in job.log
    assert "pinned until 2.1" in lab.markers()[0]["body"]
    (repo / ".snapdiff.yaml").write_text(
        "allow: [{gate: any, package: '*', reason: mine}]\nfail-on: [any]\n"
    )
    commit(repo, "exempt everything", 3)
    job = run_job(repo, base, api, tmp_path)
    assert job.status == 1 and "snapdiff: gate failed: any" in job.log
    assert ".snapdiff.yaml: allow not read: beside --config" in job.log


def test_the_recipe_reads_a_configuration_named_at_the_base_commit_only(
    gitlab: tuple[GitLab, str], tmp_path: Path
) -> None:
    lab, api = gitlab
    pinned = "allow: [{gate: downgrade, package: py-a, reason: pinned}]\n"
    repo, base = merge_request(tmp_path, {"snapdiff-ci.yaml": pinned})
    job = run_job(repo, base, api, tmp_path, {"SNAPDIFF_CONFIG": "snapdiff-ci.yaml"})
    assert job.status == 0 and "snapdiff: allowed: downgrade py-a (pinned)" in job.log, job.log
    elsewhere = {"SNAPDIFF_CONFIG": "org/policies/snapdiff.yaml@main"}
    job = run_job(repo, base, api, tmp_path, elsewhere)
    assert job.status == 2 and "another repository's file, in GitHub Actions only" in job.log
    assert len(lab.writes()) == 1  # nothing posted when the configuration could not be read
