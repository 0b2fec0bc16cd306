"""Why specs were rebuilt (SPEC section 6): triggers, their cascades through new edges, the
hash-scheme and unexplained rest, and binaries the new cache lacks. No I/O."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from operator import attrgetter

from ..model import Graph, Node
from ..report import Cascade, MissingDependency, Rebuilds, Trigger
from .predecessors import OwnChanges, own_changes, pair_predecessors

__all__ = ["narrow_rebuilds", "rebuild_causes"]

Nodes = Mapping[str, Node]
_NONE: frozenset[str] = frozenset()
_NAME = attrgetter("name")


@dataclass(frozen=True, slots=True)
class _Reach:
    """What a rebuilt spec with no own change reaches by new edges: the triggers (by any path,
    by link/run paths only), and whether a path leaves the index's rebuilt specs."""

    triggers: frozenset[str]
    linked: frozenset[str]
    leaves: bool


class _Walk:
    """One memoised depth-first walk down the new edges of the rebuilt specs with no own change:
    each spec finished once, from its dependencies' results (linear in specs and edges)."""

    def __init__(self, new: Nodes, old: Nodes, rebuilt: Mapping[str, str], triggers: set[str]):
        self.new, self.old, self.rebuilt, self.triggers = new, old, rebuilt, triggers
        self.done: dict[str, _Reach] = {}
        self.cycles: list[tuple[str, str]] = []  # edges that close a cycle: left out
        self._sets: dict[frozenset[str], frozenset[str]] = {_NONE: _NONE}

    def _below(self, digest: str) -> Iterator[str]:
        """The rebuilt specs with no own change that a spec's new edges name."""
        for target in self.new[digest].deps:
            if target in self.rebuilt and target not in self.triggers and target not in self.done:
                yield target

    def visit(self, root: str) -> None:
        """Finish `root` and everything below it not finished yet."""
        path, on_path = [(root, self._below(root))], {root}
        while path:
            digest, below = path[-1]
            for target in below:
                if target in on_path:
                    self.cycles.append((digest, target))
                elif target not in self.done:
                    on_path.add(target)
                    path.append((target, self._below(target)))
                    break
            else:
                path.pop()
                on_path.discard(digest)
                self.done[digest] = self._finish(digest)

    def _finish(self, digest: str) -> _Reach:
        found: set[str] = set()
        linked: set[str] = set()
        leaves = False
        node = self.new[digest]
        for kind, target in zip(node.kinds, node.deps, strict=True):
            if target in self.old:
                continue  # not a new edge
            if target in self.triggers:
                found.add(target)
                if kind[3]:  # a link or run edge
                    linked.add(target)
            elif target in self.rebuilt:
                reach = self.done.get(target)
                if reach is None:
                    continue  # the edge closes a cycle: warned, left out
                found |= reach.triggers
                leaves = leaves or reach.leaves
                if kind[3]:
                    linked |= reach.linked
            else:
                leaves = True  # a record not in the index, or a new build: the cause is outside
        return _Reach(self._one(found), self._one(linked), leaves)

    def _one(self, found: set[str]) -> frozenset[str]:
        """One object per distinct set of triggers: most specs share a few."""
        frozen = frozenset(found)
        return self._sets.setdefault(frozen, frozen)


Spread = tuple[tuple[str, ...], tuple[tuple[str, int], ...]]


def _group(specs: list[str], new: Graph) -> tuple[set[str], Counter[str]]:
    """The stacks holding some of these specs, and the specs by package, counted in C."""
    stacks: set[str] = set()
    for held in set(map(new.stacks.get, specs)):  # a few distinct tuples: shared by specs
        stacks.update(held or ())
    return stacks, Counter(map(_NAME, map(new.nodes.__getitem__, specs)))


def _spread(digest: str, groups: Iterable[tuple[set[str], Counter[str]]], new: Graph) -> Spread:
    """The stacks holding a trigger or its cascade (given as groups of specs), and the cascade
    by package (most first)."""
    stacks = set(new.stacks.get(digest, ()))
    packages: Counter[str] = Counter()
    for held, counted in groups:
        stacks |= held
        packages.update(counted)
    return tuple(sorted(stacks)), tuple(sorted(packages.items(), key=lambda n: (-n[1], n[0])))


def _trigger(
    digest: str,
    predecessor: str,
    own: OwnChanges,
    cascade: list[str],
    build_only: set[str],
    spread: Spread,
    new: Graph,
) -> Trigger:
    stacks, packages = spread
    return Trigger(
        digest,
        new.nodes[digest].name,
        predecessor,
        own.changes,
        own.before,
        own.after,
        tuple(sorted(cascade)),
        tuple(sorted(build_only)),
        stacks,
        packages,
        new.nodes[digest].version,
    )


