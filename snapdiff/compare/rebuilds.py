"""Why specs were rebuilt (SPEC section 6): triggers and new builds, the cascades they cause
through new edges, the hash-scheme and unexplained rest, the moves most rebuilt specs made, and
binaries the new cache lacks. No I/O."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from functools import reduce
from itertools import chain, compress
from operator import attrgetter, itemgetter, not_, or_
from typing import Any, cast

from ..model import Graph, Node
from ..report import (
    MOVE_DIMENSIONS,
    Cascade,
    MissingDependency,
    Move,
    NewBuild,
    Rebuilds,
    Trigger,
)
from .ownchanges import OwnChanges, own_changes
from .predecessors import pair_predecessors

__all__ = ["missing_dependencies", "narrow_rebuilds", "rebuild_causes"]

Nodes = Mapping[str, Node]
# What a rebuilt spec with no own change reaches by new edges: the causes (by any path, by
# link/run paths only), each a bit of an int (the causes numbered in hash order), and whether
# a path leaves the index's rebuilt specs. An int of bits, not a set of hashes: a ladder of
# triggers gives each spec its own set (quadratic as sets, an eighth of a byte a pair as bits);
# one object per distinct value: 10^5 specs share a few hundred.
Reach = tuple[int, int, bool]
Hashes = tuple[str, ...]
_NAME, _DEPS = attrgetter("name"), attrgetter("deps")
_BINARY, _EXTERNAL = attrgetter("binary"), attrgetter("external")
_TRIGGERS, _LINKED, _LEAVES = itemgetter(0), itemgetter(1), itemgetter(2)
_COUNT = itemgetter(1)
_NOTHING: Reach = (0, 0, False)  # an edge to a record `OLD` holds, or closing a cycle
_OUTSIDE: Reach = (0, 0, True)  # an edge to a hash no rebuilt spec has


class _Walk:
    """One memoised depth-first walk down the new edges of the rebuilt specs with no own change:
    each spec finished once, from its dependencies' results (linear in specs and edges, and in
    bits of the causes reached).
    `triggers`: every cause a walk stops at, the rebuilt specs with an own change and the new
    builds; `causes` the same in hash order, bit `i` of a reach standing for `causes[i]`."""

    def __init__(self, new: Nodes, old: Nodes, rebuilt: set[str], triggers: set[str]):
        self.new, self.rebuilt, self.triggers = new, rebuilt, triggers
        self.causes = sorted(triggers)
        self.todo = rebuilt - triggers  # the specs the walk finishes, until it does
        self.cycles: list[tuple[str, str]] = []  # edges that close a cycle: left out
        # what each hash an edge names brings: nothing (a record `old` holds), a trigger (by a
        # link/run edge or not), or the reach of a spec finished
        self.reach: dict[str, Reach] = dict.fromkeys(old, _NOTHING)
        self.reach.update((t, (1 << i, 1 << i, False)) for i, t in enumerate(self.causes))
        self._reaches: dict[tuple[frozenset[Reach], frozenset[Reach]], Reach] = {}
        # by id of a tuple of edge kinds (shared by records alike, alive with them): link/run
        self._links: dict[int, tuple[bool, ...]] = {}

    def _below(self, digest: str) -> Iterator[str]:
        """The specs not finished yet that a spec's edges name (filtered in C, in edge order)."""
        return filter(self.todo.__contains__, self.new[digest].deps)

    def visit(self, root: str) -> None:
        """Finish `root` and everything below it not finished yet."""
        path, on_path = [(root, self._below(root))], {root}
        while path:
            digest, below = path[-1]
            for target in below:
                if target in on_path:
                    self.cycles.append((digest, target))
                else:
                    on_path.add(target)
                    path.append((target, self._below(target)))
                    break
            else:
                path.pop()
                on_path.discard(digest)
                self.todo.discard(digest)
                self.reach[digest] = self._finish(digest)

    def _finish(self, digest: str) -> Reach:
        """A spec's reach from what its edges bring: one look-up per edge, and the unions once
        per distinct combination of reaches (a spec not finished closes a cycle: left out)."""
        node = self.new[digest]
        brought = list(map(self.reach.get, node.deps))
        reaches = cast(list[Reach], brought)
        if None in brought:  # a hash not finished (a cycle) or of no record (outside the index)
            reaches = [
                self._outside(d) if r is None else r
                for d, r in zip(node.deps, brought, strict=True)
            ]
        key = (frozenset(reaches), frozenset(compress(reaches, self.links(node))))
        reach = self._reaches.get(key)
        if reach is None:
            found = reduce(or_, map(_TRIGGERS, key[0]), 0)
            linked = reduce(or_, map(_LINKED, key[1]), 0)
            reach = self._reaches[key] = (found, linked, any(map(_LEAVES, key[0])))
        return reach

    def links(self, node: Node) -> tuple[bool, ...]:
        """Whether each of a node's edges is a link or run edge."""
        links = self._links.get(id(node.kinds))
        if links is None:
            links = self._links[id(node.kinds)] = tuple(kind[3] for kind in node.kinds)
        return links

    def _outside(self, digest: str) -> Reach:
        """A hash not finished: a rebuilt spec (the edge closes a cycle), else one with no
        record in `new` (every other hash only `new` holds is a trigger or a new build)."""
        return _NOTHING if digest in self.rebuilt else _OUTSIDE

    def hashes(self, bits: int) -> tuple[str, ...]:
        """The causes the bits stand for, in hash order."""
        return tuple(map(self.causes.__getitem__, _ones(bits)))


