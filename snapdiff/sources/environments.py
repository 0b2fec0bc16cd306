"""Spack environments as snapshots (SPEC section 7): a `spack.lock`, a folder holding one, an
install database (`.spack-db/index.json`), and every lockfile of a git revision (or the one
`REV:path/spack.lock` names), each environment named by its folder and its specs the pages of a
tag of that name, all in stack `root`.

The records are read as a build-cache index's are (`mirror.environment` turns a lockfile or a
database into them), so matching, explaining and the causes of rebuilds work on them unchanged.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from ..errors import InputError
from ..model import Environment, Graph, Node, Page, Snapshot
from .git.repo import GitRepo, Revision, TreeFile
from .mirror.layouts import MAX_INDEX_BYTES, Folder
from .protocol import Can, LoadOptions, Source, no_history
from .snapshot import PageCache, Problems

if TYPE_CHECKING:  # msgspec: only when an environment is read
    from .mirror.environment import Decoded
    from .mirror.nodes import Interned

__all__ = [
    "EnvironmentSource",
    "environments_in_git",
    "holds_environment",
    "holds_environments_in_git",
    "is_database_file",
    "is_lockfile_file",
    "open_database",
    "open_environment",
    "open_lockfile",
]

LOCKFILE = "spack.lock"
_DATABASE = ".spack-db/index.json"
# Where an install database lies in a folder: the folder is a Spack install tree, or Spack's own
# prefix (`opt/spack`).
_DATABASES = (_DATABASE, f"opt/spack/{_DATABASE}")
_SNIFF = 512  # bytes read to tell a lockfile not named spack.lock


def is_lockfile_file(arg: str, options: LoadOptions) -> bool:
    """A file named `spack.lock`, or any `*.lock` file whose first bytes say it is a lockfile."""
    if not os.path.isfile(arg):
        return False
    if os.path.basename(arg) == LOCKFILE:
        return True
    if not arg.endswith(".lock"):
        return False
    from .mirror.environment import is_lockfile

    try:
        with open(arg, "rb") as handle:
            return is_lockfile(handle.read(_SNIFF))
    except OSError:
        return True  # opening it says why it cannot be read


def is_database_file(arg: str, options: LoadOptions) -> bool:
    """An install database: `index.json` in a `.spack-db` folder."""
    path = os.path.normpath(arg)
    folder, name = os.path.split(path)
    return name == "index.json" and os.path.basename(folder) == ".spack-db" and os.path.isfile(path)


def holds_environment(arg: str, options: LoadOptions) -> bool:
    """A folder holding a `spack.lock` (an environment) or an install database."""
    places = (LOCKFILE, *_DATABASES)
    return os.path.isdir(arg) and any(os.path.isfile(os.path.join(arg, p)) for p in places)


def _name_of(arg: str) -> str:
    """An environment named on the command line: its folder (`.` for the current one), or the
    file itself when it is not called `spack.lock` (`spack.lock` of the folder `envs/gcc`:
    `envs/gcc`; `casper-23.10.lock`: itself)."""
    path = os.path.normpath(arg)
    if os.path.basename(path) == LOCKFILE:
        return os.path.dirname(path) or "."
    return path


def _decoded(data: bytes, where: str, database: bool) -> Decoded:
    from .mirror.database import decode_database
    from .mirror.environment import decode_lockfile

    return decode_database(data, where) if database else decode_lockfile(data, where)


def _opened(
    arg: str, path: str, name: str, database: bool, options: LoadOptions, shared: Interned | None
) -> EnvironmentSource:
    """One environment from one file (`path`) of an argument, named `name`."""
    folder = Folder(os.path.dirname(path) or ".")
    data = folder.read(os.path.basename(path), MAX_INDEX_BYTES)
    return EnvironmentSource(arg, [(name, path, _decoded(data, path, database))], options, shared)


def open_lockfile(arg: str, options: LoadOptions, shared: Interned | None) -> Source:
    """A `spack.lock` (or another lockfile) named on the command line."""
    return _opened(arg, arg, _name_of(arg), False, options, shared)


def open_database(arg: str, options: LoadOptions, shared: Interned | None) -> Source:
    """An install database named on the command line, named by the folder holding `.spack-db`."""
    prefix = os.path.dirname(os.path.dirname(os.path.normpath(arg))) or "."
    return _opened(arg, arg, prefix, True, options, shared)


def open_environment(arg: str, options: LoadOptions, shared: Interned | None) -> Source:
    """A folder holding a `spack.lock`, else an install database (`holds_environment`)."""
    found = [os.path.join(arg, p) for p in (LOCKFILE, *_DATABASES)]
    path = next(p for p in found if os.path.isfile(p))
    return _opened(arg, path, _name_of(arg), path != found[0], options, shared)


def _lockfiles(repo: GitRepo, revision: Revision) -> list[TreeFile]:
    """The lockfiles of a revision: every `spack.lock` of its tree, or the file it names."""
    if revision.file is not None:
        if not revision.file.endswith(".lock"):  # `REV:path/casper.lock` too; not a lockfile:
            return []  # refused in one line as it is read
        return [f for f in repo.list_files(revision.tree) if f.path == revision.file]
    files = repo.list_files(revision.tree)
    return sorted((f for f in files if posixpath.basename(f.path) == LOCKFILE), key=str)


def holds_environments_in_git(repo: GitRepo, revision: Revision) -> bool:
    """A revision of a repository holding lockfiles (and no catalogue: no `_cache` folder), or
    `REV:path/spack.lock`."""
    if revision.file is None and repo.holds(revision.tree, "_cache"):
        return False
    return bool(_lockfiles(repo, revision))


def environments_in_git(repo: GitRepo, revision: Revision, options: LoadOptions) -> Source:
    """Every `spack.lock` of a revision, each named by its folder (`.` at the top)."""
    return _from_git(repo, revision, _lockfiles(repo, revision), options)


def _from_git(
    repo: GitRepo, revision: Revision, files: list[TreeFile], options: LoadOptions
) -> EnvironmentSource:
    for found in files:
        if found.link:
            what = f"{found.path} is a link"
            raise InputError(f"{revision.arg}:{found.path}", what, "commit the lockfile itself")
    where = {f.sha: f"{revision.arg}:{f.path}" for f in files}
    blobs = dict(repo.read_blobs([f.sha for f in files], where.__getitem__, MAX_INDEX_BYTES))
    decoded = []
    for found in files:
        data, place = blobs[found.sha], f"{revision.arg}:{found.path}"
        if isinstance(data, int):
            raise InputError(place, f"larger than {MAX_INDEX_BYTES // 2**20} MiB", "")
        name = posixpath.dirname(found.path) or "."
        if revision.file is not None:  # `REV:envs/gcc/spack.lock`: named by its path
            name = posixpath.dirname(revision.arg.partition(":")[2]) or "."
        decoded.append((name, place, _decoded(data, place, database=False)))
    source = EnvironmentSource(revision.arg, decoded, options, None)
    source.git, source.files = (repo, revision), {f.path: f.sha for f in files}
    return source


class EnvironmentSource:
    """Environments of one side: the snapshot of each is built as a build-cache index's is, its
    tag its name, its specs in stack `root`; their graphs are one."""

    can: ClassVar[Can] = Can(shares_values=True, steps=True)

    def __init__(
        self,
        source: str,
        decoded: list[tuple[str, str, Decoded]],
        options: LoadOptions,
        shared: Interned | None,
    ) -> None:
        from .mirror.nodes import Interned

        self.source, self.options = source, options
        self.problems = Problems(options.keep_going)
        self.intern: Interned | None = Interned(shared)
        self.git: tuple[GitRepo, Revision] | None = None
        self.files: dict[str, str] = {}  # path: blob id, for a revision
        self.snapshot = self._built(decoded)
        self.graph: Graph | None = self.snapshot.graph

    def _built(self, decoded: list[tuple[str, str, Decoded]]) -> Snapshot:
        from .mirror.index import Read, graph_of, snapshot_of

        assert self.intern is not None
        pages: dict[tuple[str, str], Page] = {}
        nodes: dict[str, Node] = {}
        stacks: dict[str, tuple[str, ...]] = {}
        warnings: list[str] = []
        environments: list[Environment] = []
        given: dict[str, str] = {}  # each hash: the lockfile that first gave it
        for name, where, found in sorted(decoded, key=lambda item: item[0]):
            read = Read(self.intern)
            read.add(found.installs, where, "root")
            graph = graph_of(read)
            _one_name_a_hash(graph.nodes, nodes, given, where)
            if found.installs:
                side = snapshot_of(self.source, read, name, graph)
                pages.update(side.pages)
                warnings.extend(side.warnings)
            nodes.update(graph.nodes)
            stacks.update(graph.stacks)
            warnings.extend(f"{where}: {said}" for said in found.warnings)
            environments.append(_environment(name, found))
        roots = tuple(
            ("\0".join((env.name, root.environment, root.group or "", root.spec)), root.hash)
            for env in environments
            for root in env.roots
            if root.trusted and root.spec
        )
        return Snapshot(
            self.source,
            pages,
            warnings=tuple(warnings),
            graph=Graph(nodes, stacks, roots),
            environments=tuple(environments),
        )

    def digests(self) -> set[str]:
        return set()  # built, not read: every page is compared in full

    def load(self, cache: PageCache) -> Snapshot:
        if self.git is None:
            return self.snapshot
        revision = self.git[1]
        return _with_commit(self.snapshot, revision)

    def at(self, revision: Revision, options: LoadOptions) -> Source | None:
        """The lockfiles of another revision; None when none of them changed."""
        if self.git is None:
            raise no_history(self.source)
        repo = self.git[0]
        files = _lockfiles(repo, revision)
        if not files:
            fix = "give a range whose every commit holds the environments"
            raise InputError(revision.arg, "holds no spack.lock", fix)
        if {f.path: f.sha for f in files} == self.files:
            return None
        return _from_git(repo, revision, files, options)


def _one_name_a_hash(
    read: Mapping[str, Node], merged: Mapping[str, Node], given: dict[str, str], where: str
) -> None:
    """Every hash of one lockfile's graph is of the package the environments before gave it:
    a DAG hash covers the name, so a hash of two packages means one lockfile is wrong, and
    neither record can be chosen (an InputError naming both)."""
    for digest, node in read.items():
        first = merged.get(digest)
        if first is None:
            given[digest] = where
        elif first.name != node.name:
            there = given[digest]
            what = f"hash {digest} is a spec of {node.name} here and of {first.name} in {there}"
            fix = "a hash is one spec: concretize the wrong environment again, spack concretize -f"
            raise InputError(where, what, fix)


def _environment(name: str, found: Decoded) -> Environment:
    return Environment(
        name,
        found.roots,
        found.lockfile_version,
        found.database_version,
        found.spack_version,
        found.spack_commit,
        found.warnings,
    )


def _with_commit(snapshot: Snapshot, revision: Revision) -> Snapshot:
    import dataclasses

    return dataclasses.replace(
        snapshot, commit=revision.commit, date=revision.date, commit_subject=revision.subject
    )
