"""Spack build-cache mirrors committed to git: a revision's tree read as a folder of mirrors is
(`layouts.find_mirrors`), from git's object store, nothing checked out."""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import InputError
from ..git.repo import GitRepo, Revision, TreeFile
from .layouts import FIX

__all__ = ["TreeMirror", "mirror_files", "tree_mirrors"]

_LAYOUT_2 = "build_cache/index.json"
_LAYOUT_3 = "v3/layout.json"
_NOT_REGULAR_FIX = "snapdiff reads only regular files inside a mirror: commit the file itself"


class TreeMirror:
    """One mirror (`prefix`, a folder of the tree, or "" for its top) at a git revision."""

    def __init__(
        self, repo: GitRepo, revision: Revision, files: Mapping[str, TreeFile], prefix: str
    ) -> None:
        self.repo = repo
        self.revision = revision
        self.files = files
        self.prefix = prefix

    def name(self, rel: str) -> str:
        return f"{self.revision.arg}:{self.prefix}{rel}"

    def exists(self, rel: str) -> bool:
        return f"{self.prefix}{rel}" in self.files

    def read(self, rel: str, limit: int) -> bytes:
        """A file of the mirror: a regular file of the tree only, never past the limit."""
        where = self.name(rel)
        found = self.files.get(f"{self.prefix}{rel}")
        if found is None:
            raise InputError(where, "no such file in this revision", FIX)
        if found.link:
            raise InputError(where, "a symbolic link, not a file", _NOT_REGULAR_FIX)
        for _, data in self.repo.read_blobs([found.sha], where, limit):
            if isinstance(data, int):
                raise InputError(where, f"larger than {limit // 2**20} MiB", FIX)
            return data
        raise InputError(where, "no such file in this revision", FIX)  # git answered nothing


def tree_mirrors(files: Mapping[str, TreeFile]) -> list[tuple[str, str]]:
    """(stack, prefix) of every mirror in a tree's files, sorted as `find_mirrors` sorts: the
    tree's own is `root`, the others are named by their folder; hidden folders and `_cache`
    (a catalogue's pages) are passed over, and nothing inside a layout 3 mirror is another."""
    prefixes = set()
    for path in files:
        for marker in (_LAYOUT_2, _LAYOUT_3):
            if path == marker or path.endswith(f"/{marker}"):
                prefixes.add(path[: -len(marker)])
    inside_v3 = {p for p in prefixes if f"{p}{_LAYOUT_3}" in files}
    found = []
    for prefix in prefixes:
        folders = prefix.rstrip("/").split("/") if prefix else []
        if any(f.startswith(".") or f == "_cache" for f in folders):
            continue
        if any(prefix != outer and prefix.startswith(outer) for outer in inside_v3):
            continue
        found.append((folders[-1] if folders else "root", prefix))
    return sorted(found)


def mirror_files(repo: GitRepo, revision: Revision) -> dict[str, TreeFile] | None:
    """The files of a revision's tree when it holds build-cache mirrors and is no catalogue
    (whose pages are under `_cache/`): else None. A catalogue is known by its `_cache` folder
    alone, so reading one costs one question to a git process already running."""
    if repo.holds(revision.tree, "_cache"):
        return None
    files = {found.path: found for found in repo.list_files(revision.tree)}
    return files if tree_mirrors(files) else None
