"""The classes of explanation (SPEC section 2a), one table: for each, where it is said in a
package's list, which records merge into one, how its sentence is worded, and its words in a
summary line. Adding a class means one row here (and the rule in `classify` that decides it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from ..model import Configuration
from ..report import Change, ChangeClass, Words, counted
from .classify import ConfigVersions
from .migrations import dimension_value

__all__ = ["CLASSES", "ClassInfo", "Counted", "Package"]


class Package(NamedTuple):
    """What a record's sentence needs of its package: every configuration on each side, each
    normalised compiler and variant as the pages write it, per platform the number of its
    configurations on the new side and whether the old side has the same ones, and whether
    both sides have the same configurations (worked out once a package, not once a record: a
    package can have thousands of records)."""

    old: ConfigVersions
    new: ConfigVersions
    spelling: Mapping[str, str]
    platforms: Mapping[str, tuple[int, bool]]
    alike: bool

    @classmethod
    def of(cls, old: ConfigVersions, new: ConfigVersions, spelling: Mapping[str, str]) -> Package:
        """The package with these configurations and spellings."""
        sides: tuple[dict[str, set[Configuration]], ...] = ({}, {})
        for side, configs in zip(sides, (old, new), strict=True):
            for config in configs:
                side.setdefault(config.platform, set()).add(config)
        before, after = sides
        platforms = {p: (len(here), before.get(p) == here) for p, here in after.items()}
        return cls(old, new, spelling, platforms, old.keys() == new.keys())


def _where(change: Change, package: Package, said: Words) -> None:
    """ "in all 3 `linux` configurations", "in 2 `linux` configurations", "in 4 configurations"."""
    configs = change.configurations_new or change.configurations_old
    new = package.new
    platforms = {c.platform for c in configs}
    count = len(configs)
    distinct = len(set(configs))
    everywhere = all(c in new for c in configs)  # then they are every one when as many
    if len(platforms) == 1:
        (platform,) = platforms
        here, every = package.platforms.get(platform, (0, False))
        if every and everywhere and distinct == here:
            if count == 1:
                said.say(" in its only {} configuration", platform)
            else:
                said.say(f" in all {count:,} {{}} configurations", platform)
        else:
            said.say(f" in {count:,} {{}} configuration{'s' * (count != 1)}", platform)
        return
    every = package.alike and everywhere and distinct == len(new)
    said.say(f" in {'all ' if every else ''}{counted(count, 'configuration')}")


def _rebuilt(said: Words, change: Change, package: Package) -> None:
    n_new = len(change.specs_new)
    said.say("rebuilt at {}", change.versions_new[0])
    _where(change, package, said)
    said.say(f": {counted(n_new, 'spec')} with {'a new hash' if n_new == 1 else 'new hashes'}")


def _bumped(said: Words, change: Change, package: Package) -> None:
    said.say("{} → {}", change.versions_old[0], change.versions_new[0])
    said.say(" (downgrade)" if change.kind == "downgrade" else "")
    _where(change, package, said)
    said.say(f": {len(change.specs_old):,} → {counted(len(change.specs_new), 'spec')}")


def _version(said: Words, change: Change, package: Package) -> None:
    version = (change.versions_old or change.versions_new)[0]
    said.say("{} " + ("retired" if change.kind == "version-retired" else "added"), version)
    _where(change, package, said)
    said.say(f": {counted(len(change.specs_old) or len(change.specs_new), 'spec')}")


def _builds(said: Words, change: Change, package: Package) -> None:
    more = change.kind == "more-builds"
    version = (change.versions_new if more else change.versions_old)[0]
    count = len(change.specs_new) or len(change.specs_old)
    said.say(f"{count:,} {'more' if more else 'fewer'} ")
    said.say(f"build{'s' * (count != 1)} of {{}}", version)
    _where(change, package, said)


def _whole(said: Words, change: Change, package: Package) -> None:
    new_side = change.kind == "new-configuration"
    configs = change.configurations_new or change.configurations_old
    versions = change.versions_new if new_side else change.versions_old
    specs = len(change.specs_new) or len(change.specs_old)
    said.say(f"{counted(specs, 'spec')} in {len(configs):,} ")
    said.say(f"{'new' if new_side else 'dropped'} configuration{'s' * (len(configs) != 1)}")
    said.say(" (" + ", ".join("{}" for _ in versions) + ")", *versions)


def _value(said: Words, dimension: str, value: str, spelling: Mapping[str, str]) -> None:
    if dimension == "compiler" and value == "none":
        said.say("no compiler ({})", value)
    elif dimension == "compiler":
        said.say("{}", spelling.get(value, value))
    else:
        said.say("{}", value)


def _side_values(configs: tuple[Configuration, ...], dimension: str) -> list[str]:
    """The distinct values of one (not variants) dimension on one side of a migration."""
    return sorted({str(dimension_value(c, dimension)) for c in configs})


def _moved(said: Words, change: Change, dimension: str, spelling: Mapping[str, str]) -> None:
    """`os ubuntu22.04 → ubuntu24.04`, `compiler gcc@11.4.0, oneapi@2024.2.0 → no compiler
    (none)`, `variants +backend=tensorflow`."""
    said.say(f" {dimension} ")
    if dimension == "variants":  # one to one: every configuration moved by the same tokens
        before = set(dimension_value(change.configurations_old[0], dimension))
        after = set(dimension_value(change.configurations_new[0], dimension))
        parts = [("−", v) for v in sorted(before - after)]
        parts += [("+", v) for v in sorted(after - before)]
        for index, (sign, variant) in enumerate(parts):
            said.say(f"{', ' if index else ''}{sign}{{}}", spelling.get(variant, variant))
        return
    for side, configs in enumerate((change.configurations_old, change.configurations_new)):
        said.say(" → " if side else "")
        for index, value in enumerate(_side_values(configs, dimension)):
            said.say(", " if index else "")
            _value(said, dimension, value, spelling)


def _versions_moved(said: Words, change: Change) -> None:
    """ "; versions 3.0.2 → 3.0.4, 3.1.0": the versions on one side of a migration only (none
    said when both sides have the same versions, which the sentence then claims)."""
    gone = [v for v in change.versions_old if v not in change.versions_new]
    came = [v for v in change.versions_new if v not in change.versions_old]
    if gone and came:
        said.say("; versions " + ", ".join("{}" for _ in gone), *gone)
        said.say(" → " + ", ".join("{}" for _ in came), *came)
    elif came:
        said.say(f"; new {'version' if len(came) == 1 else 'versions'} ")
        said.say(", ".join("{}" for _ in came), *came)
    elif gone:
        said.say(f"; {'version' if len(gone) == 1 else 'versions'} ")
        said.say(", ".join("{}" for _ in gone) + " no longer built", *gone)


def _configurations(n_old: int, n_new: int) -> str:
    """ "3 configurations", or "2 configurations → 1" when a migration folds or splits them."""
    if n_old == n_new:
        return counted(n_old, "configuration")
    return f"{counted(n_old, 'configuration')} → {n_new:,}"


def _migration(said: Words, change: Change, package: Package) -> None:
    said.say("{}", change.configurations_old[0].platform)
    for index, dimension in enumerate(change.dimensions):
        said.say(" and" if index else "")
        _moved(said, change, dimension, package.spelling)
    configs_old, configs_new = len(change.configurations_old), len(change.configurations_new)
    said.say(f": {_configurations(configs_old, configs_new)}, ")
    said.say(f"{len(change.specs_old):,} → {counted(len(change.specs_new), 'spec')}")
    _versions_moved(said, change)


def _by_versions(change: Change) -> tuple[object, ...]:
    return (change.kind, change.versions_old, change.versions_new)


def _by_class(change: Change) -> tuple[object, ...]:
    return (change.kind,)


def _by_move(change: Change) -> tuple[object, ...]:
    return (change.kind, change.configurations_old, change.dimensions)


class Counted(NamedTuple):
    """A class's words in a summary line after its count: for one spec, and for several."""

    one: str
    many: str

    def agreeing(self, count: int) -> str:
        """The words that agree with the count before them: "1 in a new configuration"."""
        return self.one if count == 1 else self.many


