"""A change of Spack's hash scheme between two sides (SPEC section 6): told by the formats'
versions the sides record, or by records equal in every field rehashed. No I/O."""

from __future__ import annotations

from operator import attrgetter
from typing import Any, cast

from ..model import Snapshot
from ..report import Scheme

__all__ = ["rebuild_scheme"]


def _formats(snapshot: Snapshot) -> dict[str, set[str]]:
    """The formats and Spack versions a side's environments record, by kind."""
    found: dict[str, set[str]] = {}
    for environment in snapshot.environments:
        for kind, value in (
            ("Spack", environment.spack_version),
            ("lockfile", environment.lockfile and f"v{environment.lockfile}"),
            ("database", environment.database and f"v{environment.database}"),
        ):
            if value:
                found.setdefault(kind, set()).add(str(value))
    return found


def _scheme(was: dict[str, set[str]], now: dict[str, set[str]], evidence: str, kept: int) -> Scheme:
    versions = tuple(
        (kind, ", ".join(sorted(was.get(kind, ()))), ", ".join(sorted(now.get(kind, ()))))
        for kind in ("Spack", "lockfile", "database")
        if kind in was or kind in now
    )
    return Scheme(cast(Any, evidence), kept, versions)


_LEAF = attrgetter(
    "name", "version", "platform", "os", "target", "compiler", "variants", "package_hash",
    "namespace", "external",
)  # fmt: skip


def rebuild_scheme(old: Snapshot, new: Snapshot) -> Scheme | None:
    """A change of Spack's hash scheme (SPEC section 6): known when the two sides' lockfile or
    database versions differ, or when no hash is kept and records with no dependencies, equal
    in every field, have another hash on each side."""
    if old.graph is None or new.graph is None:
        return None
    was, now = _formats(old), _formats(new)
    kept = len(old.graph.nodes.keys() & new.graph.nodes.keys())
    differ = any(was.get(k) != now.get(k) for k in ("lockfile", "database") if k in was or k in now)
    if differ:
        return _scheme(was, now, "formats", kept)
    if kept:
        return None
    leaves = [
        {_LEAF(n) for n in graph.nodes.values() if not n.deps} for graph in (old.graph, new.graph)
    ]
    if leaves[0].isdisjoint(leaves[1]):
        return None
    return _scheme(was, now, "rehashed", kept)
