"""A sticky comment on a forge: found among its author's by its marker line and key, and
rewritten only when what it says or what it is about changed.

CI glue of the command line, shared by `github` and `gitlab`, which hold
each forge's API: the standard library only, every request bounded by a timeout.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import quote

__all__ = ["TIMEOUT", "CommentError", "head", "identity", "request", "sticky", "with_key"]

TIMEOUT = 30  # seconds, per request
_MARKER = re.compile(r"<!-- snapdiff report sha256:[0-9a-f]+ -->")


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


def request(
    method: str,
    base: str,
    path: str,
    headers: Mapping[str, str],
    body: Mapping[str, str] | None = None,
) -> Any:
    """One JSON request to a forge's API at base + path; CommentError naming the method and
    the path when it fails."""
    data = json.dumps(body).encode() if body is not None else None
    sent = {"Content-Type": "application/json", "User-Agent": "snapdiff", **headers}
    asked = urllib.request.Request(  # noqa: S310 - http(s) only, checked by the caller
        base + path, data=data, method=method, headers=sent
    )
    said = f"{method} {path}"
    try:
        with urllib.request.urlopen(asked, timeout=TIMEOUT) as response:  # noqa: S310
            return json.load(response)
    except urllib.error.HTTPError as exc:
        raise CommentError(f"{said}: HTTP {exc.code} {exc.reason}") from exc
    except (OSError, ValueError) as exc:  # unreachable, timed out, not JSON
        raise CommentError(f"{said}: {exc}") from exc


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
