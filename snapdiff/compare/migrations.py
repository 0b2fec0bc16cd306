"""Migrations (SPEC section 2a): dropped configurations back with one or two values changed.

Dropped configurations and new ones form a migration along dimensions D when they are equal on
every dimension outside D and no other dropped or new configuration of the package is equal to
them there: a value that vanished is never paired with one that merely appeared elsewhere. One
to one, or (along one dimension other than variants) many to one and one to many: `gcc@11.4.0` and
`oneapi@2024.2.0` folding into no compiler (`none`). One dimension is tried before two; every
choice is made in sorted order, so the result never depends on set order or the hash seed.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from ..model import Configuration
from ..report import Change
from ..versions import versions_of
from .classify import Facts

__all__ = ["DIMENSIONS", "dimension_value", "find_migrations"]

# The fields of a Configuration a migration moves along, in the order they are tried; the
# platform is never a dimension: values are compared within one platform.
DIMENSIONS = ("os", "compiler", "target", "variants")
_PLANS: list[tuple[str, ...]] = [(d,) for d in DIMENSIONS] + list(combinations(DIMENSIONS, 2))


def dimension_value(config: Configuration, dimension: str) -> str | tuple[str, ...]:
    """A configuration's value along one dimension."""
    value: str | tuple[str, ...] = getattr(config, dimension)
    return value


def _rest(config: Configuration, dims: tuple[str, ...]) -> tuple[object, ...]:
    """The configuration with the values along `dims` blanked out."""
    return tuple(
        None if name in dims else value for name, value in zip(config._fields, config, strict=True)
    )


def _match(
    dropped: set[Configuration], new: set[Configuration], dims: tuple[str, ...]
) -> list[tuple[list[Configuration], list[Configuration]]]:
    """The dropped and new configurations that pair along `dims` and nothing else, unambiguously:
    one to one, many to one or one to many (along one dimension other than variants), every value
    before differing from every value after along each of `dims`."""
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
        for _, (olds, news) in sorted(groups.items(), key=lambda item: repr(item[0]))
        if olds
        and news
        and (len(olds) == len(news) == 1 or (many and min(len(olds), len(news)) == 1))
        and all(
            dimension_value(a, d) != dimension_value(b, d) for a in olds for b in news for d in dims
        )
    ]


def _plans(dropped: set[Configuration], new: set[Configuration]) -> list[tuple[str, ...]]:
    """The plans that can pair anything: those holding every dimension some dropped and some
    new configuration differ on (a pair differing on the platform never pairs). The fields
    each pair differs on are worked out once, not once a plan."""
    fields = Configuration._fields
    apart = {
        frozenset(name for name, x, y in zip(fields, a, b, strict=True) if x != y)
        for a in dropped
        for b in new
    }
    return [plan for plan in _PLANS if any(differ.issubset(plan) for differ in apart)]


# A migration's dimensions, platform, and values before and after
_Move = tuple[tuple[str, ...], str, tuple[object, ...], tuple[object, ...]]


def _values(configs: list[Configuration], dims: tuple[str, ...]) -> tuple[object, ...]:
    """The distinct values of these configurations along `dims`, sorted."""
    return tuple(sorted({tuple(dimension_value(c, d) for d in dims) for c in configs}))


def find_migrations(facts: Facts) -> Facts:
    """The facts with new and dropped configurations that migrate replaced by migrations.

    Migrations with the same dimensions and the same values before and after are one fact.
    """
    whole = {f.configurations_old[0]: f for f in facts if f.kind == "dropped-configuration"}
    dropped = set(whole)
    new = {f.configurations_new[0] for f in facts if f.kind == "new-configuration"}
    if not dropped or not new:
        return facts  # nothing to pair
    whole |= {f.configurations_new[0]: f for f in facts if f.kind == "new-configuration"}
    # (dimensions, platform and values before and after) -> the configurations that moved so
    moves: dict[_Move, tuple[set[Configuration], set[Configuration]]] = defaultdict(
        lambda: (set(), set())
    )
    for plan in _plans(dropped, new):
        if not dropped or not new:
            break  # nothing left to pair
        for olds, news in _match(dropped, new, plan):
            move: _Move = (plan, olds[0].platform, _values(olds, plan), _values(news, plan))
            moves[move][0].update(olds)
            moves[move][1].update(news)
            dropped.difference_update(olds)
            new.difference_update(news)
    if not moves:
        return facts
    taken = {c for gone, came in moves.values() for c in gone | came}
    kept = [f for f in facts if not set(f.configurations_old + f.configurations_new) & taken]
    for key, (gone, came) in sorted(moves.items(), key=lambda item: repr(item[0])):
        before, after = tuple(sorted(gone)), tuple(sorted(came))
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
