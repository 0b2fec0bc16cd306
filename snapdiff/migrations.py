"""Migrations (SPEC section 2a): dropped configurations back with one or two values changed.

A dropped configuration c and a new one c' form a migration along dimensions D when they are
equal on every dimension outside D, and no other dropped or new configuration of the package
is equal to them there: a value that vanished is never paired with one that merely appeared
elsewhere. One dimension is tried before two.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from .classify import Facts
from .model import Configuration
from .report import Change
from .versions import versions_of

__all__ = ["DIMENSIONS", "dimension_value", "find_migrations"]

# A dimension's place in a Configuration (os, platform, target, compiler, variants); the
# platform is never a dimension: values are compared within one platform.
DIMENSIONS = {"os": 0, "compiler": 3, "target": 2, "variants": 4}
_ORDER = tuple(DIMENSIONS)
_PLANS = [(d,) for d in _ORDER] + list(combinations(_ORDER, 2))

Pair = tuple[Configuration, Configuration]


def dimension_value(config: Configuration, dimension: str) -> str | tuple[str, ...]:
    """A configuration's value along one dimension."""
    return config[DIMENSIONS[dimension]]


def _rest(config: Configuration, dims: tuple[str, ...]) -> tuple[object, ...]:
    """The configuration with the values along `dims` blanked out."""
    places = {DIMENSIONS[d] for d in dims}
    return tuple(None if i in places else v for i, v in enumerate(config))


def _match(
    dropped: set[Configuration], new: set[Configuration], dims: tuple[str, ...]
) -> list[Pair]:
    """The dropped and new configurations that pair along `dims` and nothing else, unambiguously."""
    groups: dict[tuple[object, ...], tuple[list[Configuration], list[Configuration]]] = defaultdict(
        lambda: ([], [])
    )
    for config in sorted(dropped):
        groups[_rest(config, dims)][0].append(config)
    for config in sorted(new):
        groups[_rest(config, dims)][1].append(config)
    return [
        (olds[0], news[0])
        for olds, news in groups.values()
        if len(olds) == 1
        and len(news) == 1
        and all(dimension_value(olds[0], d) != dimension_value(news[0], d) for d in dims)
    ]


def find_migrations(facts: Facts) -> Facts:
    """The facts with new and dropped configurations that migrate replaced by migrations.

    Migrations with the same dimensions and the same values before and after are one fact.
    """
    whole = {f.configurations_old[0]: f for f in facts if f.kind == "dropped-configuration"}
    whole |= {f.configurations_new[0]: f for f in facts if f.kind == "new-configuration"}
    dropped = {f.configurations_old[0] for f in facts if f.kind == "dropped-configuration"}
    new = {f.configurations_new[0] for f in facts if f.kind == "new-configuration"}
    # (dimensions, platform and values before and after) -> the pairs that moved so
    moves: dict[tuple[tuple[str, ...], tuple[object, ...]], list[Pair]] = defaultdict(list)
    for plan in _PLANS:
        for old, came in _match(dropped, new, plan):
            values = tuple(dimension_value(c, d) for c in (old, came) for d in plan)
            moves[(plan, (old[1], *values))].append((old, came))
            dropped.discard(old)
            new.discard(came)
    if not moves:
        return facts
    taken = {c for pairs in moves.values() for pair in pairs for c in pair}
    kept = [f for f in facts if not set(f.configurations_old + f.configurations_new) & taken]
    for (dims, _), pairs in moves.items():
        olds = tuple(sorted(old for old, _ in pairs))
        news = tuple(sorted(came for _, came in pairs))
        kept.append(
            Change(
                "migration",
                olds,
                news,
                versions_of(whole[c].versions_old for c in olds),
                versions_of(whole[c].versions_new for c in news),
                tuple(sorted(h for c in olds for h in whole[c].specs_old)),
                tuple(sorted(h for c in news for h in whole[c].specs_new)),
                dims,
            )
        )
    return kept
