"""What changed in each environment (SPEC section 7): roots added, removed and re-concretized,
compilers, new duplicates, downgrades asked for or not, and the Spack that wrote it. No I/O.

Worked out on the whole snapshots (filters narrow the specs a report lists, not an environment's
story), the old side's pages as the diff matched them (one environment a side, or an environment
against a build-cache index: relabelled to the new side's name)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from itertools import chain
from operator import attrgetter
from typing import Literal

from ..model import NO_COMPILER, Environment, Graph, Node, Page, Root, Snapshot, normal_compiler
from ..report import (
    EnvironmentChange,
    EnvironmentDowngrade,
    PackageChange,
    Reconcretized,
    Respelled,
    RootSpec,
    SpackRun,
)

__all__ = ["environment_changes"]

Pages = Mapping[tuple[str, str], Page]
# A root's key: where it was written (an included environment), its group, and its abstract spec
# text; an install database's explicit records have no text, and are keyed by hash.
_Key = tuple[str, str, str]
Status = Literal["added", "removed", "changed", "unchanged"]


_COMPILER = attrgetter("compiler")


def _key(root: Root) -> _Key:
    return root.environment, root.group or "", root.spec or f"/{root.hash}"


def _compiler(node: Node | None) -> str:
    return NO_COMPILER if node is None or not node.compiler else normal_compiler(node.compiler)


class _Side:
    """One side of an environment: its record (None when the side is no environment: an index),
    its pages, its graph and its roots by key (a text written twice: the first)."""

    def __init__(self, environment: Environment | None, pages: list[Page], graph: Graph | None):
        self.environment, self.pages, self.graph = environment, pages, graph
        self.roots: dict[_Key, Root] = {}
        for root in environment.roots if environment else ():
            self.roots.setdefault(_key(root), root)

    def spec(self, key: _Key) -> RootSpec:
        """A root with the values of the node its hash names; none for a root whose hash names
        another package's node (not trusted: its text and hash only)."""
        root = self.roots[key]
        node = self.graph.nodes.get(root.hash) if self.graph and root.trusted else None
        if node is None:
            return RootSpec(root.spec, root.hash, "", "", "", root.group)
        return RootSpec(root.spec, root.hash, node.name, node.version, _compiler(node), root.group)

    def rooted(self) -> set[str]:
        """The packages its trusted roots name."""
        nodes = self.graph.nodes if self.graph else {}
        return {nodes[r.hash].name for r in self.roots.values() if r.trusted and r.hash in nodes}

    def compilers(self) -> set[str]:
        """Every compiler the environment's specs use, by Spack 1.0 name (none left out): the
        distinct values gathered in C, each normalised once."""
        if self.graph is None:
            return set()
        nodes = self.graph.nodes
        digests = chain.from_iterable(page.entries or () for page in self.pages)
        written = set(map(_COMPILER, map(nodes.__getitem__, filter(nodes.__contains__, digests))))
        return {normal_compiler(c) for c in written if c} - {NO_COMPILER}

    def duplicates(self) -> set[str]:
        """Packages with more than one concrete spec."""
        return {page.name for page in self.pages if page.spec_count > 1}

    def spack(self) -> SpackRun | None:
        found = self.environment
        if found is None or found.spack_version is None:
            return None
        return SpackRun(found.spack_version, found.spack_commit or "")


def _downgrades(
    packages: Sequence[PackageChange], removed: Sequence[RootSpec], added: Sequence[RootSpec]
) -> tuple[EnvironmentDowngrade, ...]:
    """Each downgrade of the environment's packages, asked for when a root of that package was
    added or removed (its abstract spec text changed: a root's hash naming another package's
    node is not counted)."""
    asked = {r.name for r in (*removed, *added) if r.name}
    return tuple(
        EnvironmentDowngrade(p.name, p.bump.old, p.bump.new, p.name in asked)
        for p in packages
        if p.bump is not None and p.bump.kind == "downgrade"
    )


def _reconcretized(was: RootSpec, now: RootSpec) -> Reconcretized:
    return Reconcretized(
        now.spec,
        was.hash,
        now.hash,
        now.name or was.name,
        (was.version, now.version),
        (was.compiler, now.compiler),
    )


