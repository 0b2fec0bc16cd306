"""Catalogue pages as a source (`kinds.py`'s rows): a directory of pages, or a git revision of a
catalogue repository (read in O(changed) beside another revision of it)."""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, ClassVar

from ..errors import InputError
from ..model import Graph, Snapshot
from .directory import read_directory
from .git.reader import Progress, quiet, readable
from .git.repo import GitRepo, Revision, TreeFile
from .pages import MAX_PAGE_BYTES, is_catalogue_path, is_page_content
from .protocol import Can, LoadOptions, Source, no_history
from .snapshot import PageBytes, PageCache, Problems, build_snapshot

if TYPE_CHECKING:
    from .mirror.nodes import Interned

__all__ = [
    "DirectorySource",
    "RevisionSource",
    "holds_pages",
    "is_directory",
    "open_directory",
    "pages_in_git",
    "pages_snapshot",
]


_EVERY = 2000  # pages between two words of progress


class DirectorySource:
    """A directory of catalogue pages (or of pages anywhere below it)."""

    can: ClassVar[Can] = Can()
    intern: Interned | None = None
    git: tuple[GitRepo, Revision] | None = None
    graph: Graph | None = None

    def __init__(self, path: str, problems: Problems, progress: Progress = quiet) -> None:
        self.path = path
        self.problems = problems
        self.progress = progress
        self.raws = read_directory(path, problems)

    def digests(self) -> set[str]:
        return {raw.digest for raw in self.raws}

    def at(self, revision: Revision, options: LoadOptions) -> Source | None:
        raise no_history(self.path)

    def load(self, cache: PageCache) -> Snapshot:
        return pages_snapshot(self.path, self.raws, cache, self.problems, self.progress)


def pages_snapshot(
    path: str, raws: list[PageBytes], cache: PageCache, problems: Problems, progress: Progress
) -> Snapshot:
    """The snapshot of a directory's pages, each parsed (or taken from the cache) in order."""
    parsed = []
    for count, raw in enumerate(raws, start=1):
        parsed.append(cache.parsed(raw, problems))
        if count % _EVERY == 0:
            progress(f"{path}: {count:,} of {len(raws):,} pages")
    return build_snapshot(path, [p for p in parsed if p], problems)


class RevisionSource:
    """A git revision (`REV`, or `REV:path` for a folder inside it) of a repository."""

    can: ClassVar[Can] = Can(changed_only=True, halves=True, steps=True)
    intern: Interned | None = None
    graph: Graph | None = None

    def __init__(
        self, repo: GitRepo, revision: Revision, problems: Problems, progress: Progress = quiet
    ) -> None:
        self.repo, self.revision = repo, revision
        self.git: tuple[GitRepo, Revision] | None = repo, revision
        self.problems = problems
        self.progress = progress

    @functools.cached_property
    def files(self) -> list[tuple[str, str]]:
        """(path, blob id) of every file read, listed when first asked for."""
        listed = self.repo.list_files(self.revision.tree)
        return [(f.path, f.sha) for f in listed if self._readable(f)]

    def _readable(self, found: TreeFile) -> bool:
        """Whether a file is read (`readable`); a bad page is a problem of this revision."""
        try:
            return readable(found, f"{self.revision.arg}:{found.path}")
        except InputError as error:
            self.problems.skip(error)
            return False

    def digests(self) -> set[str]:
        return {sha for _, sha in self.files}

    def at(self, revision: Revision, options: LoadOptions) -> RevisionSource | None:
        """The pages of another revision; None when its tree is the same."""
        if revision.tree == self.revision.tree:
            return None
        return RevisionSource(self.repo, revision, Problems(options.keep_going), self.progress)

    def load(self, cache: PageCache) -> Snapshot:
        """Read the blobs not parsed yet in one batch, parsing each as it arrives."""
        rev = self.revision
        first_path: dict[str, str] = {}
        for path, sha in self.files:
            if sha not in cache:
                first_path.setdefault(sha, path)
        blobs = self.repo.read_blobs(first_path, rev.arg, MAX_PAGE_BYTES)
        for count, (sha, data) in enumerate(blobs, start=1):
            if count % _EVERY == 0:
                self.progress(f"{rev.arg}: {count:,} of {len(first_path):,} pages")
            source = f"{rev.arg}:{first_path[sha]}"
            try:
                if not is_page_content(data, is_catalogue_path(first_path[sha]), source):
                    continue
            except InputError as error:  # too large, its size not listed (a partial clone)
                self.problems.skip(error)
                continue
            cache.parsed(PageBytes(source, data, sha), self.problems)
        parsed = [cache.get(sha, f"{rev.arg}:{p}") for p, sha in self.files if sha in cache]
        return build_snapshot(
            rev.arg, parsed, self.problems, rev.commit, rev.date, subject=rev.subject
        )


def is_directory(arg: str, options: LoadOptions) -> bool:
    return os.path.isdir(arg)


def open_directory(arg: str, options: LoadOptions, shared: Interned | None) -> Source:
    return DirectorySource(arg, Problems(options.keep_going), options.progress)


def holds_pages(repo: GitRepo, revision: Revision) -> bool:
    return revision.file is None


def pages_in_git(repo: GitRepo, revision: Revision, options: LoadOptions) -> Source:
    return RevisionSource(repo, revision, Problems(options.keep_going), options.progress)
