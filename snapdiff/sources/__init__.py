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
from .pages import is_candidate, is_catalogue_path, is_page
from .snapshot import PageBytes, PageCache, build_snapshot

__all__ = ["load_snapshot", "load_snapshots"]


class _Side(Protocol):
    """One input: which contents it holds (cheaply), then its snapshot."""

    def digests(self) -> set[str]: ...

    def load(self, cache: PageCache) -> Snapshot: ...


class _DirectorySide:
    def __init__(self, path: str) -> None:
        self.path = path
        self.raws = read_directory(path)

    def digests(self) -> set[str]:
        return {raw.digest for raw in self.raws}

    def load(self, cache: PageCache) -> Snapshot:
        return build_snapshot(self.path, [cache.parse(raw) for raw in self.raws])


class _GitSide:
    def __init__(self, repo: GitRepo, arg: str) -> None:
        self.repo = repo
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
        not_pages = set()
        for sha, data in self.repo.read_blobs(first_path, rev.arg):
            path = first_path[sha]
            if is_catalogue_path(path) or is_page(data):
                cache.parse(PageBytes(f"{rev.arg}:{path}", data, sha))
            else:
                not_pages.add(sha)
        parsed = [
            cache.get(sha, f"{rev.arg}:{path}") for path, sha in self.files if sha not in not_pages
        ]
        return build_snapshot(rev.arg, parsed, rev.commit, rev.date)


def _open(arg: str, repo: str | None, repos: dict[str, GitRepo]) -> _Side:
    """A directory when one exists by that name, else a git revision."""
    if os.path.isdir(arg):
        return _DirectorySide(arg)
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
    return _GitSide(repos[path], arg)


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
    old: str, new: str, repo: str | None = None, full: bool = False
) -> tuple[Snapshot, Snapshot]:
    """Load both sides of a diff: directories or git revisions (of `repo`, else the current one).

    Content both sides hold is read once, and (unless `full`, which per-spec filters need) only
    for its counts; for git revisions such pages are known by their blob ids before anything is
    read, and are counted from their `meta` line.
    """
    with _opened(repo) as repos:
        sides = _open(old, repo, repos), _open(new, repo, repos)
        shared = set() if full else sides[0].digests() & sides[1].digests()
        cache = PageCache(shared)
        new_snapshot = sides[1].load(cache)
        return sides[0].load(cache), new_snapshot


def load_snapshot(arg: str, repo: str | None = None) -> Snapshot:
    """Load one snapshot: a directory of catalogue pages, or a git revision."""
    with _opened(repo) as repos:
        return _open(arg, repo, repos).load(PageCache())
