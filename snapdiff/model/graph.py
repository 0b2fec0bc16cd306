"""The dependency graph of one side's build-cache indexes (SPEC section 6): per hash, the node
fields that causes are derived from and the record's edges. No I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["LINK_RUN", "Edge", "Graph", "Node", "links"]

# A dependency edge as the record gives it: (name, hash, deptypes, virtuals), tuples interned.
Edge = tuple[str, str, tuple[str, ...], tuple[str, ...]]

LINK_RUN = frozenset(("link", "run"))


def links(deptypes: tuple[str, ...]) -> bool:
    """Whether an edge of these deptypes is a link or run edge (else build-only)."""
    return not LINK_RUN.isdisjoint(deptypes)


@dataclass(frozen=True, slots=True)
class Node:
    """One record of a side: what a predecessor is paired by and an own change is said of."""

    name: str
    version: str
    platform: str
    os: str
    target: str
    compiler: str  # Spack's spelling, `none` when the record names none
    variants: tuple[str, ...]  # sorted, `patches` included, flags left out
    package_hash: str
    external: bool
    binary: bool  # the cache holds its binary (`in_buildcache`)
    edges: tuple[Edge, ...]  # sorted, each (name, hash) once


@dataclass(frozen=True, slots=True)
class Graph:
    """Every record of a side, all stacks together, by hash."""

    nodes: Mapping[str, Node]
    stacks: Mapping[str, tuple[str, ...]]  # by hash: the indexes holding the record, sorted