def _ones(bits: int) -> list[int]:
    """The positions of the bits set, lowest first (a pass over the set bits, from C's
    formatting of the int rather than a shift per bit)."""
    if bits & (bits - 1) == 0:  # none or one: most reaches
        return [bits.bit_length() - 1] if bits else []
    text = format(bits, "b")
    top = len(text) - 1
    found, at = [], text.rfind("1")
    while at >= 0:
        found.append(top - at)
        at = text.rfind("1", 0, at)
    return found


Spread = tuple[tuple[str, ...], tuple[tuple[str, int], ...]]


def _group(specs: list[str], new: Graph) -> tuple[set[str], Counter[str]]:
    """The stacks holding some of these specs, and the specs by package, counted in C."""
    stacks: set[str] = set()
    for held in set(map(new.stacks.get, specs)):  # a few distinct tuples: shared by specs
        stacks.update(held or ())
    return stacks, Counter(map(_NAME, map(new.nodes.__getitem__, specs)))


Groups = list[tuple[set[str], Counter[str]]]  # groups of specs: their stacks, their packages


def _spread(digest: str, groups: Groups, new: Graph) -> Spread:
    """The stacks holding a trigger or its cascade (given as groups of specs), and the cascade
    by package."""
    stacks = set(new.stacks.get(digest, ()))
    for held, _ in groups:
        stacks |= held
    return tuple(sorted(stacks)), _packages_of(groups)


def _packages_of(groups: Groups) -> tuple[tuple[str, int], ...]:
    """The specs of these groups by package, most first, then by name (two sorts in C: the
    second keeps the first's order among equals)."""
    packages: Counter[str] = Counter()
    for _, counted in groups:
        packages.update(counted)
    return tuple(sorted(sorted(packages.items()), key=_COUNT, reverse=True))


# A cause reached by more groups of specs than an eighth of its specs (a ladder of triggers:
# each spec a group of its own) has its specs counted one by one, in C, not group by group
_BY_SPEC = 8


