"""Loaders, one per input kind, all returning a Snapshot; `load_pair` loads both sides of a diff."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from ..errors import InputError
from ..model import Snapshot
from .git.changed import MixedUnits, Revisions
from .git.reader import Progress
from .git.repo import GitRepo
from .git.tallycache import TallyCache
from .sides import GitSide, LoadOptions, Side, open_side, opened
from .snapshot import PageCache, Problems, check_changed

__all__ = [
    "LoadOptions",
    "Progress",
    "SnapshotPair",
    "load_history",
    "load_pair",
    "load_snapshot",
    "merge_base",
    "short_commit",
]


class SnapshotPair(NamedTuple):
    """Both sides of a diff, loaded together (`load_pair`).

    The invariant a diff relies on: content both sides hold alike is read only for its counts
    (pages with `entries` None, unless every page was read in full), and every entry that
    differs between the sides, or that one side lacks, has been parsed and checked. A diff of
    the pair therefore never meets unread or unchecked data; snapshots loaded one at a time
    (`load_snapshot`) are fully checked and can be paired freely.
    """

    old: Snapshot
    new: Snapshot


def load_pair(old: str, new: str, options: LoadOptions | None = None) -> SnapshotPair:
    """Load both sides of a diff: directories, git revisions or build-cache indexes.

    Content both sides hold is read once, and (unless `options.full`, which per-spec filters
    need) only for its counts; for git revisions such pages are known by their blob ids before
    anything is read, and are counted from their `meta` line. With `options.keep_going`, a bad
    page is left out and listed in the snapshot's `skipped` instead of stopping everything.
    """
    options = options or LoadOptions()
    with opened() as repos:
        sides = open_side(old, options, repos), open_side(new, options, repos)
        if (
            isinstance(sides[0], GitSide)
            and isinstance(sides[1], GitSide)
            and sides[0].repo is sides[1].repo
            and not (options.full or options.whole)
        ):
            revisions = _revisions(sides[0].repo, options)
            try:
                return SnapshotPair(*revisions.load(sides[0].revision, sides[1].revision))
            except MixedUnits:
                pass  # only a whole listing says which page is the second: read both so
        pair = _whole_pair(sides, options, counted=not options.full)
        if _counted_apart(pair):  # a page left out made a shared blob one side's only
            sides = open_side(old, options, repos), open_side(new, options, repos)
            pair = _whole_pair(sides, options, counted=False)
        return pair


def _whole_pair(sides: tuple[Side, Side], options: LoadOptions, counted: bool) -> SnapshotPair:
    """Both sides with every page held; content both hold read only for its counts when
    `counted`, else in full."""
    shared = sides[0].digests() & sides[1].digests() if counted else set()
    cache = PageCache(shared)
    new_snapshot = sides[1].load(cache)
    old_snapshot = sides[0].load(cache)
    if options.full:  # per-spec filters read every entry: check them all now
        nothing = Snapshot("", {})
        old_snapshot = check_changed(old_snapshot, nothing, sides[0].problems)
        return SnapshotPair(old_snapshot, check_changed(new_snapshot, nothing, sides[1].problems))
    old_snapshot = check_changed(old_snapshot, new_snapshot, sides[0].problems)
    return SnapshotPair(old_snapshot, check_changed(new_snapshot, old_snapshot, sides[1].problems))


def _counted_apart(pair: SnapshotPair) -> bool:
    """Whether a page read only for its counts differs from its counterpart: content both
    sides hold, whose page one side left out (`--keep-going`, a package's second page)."""
    for snapshot, other in (pair.old, pair.new), (pair.new, pair.old):
        for key, page in snapshot.pages.items():
            twin = other.pages.get(key)
            if page.entries is None and (twin is None or twin.digest != page.digest):
                return True
    return False


def _revisions(repo: GitRepo, options: LoadOptions) -> Revisions:
    """Revisions of a repository read in O(changed), with the options' tally cache."""
    tallies = TallyCache(options.cache_dir, options.warn)
    return Revisions(repo, tallies, PageCache(), options.keep_going, options.progress)


def load_history(
    start: str, end: str, options: LoadOptions | None = None
) -> Iterator[tuple[Snapshot, Snapshot]]:
    """(before, after) for each first-parent commit after `start` up to `end` that changed pages.

    Each step reads and parses only the blobs its commit changed, and counts the rest from the
    tallies of the step before (`load_pair`); commits that change no file are passed over.
    With `options.full` or `options.whole` (filters), every page is held: one cache parses in
    full each blob the range holds, once.
    """
    options = options or LoadOptions()
    with opened() as repos:
        side = open_side(start, options, repos)
        if not isinstance(side, GitSide):
            raise InputError(start, "a history needs git revisions", "run snapdiff log A..B")
        commits = side.repo.first_parent_commits(start, end)
        if options.full or options.whole:
            yield from _whole_history(side, commits, options)
        else:
            yield from _changed_history(side, commits, options)


def _progress(options: LoadOptions, number: int, commits: list[str]) -> None:
    commit = commits[number - 1]
    options.progress(f"commit {number:,} of {len(commits):,} ({commit[:12]})")


def _whole_history(
    side: GitSide, commits: list[str], options: LoadOptions, done: int = 0
) -> Iterator[tuple[Snapshot, Snapshot]]:
    """`load_history` holding every page: one cache parses in full each blob, once (after the
    first `done` commits)."""
    cache = PageCache()  # nothing shared: every page parsed in full, once
    before, old_snapshot = side, side.load(cache)
    for number in range(done + 1, len(commits) + 1):
        _progress(options, number, commits)
        after = GitSide(side.repo, commits[number - 1], Problems(options.keep_going))
        if after.files == before.files:
            continue
        new_snapshot = after.load(cache)  # parses only the blobs this commit changed
        cache.keep(after.digests())  # memory stays that of one revision, not of the range
        old_snapshot = check_changed(old_snapshot, new_snapshot, before.problems)
        new_snapshot = check_changed(new_snapshot, old_snapshot, after.problems)
        yield old_snapshot, new_snapshot
        before, old_snapshot = after, new_snapshot


def _changed_history(
    start: GitSide, commits: list[str], options: LoadOptions
) -> Iterator[tuple[Snapshot, Snapshot]]:
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
            side = GitSide(start.repo, before.arg, Problems(options.keep_going))
            yield from _whole_history(side, commits, options, number - 1)
            return
        yield pair
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
        side = open_side(arg, options or LoadOptions(), repos)
        return check_changed(side.load(PageCache()), Snapshot(arg, {}), side.problems)
