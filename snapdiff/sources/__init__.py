"""Loaders, one per input kind, all returning a Snapshot; `load_pair` loads both sides of a diff."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from ..errors import InputError
from ..model import Snapshot
from .changed import Revisions
from .directory import read_directory
from .git import GitRepo, TreeFile
from .index import is_index_file, load_indexes, lone_stack
from .mirror import MAX_INDEX_BYTES, Folder, Index, Web, find_mirrors, index_of, is_url
from .pages import (
    NOT_REGULAR_FIX,
    ParsedPage,
    check_size,
    is_candidate,
    is_catalogue_path,
    is_page,
)
from .snapshot import PageBytes, PageCache, Problems, build_snapshot, check_changed
from .tallies import TallyCache

__all__ = [
    "LoadOptions",
    "Progress",
    "SnapshotPair",
    "load_history",
    "load_pair",
    "load_snapshot",
    "merge_base",
]


class _Side(Protocol):
    """One input: which contents it holds (cheaply), then its snapshot."""

    problems: Problems

    def digests(self) -> set[str]: ...

    def load(self, cache: PageCache) -> Snapshot: ...


def _parsed(cache: PageCache, raw: PageBytes, problems: Problems) -> ParsedPage | None:
    """The parsed page, or None when it is bad and we keep going."""
    try:
        return cache.parse(raw)
    except InputError as error:
        problems.skip(error)
        return None


Progress = Callable[[str], None]  # told what is being done, now and then (a line of text)
_EVERY = 2000  # pages between two words of progress


def _quiet(_: str) -> None:
    """No progress reported (the library's default)."""


class _DirectorySide:
    def __init__(self, path: str, problems: Problems, progress: Progress = _quiet) -> None:
        self.path = path
        self.problems = problems
        self.progress = progress
        self.raws = read_directory(path, problems)

    def digests(self) -> set[str]:
        return {raw.digest for raw in self.raws}

    def load(self, cache: PageCache) -> Snapshot:
        parsed = []
        for count, raw in enumerate(self.raws, start=1):
            parsed.append(_parsed(cache, raw, self.problems))
            if count % _EVERY == 0:
                self.progress(f"{self.path}: {count:,} of {len(self.raws):,} pages")
        return build_snapshot(self.path, [p for p in parsed if p], self.problems)


class _GitSide:
    def __init__(
        self, repo: GitRepo, arg: str, problems: Problems, progress: Progress = _quiet
    ) -> None:
        self.repo = repo
        self.problems = problems
        self.progress = progress
        self.revision = repo.resolve(arg)

    @functools.cached_property
    def files(self) -> list[tuple[str, str]]:
        """(path, blob id) of every file read, listed when first asked for."""
        listed = self.repo.list_files(self.revision.tree)
        return [(f.path, f.sha) for f in listed if self._readable(f)]

    def _readable(self, found: TreeFile) -> bool:
        """Whether a file is read: a regular file no larger than a page can be, outside hidden
        folders. A page by its place that is a link or too large is a bad page."""
        if not is_candidate(found.path):
            return False
        where = f"{self.revision.arg}:{found.path}"
        try:
            if found.link:
                if is_catalogue_path(found.path):
                    raise InputError(where, "a symbolic link, not a page", NOT_REGULAR_FIX)
                return False
            check_size(found.size, where)
        except InputError as error:
            if is_catalogue_path(found.path):
                self.problems.skip(error)
            return False
        return True

    def digests(self) -> set[str]:
        return {sha for _, sha in self.files}

    def load(self, cache: PageCache) -> Snapshot:
        """Read the blobs not parsed yet in one batch, parsing each as it arrives."""
        rev = self.revision
        first_path: dict[str, str] = {}
        for path, sha in self.files:
            if sha not in cache:
                first_path.setdefault(sha, path)
        for count, (sha, data) in enumerate(self.repo.read_blobs(first_path, rev.arg), start=1):
            if count % _EVERY == 0:
                self.progress(f"{rev.arg}: {count:,} of {len(first_path):,} pages")
            path = first_path[sha]
            if isinstance(data, int):  # never: read with no limit (sizes were checked)
                continue
            if is_catalogue_path(path) or is_page(data):
                _parsed(cache, PageBytes(f"{rev.arg}:{path}", data, sha), self.problems)
        parsed = [cache.get(sha, f"{rev.arg}:{p}") for p, sha in self.files if sha in cache]
        return build_snapshot(rev.arg, parsed, self.problems, rev.commit, rev.date)


class _IndexSide:
    """Spack build-cache indexes: one file, mirrors in a folder, or mirrors over HTTP(S)."""

    def __init__(self, source: str, indexes: list[Index], options: LoadOptions) -> None:
        self.problems = Problems(options.keep_going)
        self.snapshot = load_indexes(source, indexes, options.index_tag)

    def digests(self) -> set[str]:
        return set()  # built, not read: every page is compared in full

    def load(self, cache: PageCache) -> Snapshot:
        return self.snapshot


@dataclass(frozen=True)
class LoadOptions:
    """How inputs are read (beyond their names)."""

    repo: str | None = None  # the git repository revisions are read from
    full: bool = False  # read every page in full (per-spec filters need it)
    keep_going: bool = False  # leave bad pages out instead of stopping
    index_tag: str = "develop"  # the cache tag of build-cache index snapshots
    stack_name: str | None = None  # the stack of a single index.json given as a snapshot
    progress: Progress = _quiet  # told what is being read, now and then (the CLI, on a terminal)
    stack_urls: tuple[tuple[str, str], ...] = ()  # (stack, mirror address) beside a URL side
    whole: bool = False  # hold every page as a Page (filters by package or tag need them all)
    cache_dir: str | None = None  # where tallies of revisions are kept across runs (None: not)
    warn: Progress = _quiet  # told of a cache file ignored or a cache that cannot be written


def _open(arg: str, options: LoadOptions, repos: dict[str, GitRepo]) -> _Side:
    """A build-cache index, a directory (of pages or of indexes), else a git revision."""
    problems = Problems(options.keep_going)
    if is_url(arg):
        mirrors = [(options.stack_name or "root", arg), *options.stack_urls]
        indexes = [index_of(Web(url, options.progress), stack) for stack, url in mirrors]
        return _IndexSide(arg, indexes, options)
    if is_index_file(arg):
        data = Folder(os.path.dirname(arg) or ".").read(os.path.basename(arg), MAX_INDEX_BYTES)
        return _IndexSide(arg, [Index(arg, lone_stack(arg, options.stack_name), data)], options)
    if os.path.isdir(arg):
        folders = find_mirrors(arg)
        if folders:
            return _IndexSide(arg, [index_of(m, stack) for stack, m in folders], options)
        return _DirectorySide(arg, problems, options.progress)
    if os.path.exists(arg):
        raise InputError(arg, "not a directory", "give a directory of pages or a git revision")
    repo = options.repo
    path = repo or "."
    if path not in repos:
        try:
            repos[path] = GitRepo(path)
        except InputError as exc:
            fix = "give a directory of catalogue pages, or a revision inside a git repository"
            where = arg if repo is None else f"{arg} (in {repo})"
            raise InputError(where, f"no such directory ({exc.what})", fix) from exc
    return _GitSide(repos[path], arg, problems, options.progress)


@contextmanager
def _opened() -> Iterator[dict[str, GitRepo]]:
    """Repositories opened while loading, closed after."""
    repos: dict[str, GitRepo] = {}
    try:
        yield repos
    finally:
        for opened in repos.values():
            opened.close()


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
    with _opened() as repos:
        sides = _open(old, options, repos), _open(new, options, repos)
        if (
            isinstance(sides[0], _GitSide)
            and isinstance(sides[1], _GitSide)
            and sides[0].repo is sides[1].repo
            and not (options.full or options.whole)
        ):
            revisions = _revisions(sides[0].repo, options)
            return SnapshotPair(*revisions.load(sides[0].revision, sides[1].revision))
        shared = set() if options.full else sides[0].digests() & sides[1].digests()
        cache = PageCache(shared)
        new_snapshot = sides[1].load(cache)
        old_snapshot = sides[0].load(cache)
        if options.full:  # per-spec filters read every entry: check them all now
            nothing = Snapshot("", {})
            old_snapshot = check_changed(old_snapshot, nothing, sides[0].problems)
            return SnapshotPair(
                old_snapshot, check_changed(new_snapshot, nothing, sides[1].problems)
            )
        old_snapshot = check_changed(old_snapshot, new_snapshot, sides[0].problems)
        return SnapshotPair(
            old_snapshot, check_changed(new_snapshot, old_snapshot, sides[1].problems)
        )


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
    with _opened() as repos:
        side = _open(start, options, repos)
        if not isinstance(side, _GitSide):
            raise InputError(start, "a history needs git revisions", "run snapdiff log A..B")
        if not (options.full or options.whole):
            yield from _changed_history(side, end, options)
            return
        cache = PageCache()  # nothing shared: every page parsed in full, once
        before, old_snapshot = side, side.load(cache)
        commits = side.repo.first_parent_commits(start, end)
        for number, commit in enumerate(commits, start=1):
            options.progress(f"commit {number:,} of {len(commits):,} ({commit[:12]})")
            after = _GitSide(side.repo, commit, Problems(options.keep_going))
            if after.files == before.files:
                continue
            new_snapshot = after.load(cache)  # parses only the blobs this commit changed
            cache.keep(after.digests())  # memory stays that of one revision, not of the range
            old_snapshot = check_changed(old_snapshot, new_snapshot, before.problems)
            new_snapshot = check_changed(new_snapshot, old_snapshot, after.problems)
            yield old_snapshot, new_snapshot
            before, old_snapshot = after, new_snapshot


def _changed_history(
    start: _GitSide, end: str, options: LoadOptions
) -> Iterator[tuple[Snapshot, Snapshot]]:
    """`load_history` in O(changed): each step's pair as `load_pair` reads it."""
    revisions = _revisions(start.repo, options)
    commits = start.repo.first_parent_commits(start.revision.arg, end)
    before = start.revision
    for number, commit in enumerate(commits, start=1):
        options.progress(f"commit {number:,} of {len(commits):,} ({commit[:12]})")
        after = start.repo.resolve(commit)
        if after.tree == before.tree:
            continue
        yield revisions.load(before, after)
        before = after


def merge_base(one: str, other: str, repo: str | None = None) -> str:
    """The commit id of the best common ancestor of two revisions (`git merge-base`)."""
    with _opened() as repos:
        opened = repos.setdefault(repo or ".", GitRepo(repo or "."))
        return opened.merge_base(one, other)


def load_snapshot(arg: str, options: LoadOptions | None = None) -> Snapshot:
    """Load one snapshot: a directory of catalogue pages, a git revision, or an index.

    Every entry is read and checked (a diff reads only those that differ between its sides).
    """
    with _opened() as repos:
        side = _open(arg, options or LoadOptions(), repos)
        return check_changed(side.load(PageCache()), Snapshot(arg, {}), side.problems)
