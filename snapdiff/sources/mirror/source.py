"""Build-cache indexes as a source (`kinds.py`'s rows): a lone `index.json`, a folder of mirrors,
mirrors over HTTP(S), or mirrors committed to git. The graph is known once they are read; the
pages are built when first loaded."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from ...errors import InputError
from ...model import Graph, Snapshot
from ..git.repo import GitRepo, Revision, TreeFile
from ..protocol import Can, LoadOptions, Source, no_history
from ..snapshot import PageCache, Problems
from .index import Read, graph_of, is_index_file, lone_stack, read_indexes, snapshot_of
from .layouts import MAX_INDEX_BYTES, Folder, Index, find_mirrors, index_of, is_url
from .tree import TreeMirror, mirror_files, tree_mirrors

if TYPE_CHECKING:  # msgspec: only when an index is read
    from .nodes import Interned

__all__ = [
    "IndexSource",
    "MirrorRevisionSource",
    "holds_mirrors",
    "holds_mirrors_in_git",
    "is_address",
    "is_index_file_named",
    "local_indexes",
    "mirrors_in_git",
    "open_address",
    "open_local_index",
]


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
        raise no_history(self.source)

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
        """The revision's commit, date and subject on the snapshot."""
        rev = self.revision
        return dataclasses.replace(
            snapshot, commit=rev.commit, date=rev.date, commit_subject=rev.subject
        )

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


def holds_mirrors(arg: str, options: LoadOptions) -> bool:
    return os.path.isdir(arg) and bool(find_mirrors(arg))


def is_index_file_named(arg: str, options: LoadOptions) -> bool:
    return is_index_file(arg)


def is_address(arg: str, options: LoadOptions) -> bool:
    return is_url(arg)


def open_address(arg: str, options: LoadOptions, shared: Interned | None) -> Source:
    """Mirrors over HTTP(S): the address and each `--stack-url`."""
    from .web import Budget, Web  # here: 13 ms of imports a run reading no address never needs

    mirrors = [(options.stack_name or "root", arg), *options.stack_urls]
    budget = Budget()  # one for the side: every file of every mirror, every try
    addresses = (index_of(Web(url, options.progress, budget), stack) for stack, url in mirrors)
    return IndexSource(arg, read_indexes(addresses, options.progress, shared), options)


def open_local_index(arg: str, options: LoadOptions, shared: Interned | None) -> Source:
    indexes = local_indexes(arg, options)
    return IndexSource(arg, read_indexes(indexes, options.progress, shared), options)


def holds_mirrors_in_git(repo: GitRepo, revision: Revision) -> bool:
    return revision.file is None and mirror_files(repo, revision) is not None


def mirrors_in_git(repo: GitRepo, revision: Revision, options: LoadOptions) -> Source:
    files = mirror_files(repo, revision)
    assert files is not None, "opened only when the revision holds mirrors"
    return MirrorRevisionSource(repo, revision, files, options)
