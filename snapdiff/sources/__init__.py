"""Loaders, one per input kind, all returning a Snapshot; load_snapshots picks the kind."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from ..errors import InputError
from ..model import Snapshot
from .directory import read_directory
from .git import GitRepo
from .pages import ParsedPage, is_candidate, is_catalogue_path, is_page
from .snapshot import PageBytes, PageCache, Problems, build_snapshot

__all__ = ["load_snapshot", "load_snapshots"]


class _Side(Protocol):
    """One input: which contents it holds (cheaply), then its snapshot."""

    def digests(self) -> set[str]: ...

    def load(self, cache: PageCache) -> Snapshot: ...


def _parsed(cache: PageCache, raw: PageBytes, problems: Problems) -> ParsedPage | None:
    """The parsed page, or None when it is bad and we keep going."""
    try:
        return cache.parse(raw)
    except InputError as error:
        problems.skip(error)
        return None


class _DirectorySide:
    def __init__(self, path: str, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.raws = read_directory(path, problems)

    def digests(self) -> set[str]:
        return {raw.digest for raw in self.raws}

    def load(self, cache: PageCache) -> Snapshot:
        parsed = [_parsed(cache, raw, self.problems) for raw in self.raws]
        return build_snapshot(self.path, [p for p in parsed if p], self.problems)


class _GitSide:
    def __init__(self, repo: GitRepo, arg: str, problems: Problems) -> None:
        self.repo = repo
        self.problems = problems
        self.revision = repo.resolve(arg)
        self.files = [
            (path, sha) for path, sha in repo.list_files(self.revision.tree) if is_candidate(path)
        ]

    def digests(self) -> set[str]:
        return {sha for _, sha in self.files}

    def load(self, cache: PageCache) -> Snapshot:
        """Read the blobs not parsed yet in one batch, parsing each as it arrives."""
        rev = self.revision
        first_path: dict[str, str] = {}
        for path, sha in self.files:
            if sha not in cache:
                first_path.setdefault(sha, path)
        for sha, data in self.repo.read_blobs(first_path, rev.arg):
            path = first_path[sha]
            if is_catalogue_path(path) or is_page(data):
                _parsed(cache, PageBytes(f"{rev.arg}:{path}", data, sha), self.problems)
        parsed = [cache.get(sha, f"{rev.arg}:{p}") for p, sha in self.files if sha in cache]
        return build_snapshot(rev.arg, parsed, self.problems, rev.commit, rev.date)


def _open(arg: str, repo: str | None, repos: dict[str, GitRepo], keep_going: bool) -> _Side:
    """A directory when one exists by that name, else a git revision."""
    problems = Problems(keep_going)
    if os.path.isdir(arg):
        return _DirectorySide(arg, problems)
    if os.path.exists(arg):
        raise InputError(arg, "not a directory", "give a directory of pages or a git revision")
    path = repo or "."
    if path not in repos:
        try:
            repos[path] = GitRepo(path)
        except InputError as exc:
            fix = "give a directory of catalogue pages, or a revision inside a git repository"
            where = arg if repo is None else f"{arg} (in {repo})"
            raise InputError(where, f"no such directory ({exc.what})", fix) from exc
    return _GitSide(repos[path], arg, problems)


@contextmanager
def _opened(repo: str | None) -> Iterator[dict[str, GitRepo]]:
    """Repositories opened while loading, closed after; the garbage collector paused meanwhile.

    Loading allocates millions of small objects and no reference cycles: with the collector on,
    parsing one develop-size snapshot measured about twice as slow. What was loaded is then
    frozen (moved out of the collector's sight), so the diff after it does not pay for scanning
    it again and again.
    """
    repos: dict[str, GitRepo] = {}
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield repos
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
        for opened in repos.values():
            opened.close()


def load_snapshots(
    old: str, new: str, repo: str | None = None, full: bool = False, keep_going: bool = False
) -> tuple[Snapshot, Snapshot]:
    """Load both sides of a diff: directories or git revisions (of `repo`, else the current one).

    Content both sides hold is read once, and (unless `full`, which per-spec filters need) only
    for its counts; for git revisions such pages are known by their blob ids before anything is
    read, and are counted from their `meta` line. With `keep_going`, a bad page is left out and
    listed in the snapshot's `skipped` instead of stopping everything.
    """
    with _opened(repo) as repos:
        sides = _open(old, repo, repos, keep_going), _open(new, repo, repos, keep_going)
        shared = set() if full else sides[0].digests() & sides[1].digests()
        cache = PageCache(shared)
        new_snapshot = sides[1].load(cache)
        return sides[0].load(cache), new_snapshot


def load_snapshot(arg: str, repo: str | None = None, keep_going: bool = False) -> Snapshot:
    """Load one snapshot: a directory of catalogue pages, or a git revision."""
    with _opened(repo) as repos:
        return _open(arg, repo, repos, keep_going).load(PageCache())
