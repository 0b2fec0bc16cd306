"""The Action's sticky pull-request comment, posted or updated through GitHub's REST API.

CI glue of the command line (`python -m snapdiff.ghcomment COMMENT.md`, run by action.yml), not
a stage of the library: the standard library only, every request bounded by a timeout. It reads
GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_TOKEN, PR_NUMBER and COMMENT_KEY from the environment.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from .errors import printable

__all__ = ["main", "post", "with_key"]

TIMEOUT = 30  # seconds, per request
PER_PAGE = 100  # the most GitHub lists at once
AUTHOR = "github-actions[bot]"  # who `github.token` posts as
_NEEDED = ("GITHUB_REPOSITORY", "GITHUB_TOKEN", "PR_NUMBER", "COMMENT_KEY")
_MARKER = re.compile(r"<!-- snapdiff report sha256:[0-9a-f]+ -->")


class CommentError(Exception):
    """What went wrong, on one line."""


def with_key(body: str, key: str) -> str:
    """The body with the key inside its marker line, so that each use of the Action in a pull
    request keeps its own comment: `<!-- snapdiff report sha256:… key=CI/notes -->`."""
    first, newline, rest = body.partition("\n")
    if not _MARKER.fullmatch(first):
        raise CommentError("the comment does not start with snapdiff's marker line")
    # quoted: no space, and no `>` to end the HTML comment early
    return f"{first[: -len(' -->')]} key={quote(key, safe='/')} -->{newline}{rest}"


class _Api:
    """GitHub's REST API for one repository, with one token."""

    def __init__(self, url: str, repository: str, token: str) -> None:
        self.base = f"{url.rstrip('/')}/repos/{repository}"
        self.token = token

    def __call__(self, method: str, path: str, body: Mapping[str, str] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(  # noqa: S310 - http(s) only, checked in main
            self.base + path,
            data=data,
            method=method,
            headers={
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
                "User-Agent": "snapdiff",
                "X-GitHub-Api-Version": "2022-11-28",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310
                return json.load(response)
        except urllib.error.HTTPError as exc:
            raise CommentError(f"{method} {path}: HTTP {exc.code} {exc.reason}") from exc
        except (OSError, ValueError) as exc:  # unreachable, timed out, not JSON
            raise CommentError(f"{method} {path}: {exc}") from exc


def _ours(api: _Api, number: str, identity: str) -> dict[str, Any] | None:
    """Our earlier comment on the pull request: by our author, its marker line of our key;
    every page of comments is searched."""
    page = 1
    while True:
        comments = api("GET", f"/issues/{number}/comments?per_page={PER_PAGE}&page={page}")
        for comment in comments:
            first = str(comment.get("body") or "").split("\n", 1)[0]
            login = (comment.get("user") or {}).get("login")
            if login == AUTHOR and _identity(first) == identity:
                return dict(comment)
        if len(comments) < PER_PAGE:
            return None
        page += 1


def _identity(marker: str) -> str:
    """A marker line without its digest: what stays the same from one run to the next."""
    return re.sub(r"sha256:[0-9a-f]+", "sha256:", marker)


def post(api: _Api, number: str, body: str, key: str) -> str:
    """Create the comment, or update ours when what it says changed; say which was done."""
    body = with_key(body, key)
    marker = body.split("\n", 1)[0]
    found = _ours(api, number, _identity(marker))
    if found is None:
        made = api("POST", f"/issues/{number}/comments", {"body": body})
        return f"created comment {made.get('id')}"
    if str(found.get("body") or "").split("\n", 1)[0] == marker:
        return f"comment {found['id']} is up to date"
    api("PATCH", f"/issues/comments/{found['id']}", {"body": body})
    return f"updated comment {found['id']}"


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] = os.environ) -> int:
    """Post or update the comment in the file named by the one argument; 0, else 1 with one
    `::error` line (a workflow command: the job's page shows it)."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        if len(words) != 1:
            raise CommentError("usage: python -m snapdiff.ghcomment COMMENT.md")
        missing = [name for name in _NEEDED if not env.get(name)]
        if missing:
            raise CommentError(f"not set: {', '.join(missing)}")
        with open(words[0], encoding="utf-8") as handle:
            body = handle.read()
        if not env["PR_NUMBER"].isdigit():
            raise CommentError(f"PR_NUMBER is not a number: {env['PR_NUMBER']!r}")
        url = env.get("GITHUB_API_URL") or "https://api.github.com"
        if not url.startswith(("https://", "http://")):
            raise CommentError(f"GITHUB_API_URL is not an http(s) address: {url!r}")
        api = _Api(url, env["GITHUB_REPOSITORY"], env["GITHUB_TOKEN"])
        print(f"snapdiff: {post(api, env['PR_NUMBER'], body, env['COMMENT_KEY'])}")
    except (CommentError, OSError) as exc:
        print(f"::error title=snapdiff comment::{printable(str(exc)).replace('%', '%25')}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
