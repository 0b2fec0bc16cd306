"""Loaders, one per input kind, all returning a Snapshot; `load_pair` loads both sides of a diff."""

from __future__ import annotations

from ..errors import InputError
from ..model import Filters, Snapshot, counted_apart
from .apart import ApartSource, read_apart
from .git.reader import Progress
from .git.repo import GitRepo
from .histories import HistoryPart, history_parts, load_history, load_sequence
from .kinds import KINDS, LoadOptions, Source, open_source, opened
from .pair import Reading, SnapshotPair, changed_pair, whole_pair
from .snapshot import PageCache

__all__ = [
    "KINDS",
    "HistoryPart",
    "LoadOptions",
    "Progress",
    "SnapshotPair",
    "backwards",
    "commit_id",
    "history_parts",
    "load_history",
    "load_pair",
    "load_sequence",
    "load_snapshot",
    "merge_base",
    "unrelated",
]


def load_pair(
    old: str, new: str, options: LoadOptions | None = None, filters: Filters | None = None
) -> SnapshotPair:
    """Load both sides of a diff: any two kinds of input (`kinds.KINDS`).

    Content both sides hold is read once, and only for its counts (unless `filters` look
    inside pages: per-spec filters read every entry); for git revisions such pages are known
    by their blob ids before anything is read, and are counted from their `meta` line (with
    `filters`, every page is held, as they need every page by name). With
    `options.keep_going`, a bad page is left out and listed in the snapshot's `skipped`
    instead of stopping everything. With `options.jobs` of 2, NEW is read in a forked child
    while OLD is read here, where its kind can be (`Kind.apart`).
    """
    options = options or LoadOptions()
    reading = Reading.needed_by(filters)
    with opened() as repos:
        apart = read_apart(new, options)  # started first, read beside OLD
        try:
            return _loaded(old, new, options, reading, repos, apart)
        finally:
            if apart:
                apart.cancel()  # when something failed while it was at work (else a no-op)


def _loaded(
    old: str,
    new: str,
    options: LoadOptions,
    reading: Reading,
    repos: dict[str, GitRepo],
    apart: ApartSource | None,
) -> SnapshotPair:
    """`load_pair`'s work, NEW started `apart` if it can be."""
    first = open_source(old, options, repos)
    if first.can.shares_values:  # its pages built while NEW is read apart
        first.load(PageCache())
    shared = first.intern  # OLD's values, that NEW's equal ones become (compared by identity)
    counted = reading is not Reading.EVERY_ENTRY  # as `whole_pair` reads a pair
    second: Source = apart.source(shared) if apart else open_source(new, options, repos, shared)
    sources: tuple[Source, Source] = (first, second)
    if options.graphs and first.graph is not None and second.graph is not None:
        options.graphs(first.graph, second.graph)
    pair = changed_pair(sources, options) if reading is Reading.CHANGED else None
    if pair is not None:
        return SnapshotPair(*pair)
    pair = whole_pair(sources, counted)
    if counted_apart(*pair):  # a page left out made a shared blob one side's only
        sources = open_source(old, options, repos), open_source(new, options, repos)
        pair = whole_pair(sources, counted=False)
    return SnapshotPair(*pair)


def merge_base(one: str, other: str, repo: str | None = None) -> str:
    """The commit id of the best common ancestor of two revisions (`git merge-base`)."""
    with opened() as repos:
        found = repos.setdefault(repo or ".", GitRepo(repo or "."))
        return found.merge_base(one, other)


def unrelated(one: str, other: str, repo: str | None = None) -> bool:
    """Whether two revisions share no history: `one..other` is then every commit of `other`
    (False when that cannot be told: no repository there, or a revision git does not know)."""
    try:
        with opened() as repos:
            found = repos.setdefault(repo or ".", GitRepo(repo or "."))
            return found.unrelated(one, other)
    except InputError:
        return False


def backwards(start: str, end: str, repo: str | None = None) -> bool:
    """Whether `start..end` holds no first-parent commit but `end..start` does: a range given
    backwards."""
    with opened() as repos:
        found = repos.setdefault(repo or ".", GitRepo(repo or "."))
        return not found.first_parent_commits(start, end) and bool(
            found.first_parent_commits(end, start)
        )


def commit_id(rev: str, repo: str | None = None) -> str | None:
    """The full id of the commit a revision names (None for a tree that is no commit)."""
    with opened() as repos:
        found = repos.setdefault(repo or ".", GitRepo(repo or "."))
        return found.resolve(rev).commit


def load_snapshot(arg: str, options: LoadOptions | None = None) -> Snapshot:
    """Load one snapshot: a directory of catalogue pages, a git revision, or an index.

    Every entry is read and checked (a diff reads only those that differ between its sides).
    """
    with opened() as repos:
        source = open_source(arg, options or LoadOptions(), repos)
        return source.load(PageCache())
