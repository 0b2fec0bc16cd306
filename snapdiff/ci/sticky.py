"""A sticky comment on a forge: found among its author's by its marker line and key, and
rewritten only when what it says or what it is about changed.

CI glue of the command line, shared by `github` and `gitlab`, which hold each forge's
answers as typed records: every request bounded by a timeout, every answer decoded into the
shape asked for, so that whatever a forge (or something in its place) answers is one line
naming the address and what to do, never a traceback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TypeVar
from urllib.parse import quote

__all__ = [
    "ANSWER_BYTES",
    "PAGES",
    "TIMEOUT",
    "Api",
    "CommentError",
    "address",
    "head",
    "identity",
    "number",
    "pages",
    "read_body",
    "sticky",
    "the_comment",
    "with_key",
]

TIMEOUT = 30  # seconds, per request
# The most of one answer read: a page of 100 notes of GitLab's 1,000,000 characters fits
ANSWER_BYTES = 128 * 2**20
PAGES = 100  # the most pages of comments read: 10,000 comments at 100 a page
_MARKER = re.compile(r"<!-- snapdiff report sha256:[0-9a-f]+ -->")
T = TypeVar("T")


class CommentError(Exception):
    """What went wrong, on one line."""


def with_key(body: str, key: str) -> str:
    """The body with the key inside its marker line, so that each use in a pull request keeps
    its own comment: `<!-- snapdiff report sha256:… key=CI/notes -->`."""
    first, newline, rest = body.partition("\n")
    if not _MARKER.fullmatch(first):
        raise CommentError("the comment does not start with snapdiff's marker line")
    # quoted: no space, and no `>` to end the HTML comment early
    return f"{first[: -len(' -->')]} key={quote(key, safe='/')} -->{newline}{rest}"


def read_body(path: str) -> str:
    """The text of the comment snapdiff wrote to `path`; CommentError naming it when unread."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CommentError(f"{path}: cannot read the comment: {exc}") from exc


def the_comment(words: list[str], env: Mapping[str, str], needed: Iterable[str], usage: str) -> str:
    """The text of the comment file named by the one argument, once every variable `needed` is
    set; CommentError saying the `usage` or what is not set otherwise."""
    if len(words) != 1:
        raise CommentError(f"usage: {usage}")
    missing = [name for name in needed if not env.get(name)]
    if missing:
        raise CommentError(f"not set: {', '.join(missing)}")
    return read_body(words[0])


def number(env: Mapping[str, str], name: str) -> str:
    """The variable `name`, a number (a pull or merge request's); CommentError otherwise."""
    if not env[name].isdigit():
        raise CommentError(f"{name} is not a number: {env[name]!r}")
    return env[name]


def address(url: str, name: str) -> str:
    """An API's address given as `name`, if http(s); CommentError otherwise."""
    if not url.startswith(("https://", "http://")):
        raise CommentError(f"{name} is not an http(s) address: {url!r}")
    return url


def identity(body: str) -> str:
    """A comment's marker line without its digest: what stays the same from one run to the
    next of one use (its key included)."""
    return re.sub(r"sha256:[0-9a-f]+", "sha256:", body.split("\n", 1)[0])


def head(body: str) -> tuple[str, str]:
    """What a comment is, and is about: its marker line (the digest of what the report says)
    and its title, the first line after it that is not blank (which names both sides' commits:
    a force-pushed head with the same tree has the same digest and a new title)."""
    first, _, rest = body.partition("\n")
    title = next((line for line in rest.split("\n") if line.strip()), "")
    return first, title


class Api:
    """One forge's REST API: its address, the headers every request carries, and what to do
    when it refuses a request (`denied`: HTTP 401, 403, 404) or answers anything else
    unexpected (`otherwise`)."""

    def __init__(self, base: str, headers: Mapping[str, str], denied: str, otherwise: str) -> None:
        self.base = base.rstrip("/")
        self.headers = {"Content-Type": "application/json", "User-Agent": "snapdiff", **headers}
        self.denied = denied
        self.otherwise = otherwise

    def __call__(
        self, method: str, path: str, answer: type[T], body: Mapping[str, str] | None = None
    ) -> T:
        """The answer to one JSON request to base + path, decoded as `answer` (fields the forge
        adds are ignored); CommentError naming the method, the address and what to do when the
        request fails or the answer is not of that shape."""
        import http.client  # deferred: `key` imports this module for its error alone
        import urllib.error
        import urllib.request

        import msgspec

        url = self.base + path
        data = json.dumps(body).encode() if body is not None else None
        asked = urllib.request.Request(  # noqa: S310 - http(s) only, checked by the caller
            url, data=data, method=method, headers=self.headers
        )
        said = f"{method} {url}"
        try:
            with urllib.request.urlopen(asked, timeout=TIMEOUT) as response:  # noqa: S310
                data = response.read(ANSWER_BYTES + 1)
            if len(data) > ANSWER_BYTES:
                what = f"an answer over {ANSWER_BYTES:,} bytes"
                raise CommentError(f"{said}: {what} ({self.otherwise})")
            return msgspec.json.decode(data, type=answer)
        except urllib.error.HTTPError as exc:
            fix = self.denied if exc.code in (401, 403, 404) else self.otherwise
            raise CommentError(f"{said}: HTTP {exc.code} {exc.reason} ({fix})") from exc
        except msgspec.DecodeError as exc:  # not JSON, or not of the shape asked for
            what = f"not the answer expected: {exc}"
            raise CommentError(f"{said}: {what} ({self.otherwise})") from exc
        except (OSError, ValueError, http.client.HTTPException) as exc:  # unreachable, timed
            # out, a bad status line, an answer cut short
            what = str(exc) or type(exc).__name__
            raise CommentError(f"{said}: {what} ({self.otherwise})") from exc


def pages(what: str) -> Iterator[int]:
    """The numbers of the pages of comments to read, 1 to PAGES; CommentError past them (a
    forge, or something in its place, answering full pages for ever)."""
    yield from range(1, PAGES + 1)
    raise CommentError(f"{what}: more than {PAGES} full pages of comments (check the API address)")


def sticky(
    body: str,
    key: str,
    ours: Iterable[tuple[str, str]],
    create: Callable[[str], str],
    update: Callable[[str, str], None],
) -> str:
    """Create the comment, or update ours (the first of `ours`, (id, body) pairs of comments
    its author wrote, with our marker and key) when its head changed; say which was done."""
    body = with_key(body, key)
    found = next((c for c in ours if identity(c[1]) == identity(body)), None)
    if found is None:
        return f"created comment {create(body)}"
    if head(found[1]) == head(body):
        return f"comment {found[0]} is up to date"
    update(found[0], body)
    return f"updated comment {found[0]}"