def _missing(nodes: Nodes, among: Callable[[str], bool]) -> dict[tuple[str, str], str]:
    """(spec, dependency hash) -> dependency name of every binary spec (of those asked) whose
    link or run dependency no record holds, neither as a binary nor as an external."""
    found = {}
    for digest, node in nodes.items():
        if not node.binary or not among(digest):
            continue
        for kind, target in zip(node.kinds, node.deps, strict=True):
            if not kind[3]:
                continue  # a build-only edge
            held = nodes.get(target)
            if held is None or not (held.binary or held.external):
                found[digest, target] = kind[0]
    return found


def _missing_dependencies(old: Nodes, new: Nodes) -> tuple[MissingDependency, ...]:
    now = _missing(new, lambda digest: True)
    before = _missing(old, new.__contains__)
    found = [
        MissingDependency(spec, new[spec].name, target, name, (spec, target) not in before)
        for (spec, target), name in now.items()
    ]
    return tuple(sorted(found, key=lambda m: (not m.new, m.hash, m.dependency)))


def rebuild_causes(old: Graph, new: Graph) -> tuple[Rebuilds, tuple[str, ...]]:
    """The causes of every rebuild between two sides' graphs, and warnings (cycles left out)."""
    pairs = pair_predecessors(old.nodes, new.nodes)
    own = {d: own_changes(new.nodes[d], old.nodes[p], old.nodes) for d, p in pairs.items()}
    triggers = {digest for digest, changes in own.items() if changes.changes}
    walk = _Walk(new.nodes, old.nodes, pairs, triggers)
    for digest in sorted(pairs):
        if digest not in triggers and digest not in walk.done:
            walk.visit(digest)
    cascade: dict[str, list[str]] = {digest: [] for digest in triggers}
    build_only: dict[str, set[str]] = {digest: set() for digest in triggers}
    cascades: list[Cascade] = []
    scheme: list[str] = []
    unexplained: list[str] = []
    # the specs of each distinct (triggers, link/run triggers): a few thousand sets are shared
    # by 10^5 specs, so each trigger's cascade grows a group at a time
    groups: dict[tuple[frozenset[str], frozenset[str]], list[str]] = {}
    ordered: dict[frozenset[str], tuple[str, ...]] = {}
    for digest in sorted(walk.done):
        reach = walk.done[digest]
        if reach.triggers:
            causes = ordered.get(reach.triggers)
            if causes is None:
                causes = ordered[reach.triggers] = tuple(sorted(reach.triggers))
            cascades.append(Cascade(digest, new.nodes[digest].name, pairs[digest], causes))
            groups.setdefault((reach.triggers, reach.linked), []).append(digest)
        else:
            (unexplained if reach.leaves else scheme).append(digest)
    parts: dict[str, list[tuple[set[str], Counter[str]]]] = {digest: [] for digest in triggers}
    for (causes_of, linked), specs in groups.items():
        part = _group(specs, new)
        for cause in causes_of:
            cascade[cause].extend(specs)
            parts[cause].append(part)
            if cause not in linked:
                build_only[cause].update(specs)
    found = [
        _trigger(d, pairs[d], own[d], cascade[d], build_only[d], _spread(d, parts[d], new), new)
        for d in sorted(triggers)
    ]
    found.sort(key=lambda t: (-len(t.cascade), t.name, t.hash))
    rebuilds = Rebuilds(
        tuple(found),
        tuple(cascades),
        tuple(scheme),
        tuple(unexplained),
        _missing_dependencies(old.nodes, new.nodes),
    )
    return rebuilds, _cycle_warnings(walk.cycles)


def _cycle_warnings(cycles: list[tuple[str, str]]) -> tuple[str, ...]:
    if not cycles:
        return ()
    spec, target = min(cycles)
    return (
        f"{len(cycles)} dependency edges close a cycle among rebuilt specs and are left out of"
        f" the causes (first: {spec} -> {target})",
    )


def narrow_rebuilds(rebuilds: Rebuilds, kept: Callable[[str], bool], new: Graph) -> Rebuilds:
    """The causes of the specs the filters keep: the walk ran on the whole graph; a trigger
    stays when it or a spec of its cascade is kept, with its cascade narrowed to those."""
    triggers = []
    for trigger in rebuilds.triggers:
        cascade = tuple(filter(kept, trigger.cascade))
        if cascade or kept(trigger.hash):
            stacks, packages = _spread(trigger.hash, [_group(list(cascade), new)], new)
            build_only = tuple(filter(kept, trigger.cascade_build_only))
            triggers.append(
                replace(
                    trigger,
                    cascade=cascade,
                    cascade_build_only=build_only,
                    stacks=stacks,
                    packages=packages,
                )
            )
    triggers.sort(key=lambda t: (-len(t.cascade), t.name, t.hash))
    return Rebuilds(
        tuple(triggers),
        tuple(c for c in rebuilds.cascades if kept(c.hash)),
        tuple(filter(kept, rebuilds.hash_scheme)),
        tuple(filter(kept, rebuilds.unexplained)),
        tuple(m for m in rebuilds.missing_dependencies if kept(m.hash)),
    )
