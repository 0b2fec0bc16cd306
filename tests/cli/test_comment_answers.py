"""The comment scripts against a forge that answers otherwise than documented (issue 47): not
JSON, JSON of another shape, fields missing, an answer cut short, an HTTP error. Each is one
line naming the request's address and what to do, and exit code 2; never a traceback, never a
comment said to be made when it was not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonapi import Answer, scripted

from snapdiff.ci import github, gitlab

BODY = "<!-- snapdiff report sha256:0123abcd -->\n## Catalogue changes\n"
BOT = "github-actions[bot]"
COMMENTS = "/repos/owner/catalogue/issues/7/comments"
NOTES = "/api/v4/projects/5/merge_requests/3/notes"
Answers = dict[tuple[str, str], Answer]
USER: Answers = {("GET", "/api/v4/user"): (200, b'{"id": 42}', None)}


def _json(data: object, status: int = 200) -> Answer:
    return status, json.dumps(data).encode(), None


GITHUB: dict[str, Answers] = {
    "not JSON": {("GET", COMMENTS): (200, b"<html>rate limited</html>", None)},
    "an object, not a list": {("GET", COMMENTS): _json({"message": "moved"})},
    "a comment with no id": {("GET", COMMENTS): _json([{"user": {"login": BOT}, "body": "x"}])},
    "null for a comment": {("GET", COMMENTS): _json([None])},
    "a user that is a string": {("GET", COMMENTS): _json([{"id": 1, "user": BOT}])},
    "cut short": {("GET", COMMENTS): (200, b'[{"id": 1', 100)},
    "HTTP 502": {("GET", COMMENTS): (502, b"<html>bad gateway</html>", None)},
    "created, with no id": {("GET", COMMENTS): _json([]), ("POST", COMMENTS): _json([], 201)},
}
GITLAB: dict[str, Answers] = {
    "a user that is a list": {("GET", "/api/v4/user"): _json([])},
    "a user with no id": {("GET", "/api/v4/user"): _json({"username": "bot"})},
    "an author that is a string": USER | {("GET", NOTES): _json([{"id": 1, "author": "bot"}])},
    "not JSON": USER | {("GET", NOTES): (200, b"\xff\xfe<html>", None)},
    "created, with no id": USER
    | {("GET", NOTES): _json([]), ("POST", NOTES): _json({"message": "ok"}, 201)},
    "cut short": USER | {("GET", NOTES): (200, b"[", 50)},
}


def _comment(tmp_path: Path) -> str:
    path = tmp_path / "comment.md"
    path.write_text(BODY)
    return str(path)


def _one_line(said: str, request: tuple[str, str], address: str, fix: str) -> None:
    """One line: the request's method and whole address first, what to do last."""
    method, path = request
    assert said.count("\n") == 1 and said.endswith(")\n"), said
    assert f"{method} {address}{path}" in said.split(": ", 1)[0] + ":", said
    assert fix in said.rsplit("(", 1)[1], said


@pytest.mark.parametrize("case", sorted(GITHUB))
def test_an_unexpected_answer_from_github_is_one_line_and_exit_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = GITHUB[case]
    with scripted(answers) as url:
        env = {
            "GITHUB_API_URL": url,
            "GITHUB_REPOSITORY": "owner/catalogue",
            "GITHUB_TOKEN": "t",
            "PR_NUMBER": "7",
            "COMMENT_KEY": "k",
        }
        assert github.main([_comment(tmp_path)], env) == 2
    out, err = capsys.readouterr()
    assert out.startswith("::error title=snapdiff comment::") and err == ""
    last = list(answers)[-1]  # the request that went wrong
    fix = "pull-requests: write" if case.startswith("HTTP 4") else "GITHUB_API_URL"
    _one_line(out.removeprefix("::error title=snapdiff comment::"), last, url, fix)


@pytest.mark.parametrize("case", sorted(GITLAB))
def test_an_unexpected_answer_from_gitlab_is_one_line_and_exit_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = GITLAB[case]
    with scripted(answers) as url:
        env = {
            "CI_API_V4_URL": f"{url}/api/v4",
            "CI_PROJECT_ID": "5",
            "CI_MERGE_REQUEST_IID": "3",
            "SNAPDIFF_TOKEN": "t",
            "COMMENT_KEY": "k",
        }
        assert gitlab.main([_comment(tmp_path)], env) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("snapdiff: error: ")
    method, path = list(answers)[-1]
    _one_line(err.removeprefix("snapdiff: error: "), (method, path), url, "CI_API_V4_URL")


def test_a_refusal_says_which_token_to_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused = {("GET", "/api/v4/user"): _json({"message": "401 Unauthorized"}, 401)}
    with scripted(refused) as url:
        env = {
            "CI_API_V4_URL": f"{url}/api/v4",
            "CI_PROJECT_ID": "group/catalogue",
            "CI_MERGE_REQUEST_IID": "3",
            "SNAPDIFF_TOKEN": "t",
        }
        assert gitlab.main([_comment(tmp_path)], env) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"snapdiff: error: GET {url}/api/v4/user: HTTP 401 Unauthorized (")
    _one_line(err.removeprefix("snapdiff: error: "), ("GET", "/api/v4/user"), url, "api scope")
    assert "SNAPDIFF_TOKEN" in err and "project group/catalogue" in err


def test_a_comment_file_that_is_not_utf8_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "comment.md"
    path.write_bytes(b"\xff" + BODY.encode())
    env = {"GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t", "PR_NUMBER": "7", "COMMENT_KEY": "k"}
    assert github.main([str(path)], env) == 2
    out = capsys.readouterr().out
    assert out.startswith(f"::error title=snapdiff comment::{path}: cannot read the comment")
    assert out.count("\n") == 1


def _github_env(url: str) -> dict[str, str]:
    return {
        "GITHUB_API_URL": url,
        "GITHUB_REPOSITORY": "owner/catalogue",
        "GITHUB_TOKEN": "t",
        "PR_NUMBER": "7",
        "COMMENT_KEY": "k",
    }


def test_full_pages_for_ever_are_one_line_after_a_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A forge (or something in its place) answering every page full: read to PAGES, then one
    line, never a loop for ever."""
    from snapdiff.ci import sticky

    monkeypatch.setattr(sticky, "PAGES", 3)
    page = [{"id": n, "user": {"login": "someone"}, "body": "hi"} for n in range(github.PER_PAGE)]
    with scripted({("GET", COMMENTS): _json(page)}) as url:
        assert github.main([_comment(tmp_path)], _github_env(url)) == 2
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "more than 3 full pages of comments" in out, out
    assert f"GET {url}{COMMENTS}?per_page=100: " in out, out


def test_an_answer_past_the_bound_is_one_line_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from snapdiff.ci import sticky

    monkeypatch.setattr(sticky, "ANSWER_BYTES", 1000)
    page = [{"id": n, "user": {"login": "someone"}, "body": "x" * 100} for n in range(20)]
    with scripted({("GET", COMMENTS): _json(page)}) as url:
        assert github.main([_comment(tmp_path)], _github_env(url)) == 2
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and ": an answer over 1,000 bytes (check GITHUB_API_URL" in out
