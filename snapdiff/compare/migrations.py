"""Migrations (SPEC section 2a): dropped configurations back with one or two values changed.

Dropped configurations and new ones form a migration along dimensions D when they are equal on
every dimension outside D, related (their specs share a stack other than `root`, the target
keeps its family, the compiler its family or goes to or from none), and no other dropped or new
configuration of the package equal to them there is related to them: a value that vanished is
never paired with an unrelated one that appeared, nor with one that merely appeared elsewhere.
One to one, or (along one dimension other than variants) many to one and one to many:
`gcc@11.4.0` and `oneapi@2024.2.0` folding into no compiler (`none`), every dropped one related
to the new one. One dimension is tried before two; every choice is made in sorted order, so the
result never depends on set order or the hash seed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from itertools import combinations

from ..model import Configuration, PageEntries, related
from ..report import Change
from ..versions import versions_of
from .classify import Facts
from .coverage import ROOT

__all__ = ["DIMENSIONS", "dimension_value", "find_migrations"]

# The fields of a Configuration a migration moves along, in the order they are tried; the
# platform is never a dimension: values are compared within one platform.
DIMENSIONS = ("os", "compiler", "target", "variants")
_PLANS: list[tuple[str, ...]] = [(d,) for d in DIMENSIONS] + list(combinations(DIMENSIONS, 2))

# each dropped and each new configuration -> those of the other side it is related to
_Links = Mapping[Configuration, set[Configuration]]
_Pairs = list[tuple[list[Configuration], list[Configuration]]]  # (dropped, new) that migrate


def dimension_value(config: Configuration, dimension: str) -> str | tuple[str, ...]:
    """A configuration's value along one dimension."""
    value: str | tuple[str, ...] = getattr(config, dimension)
    return value


def _links(
    dropped: set[Configuration],
    new: set[Configuration],
    old_side: PageEntries,
    new_side: PageEntries,
) -> _Links:
    """Which dropped and new configurations are related (SPEC section 2a), pair by pair: the
    SPEC's test is of "the dropped and the new configuration's specs", so a many-to-one
    migration needs every one of its dropped configurations to pass it with the new one. The
    stack test is skipped where either configuration's specs are in no stack but `root`."""
    stacks_old, stacks_new = old_side.stacks_by_configuration(), new_side.stacks_by_configuration()
    links: dict[Configuration, set[Configuration]] = defaultdict(set)
    for a in dropped:
        here = stacks_old[a] - {ROOT}
        for b in new:
            there = stacks_new[b] - {ROOT}
            if here and there and not here & there:
                continue  # built by other pipelines
            if related((a.platform, b.platform), (a.target, b.target), (a.compiler, b.compiler)):
                links[a].add(b)
                links[b].add(a)
    return links


def _rest(config: Configuration, dims: tuple[str, ...]) -> tuple[object, ...]:
    """The configuration with the values along `dims` blanked out."""
    return tuple(
        None if name in dims else value for name, value in zip(config._fields, config, strict=True)
    )


def _components(olds: list[Configuration], news: list[Configuration], links: _Links) -> _Pairs:
    """Configurations equal outside some dimensions, in the sets relatedness joins (each with
    a configuration of each side; one related to none of the others is left out), in order."""
    members, seen = {*olds, *news}, set()
    found: _Pairs = []
    for start in olds:
        if start in seen or not links.get(start, set()) & members:
            continue
        joined, frontier = {start}, [start]
        while frontier:
            for other in (links[frontier.pop()] & members) - joined:
                joined.add(other)
                frontier.append(other)
        seen |= joined
        found.append(([c for c in olds if c in joined], [c for c in news if c in joined]))
    return found


