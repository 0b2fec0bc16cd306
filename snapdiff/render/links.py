"""Links in the Markdown: commits and the full report, built by snapdiff from validated parts.

No string from the data ever becomes a URL: a link's address comes from `--link-base` or the
forge's own CI variables, checked here, and a commit id that is hexadecimal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from ..errors import UsageError

__all__ = ["Links", "links_from", "valid_url"]

# An http(s) address with none of the characters that could end a Markdown link or an HTML
# attribute (spaces, parentheses, brackets, quotes, angle brackets).
_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~%/+:@=&?-]*)?")
_COMMIT = re.compile(r"[0-9a-f]{7,64}")


def valid_url(url: str) -> bool:
    """Whether an address may be printed as a link target."""
    return _URL.fullmatch(url) is not None


@dataclass(frozen=True)
class Links:
    """Where commits and the full report can be seen; None where nothing is known."""

    commits: str | None = None  # an address that a commit id completes
    full_report: str | None = None

    def commit(self, commit: str | None) -> str | None:
        """The address of a commit, or None."""
        if self.commits is None or commit is None or not _COMMIT.fullmatch(commit):
            return None
        return self.commits + commit


def _forge(env: Mapping[str, str]) -> tuple[str | None, str | None, str | None]:
    """(repository address, its commit path, the run's address) from GitHub's or GitLab's CI."""
    if env.get("GITHUB_SERVER_URL") and env.get("GITHUB_REPOSITORY"):
        repo = f"{env['GITHUB_SERVER_URL']}/{env['GITHUB_REPOSITORY']}"
        run = f"{repo}/actions/runs/{env['GITHUB_RUN_ID']}" if env.get("GITHUB_RUN_ID") else None
        return repo, "/commit/", run
    if env.get("CI_PROJECT_URL"):
        return env["CI_PROJECT_URL"], "/-/commit/", env.get("CI_JOB_URL")
    return None, None, None


def links_from(link_base: str | None, env: Mapping[str, str], full_report: str | None) -> Links:
    """Links from `--link-base URL` (a repository's web address), else from the forge's CI
    variables; an invalid `--link-base` is a usage error, invalid variables give no links.

    The full report is linked where the forge keeps it: GitHub's run page (its artifacts), or
    GitLab's job artifact of that name.
    """
    repo, path, run = _forge(env)
    if link_base is not None:
        if not valid_url(link_base):
            raise UsageError("--link-base", f"{link_base!r} is not an http(s) address", "")
        repo, path = link_base.rstrip("/"), "/commit/"
    if repo is None or not valid_url(repo):
        return Links()
    report = None
    if full_report and run and valid_url(run):
        gitlab_job = "/-/jobs/" in run
        report = f"{run}/artifacts/file/{quote(full_report)}" if gitlab_job else run
    return Links(f"{repo}{path}", report if report and valid_url(report) else None)