class _Reached:
    """What the walk concluded, gathered per trigger a group of specs at a time: the specs of
    each distinct reach (a few hundred groups for 10^5 specs), each group sorted by hash."""

    def __init__(self, walk: _Walk, specs: list[str], new: Graph):
        groups: defaultdict[Reach, list[str]] = defaultdict(list)
        for digest, reach in zip(specs, map(walk.reach.__getitem__, specs), strict=True):
            groups[reach].append(digest)
        self.new = new
        self.cascade: dict[str, list[list[str]]] = {t: [] for t in walk.triggers}
        self.build_only: dict[str, list[list[str]]] = {t: [] for t in walk.triggers}
        self.parts: dict[int, tuple[set[str], Counter[str]]] = {}  # by id of a group
        self.scheme: list[str] = []
        self.unexplained: list[str] = []
        for (causes, linked, leaves), group in groups.items():
            if not causes:
                (self.unexplained if leaves else self.scheme).extend(group)
                continue
            for i in _ones(causes):
                cause = walk.causes[i]
                self.cascade[cause].append(group)
                if not linked >> i & 1:
                    self.build_only[cause].append(group)

    def counted(self, groups: list[list[str]]) -> Groups:
        """Groups of specs as their stacks and packages: each group's once, shared by the
        causes reaching it, or, for groups of a spec or two, their specs' all at once."""
        if len(groups) * _BY_SPEC > sum(map(len, groups)):
            return [_group(list(chain.from_iterable(groups)), self.new)]
        parts = self.parts
        for group in groups:
            if id(group) not in parts:
                parts[id(group)] = _group(group, self.new)
        return [parts[id(group)] for group in groups]


def _cascades(walk: _Walk, specs: list[str], pairs: Mapping[str, str], new: Nodes) -> list[Cascade]:
    """The rebuilt specs (sorted) that reach a trigger, each with its causes sorted and the
    evidence one step down (`_evidence`)."""
    reaches = list(map(walk.reach.__getitem__, specs))
    ordered = {r[0]: walk.hashes(r[0]) for r in set(reaches)}
    caused = list(compress(specs, map(_TRIGGERS, reaches)))
    causes = map(ordered.__getitem__, filter(None, map(_TRIGGERS, reaches)))
    nodes = list(map(new.__getitem__, caused))
    names, predecessors = map(_NAME, nodes), map(pairs.__getitem__, caused)
    return list(map(Cascade, caused, names, predecessors, causes, *_evidence(walk, caused, nodes)))


def _evidence(walk: _Walk, caused: list[str], nodes: list[Node]) -> tuple[Iterator[Hashes], ...]:
    """What each cascade spec's new edges name one step down: the causes (`direct_causes`), the
    cascade specs with causes (`through`: the rest of its causes is theirs), and those of both
    that only build edges name (`build_only`), each sorted. An edge the walk left out (closing
    a cycle) is left out here too, so following `through` down gives the causes the walk found
    and no other. A few set operations a spec, each a `map` in C over every spec (but for the
    edges closing a cycle, rare, left out a spec at a time)."""
    deps = list(map(_DEPS, nodes))
    named = list(map(walk.triggers.union(caused).intersection, deps))
    if walk.cycles:
        cycles = set(walk.cycles)
        named = [
            {t for t in found if (digest, t) not in cycles}
            for digest, found in zip(caused, named, strict=True)
        ]
    direct = list(map(walk.triggers.intersection, named))
    through = map(set.difference, named, direct)
    build = map(set.difference, named, map(compress, deps, map(walk.links, nodes)))
    return tuple(map(tuple, map(sorted, found)) for found in (direct, through, build))


_Caused = tuple[
    tuple[str, ...],
    tuple[str, ...],
    tuple[str, ...],
    tuple[tuple[str, int], ...],
    tuple[tuple[str, int], ...],
]  # a cause's cascade, its build-only part, its stacks, its cascade and build-only by package


def _caused(digest: str, reached: _Reached) -> _Caused:
    """What a trigger or new build caused, as its record says it."""
    cascade, build_only = reached.cascade[digest], reached.build_only[digest]
    stacks, packages = _spread(digest, reached.counted(cascade), reached.new)
    return (
        tuple(sorted(chain.from_iterable(cascade))),
        tuple(sorted(chain.from_iterable(build_only))),
        stacks,
        packages,
        _packages_of(reached.counted(build_only)),
    )


def _new_build(digest: str, reached: _Reached, new: Graph) -> NewBuild:
    node = new.nodes[digest]
    cascade, build_only, stacks, packages, packages_build_only = _caused(digest, reached)
    return NewBuild(
        digest, node.name, node.version, cascade, build_only, stacks, packages, packages_build_only
    )