_Roots = tuple[list[RootSpec], list[RootSpec], list[Reconcretized], list[Respelled]]


def _roots(old: _Side, new: _Side) -> _Roots:
    """Roots added, removed and re-concretized, by their text exactly as written (SPEC section
    7), in the order of their keys (then hashes); and those respelled: a text removed whose hash
    is a root of the same place under a text added (Spack rewrote the text, the spec is the
    same), also counted as removed and added."""
    if old.environment is None or new.environment is None:  # against an index: no roots
        return [], [], [], []
    gone = sorted(old.roots.keys() - new.roots.keys())
    came = sorted(new.roots.keys() - old.roots.keys())
    by_hash: dict[tuple[str, str, str], list[_Key]] = {}
    for key in came:  # each text added pairs with at most one removed (in key order)
        by_hash.setdefault((key[0], key[1], new.roots[key].hash), []).append(key)
    respelled = []
    for key in gone:
        twins = by_hash.get((key[0], key[1], old.roots[key].hash))
        if twins:
            respelled.append(Respelled(key[2], twins.pop(0)[2], old.roots[key].hash))
    kept = sorted(old.roots.keys() & new.roots.keys())
    moved = [
        _reconcretized(old.spec(k), new.spec(k))
        for k in kept
        if old.roots[k].hash != new.roots[k].hash
    ]
    return [new.spec(k) for k in came], [old.spec(k) for k in gone], moved, respelled


def _change(
    name: str, old: _Side, new: _Side, packages: Sequence[PackageChange], status: Status
) -> EnvironmentChange:
    """One environment's change; `packages`: the report's changes of its tag."""
    added, removed, moved, respelled = _roots(old, new)
    kept_specs = {r.hash for r in respelled}  # their text only was rewritten
    was, now = old.environment, new.environment
    found = EnvironmentChange(
        name,
        status,
        old.spack(),
        new.spack(),
        was.lockfile if was else None,
        now.lockfile if now else None,
        tuple(added),
        tuple(removed),
        tuple(moved),
        tuple(sorted(new.compilers() - old.compilers())),
        tuple(sorted(old.compilers() - new.compilers())),
        tuple(sorted(new.duplicates() - old.duplicates())),
        _downgrades(
            packages,
            [r for r in removed if r.hash not in kept_specs],
            [r for r in added if r.hash not in kept_specs],
        ),
        tuple(sorted({w for e in (was, now) if e for w in e.warnings})),
        was.database if was else None,
        now.database if now else None,
        paired=was is not None and now is not None,
        roots_respelled=tuple(respelled),
        rooted=frozenset(old.rooted() | new.rooted()),
    )
    if status == "changed" and not found.moved(bool(packages)):
        return dataclasses.replace(found, status="unchanged")
    return found


def _pages(pages: Pages, tag: str) -> list[Page]:
    return [page for (t, _), page in pages.items() if t == tag]


def environment_changes(
    old: Snapshot, new: Snapshot, old_pages: Pages, packages: Sequence[PackageChange]
) -> tuple[EnvironmentChange, ...]:
    """Every environment of either side, matched by name; when each side holds one, or one side
    is an index, they are one, named as the new side names it (`old_pages`: the old side's
    pages as the diff matched them, relabelled so). `packages`: the report's package changes."""
    olds = {e.name: e for e in old.environments}
    news = {e.name: e for e in new.environments}
    if not olds and not news:
        return ()
    one = len(olds) <= 1 and len(news) <= 1
    names = sorted(news or olds) if one else sorted(olds.keys() | news.keys())
    found = []
    for name in names:
        before = next(iter(olds.values()), None) if one else olds.get(name)
        after = next(iter(news.values()), None) if one else news.get(name)
        status: Status = "changed"
        if not one and (before is None or after is None):
            status = "added" if before is None else "removed"
        # one a side: matched under the tag the diff matched them by (the new side's)
        tag = new.tags[0] if one and len(new.tags) == 1 else name
        old_tag = tag if one else (before.name if before else name)
        sides = (
            _Side(before, _pages(old_pages, old_tag), old.graph),
            _Side(after, _pages(new.pages, tag), new.graph),
        )
        changes = [p for p in packages if p.tag == tag]
        found.append(_change(name, *sides, changes, status))
    return tuple(found)
