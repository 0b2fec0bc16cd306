"""What each spec is built as (SPEC section 2a): its configuration and its version, the pair a
rebuilt spec keeps. Worked out once per distinct entry fields, not once per entry: a release
pair holds hundreds of thousands of entries and a few thousand distinct configurations."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Any, TypeVar

from ..model import Configuration, Entry, configuration_from
from ..versions import version_of

__all__ = [
    "Built",
    "built_of",
    "known_configuration",
    "next_diff",
    "rebuilt_count",
]

Built = tuple[Configuration, str]  # a spec's configuration and version
# an entry's configuration fields as read, and its versions
_FIELDS = attrgetter("os", "platform", "target", "compiler", "variants", "versions")
_MOST = 1 << 18  # distinct fields kept before starting afresh, within one diff
Fields = tuple[Any, ...]
Worked = TypeVar("Worked")


class _Memo(dict[Fields, Worked]):
    """Fields as read -> what they are worked out as, each when first asked; what the diff
    before this one worked out is looked up first (a history's steps share most of it), and
    nothing older is kept (a long history would keep every configuration and version it met)."""

    def __init__(self, work: Callable[[Fields], Worked]) -> None:
        super().__init__()
        self.work = work
        self.before: dict[Fields, Worked] = {}

    def __missing__(self, fields: Fields) -> Worked:
        if len(self) > _MOST:
            self.clear()
        found = self.before.get(fields)
        if found is None:
            found = self.work(fields)
        self[fields] = found
        return found

    def next_diff(self) -> None:
        self.before = dict(self)
        self.clear()


_CONFIGURATIONS: _Memo[Configuration] = _Memo(lambda fields: configuration_from(*fields))
_KNOWN: _Memo[Built] = _Memo(lambda fields: (_CONFIGURATIONS[fields[:-1]], version_of(fields[-1])))


def next_diff() -> None:
    """At the start of a diff: what the one before worked out is kept for this one only."""
    _KNOWN.next_diff()
    _CONFIGURATIONS.next_diff()


def known_configuration(fields: tuple[Any, ...]) -> Configuration:
    """The configuration of an entry's (os, platform, target, compiler, variants) as read."""
    return _CONFIGURATIONS[fields]


def built_of(entries: Iterable[Entry]) -> list[Built]:
    """Each entry's configuration and version, as `Spec.from_entry` would normalise them."""
    return list(map(_KNOWN.__getitem__, map(_FIELDS, entries)))


def rebuilt_count(removed: Iterable[Built], added: Iterable[Built]) -> int:
    """How many removed specs are rebuilt, paired one to one with an added spec of the same
    configuration and version (SPEC section 2a), without classifying the rest (a history
    counts without explaining)."""
    unpaired: dict[Built, int] = {}
    for key in added:
        unpaired[key] = unpaired.get(key, 0) + 1
    count = 0
    for key in removed:
        left = unpaired.get(key)
        if left:
            unpaired[key] = left - 1
            count += 1
    return count
