"""Loaders, one per input kind, all returning a Snapshot; `load_pair` loads both sides of a diff."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..errors import InputError
from ..model import Filters, Snapshot, counted_apart
from .apart import read_apart
from .git.changed import MixedUnits, Revisions
from .git.reader import Progress
from .git.repo import GitRepo
from .git.tallycache import TallyCache
from .kinds import (
    IndexSource,
    LoadOptions,
    MirrorRevisionSource,
    RevisionSource,
    Source,
    open_source,
    opened,
)
from .pair import Reading, SnapshotPair
from .snapshot import PageCache, Problems

__all__ = [
    "LoadOptions",
    "Progress",
    "SnapshotPair",
    "load_history",
    "load_pair",
    "load_sequence",
    "load_snapshot",
    "merge_base",
    "short_commit",
]


def load_pair(
    old: str, new: str, options: LoadOptions | None = None, filters: Filters | None = None
) -> SnapshotPair:
    """Load both sides of a diff: directories, git revisions or build-cache indexes.

    Content both sides hold is read once, and only for its counts (unless `filters` look
    inside pages: per-spec filters read every entry); for git revisions such pages are known
    by their blob ids before anything is read, and are counted from their `meta` line (with
    `filters`, every page is held, as they need every page by name). With
    `options.keep_going`, a bad page is left out and listed in the snapshot's `skipped`
    instead of stopping everything.
    """
    options = options or LoadOptions()
    reading = Reading.needed_by(filters)
    with opened() as repos:
        apart = read_apart(new, options)  # an index or directory: started first, read beside OLD
        try:
            first = open_source(old, options, repos)
            shared = None  # OLD's values, that NEW's equal ones become (compared by identity)
            if isinstance(first, IndexSource):  # its pages built while NEW is read apart
                first.load(PageCache())
                shared = first.intern
            second = apart.source(shared) if apart else open_source(new, options, repos, shared)
            sources: tuple[Source, Source] = (first, second)
        finally:
            if apart:
                apart.cancel()  # when OLD failed
        _graphs_read(sources, options)
        if (
            isinstance(sources[0], RevisionSource)
            and isinstance(sources[1], RevisionSource)
            and sources[0].repo is sources[1].repo
            and reading is Reading.CHANGED
        ):
            revisions = _revisions(sources[0].repo, options)
            try:
                return SnapshotPair(*revisions.load(sources[0].revision, sources[1].revision))
            except MixedUnits:
                pass  # only a whole listing says which page is the second: read both so
        pair = _whole_pair(sources, counted=reading is not Reading.EVERY_ENTRY)
        if counted_apart(*pair):  # a page left out made a shared blob one side's only
            sources = open_source(old, options, repos), open_source(new, options, repos)
            pair = _whole_pair(sources, counted=False)
        return SnapshotPair(*pair)


def _graphs_read(sources: tuple[Source, Source], options: LoadOptions) -> None:
    """`options.graphs` told both sides' graphs, when both are build-cache indexes."""
    old, new = sources
    if options.graphs and isinstance(old, IndexSource) and isinstance(new, IndexSource):
        options.graphs(old.graph, new.graph)


def _whole_pair(sources: tuple[Source, Source], counted: bool) -> tuple[Snapshot, Snapshot]:
    """Both sides with every page held; content both hold read only for its counts when
    `counted`, else in full (every entry of a page read is checked as it is decoded)."""
    shared = sources[0].digests() & sources[1].digests() if counted else set()
    cache = PageCache(shared)
    new_snapshot = sources[1].load(cache)
    return sources[0].load(cache), new_snapshot


def _revisions(repo: GitRepo, options: LoadOptions) -> Revisions:
    """Revisions of a repository read in O(changed), with the options' tally cache."""
    tallies = TallyCache(options.cache_dir, options.warn)
    return Revisions(repo, tallies, PageCache(), options.keep_going, options.progress)


