"""What changed in each environment (SPEC section 7): roots added, removed and re-concretized,
compilers, new duplicates, downgrades asked for or not, and the Spack that wrote it. No I/O."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from ..model import NO_COMPILER, Environment, Graph, Node, Page, Root, Snapshot, normal_compiler
from ..report import (
    EnvironmentChange,
    EnvironmentDowngrade,
    PackageChange,
    Reconcretized,
    RootSpec,
    SpackRun,
)

__all__ = ["environment_changes"]

_Pages = Mapping[tuple[str, str], Page]
# A root's key: where it was written (an included environment), its group, and its abstract spec
# text; an install database's explicit records have no text, and are keyed by hash.
_Key = tuple[str, str | None, str]


def _key(root: Root) -> _Key:
    return root.environment, root.group, root.spec or f"/{root.hash}"


def _node(graph: Graph | None, digest: str) -> Node | None:
    return None if graph is None else graph.nodes.get(digest)


def _compiler(node: Node | None) -> str:
    return NO_COMPILER if node is None or not node.compiler else normal_compiler(node.compiler)


def _root_spec(root: Root, graph: Graph | None) -> RootSpec:
    """A root with the values of the node its hash names ("" where no record says them)."""
    node = _node(graph, root.hash)
    name, version = (node.name, node.version) if node else ("", "")
    return RootSpec(root.spec, root.hash, name, version, _compiler(node), root.group)


def _by_key(roots: Iterable[Root]) -> dict[_Key, Root]:
    """Roots by key, the first of a text written twice kept."""
    found: dict[_Key, Root] = {}
    for root in roots:
        found.setdefault(_key(root), root)
    return found


def _compilers(pages: Iterable[Page], graph: Graph | None) -> set[str]:
    """Every compiler the environment's specs use, as Spack 1.0 names it (none left out)."""
    if graph is None:
        return set()
    found = set()
    for page in pages:
        if page.entries is None:
            continue
        for digest in page.entries:
            compiler = _compiler(graph.nodes.get(digest))
            if compiler != NO_COMPILER:
                found.add(compiler)
    return found


def _duplicates(pages: Iterable[Page]) -> set[str]:
    """Packages with more than one concrete spec."""
    return {page.name for page in pages if page.spec_count > 1}


def _spack(environment: Environment | None) -> SpackRun | None:
    if environment is None or environment.spack_version is None:
        return None
    return SpackRun(environment.spack_version, environment.spack_commit or "")


def _downgrades(
    packages: Sequence[PackageChange], removed: Sequence[RootSpec], added: Sequence[RootSpec]
) -> tuple[EnvironmentDowngrade, ...]:
    """Each downgrade of the environment's packages, asked for when a root of that package
    changed its abstract spec text (one removed and one added)."""
    asked = {r.name for r in removed} & {r.name for r in added}
    return tuple(
        EnvironmentDowngrade(p.name, p.bump.old, p.bump.new, p.name in asked)
        for p in packages
        if p.bump is not None and p.bump.kind == "downgrade"
    )


class _Side:
    """One side of an environment: its record, pages and graph, its roots by key."""

    def __init__(self, snapshot: Snapshot, environment: Environment | None, tag: str) -> None:
        self.environment = environment
        self.graph = snapshot.graph
        self.pages = [page for (t, _), page in snapshot.pages.items() if t == tag]
        self.roots = _by_key(environment.roots if environment else ())

    def spec(self, key: _Key) -> RootSpec:
        return _root_spec(self.roots[key], self.graph)

    def compilers(self) -> set[str]:
        return _compilers(self.pages, self.graph)

    def duplicates(self) -> set[str]:
        return _duplicates(self.pages)

    def said(self) -> tuple[SpackRun | None, int | None, tuple[str, ...]]:
        """The Spack that wrote it, its lockfile version, its warnings."""
        found = self.environment
        return _spack(found), found.lockfile if found else None, found.warnings if found else ()


def _change(
    name: str, old: _Side, new: _Side, packages: Sequence[PackageChange]
) -> EnvironmentChange:
    """One environment's change; `packages`: the report's changes of its tag."""
    kept = old.roots.keys() & new.roots.keys()
    added = sorted(map(new.spec, new.roots.keys() - old.roots.keys()), key=_root_order)
    removed = sorted(map(old.spec, old.roots.keys() - new.roots.keys()), key=_root_order)
    moved = [_reconcretized(old.spec(k), new.spec(k)) for k in kept if old.spec(k) != new.spec(k)]
    (spack_old, lockfile_old, warned_old), (spack_new, lockfile_new, warned_new) = (
        old.said(),
        new.said(),
    )
    change = EnvironmentChange(
        name,
        "changed",
        spack_old,
        spack_new,
        lockfile_old,
        lockfile_new,
        tuple(added),
        tuple(removed),
        tuple(sorted(moved, key=lambda r: (r.spec, r.new))),
        tuple(sorted(new.compilers() - old.compilers())),
        tuple(sorted(old.compilers() - new.compilers())),
        tuple(sorted(new.duplicates() - old.duplicates())),
        _downgrades(packages, removed, added),
        tuple(sorted({*warned_old, *warned_new})),
    )
    return dataclasses.replace(change, status=_status(change, old, new, packages))


def _status(
    change: EnvironmentChange, old: _Side, new: _Side, packages: Sequence[PackageChange]
) -> Literal["added", "removed", "changed", "unchanged"]:
    if old.environment is None:
        return "added"
    if new.environment is None:
        return "removed"
    moved = packages or change.roots_added or change.roots_removed or change.roots_reconcretized
    if moved or change.spack_moved or change.lockfile_old != change.lockfile_new:
        return "changed"
    return "unchanged"


def _warnings(environment: Environment | None) -> tuple[str, ...]:
    return environment.warnings if environment else ()


def _root_order(root: RootSpec) -> tuple[str, str, str]:
    return root.compiler, root.spec, root.hash


def _reconcretized(was: RootSpec, now: RootSpec) -> Reconcretized:
    return Reconcretized(
        now.spec,
        was.hash,
        now.hash,
        now.name or was.name,
        (was.version, now.version),
        (was.compiler, now.compiler),
    )


def environment_changes(
    old: Snapshot, new: Snapshot, packages: Sequence[PackageChange]
) -> tuple[EnvironmentChange, ...]:
    """Every environment of either side, matched by name; when each side holds one, they are
    one, named as the new side names it (its tag, which the old side's pages were relabelled
    to). `packages`: the report's package changes."""
    olds = {e.name: e for e in old.environments}
    news = {e.name: e for e in new.environments}
    if not olds and not news:
        return ()
    single = len(olds) == 1 and len(news) == 1
    names = sorted(news) if single else sorted(olds.keys() | news.keys())
    found = []
    for name in names:
        before = next(iter(olds.values())) if single else olds.get(name)
        old_tag = before.name if before else name
        changes = [p for p in packages if p.tag == name]
        sides = _Side(old, before, old_tag), _Side(new, news.get(name), name)
        found.append(_change(name, *sides, changes))
    return tuple(found)