def _same(words: str) -> Counted:
    """Words that read right after any count ("upgraded in a configuration kept")."""
    return Counted(words, words)


@dataclass(frozen=True, slots=True)
class ClassInfo:
    """One class of explanation: `rank` orders a package's records (what a release engineer
    acts on first); records with the same `merge_key` become one; `say` words its sentence;
    `added` says what happened to its added specs in a summary line, `removed` to its removed
    ones (when other words); `lists` when its configurations are listed under its sentence;
    `lost` when its removed specs left with nothing of theirs in their place (no rebuild,
    upgrade, downgrade or migration: what the `removed-specs` gate counts)."""

    rank: int
    merge_key: Callable[[Change], tuple[object, ...]]
    say: Callable[[Words, Change, Package], None]
    added: Counted
    removed: Counted | None = None
    lists: bool = False
    lost: bool = False

    def summary(self, added: bool, count: int) -> str:
        """What happened to `count` of the class's added (or removed) specs, in a summary
        line after that count."""
        words = self.added if added or self.removed is None else self.removed
        return words.agreeing(count)


# In the order of `ChangeClass`, which JSON's `specs_by_class` and the summary lines follow.
CLASSES: dict[ChangeClass, ClassInfo] = {
    "rebuilt": ClassInfo(
        3, _by_versions, _rebuilt, _same("rebuilt (same version and configuration, new hash)")
    ),
    "upgrade": ClassInfo(
        1,
        _by_versions,
        _bumped,
        _same("upgraded in a configuration kept"),
        _same("of a version upgraded in a configuration kept"),
    ),
    "downgrade": ClassInfo(
        0,
        _by_versions,
        _bumped,
        _same("downgraded in a configuration kept"),
        _same("of a version downgraded in a configuration kept"),
    ),
    "version-retired": ClassInfo(
        5,
        _by_versions,
        _version,
        Counted(
            "of a version retired from a configuration kept",
            "of versions retired from a configuration kept",
        ),
        lost=True,
    ),
    "version-added": ClassInfo(
        4,
        _by_versions,
        _version,
        Counted(
            "of a version added to a configuration kept",
            "of versions added to a configuration kept",
        ),
    ),
    "more-builds": ClassInfo(
        6,
        _by_versions,
        _builds,
        Counted("more build of a version kept", "more builds of a version kept"),
    ),
    "fewer-builds": ClassInfo(
        7,
        _by_versions,
        _builds,
        Counted("fewer build of a version kept", "fewer builds of a version kept"),
        lost=True,
    ),
    "new-configuration": ClassInfo(
        8,
        _by_class,
        _whole,
        Counted("in a new configuration", "in new configurations"),
        lists=True,
    ),
    "dropped-configuration": ClassInfo(
        9,
        _by_class,
        _whole,
        Counted("in a dropped configuration", "in dropped configurations"),
        lists=True,
        lost=True,
    ),
    "migration": ClassInfo(
        2,
        _by_move,
        _migration,
        Counted("in a configuration that migrated", "in configurations that migrated"),
    ),
}