def _trigger(
    digest: str, pairs: Mapping[str, str], own: OwnChanges, reached: _Reached, new: Graph
) -> Trigger:
    node = new.nodes[digest]
    cascade, build_only, stacks, packages, packages_build_only = _caused(digest, reached)
    return Trigger(
        digest,
        node.name,
        pairs[digest],
        own.changes,
        own.before,
        own.after,
        cascade,
        build_only,
        stacks,
        packages,
        node.version,
        packages_build_only,
    )


def _held(nodes: Nodes) -> set[str]:
    """The hashes of the records that hold a binary or are externals."""
    return set(
        compress(
            nodes, map(or_, map(_BINARY, nodes.values()), map(bool, map(_EXTERNAL, nodes.values())))
        )
    )


def _missing(nodes: Nodes, among: Callable[[str], bool]) -> dict[tuple[str, str], str]:
    """(spec, dependency hash) -> dependency name of every binary spec (of those asked) whose
    link or run dependency no record holds, neither as a binary nor as an external."""
    held = _held(nodes)
    found = {}
    # the records with an edge to a hash not held (a set test in C each), then their edges
    for digest, node in compress(
        nodes.items(), map(not_, map(held.issuperset, map(_DEPS, nodes.values())))
    ):
        if not node.binary or not among(digest):
            continue
        for kind, target in zip(node.kinds, node.deps, strict=True):
            if kind[3] and target not in held:  # a link or run edge
                found[digest, target] = kind[0]
    return found


def missing_dependencies(old: Nodes, new: Nodes) -> tuple[MissingDependency, ...]:
    """Every binary spec of `new` whose link or run dependency no record of `new` holds; new
    ones (not missing in `old`) first, then by hash and dependency."""
    now = _missing(new, lambda digest: True)
    before = _missing(old, new.__contains__)
    found = [
        MissingDependency(spec, new[spec].name, target, name, (spec, target) not in before)
        for (spec, target), name in now.items()
    ]
    return tuple(sorted(found, key=lambda m: (not m.new, m.hash, m.dependency)))


def _triggers(pairs: Mapping[str, str], old: Nodes, new: Nodes) -> dict[str, OwnChanges]:
    """The rebuilt specs with an own change, and what they changed."""
    found = {}
    for digest, predecessor in pairs.items():
        own = own_changes(new[digest], old[predecessor], old)
        if own.changes:
            found[digest] = own
    return found


def _root_pairs(old: Graph, new: Graph) -> list[tuple[str, str]]:
    """(new, old) hashes of the roots whose text each side writes once (SPEC section 6: paired
    first, when they are related); one environment a side is one, whatever its name."""
    sides = [[key.split("\0", 1) for key, _ in side.roots] for side in (old, new)]
    alone = all(len({name for name, _ in keys}) == 1 for keys in sides)
    once = []
    for side, keys in zip((old, new), sides, strict=True):
        written = ["\0".join(key[1:] if alone else key) for key in keys]
        counted = Counter(written)
        hashes = (digest for _, digest in side.roots)
        once.append({key: d for key, d in zip(written, hashes, strict=True) if counted[key] == 1})
    return [(digest, once[0][key]) for key, digest in once[1].items() if key in once[0]]


def _moves(triggers: Iterable[Trigger], rebuilt: int) -> tuple[Move, ...]:
    """The own changes of one dimension, one value to one value, made by at least half the
    rebuilt specs: most specs first, then by dimension and values."""
    counted: Counter[tuple[str, str, str]] = Counter()
    for trigger in triggers:
        before, after = dict(trigger.before), dict(trigger.after)
        for dimension in MOVE_DIMENSIONS:
            if dimension in trigger.changes:
                counted[dimension, str(before[dimension]), str(after[dimension])] += 1
    found = [
        Move(cast(Any, dimension), was, now, n)
        for (dimension, was, now), n in counted.items()
        if rebuilt and 2 * n >= rebuilt
    ]
    return tuple(sorted(found, key=lambda m: (-m.specs, m.dimension, m.before, m.after)))


