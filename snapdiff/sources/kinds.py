"""The one table of input kinds (`KINDS`, `IN_GIT`): how each is recognised and opened, chosen in
one function (`open_source`); and the sources of pages and build-cache indexes. Adding a kind is
one row and one class (`environments.py` is one)."""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ..errors import InputError
from ..model import Graph, Snapshot
from .directory import SNAPSHOT_FIX, read_directory
from .environments import (
    EnvironmentSource,
    environments_in_git,
    holds_environment,
    holds_environments_in_git,
    is_database_file,
    is_lockfile_file,
    open_database,
    open_environment,
    open_lockfile,
)
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
from .protocol import Can, LoadOptions, Source
from .snapshot import PageBytes, PageCache, Problems, build_snapshot

if TYPE_CHECKING:  # msgspec: only when an index is read
    from .mirror.nodes import Interned

__all__ = [
    "IN_GIT",
    "KINDS",
    "LoadOptions",
    "MirrorRevisionSource",
    "RevisionSource",
    "Source",
    "held_kind",
    "is_revision",
    "kind_of",
    "open_source",
    "opened",
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
        raise InputError(self.path, "a history needs git revisions", "run snapdiff log A..B")

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
        return build_snapshot(rev.arg, parsed, self.problems, rev.commit, rev.date)


class IndexSource:
    """Spack build-cache indexes: one file, mirrors in a folder, or mirrors over HTTP(S). The
    graph is known once they are read; the pages are built when first loaded."""

    can: ClassVar[Can] = Can(shares_values=True)
    git: tuple[GitRepo, Revision] | None = None

    def __init__(self, source: str, read: Read, options: LoadOptions) -> None:
        """What `read_indexes` gave of the source's indexes."""
        self.problems = Problems(options.keep_going)
        self.source, self.tag = source, options.index_tag
        self.graph: Graph | None = graph_of(read)
        self.intern: Interned | None = read.intern  # shared with the other side's read
        self.read: Read | None = read  # until the pages are built
        self.snapshot: Snapshot | None = None

    def digests(self) -> set[str]:
        return set()  # built, not read: every page is compared in full

    def at(self, revision: Revision, options: LoadOptions) -> Source | None:
        raise InputError(self.source, "a history needs git revisions", "run snapdiff log A..B")

    def load(self, cache: PageCache) -> Snapshot:
        if self.snapshot is None:
            read, self.read, graph = self.read, None, self.graph
            assert read is not None and graph is not None  # held until the snapshot is built
            self.snapshot = self.built(snapshot_of(self.source, read, self.tag, graph))
        return self.snapshot

    def built(self, snapshot: Snapshot) -> Snapshot:
        return snapshot


class MirrorRevisionSource(IndexSource):
    """Build-cache mirrors committed to git, at one revision (`mirror.tree`)."""

    can: ClassVar[Can] = Can(shares_values=True, steps=True)

    def __init__(
        self, repo: GitRepo, revision: Revision, files: dict[str, TreeFile], options: LoadOptions
    ) -> None:
        self.repo, self.revision, self.files = repo, revision, files
        mirrors = tree_mirrors(files)
        indexes = (index_of(TreeMirror(repo, revision, files, p), stack) for stack, p in mirrors)
        super().__init__(revision.arg, read_indexes(indexes, options.progress), options)
        self.git = repo, revision

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


def _lone_index(arg: str, stack: str) -> Iterator[Index]:
    """An index named on the command line, read when it is decoded (its bytes held no longer)."""
    named = os.path.realpath(arg)  # a link named on the command line is followed
    folder = Folder(os.path.dirname(named))
    yield Index(arg, stack, folder.read(os.path.basename(named), MAX_INDEX_BYTES))


def local_indexes(arg: str, options: LoadOptions) -> Iterator[Index]:
    """The indexes of a lone `index.json` or of a folder of mirrors (`_holds_mirrors`), read one
    at a time (each one's bytes dropped once converted)."""
    if is_index_file(arg):
        return _lone_index(arg, lone_stack(arg, options.stack_name))
    return (index_of(m, stack) for stack, m in find_mirrors(arg))


def _holds_mirrors(arg: str, options: LoadOptions) -> bool:
    return os.path.isdir(arg) and bool(find_mirrors(arg))


def _lone_index_file(arg: str, options: LoadOptions) -> bool:
    return is_index_file(arg)


def _address(arg: str, options: LoadOptions) -> bool:
    return is_url(arg)


def _directory(arg: str, options: LoadOptions) -> bool:
    return os.path.isdir(arg)


def _open_address(arg: str, options: LoadOptions, shared: Interned | None) -> Source:
    """Mirrors over HTTP(S): the address and each `--stack-url`."""
    from .mirror.web import Web  # here: 13 ms of imports that a run reading no address never needs

    mirrors = [(options.stack_name or "root", arg), *options.stack_urls]
    addresses = (index_of(Web(url, options.progress), stack) for stack, url in mirrors)
    return IndexSource(arg, read_indexes(addresses, options.progress, shared), options)


def _open_local_index(arg: str, options: LoadOptions, shared: Interned | None) -> Source:
    indexes = local_indexes(arg, options)
    return IndexSource(arg, read_indexes(indexes, options.progress, shared), options)


def _open_directory(arg: str, options: LoadOptions, shared: Interned | None) -> Source:
    return DirectorySource(arg, Problems(options.keep_going), options.progress)


def _holds_mirrors_in_git(repo: GitRepo, revision: Revision) -> bool:
    return revision.file is None and mirror_files(repo, revision) is not None


def _mirrors_in_git(repo: GitRepo, revision: Revision, options: LoadOptions) -> Source:
    files = mirror_files(repo, revision)
    assert files is not None, "opened only when the revision holds mirrors"
    return MirrorRevisionSource(repo, revision, files, options)


def _pages_revision(repo: GitRepo, revision: Revision) -> bool:
    return revision.file is None


def _pages_in_git(repo: GitRepo, revision: Revision, options: LoadOptions) -> Source:
    return RevisionSource(repo, revision, Problems(options.keep_going), options.progress)


@dataclass(frozen=True)
class Kind:
    """One kind of input named on the command line: how it is recognised (from the argument
    alone) and opened (`shared`: the other side's values, for kinds that share them), and
    whether it is read in a forked child beside the other side (`apart`, with `jobs` of 2);
    what else it can do is its source's `can`."""

    name: str
    recognises: Callable[[str, LoadOptions], bool]
    opens: Callable[[str, LoadOptions, Interned | None], Source]
    apart: bool = False


@dataclass(frozen=True)
class HeldKind:
    """One kind of content a git revision holds: whether a revision's tree holds it (cheaply,
    before anything is read), how it is opened, and what it can do (its source's `can`)."""

    name: str
    holds: Callable[[GitRepo, Revision], bool]
    opens: Callable[[GitRepo, Revision, LoadOptions], Source]
    can: Can


# Every kind of input, in the order they are tried: the first that recognises an argument opens
# it; an argument no row recognises (and no file or folder) is a git revision, opened by the
# first row of `IN_GIT` whose content its tree holds. A new kind is one row and one class.
KINDS = (
    Kind("mirror address", _address, _open_address),
    Kind("environment lockfile", is_lockfile_file, open_lockfile),
    Kind("install database", is_database_file, open_database),
    Kind("build-cache index", _lone_index_file, _open_local_index, apart=True),
    Kind("environment folder", holds_environment, open_environment),
    Kind("folder of mirrors", _holds_mirrors, _open_local_index, apart=True),
    Kind("directory of pages", _directory, _open_directory),
)
IN_GIT = (
    HeldKind("mirrors in git", _holds_mirrors_in_git, _mirrors_in_git, MirrorRevisionSource.can),
    HeldKind(
        "environments in git",
        holds_environments_in_git,
        environments_in_git,
        EnvironmentSource.can,
    ),
    HeldKind("pages in git", _pages_revision, _pages_in_git, RevisionSource.can),
)


def kind_of(arg: str, options: LoadOptions) -> Kind | None:
    """The kind of input an argument names; None for a git revision (or nothing at all)."""
    return next((kind for kind in KINDS if kind.recognises(arg, options)), None)


def is_revision(arg: str, options: LoadOptions) -> bool:
    """Whether an argument is read as a git revision: no kind of `KINDS` and no file."""
    return kind_of(arg, options) is None and not os.path.exists(arg)


def open_source(
    arg: str, options: LoadOptions, repos: dict[str, GitRepo], shared: Interned | None = None
) -> Source:
    """The input an argument names (`KINDS`), else a git revision (`IN_GIT`); `shared`: the
    other side's values, for a kind that shares them (see `Interned`)."""
    if not is_revision(arg, options):
        kind = kind_of(arg, options)
        if kind is None:
            raise InputError(arg, "not a directory", SNAPSHOT_FIX)
        return kind.opens(arg, options, shared)
    repo, revision = _revision(arg, options, repos)
    return held_kind(repo, revision).opens(repo, revision, options)


def held_kind(repo: GitRepo, revision: Revision) -> HeldKind:
    """The kind of content a revision holds (`IN_GIT`: pages, the last row, are any folder's)."""
    for held in IN_GIT:
        if held.holds(repo, revision):
            return held
    fix = "name a folder (REV:_cache), or a spack.lock (REV:envs/gcc/spack.lock)"
    raise InputError(revision.arg, "names a file, not a folder", fix)


def _revision(
    arg: str, options: LoadOptions, repos: dict[str, GitRepo]
) -> tuple[GitRepo, Revision]:
    """The repository a revision is read from (opened once per run), and the revision."""
    path = options.repo or "."
    if path not in repos:
        try:
            repos[path] = GitRepo(path, options.progress)
        except InputError as exc:
            fix = "give a directory of catalogue pages, or a revision inside a git repository"
            where = arg if options.repo is None else f"{arg} (in {options.repo})"
            raise InputError(where, f"no such directory ({exc.what})", fix) from exc
    return repos[path], repos[path].resolve(arg, files=True)


@contextmanager
def opened() -> Iterator[dict[str, GitRepo]]:
    """Repositories opened while loading, closed after."""
    repos: dict[str, GitRepo] = {}
    try:
        yield repos
    finally:
        for opened in repos.values():
            opened.close()
