"""The Action's sticky pull-request comment, posted or updated through GitHub's REST API.

CI glue of the command line (`python -m snapdiff.ci.github COMMENT.md`, run by action.yml), not
a stage of the library; what makes a comment sticky is `sticky`'s. It reads GITHUB_API_URL,
GITHUB_REPOSITORY, GITHUB_TOKEN, PR_NUMBER, COMMENT_KEY or DEFAULT_KEY, and MATRIX
(`toJSON(matrix)`: the comment's key is `key.job_key`'s) from the environment.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence

import msgspec

from ..errors import printable
from .key import job_key
from .sticky import Api, CommentError, address, number, pages, sticky, the_comment

__all__ = ["main", "post"]

PER_PAGE = 100  # the most GitHub lists at once
AUTHOR = "github-actions[bot]"  # who `github.token` posts as
_NEEDED = ("GITHUB_REPOSITORY", "GITHUB_TOKEN", "PR_NUMBER")


class _User(msgspec.Struct):
    login: str | None = None


class _Comment(msgspec.Struct):
    """An issue comment as GitHub's API answers it: the fields read."""

    id: int
    body: str | None = None
    user: _User | None = None


class _Made(msgspec.Struct):
    id: int


class _Api(Api):
    """GitHub's REST API for one repository, with one token."""

    def __init__(self, url: str, repository: str, token: str) -> None:
        headers = {
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {token}",
            "X-GitHub-Api-Version": "2022-11-28",
        }
        denied = (
            f"check that the job's token may write to {repository}'s pull requests: the "
            "workflow's permissions need pull-requests: write"
        )
        otherwise = "check GITHUB_API_URL, or re-run the job if GitHub's API was down"
        super().__init__(f"{url.rstrip('/')}/repos/{repository}", headers, denied, otherwise)


def _ours(api: _Api, number: str) -> Iterator[tuple[str, str]]:
    """(id, body) of each comment on the pull request by our author, every page of them."""
    listed = f"/issues/{number}/comments?per_page={PER_PAGE}"
    for page in pages(f"GET {api.base}{listed}"):
        comments = api("GET", f"{listed}&page={page}", list[_Comment])
        for comment in comments:
            if comment.user is not None and comment.user.login == AUTHOR:
                yield str(comment.id), comment.body or ""
        if len(comments) < PER_PAGE:
            return


def post(api: _Api, number: str, body: str, key: str) -> str:
    """Create the comment, or update ours when what it says or its title changed; say which."""

    def create(text: str) -> str:
        return str(api("POST", f"/issues/{number}/comments", _Made, {"body": text}).id)

    def update(found: str, text: str) -> None:
        api("PATCH", f"/issues/comments/{found}", object, {"body": text})

    return sticky(body, key, _ours(api, number), create, update)


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] = os.environ) -> int:
    """Post or update the comment in the file named by the one argument; 0, else 2 (bad
    usage, or an API that refused or answered unexpectedly) with one
    `::error` line (a workflow command: the job's page shows it)."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        body = the_comment(words, env, _NEEDED, "python -m snapdiff.ci.github COMMENT.md")
        pull = number(env, "PR_NUMBER")
        url = address(env.get("GITHUB_API_URL") or "https://api.github.com", "GITHUB_API_URL")
        api = _Api(url, env["GITHUB_REPOSITORY"], env["GITHUB_TOKEN"])
        key = job_key(env.get("COMMENT_KEY", ""), env.get("MATRIX", ""), env.get("DEFAULT_KEY", ""))
        if not key:
            raise CommentError("not set: COMMENT_KEY (or DEFAULT_KEY)")
        print(f"snapdiff: {post(api, pull, body, key)}")
    except (CommentError, OSError) as exc:
        print(f"::error title=snapdiff comment::{printable(str(exc)).replace('%', '%25')}")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
