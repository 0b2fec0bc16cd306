"""The label rules every renderer asks: how a package or stack is named, a commit shown, and the
one changed tag."""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from dataclasses import dataclass
from typing import NamedTuple

__all__ = [
    "Labeller",
    "OneTag",
    "counted",
    "one_tag",
    "short_commit",
]

SHORT_COMMIT = 7  # hex digits of a commit id shown to a reader (the JSON and links: all of it)
_COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256


def short_commit(commit: str) -> str:
    """A commit id as a reader sees it, its first 7 hex digits, as forges show one; anything
    else (a snapshot given by its path, in a log of snapshots) as it is."""
    return commit[:SHORT_COMMIT] if _COMMIT_ID.fullmatch(commit) else commit


@dataclass(frozen=True, slots=True)
class Labeller:
    """The label rule, its one home: a package or stack is `tag/name` when the changes span
    several cache tags, else just `name`. A `Report` or a `History` hands one out."""

    several: bool  # the changes span several cache tags

    def __call__(self, tag: str, name: str) -> str:
        """The label of the package or stack `name` of cache tag `tag`."""
        return f"{tag}/{name}" if self.several else name


class OneTag(NamedTuple):
    """The one cache tag every change is in, and the other tags, which did not change."""

    tag: str
    others: tuple[str, ...]


def one_tag(old: Sequence[str], new: Sequence[str], changed: Set[str]) -> OneTag | None:
    """The one tag of `changed` and the other tags of `old` and `new`, when there are others and
    the sides are not a release-to-release pair (each side one tag, not the same)."""
    tags = sorted({*old, *new})
    if len(changed) != 1 or len(tags) < 2 or (len(old) == len(new) == 1 and old != new):
        return None
    (tag,) = changed
    return OneTag(tag, tuple(t for t in tags if t != tag))


def counted(count: int, word: str) -> str:
    """`1 spec`, `1,234 specs`: a count and snapdiff's own noun agreeing with it."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"
