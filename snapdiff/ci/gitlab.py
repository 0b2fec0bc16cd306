"""The GitLab recipe's sticky merge-request note, posted or updated through GitLab's REST API.

Run by docs/gitlab-ci.yml as `python -m snapdiff.ci.gitlab NOTE.md`. Only notes written by the
token's own user (`GET /user`) are ours to edit: another user's note that starts with the same
marker, a copy pasted by a reviewer say, is left alone. It reads CI_API_V4_URL, CI_PROJECT_ID,
CI_MERGE_REQUEST_IID, SNAPDIFF_TOKEN and COMMENT_KEY from the environment.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from urllib.parse import quote

import msgspec

from ..errors import printable
from .sticky import Api, CommentError, address, number, pages, sticky, the_comment

__all__ = ["main", "post"]

PER_PAGE = 100  # the most GitLab lists at once
_NEEDED = ("CI_API_V4_URL", "CI_PROJECT_ID", "CI_MERGE_REQUEST_IID", "SNAPDIFF_TOKEN")


class _Author(msgspec.Struct):
    id: int | None = None


class _Note(msgspec.Struct):
    """A merge-request note as GitLab's API answers it: the fields read."""

    id: int
    body: str | None = None
    system: bool = False
    author: _Author | None = None


class _Made(msgspec.Struct):
    id: int


class _Api(Api):
    """GitLab's REST API (v4) with one token, and one merge request of one project."""

    def __init__(self, url: str, project: str, merge_request: str, token: str) -> None:
        denied = (
            f"check that SNAPDIFF_TOKEN is a token with the api scope that may write to "
            f"merge request {merge_request} of project {project}"
        )
        otherwise = "check CI_API_V4_URL, or re-run the job if GitLab's API was down"
        super().__init__(url, {"PRIVATE-TOKEN": token}, denied, otherwise)
        self.notes = f"/projects/{quote(project, safe='')}/merge_requests/{merge_request}/notes"


def _ours(api: _Api, user: int) -> Iterator[tuple[str, str]]:
    """(id, body) of each note on the merge request by this user, every page of them."""
    listed = f"{api.notes}?per_page={PER_PAGE}"
    for page in pages(f"GET {api.base}{listed}"):
        notes = api("GET", f"{listed}&page={page}", list[_Note])
        for note in notes:
            if not note.system and note.author is not None and note.author.id == user:
                yield str(note.id), note.body or ""
        if len(notes) < PER_PAGE:
            return


def post(api: _Api, body: str, key: str) -> str:
    """Create the note, or update ours when what it says or its title changed; say which."""
    user = api("GET", "/user", _Made).id  # a user's id, as a note's is

    def create(text: str) -> str:
        return str(api("POST", api.notes, _Made, {"body": text}).id)

    def update(found: str, text: str) -> None:
        api("PUT", f"{api.notes}/{found}", object, {"body": text})

    return sticky(body, key, _ours(api, user), create, update)


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] = os.environ) -> int:
    """Post or update the note in the file named by the one argument; 0, else 2 (bad
    usage, or an API that refused or answered unexpectedly) with one
    `snapdiff: error:` line."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        body = the_comment(words, env, _NEEDED, "python -m snapdiff.ci.gitlab NOTE.md")
        merge_request = number(env, "CI_MERGE_REQUEST_IID")
        url = address(env["CI_API_V4_URL"], "CI_API_V4_URL")
        key = env.get("COMMENT_KEY") or env.get("CI_JOB_NAME") or "snapdiff"
        api = _Api(url, env["CI_PROJECT_ID"], merge_request, env["SNAPDIFF_TOKEN"])
        print(f"snapdiff: {post(api, body, key)}")
    except (CommentError, OSError) as exc:
        print(f"snapdiff: error: {printable(str(exc))}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