def rebuild_causes(
    old: Graph, new: Graph, missing: bool = True
) -> tuple[Rebuilds, tuple[str, ...]]:
    """The causes of every rebuild between two sides' graphs, and warnings (cycles left out);
    with `missing=False`, no missing dependencies (`missing_dependencies` says them)."""
    pairs = pair_predecessors(old.nodes, new.nodes, _root_pairs(old, new))
    own = _triggers(pairs, old.nodes, new.nodes)
    built = set(compress(new.nodes, map(not_, map(old.nodes.__contains__, new.nodes))))
    built.difference_update(pairs)  # only `new` holds them, with no predecessor: new builds
    walk = _Walk(new.nodes, old.nodes, set(pairs), set(own) | built)
    specs = sorted(walk.todo)  # every rebuilt spec with no own change
    for digest in specs:
        if digest in walk.todo:
            walk.visit(digest)
    reached = _Reached(walk, specs, new)
    found = [_trigger(d, pairs, own[d], reached, new) for d in own]
    found.sort(key=lambda t: (-len(t.cascade), t.name, t.hash))
    causing = [_new_build(d, reached, new) for d in built if reached.cascade[d]]
    causing.sort(key=lambda b: (-len(b.cascade), b.name, b.hash))
    rebuilds = Rebuilds(
        tuple(found),
        tuple(_cascades(walk, specs, pairs, new.nodes)),
        tuple(sorted(reached.scheme)),
        tuple(sorted(reached.unexplained)),
        missing_dependencies(old.nodes, new.nodes) if missing else (),
        tuple(causing),
        _moves(found, len(pairs)),
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


def _narrowed(cause: Any, kept: Callable[[str], bool], new: Graph) -> Any:
    """A trigger or new build with its cascade narrowed to the specs kept; None when neither
    it nor a spec of its cascade is kept."""
    cascade = tuple(filter(kept, cause.cascade))
    if not cascade and not kept(cause.hash):
        return None
    stacks, packages = _spread(cause.hash, [_group(list(cascade), new)], new)
    build_only = tuple(filter(kept, cause.cascade_build_only))
    return replace(
        cause,
        cascade=cascade,
        cascade_build_only=build_only,
        stacks=stacks,
        packages=packages,
        packages_build_only=_packages_of([_group(list(build_only), new)]),
    )


def narrow_rebuilds(rebuilds: Rebuilds, kept: Callable[[str], bool], new: Graph) -> Rebuilds:
    """The causes of the specs the filters keep: the walk ran on the whole graph; a trigger or
    new build stays when it or a spec of its cascade is kept, with its cascade narrowed to
    those (a new build that causes nothing kept is left out)."""
    order = lambda t: (-len(t.cascade), t.name, t.hash)  # noqa: E731
    triggers = sorted(filter(None, (_narrowed(t, kept, new) for t in rebuilds.triggers)), key=order)
    built = (_narrowed(b, kept, new) for b in rebuilds.new_builds)
    causing = sorted((b for b in built if b is not None and b.cascade), key=order)
    cascades = tuple(c for c in rebuilds.cascades if kept(c.hash))
    filtered_out = _filtered_out(cascades, rebuilds.cascades, kept)
    hash_scheme = tuple(filter(kept, rebuilds.hash_scheme))
    unexplained = tuple(filter(kept, rebuilds.unexplained))
    rebuilt = len(triggers) + len(cascades) + len(hash_scheme) + len(unexplained)
    return Rebuilds(
        tuple(triggers),
        cascades,
        hash_scheme,
        unexplained,
        tuple(m for m in rebuilds.missing_dependencies if kept(m.hash)),
        tuple(causing),
        _moves(triggers, rebuilt),
        rebuilds.scheme,
        filtered_out,
    )


def _filtered_out(
    kept_ones: Iterable[Cascade], cascades: Iterable[Cascade], kept: Callable[[str], bool]
) -> tuple[Cascade, ...]:
    """The cascade specs the filters leave out that the kept ones' `through` names, directly or
    further down, sorted by hash: each visited once."""
    by_hash = {c.hash: c for c in cascades}
    seen: set[str] = set()
    todo = [t for c in kept_ones for t in c.through if not kept(t)]
    while todo:
        digest = todo.pop()
        if digest not in seen:
            seen.add(digest)
            todo.extend(t for t in by_hash[digest].through if not kept(t))
    return tuple(by_hash[d] for d in sorted(seen))
