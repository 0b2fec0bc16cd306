"""The dependency graph of one side's build-cache indexes (SPEC section 6): per hash, the node
fields that causes are derived from and the record's edges. No I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import msgspec

__all__ = ["LINK_RUN", "Edge", "EdgeKind", "Graph", "Node", "links"]

# A dependency edge as the record gives it: (name, hash, deptypes, virtuals).
Edge = tuple[str, str, tuple[str, ...], tuple[str, ...]]
# An edge without its hash, one object shared by every edge alike: (name, deptypes, virtuals,
# whether it is a link or run edge). 200k records hold ~2M edges but a few thousand kinds.
EdgeKind = tuple[str, tuple[str, ...], tuple[str, ...], bool]

LINK_RUN = frozenset(("link", "run"))


def links(deptypes: tuple[str, ...]) -> bool:
    """Whether an edge of these deptypes is a link or run edge (else build-only)."""
    return not LINK_RUN.isdisjoint(deptypes)


class Node(msgspec.Struct, frozen=True, gc=False):
    """One record of a side: what a predecessor is paired by and an own change is said of.

    A Struct, not a frozen dataclass (which sets each field through `object.__setattr__`):
    200k of them are built in 0.015 s instead of 0.40 s; no cycles, so not tracked by the
    garbage collector."""

    name: str
    version: str
    platform: str
    os: str
    target: str
    compiler: str  # Spack's spelling, `none` when the record names none
    variants: tuple[str, ...]  # sorted, `patches` included, flags left out
    package_hash: str
    namespace: str  # the package repository (`builtin`), "" when the record names none
    # () when built; an external's (path, module) as recorded ("" for what it lacks)
    external: tuple[str, ...]
    binary: bool  # the cache holds its binary (`in_buildcache`)
    kinds: tuple[EdgeKind, ...]  # its edges sorted by (name, hash), each once: their kinds
    deps: tuple[str, ...]  # and their hashes (two flat tuples: no object per edge)

    @property
    def edges(self) -> tuple[Edge, ...]:
        """The edges as (name, hash, deptypes, virtuals), sorted."""
        return tuple((k[0], d, k[1], k[2]) for k, d in zip(self.kinds, self.deps, strict=True))


@dataclass(frozen=True, slots=True)
class Graph:
    """Every record of a side, all stacks together, by hash."""

    nodes: Mapping[str, Node]
    stacks: Mapping[str, tuple[str, ...]]  # by hash: the indexes holding the record, sorted
    # an environment's roots whose hash names a node of the package their text names: (where
    # and what was written: environment, included environment, group, text; the hash)
    roots: tuple[tuple[str, str], ...] = ()
