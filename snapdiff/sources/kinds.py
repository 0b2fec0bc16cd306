"""The kinds of input, behind one protocol (`Source`), chosen in one function (`open_source`):
a directory of pages, a git revision, build-cache indexes; and how they are read (`LoadOptions`)."""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..errors import InputError
from ..model import Graph, Snapshot
from .directory import SNAPSHOT_FIX, read_directory
from .git.reader import Progress, quiet, readable
from .git.repo import GitRepo, Revision, TreeFile
from .mirror.index import (
    Read,
    graph_of,
    is_index_file,
    lone_stack,
    read_indexes,
    snapshot_of,
)
from .mirror.layouts import MAX_INDEX_BYTES, Folder, Index, find_mirrors, index_of, is_url
from .mirror.tree import TreeMirror, mirror_files, tree_mirrors
from .pages import MAX_PAGE_BYTES, is_catalogue_path, is_page_content
from .snapshot import PageBytes, PageCache, Problems, build_snapshot

if TYPE_CHECKING:  # msgspec: only when an index is read
    from .mirror.nodes import Interned

__all__ = [
    "LoadOptions",
    "MirrorRevisionSource",
    "RevisionSource",
    "Source",
    "open_source",
    "opened",
    "pages_snapshot",
]


class Source(Protocol):
    """One input of a diff: which contents it holds (cheaply), then its snapshot."""

    problems: Problems

    def digests(self) -> set[str]: ...

    def load(self, cache: PageCache) -> Snapshot: ...


_EVERY = 2000  # pages between two words of progress


