"""The one table of input kinds (`KINDS`, `IN_GIT`): how each is recognised and opened, chosen in
one function (`open_source`). Each kind's source lives with its reader (`pagesource.py`,
`mirror/source.py`, `environments.py`): adding a kind is one row and one class."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from .directory import SNAPSHOT_FIX
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
from .git.repo import GitRepo, Revision
from .mirror.source import (
    MirrorRevisionSource,
    holds_mirrors,
    holds_mirrors_in_git,
    is_address,
    is_index_file_named,
    mirrors_in_git,
    open_address,
    open_local_index,
)
from .pagesource import RevisionSource, holds_pages, is_directory, open_directory, pages_in_git
from .protocol import Can, LoadOptions, Source

if TYPE_CHECKING:  # msgspec: only when an index is read
    from .mirror.nodes import Interned

__all__ = [
    "IN_GIT",
    "KINDS",
    "HeldKind",
    "Kind",
    "LoadOptions",
    "Source",
    "held_kind",
    "is_revision",
    "kind_of",
    "open_source",
    "opened",
]


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
    Kind("mirror address", is_address, open_address),
    Kind("environment lockfile", is_lockfile_file, open_lockfile),
    Kind("install database", is_database_file, open_database),
    Kind("build-cache index", is_index_file_named, open_local_index, apart=True),
    Kind("environment folder", holds_environment, open_environment),
    Kind("folder of mirrors", holds_mirrors, open_local_index, apart=True),
    Kind("directory of pages", is_directory, open_directory),
)
IN_GIT = (
    HeldKind("mirrors in git", holds_mirrors_in_git, mirrors_in_git, MirrorRevisionSource.can),
    HeldKind(
        "environments in git",
        holds_environments_in_git,
        environments_in_git,
        EnvironmentSource.can,
    ),
    HeldKind("pages in git", holds_pages, pages_in_git, RevisionSource.can),
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
