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

No dropped configuration is weighed against every new one (issue 47: a page of thousands took
a minute): related configurations are found by keys they share (`_kin`), within groups of those
equal outside a plan's dimensions, so the time is n·log n in the configurations (the sorting),
times the ten plans and the stacks of each configuration's specs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from itertools import combinations

from ..model import Configuration, PageEntries, related_keys
from ..report import Change
from ..versions import versions_of
from .classify import Facts
from .coverage import ROOT

__all__ = ["DIMENSIONS", "dimension_value", "find_migrations"]

# The fields of a Configuration a migration moves along, in the order they are tried; the
# platform is never a dimension: values are compared within one platform.
DIMENSIONS = ("os", "compiler", "target", "variants")
_PLANS: list[tuple[str, ...]] = [(d,) for d in DIMENSIONS] + list(combinations(DIMENSIONS, 2))

# each dropped and each new configuration -> its keys (`_kin`): related where they share one
_Kin = Mapping[Configuration, list[object]]
_Pairs = list[tuple[list[Configuration], list[Configuration]]]  # (dropped, new) that migrate
# In `_kin`'s keys: a configuration of the old (new) side whose specs are in no stack but `root`
# (tuples, so that no stack's name, a string whatever the data names, is ever one of them)
_NO_STACK = (("no stack", "old side"), ("no stack", "new side"))


def dimension_value(config: Configuration, dimension: str) -> str | tuple[str, ...]:
    """A configuration's value along one dimension."""
    value: str | tuple[str, ...] = getattr(config, dimension)
    return value


def _kin(
    configs: Iterable[Configuration], stacks: Mapping[Configuration, frozenset[str]], old: bool
) -> dict[Configuration, list[object]]:
    """Each configuration's keys, such that a dropped and a new configuration are related
    (SPEC section 2a) exactly when they share one: `related_keys` of its builds, each with a
    stack of its specs other than `root` (where it has none, a key every configuration of the
    other side holds: the stack test is then skipped), and a key every configuration of the
    other side with no such stack holds. A configuration's keys are 2 or 3 times its stacks
    plus one: the relation is found in time linear in those, never pair by pair."""
    mine, theirs = _NO_STACK if old else _NO_STACK[::-1]
    found: dict[Configuration, list[object]] = {}
    for config in configs:
        own: list[tuple[object]] = [(s,) for s in sorted(stacks.get(config, frozenset()) - {ROOT})]
        own = own or [(mine,)]
        builds = related_keys(config.platform, config.target, config.compiler, old)
        found[config] = [(build, stack) for build in builds for stack in [*own, (theirs,)]]
    return found


def _rest(config: Configuration, dims: tuple[str, ...]) -> tuple[object, ...]:
    """The configuration with the values along `dims` blanked out."""
    return tuple(
        None if name in dims else value for name, value in zip(config._fields, config, strict=True)
    )


def _components(olds: list[Configuration], news: list[Configuration], kin: _Kin) -> _Pairs:
    """Configurations equal outside some dimensions, in the sets relatedness joins (each with
    a configuration of each side; one related to none of the others is left out), in order.

    The configurations holding one key, when it has some of each side, are all related to
    each other (a dropped one to each new one): they are joined, by union-find, so the time is
    linear in the configurations' keys, with no pair weighed."""
    parent = list(range(len(olds) + len(news)))

    def root(at: int) -> int:
        while parent[at] != at:
            parent[at] = at = parent[parent[at]]
        return at

    holders: dict[object, tuple[list[int], list[int]]] = {}
    for side, configs, offset in ((0, olds, 0), (1, news, len(olds))):
        for index, config in enumerate(configs, offset):
            for key in kin[config]:
                holders.setdefault(key, ([], []))[side].append(index)
    for gone, came in holders.values():
        if gone and came:
            first = root(gone[0])
            for index in gone[1:] + came:
                parent[root(index)] = first
    joined: dict[int, tuple[list[Configuration], list[Configuration]]] = {}
    for index, config in enumerate([*olds, *news]):
        joined.setdefault(root(index), ([], []))[index >= len(olds)].append(config)
    # each in the order of its first dropped configuration (`olds` are sorted)
    return [(gone, came) for gone, came in joined.values() if gone and came]


def _match(
    dropped: set[Configuration], new: set[Configuration], dims: tuple[str, ...], kin: _Kin
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
        for olds, news in _components(group_olds, group_news, kin)
        # the shape first: one side is then one configuration, so the values are compared
        # in time linear in the other, never pair by pair
        if (len(olds) == len(news) == 1 or (many and min(len(olds), len(news)) == 1))
        and all(
            dimension_value(a, d) != dimension_value(b, d) for a in olds for b in news for d in dims
        )
    ]


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
    kin = _kin(dropped, old.stacks_by_configuration(), True)
    kin |= _kin(came, new.stacks_by_configuration(), False)
    whole |= {f.configurations_new[0]: f for f in facts if f.kind == "new-configuration"}
    # (dimensions, platform and values before and after) -> the configurations that moved so
    moves: dict[_Move, tuple[set[Configuration], set[Configuration]]] = defaultdict(
        lambda: (set(), set())
    )
    for plan in _PLANS:
        if not dropped or not came:
            break  # nothing left to pair
        for olds, news in _match(dropped, came, plan, kin):
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