def _match(
    dropped: set[Configuration], new: set[Configuration], dims: tuple[str, ...], links: _Links
) -> _Pairs:
    """The dropped and new configurations that pair along `dims` and nothing else, unambiguously:
    one to one, many to one or one to many (along one dimension other than variants), every
    dropped one related to every new one and no other configuration left that is equal to them
    outside `dims` related to any of them, every value before differing from every value after
    along each of `dims`."""
    groups: dict[tuple[object, ...], tuple[list[Configuration], list[Configuration]]] = defaultdict(
        lambda: ([], [])
    )
    for config in sorted(dropped):
        groups[_rest(config, dims)][0].append(config)
    for config in sorted(new):
        groups[_rest(config, dims)][1].append(config)
    many = len(dims) == 1 and dims != ("variants",)
    return [
        (olds, news)
        for _, (group_olds, group_news) in sorted(groups.items(), key=lambda item: repr(item[0]))
        if group_olds and group_news
        for olds, news in _components(group_olds, group_news, links)
        if (len(olds) == len(news) == 1 or (many and min(len(olds), len(news)) == 1))
        and all(
            dimension_value(a, d) != dimension_value(b, d) for a in olds for b in news for d in dims
        )
    ]


def _plans(links: _Links) -> list[tuple[str, ...]]:
    """The plans that can pair anything: those holding every dimension some related dropped
    and new configuration differ on (a pair differing on the platform never pairs). The fields
    each pair differs on are worked out once, not once a plan."""
    fields = Configuration._fields
    apart = {
        frozenset(name for name, x, y in zip(fields, a, b, strict=True) if x != y)
        for a, others in links.items()
        for b in others
    }
    return [plan for plan in _PLANS if any(differ.issubset(plan) for differ in apart)]


# A migration's dimensions, platform, and values before and after
_Move = tuple[tuple[str, ...], str, tuple[object, ...], tuple[object, ...]]


def _values(configs: list[Configuration], dims: tuple[str, ...]) -> tuple[object, ...]:
    """The distinct values of these configurations along `dims`, sorted."""
    return tuple(sorted({tuple(dimension_value(c, d) for d in dims) for c in configs}))


def find_migrations(facts: Facts, old: PageEntries, new: PageEntries) -> Facts:
    """The facts with new and dropped configurations that migrate replaced by migrations.

    `old` and `new` are the package's entries on each side (where the stacks of each
    configuration's specs are read). Migrations with the same dimensions and the same values
    before and after are one fact.
    """
    whole = {f.configurations_old[0]: f for f in facts if f.kind == "dropped-configuration"}
    dropped = set(whole)
    came = {f.configurations_new[0] for f in facts if f.kind == "new-configuration"}
    if not dropped or not came:
        return facts  # nothing to pair
    links = _links(dropped, came, old, new)
    if not links:
        return facts  # nothing related
    whole |= {f.configurations_new[0]: f for f in facts if f.kind == "new-configuration"}
    # (dimensions, platform and values before and after) -> the configurations that moved so
    moves: dict[_Move, tuple[set[Configuration], set[Configuration]]] = defaultdict(
        lambda: (set(), set())
    )
    for plan in _plans(links):
        if not dropped or not came:
            break  # nothing left to pair
        for olds, news in _match(dropped, came, plan, links):
            move: _Move = (plan, olds[0].platform, _values(olds, plan), _values(news, plan))
            moves[move][0].update(olds)
            moves[move][1].update(news)
            dropped.difference_update(olds)
            came.difference_update(news)
    if not moves:
        return facts
    taken = {c for gone, arrived in moves.values() for c in gone | arrived}
    kept = [f for f in facts if not set(f.configurations_old + f.configurations_new) & taken]
    for key, (gone, arrived) in sorted(moves.items(), key=lambda item: repr(item[0])):
        before, after = tuple(sorted(gone)), tuple(sorted(arrived))
        kept.append(
            Change(
                "migration",
                before,
                after,
                versions_of(whole[c].versions_old for c in before),
                versions_of(whole[c].versions_new for c in after),
                tuple(sorted(h for c in before for h in whole[c].specs_old)),
                tuple(sorted(h for c in after for h in whole[c].specs_new)),
                key[0],
            )
        )
    return kept
