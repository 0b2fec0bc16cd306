"""A range's pairs, a step at a time: the commits of a catalogue's repository (in O(changed),
or holding every page), of a repository of build-cache mirrors, or snapshots given in order; and
a range in parts, each loaded on its own (`history_parts`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence

from ..errors import SnapdiffError
from ..model import Filters
from .git.changed import MixedUnits
from .git.process import GitError
from .git.reader import Progress, quiet
from .git.repo import GitRepo, Revision
from .kinds import (
    LoadOptions,
    Source,
    held_kind,
    is_revision,
    open_source,
    opened,
)
from .pair import Reading, SnapshotPair, revisions_of, whole_pair
from .protocol import no_history
from .snapshot import PageCache

__all__ = ["HistoryPart", "history_parts", "load_history", "load_sequence"]


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
        if not (source.can.steps and source.git):
            raise no_history(start)
        repo, _ = source.git
        commits = repo.first_parent_commits(start, end)
        if not source.can.changed_only:
            yield from _stepped_history(source, repo, commits, options)
        elif Reading.needed_by(filters) is Reading.CHANGED:
            yield from _changed_history(source, commits, options)
        else:
            yield from _whole_history(source, commits, options)


def _at(source: Source) -> tuple[GitRepo, Revision]:
    """The repository and revision of a source that steps through a history."""
    if source.git is None:  # `load_history` and `_halved` let only revisions through
        raise no_history("log")
    return source.git


def _progress(options: LoadOptions, number: int, commits: list[str]) -> None:
    commit = commits[number - 1]
    options.progress(f"commit {number:,} of {len(commits):,} ({commit[:12]})")


def _whole_history(
    start: Source,
    commits: list[str],
    options: LoadOptions,
    done: int = 0,
    upto: int | None = None,
) -> Iterator[SnapshotPair]:
    """`load_history` holding every page: one cache parses in full each blob, once (after the
    first `done` commits, up to commit `upto`)."""
    repo, _ = _at(start)
    cache = PageCache()  # nothing shared: every page parsed in full, once
    before, old_snapshot = start, start.load(cache)
    for number in range(done + 1, (len(commits) if upto is None else upto) + 1):
        _progress(options, number, commits)
        after = before.at(repo.resolve(commits[number - 1]), options)
        if after is None:  # the same tree: as `_changed_history` passes over (a commit changing
            continue  # only pages left out, a link, is still a step of them)
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


def _stepped_history(
    start: Source, repo: GitRepo, commits: list[str], options: LoadOptions
) -> Iterator[SnapshotPair]:
    """`load_history` a whole side at a time (build-cache mirrors committed to git, say): each
    commit that changed a file of them against the step before (two sides held at a time)."""
    before = start
    for number, commit in enumerate(commits, start=1):
        _progress(options, number, commits)
        after = before.at(repo.resolve(commit), options)
        if after is None:
            continue
        yield SnapshotPair(*whole_pair((before, after), counted=False))
        before = after


def _changed_history(
    start: Source,
    commits: list[str],
    options: LoadOptions,
    done: int = 0,
    upto: int | None = None,
) -> Iterator[SnapshotPair]:
    """`load_history` in O(changed), from `start` (after the first `done` commits) up to commit
    `upto`: each step's pair as `load_pair` reads it (from a step whose units hold a page twice
    on, every page is held, as `load_pair` does then)."""
    repo, before = _at(start)
    revisions = revisions_of(repo, options)
    upto = len(commits) if upto is None else upto
    try:  # the start read and checked first, as a whole reading does (its tallies then serve)
        revisions.load(before, before)
    except MixedUnits:
        yield from _whole_history(start, commits, options, done, upto)
        return
    for number in range(done + 1, upto + 1):
        _progress(options, number, commits)
        after = repo.resolve(commits[number - 1])
        if after.tree == before.tree:
            continue
        try:
            pair = revisions.load(before, after)
        except MixedUnits:
            source = held_kind(repo, before).opens(repo, before, options)
            yield from _whole_history(source, commits, options, number - 1, upto)
            return
        yield SnapshotPair(*pair)
        before = after


# A range is diffed in two halves side by side (`history.apart`) from this many commits a half:
# each half first reads its start's counts, which a short range would not repay.
_HALF_LEAST = 4

HistoryPart = Callable[[Progress], Iterator[SnapshotPair]]  # given where its warnings go


def history_parts(
    start: str, end: str, options: LoadOptions | None = None, filters: Filters | None = None
) -> list[HistoryPart]:
    """`load_history` as consecutive parts of the range, each loaded on its own: two halves
    (the second quiet, for another process: `history.apart`) for a range of a catalogue's
    repository, read in O(changed), of at least 2 × _HALF_LEAST commits; else the whole range
    (whose loading says what is wrong with it, if anything)."""
    options = options or LoadOptions()
    whole = [_part(start, end, options, filters)]
    if options.jobs < 2 or Reading.needed_by(filters) is not Reading.CHANGED:
        return whole
    if not is_revision(start, options):
        return whole
    try:
        commits = _halved(start, end, options.repo)
    except (SnapdiffError, GitError, OSError):  # said by the whole range's loading, if at all
        return whole
    if commits is None:
        return whole
    cut, second = len(commits) // 2, dataclasses.replace(options, progress=quiet)
    return [
        _part(start, end, options, filters, commits, 0, cut),
        _part(commits[cut - 1], end, second, filters, commits, cut),
    ]


def _halved(start: str, end: str, repo: str | None) -> list[str] | None:
    """The range's commits, when it can be loaded in halves: a catalogue (no build-cache
    mirrors) at its start and its middle, enough commits, and no partial clone (each half's
    start would fetch the blobs of a whole tree)."""
    with opened() as repos:
        found = repos.setdefault(repo or ".", GitRepo(repo or "."))
        commits = found.first_parent_commits(start, end)
        cut = len(commits) // 2
        if cut < _HALF_LEAST or found.partial.promisors:
            return None
        for rev in (start, commits[cut - 1]):
            if not held_kind(found, found.resolve(rev)).can.halves:
                return None
    return commits


def _part(
    start: str,
    end: str,
    options: LoadOptions,
    filters: Filters | None,
    commits: list[str] | None = None,
    done: int = 0,
    upto: int | None = None,
) -> HistoryPart:
    """A part of a range: the whole of it (`load_history`), or its commits after the first
    `done` up to `upto` (a catalogue read in O(changed)), from `start`."""

    def load(warn: Progress) -> Iterator[SnapshotPair]:
        told = dataclasses.replace(options, warn=warn)
        if commits is None:
            yield from load_history(start, end, told, filters)
            return
        with opened() as repos:
            source = open_source(start, told, repos)
            yield from _changed_history(source, commits, told, done, upto)

    return load