def load_history(
    start: str, end: str, options: LoadOptions | None = None, filters: Filters | None = None
) -> Iterator[SnapshotPair]:
    """(before, after) for each first-parent commit after `start` up to `end` that changed pages.

    Each step reads and parses only the blobs its commit changed, and counts the rest from the
    tallies of the step before (`load_pair`); commits that change no file are passed over.
    With `filters`, every page is held: one cache parses in full each blob the range holds, once.
    """
    options = options or LoadOptions()
    with opened() as repos:
        source = open_source(start, options, repos)
        if isinstance(source, MirrorRevisionSource):
            commits = source.repo.first_parent_commits(start, end)
            yield from _mirror_history(source, commits, options)
            return
        if not isinstance(source, RevisionSource):
            raise InputError(start, "a history needs git revisions", "run snapdiff log A..B")
        commits = source.repo.first_parent_commits(start, end)
        if Reading.needed_by(filters) is Reading.CHANGED:
            yield from _changed_history(source, commits, options)
        else:
            yield from _whole_history(source, commits, options)


def _progress(options: LoadOptions, number: int, commits: list[str]) -> None:
    commit = commits[number - 1]
    options.progress(f"commit {number:,} of {len(commits):,} ({commit[:12]})")


def _whole_history(
    start: RevisionSource, commits: list[str], options: LoadOptions, done: int = 0
) -> Iterator[SnapshotPair]:
    """`load_history` holding every page: one cache parses in full each blob, once (after the
    first `done` commits)."""
    cache = PageCache()  # nothing shared: every page parsed in full, once
    before, old_snapshot = start, start.load(cache)
    for number in range(done + 1, len(commits) + 1):
        _progress(options, number, commits)
        after = RevisionSource(start.repo, commits[number - 1], Problems(options.keep_going))
        if after.files == before.files:
            continue
        new_snapshot = after.load(cache)  # parses only the blobs this commit changed
        cache.keep(after.digests())  # memory stays that of one revision, not of the range
        yield SnapshotPair(old_snapshot, new_snapshot)
        before, old_snapshot = after, new_snapshot


def load_sequence(
    snapshots: Sequence[str], options: LoadOptions | None = None
) -> Iterator[SnapshotPair]:
    """(before, after) for each snapshot after the first, against the one before it: any kinds
    `load_pair` reads, each read once and in full (so any filters apply), and held no longer
    than its two steps."""
    options = options or LoadOptions()
    with opened() as repos:
        before = open_source(snapshots[0], options, repos).load(PageCache())
        for number, arg in enumerate(snapshots[1:], start=2):
            options.progress(f"snapshot {number:,} of {len(snapshots):,} ({arg})")
            after = open_source(arg, options, repos).load(PageCache())
            yield SnapshotPair(before, after)
            before = after


def _mirror_history(
    start: MirrorRevisionSource, commits: list[str], options: LoadOptions
) -> Iterator[SnapshotPair]:
    """`load_history` over build-cache mirrors committed to git: each commit that changed a
    file of them, its indexes against the step before's (two sides held at a time)."""
    before = start
    for number, commit in enumerate(commits, start=1):
        _progress(options, number, commits)
        after = before.at(start.repo.resolve(commit), options)
        if after is None:
            continue
        yield SnapshotPair(*_whole_pair((before, after), counted=False))
        before = after


def _changed_history(
    start: RevisionSource, commits: list[str], options: LoadOptions
) -> Iterator[SnapshotPair]:
    """`load_history` in O(changed): each step's pair as `load_pair` reads it (from a step
    whose units hold a page twice on, every page is held, as `load_pair` does then)."""
    revisions = _revisions(start.repo, options)
    before = start.revision
    try:  # the start read and checked first, as a whole reading does (its tallies then serve)
        revisions.load(before, before)
    except MixedUnits:
        yield from _whole_history(start, commits, options)
        return
    for number, commit in enumerate(commits, start=1):
        _progress(options, number, commits)
        after = start.repo.resolve(commit)
        if after.tree == before.tree:
            continue
        try:
            pair = revisions.load(before, after)
        except MixedUnits:
            source = RevisionSource(start.repo, before.arg, Problems(options.keep_going))
            yield from _whole_history(source, commits, options, number - 1)
            return
        yield SnapshotPair(*pair)
        before = after


def merge_base(one: str, other: str, repo: str | None = None) -> str:
    """The commit id of the best common ancestor of two revisions (`git merge-base`)."""
    with opened() as repos:
        found = repos.setdefault(repo or ".", GitRepo(repo or "."))
        return found.merge_base(one, other)


def short_commit(rev: str, repo: str | None = None) -> str | None:
    """The short id of the commit a revision names (None for a tree that is no commit)."""
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
