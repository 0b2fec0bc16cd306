"""Both sides of a diff: a type that holds only a loaded pair, how much of it is read, and how
two sources are loaded whole (`whole_pair`) or two revisions in O(changed) (`changed_pair`)."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any, NamedTuple, Self

from ..errors import SnapdiffError
from ..model import Filters, Snapshot
from .git.changed import MixedUnits, Revisions
from .git.repo import GitRepo
from .git.tallycache import TallyCache
from .kinds import LoadOptions, Source
from .snapshot import PageCache

__all__ = ["Reading", "SnapshotPair", "changed_pair", "revisions_of", "whole_pair"]


class Reading(enum.Enum):
    """How much of a pair is read: as little as the filters allow (`needed_by`)."""

    CHANGED = "changed"  # git revisions in O(changed): content both hold alike counted per unit
    EVERY_PAGE = "every page"  # every page held; content both hold alike read for its counts
    EVERY_ENTRY = "every entry"  # every page read in full and every entry checked

    @classmethod
    def needed_by(cls, filters: Filters | None) -> Reading:
        """Per-spec filters read every entry; filters by package or tag need every page by
        name; without filters, only what changed is read."""
        if filters is not None and filters.per_spec:
            return cls.EVERY_ENTRY
        return cls.EVERY_PAGE if filters is not None and filters.applied else cls.CHANGED


class _Sides(NamedTuple):
    """The two snapshots of a pair, by name (unchecked: made only through `SnapshotPair`)."""

    old: Snapshot
    new: Snapshot


class SnapshotPair(_Sides):
    """Both sides of a diff, loaded together (`load_pair`).

    The invariant a diff relies on: content both sides hold alike is read only for its counts
    (pages with `entries` None, and the `rest` of each side), and every entry that differs
    between the sides, or that one side lacks, has been parsed and checked. The first part is
    checked whenever a pair is made (SnapdiffError); the loaders see to the second. A diff of
    the pair therefore never meets unread or unchecked data; snapshots loaded one at a time
    (`load_snapshot`) are fully read and checked and pair freely.
    """

    __slots__ = ()

    def __new__(cls, old: Snapshot, new: Snapshot) -> Self:
        if not old.pairs_with(new):
            raise SnapdiffError(
                f"{old.source} and {new.source}",
                "not a pair: content read only for its counts differs between the sides",
                "load both sides together with load_pair, or each with load_snapshot",
            )
        return super().__new__(cls, old, new)

    # mypy misreads NamedTuple's generic `_make` (the same signature) as incompatible
    @classmethod
    def _make(cls, iterable: Iterable[Any]) -> Self:  # type: ignore[override]
        """A pair of the two sides given in order, checked (`_replace` makes pairs so too)."""
        old, new = iterable
        return cls(old, new)


def whole_pair(sources: tuple[Source, Source], counted: bool) -> tuple[Snapshot, Snapshot]:
    """Both sides with every page held; content both hold read only for its counts when
    `counted`, else in full (every entry of a page read is checked as it is decoded)."""
    shared = sources[0].digests() & sources[1].digests() if counted else set()
    cache = PageCache(shared)
    new_snapshot = sources[1].load(cache)
    return sources[0].load(cache), new_snapshot


def changed_pair(
    sources: tuple[Source, Source], options: LoadOptions
) -> tuple[Snapshot, Snapshot] | None:
    """Two revisions of one repository read in O(changed), when both sides' kind can be
    (`Can.changed_only`); None when they cannot, or when only a whole listing says which page
    is the second (`MixedUnits`)."""
    old, new = sources
    if not (old.can.changed_only and new.can.changed_only and old.git and new.git):
        return None
    (repo, before), (other, after) = old.git, new.git
    if repo is not other:
        return None
    try:
        return revisions_of(repo, options).load(before, after)
    except MixedUnits:
        return None


def revisions_of(repo: GitRepo, options: LoadOptions) -> Revisions:
    """Revisions of a repository read in O(changed), with the options' tally cache."""
    tallies = TallyCache(options.cache_dir, options.warn)
    return Revisions(repo, tallies, PageCache(), options.keep_going, options.progress)