class DirectorySource:
    """A directory of catalogue pages (or of pages anywhere below it)."""

    def __init__(self, path: str, problems: Problems, progress: Progress = quiet) -> None:
        self.path = path
        self.problems = problems
        self.progress = progress
        self.raws = read_directory(path, problems)

    def digests(self) -> set[str]:
        return {raw.digest for raw in self.raws}

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

    def __init__(
        self, repo: GitRepo, arg: str, problems: Problems, progress: Progress = quiet
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
        """Whether a file is read (`readable`); a bad page is a problem of this revision."""
        try:
            return readable(found, f"{self.revision.arg}:{found.path}")
        except InputError as error:
            self.problems.skip(error)
            return False

    def digests(self) -> set[str]:
        return {sha for _, sha in self.files}

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
        return build_snapshot(rev.arg, parsed, self.problems, rev.commit, rev.date)


class IndexSource:
    """Spack build-cache indexes: one file, mirrors in a folder, or mirrors over HTTP(S). The
    graph is known once they are read; the pages are built when first loaded."""

    def __init__(self, source: str, read: Read, options: LoadOptions) -> None:
        """What `read_indexes` gave of the source's indexes."""
        self.problems = Problems(options.keep_going)
        self.source, self.tag, self.graph = source, options.index_tag, graph_of(read)
        self.intern = read.intern  # its values, shared with the other side's read
        self.read: Read | None = read  # until the pages are built
        self.snapshot: Snapshot | None = None

    def digests(self) -> set[str]:
        return set()  # built, not read: every page is compared in full

    def load(self, cache: PageCache) -> Snapshot:
        if self.snapshot is None:
            read, self.read = self.read, None
            assert read is not None  # held until the snapshot is built, once
            self.snapshot = self.built(snapshot_of(self.source, read, self.tag, self.graph))
        return self.snapshot

    def built(self, snapshot: Snapshot) -> Snapshot:
        return snapshot


class MirrorRevisionSource(IndexSource):
    """Build-cache mirrors committed to git, at one revision (`mirror.tree`)."""

    def __init__(
        self, repo: GitRepo, revision: Revision, files: dict[str, TreeFile], options: LoadOptions
    ) -> None:
        self.repo, self.revision, self.files = repo, revision, files
        mirrors = tree_mirrors(files)
        indexes = (index_of(TreeMirror(repo, revision, files, p), stack) for stack, p in mirrors)
        super().__init__(revision.arg, read_indexes(indexes, options.progress), options)

    def built(self, snapshot: Snapshot) -> Snapshot:
        """The revision's commit and date on the snapshot."""
        return dataclasses.replace(snapshot, commit=self.revision.commit, date=self.revision.date)

    def at(self, revision: Revision, options: LoadOptions) -> MirrorRevisionSource | None:
        """The same repository's mirrors at another revision; None when no file changed."""
        files = mirror_files(self.repo, revision)
        if files is None:
            fix = "give a range whose every commit holds the mirrors"
            raise InputError(revision.arg, "holds no build-cache mirror", fix)
        if {p: f.sha for p, f in files.items()} == {p: f.sha for p, f in self.files.items()}:
            return None
        return MirrorRevisionSource(self.repo, revision, files, options)


@dataclass(frozen=True)
class LoadOptions:
    """Where and how inputs are read (beyond their names); how much of each page is read follows
    from the filters a diff is loaded for (`load_pair`)."""

    repo: str | None = None  # the git repository revisions are read from
    keep_going: bool = False  # leave bad pages out instead of stopping
    index_tag: str = "develop"  # the cache tag of build-cache index snapshots
    stack_name: str | None = None  # the stack of a single index.json given as a snapshot
    progress: Progress = quiet  # told what is being read, now and then (the CLI, on a terminal)
    stack_urls: tuple[tuple[str, str], ...] = ()  # (stack, mirror address) beside a URL side
    cache_dir: str | None = None  # where tallies of revisions are kept across runs (None: not)
    warn: Progress = quiet  # told of a cache file ignored or a cache that cannot be written
    apart: bool = False  # NEW (a local index or a directory) read in a forked child (the CLI)
    # told both sides' graphs (build-cache indexes) once both are read, before NEW's pages are
    # built: the command starts working out the causes of rebuilds there
    graphs: Callable[[Graph, Graph], None] | None = None


def _lone_index(arg: str, stack: str) -> Iterator[Index]:
    """An index named on the command line, read when it is decoded (its bytes held no longer)."""
    named = os.path.realpath(arg)  # a link named on the command line is followed
    folder = Folder(os.path.dirname(named))
    yield Index(arg, stack, folder.read(os.path.basename(named), MAX_INDEX_BYTES))


def local_indexes(arg: str, options: LoadOptions) -> Iterator[Index] | None:
    """The indexes of a lone `index.json` or of a folder of mirrors, read one at a time (each
    one's bytes dropped once converted); None for any other snapshot."""
    if is_index_file(arg):
        return _lone_index(arg, lone_stack(arg, options.stack_name))
    folders = find_mirrors(arg) if os.path.isdir(arg) else None
    return (index_of(m, stack) for stack, m in folders) if folders else None


def open_source(
    arg: str, options: LoadOptions, repos: dict[str, GitRepo], shared: Interned | None = None
) -> Source:
    """A build-cache index, a directory (of pages or of indexes), else a git revision
    (`shared`: the other side's values, for an index, see `Interned`)."""
    if is_url(arg):
        mirrors = [(options.stack_name or "root", arg), *options.stack_urls]
        from .mirror.web import (
            Web,  # here: 13 ms of imports that a run reading no address never needs
        )

        addresses = (index_of(Web(url, options.progress), stack) for stack, url in mirrors)
        return IndexSource(arg, read_indexes(addresses, options.progress, shared), options)
    indexes = local_indexes(arg, options)
    if indexes is not None:
        return IndexSource(arg, read_indexes(indexes, options.progress, shared), options)
    if os.path.isdir(arg):
        return DirectorySource(arg, Problems(options.keep_going), options.progress)
    if os.path.exists(arg):
        raise InputError(arg, "not a directory", SNAPSHOT_FIX)
    repo = options.repo
    path = repo or "."
    if path not in repos:
        try:
            repos[path] = GitRepo(path, options.progress)
        except InputError as exc:
            fix = "give a directory of catalogue pages, or a revision inside a git repository"
            where = arg if repo is None else f"{arg} (in {repo})"
            raise InputError(where, f"no such directory ({exc.what})", fix) from exc
    source = RevisionSource(repos[path], arg, Problems(options.keep_going), options.progress)
    mirrored = mirror_files(source.repo, source.revision)
    if mirrored is not None:  # a repository of build-cache mirrors, not of catalogue pages
        return MirrorRevisionSource(source.repo, source.revision, mirrored, options)
    return source


@contextmanager
def opened() -> Iterator[dict[str, GitRepo]]:
    """Repositories opened while loading, closed after."""
    repos: dict[str, GitRepo] = {}
    try:
        yield repos
    finally:
        for opened in repos.values():
            opened.close()
