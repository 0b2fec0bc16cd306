"""Say each change of SPEC section 2a in one true sentence, merged across configurations.

Records of the same class and versions in several configurations become one record (its
evidence the union of theirs) and one sentence: "`0.4.31` → `0.4.38` in all 9 `linux`
configurations". "all" is said only when the record covers every configuration the package
has on that platform, on both sides.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from ..model import Configuration
from ..report import Change, ChangeClass, Sentence
from ..versions import versions_of
from .classify import ConfigVersions, Facts
from .migrations import dimension_value

__all__ = ["describe", "merge", "variant_sentence"]

_WHOLE = ("new-configuration", "dropped-configuration")
# The order a package's records are said in: what a release engineer acts on first.
_ORDER: tuple[ChangeClass, ...] = (
    "downgrade",
    "upgrade",
    "migration",
    "rebuilt",
    "version-added",
    "version-retired",
    "more-builds",
    "fewer-builds",
    "new-configuration",
    "dropped-configuration",
)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def merge(facts: Facts) -> list[Change]:
    """One record per class and versions (new and dropped configurations: one per class)."""
    groups: dict[tuple[object, ...], list[Change]] = defaultdict(list)
    for fact in facts:
        if fact.kind == "migration":
            groups[(fact.kind, fact.configurations_old, fact.dimensions)].append(fact)
        elif fact.kind in _WHOLE:
            groups[(fact.kind,)].append(fact)
        else:
            groups[(fact.kind, fact.versions_old, fact.versions_new)].append(fact)
    merged = []
    for group in groups.values():
        first = group[0]
        merged.append(
            dataclasses.replace(
                first,
                configurations_old=_union(f.configurations_old for f in group),
                configurations_new=_union(f.configurations_new for f in group),
                versions_old=versions_of(f.versions_old for f in group),
                versions_new=versions_of(f.versions_new for f in group),
                specs_old=tuple(sorted(h for f in group for h in f.specs_old)),
                specs_new=tuple(sorted(h for f in group for h in f.specs_new)),
            )
        )
    rank = {kind: i for i, kind in enumerate(_ORDER)}
    # ties of class and size are broken by content, never by the order facts arrived in
    return sorted(
        merged,
        key=lambda c: (
            rank[c.kind],
            -len(c.specs_old) - len(c.specs_new),
            c.configurations_old,
            c.configurations_new,
            c.specs_old,
            c.specs_new,
        ),
    )


def _union(lists: Iterable[tuple[Configuration, ...]]) -> tuple[Configuration, ...]:
    return tuple(sorted({c for configs in lists for c in configs}))


class _Words:
    """Builds one sentence: words with `{}` slots, and the values that fill them."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.values: list[str] = []

    def say(self, words: str, *values: str) -> _Words:
        self.words.append(words)
        self.values += values
        return self

    def sentence(self) -> Sentence:
        return Sentence("".join(self.words), tuple(self.values))


def _where(
    configs: tuple[Configuration, ...], old: ConfigVersions, new: ConfigVersions, said: _Words
) -> None:
    """ "in all 3 `linux` configurations", "in 2 `linux` configurations", "in 4 configurations"."""
    platforms = {c[1] for c in configs}
    count = len(configs)
    if len(platforms) == 1:
        (platform,) = platforms
        every = {c for c in old if c[1] == platform} == {c for c in new if c[1] == platform}
        if every and set(configs) == {c for c in new if c[1] == platform}:
            if count == 1:
                said.say(" in its only {} configuration", platform)
            else:
                said.say(f" in all {count:,} {{}} configurations", platform)
        else:
            said.say(f" in {count:,} {{}} configuration{'s' * (count != 1)}", platform)
        return
    every = set(configs) == set(old) == set(new)
    said.say(f" in {'all ' if every else ''}{_plural(count, 'configuration')}")


def _value(said: _Words, dimension: str, value: str, spelling: Mapping[str, str]) -> None:
    if dimension == "compiler" and value == "none":
        said.say("no compiler ({})", value)
    elif dimension == "compiler":
        said.say("{}", spelling.get(value, value))
    else:
        said.say("{}", value)


def _side_values(configs: tuple[Configuration, ...], dimension: str) -> list[str]:
    """The distinct values of one (not variants) dimension on one side of a migration."""
    return sorted({str(dimension_value(c, dimension)) for c in configs})


def _moved(said: _Words, change: Change, dimension: str, spelling: Mapping[str, str]) -> None:
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


def _versions_moved(said: _Words, change: Change) -> None:
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
        return _plural(n_old, "configuration")
    return f"{_plural(n_old, 'configuration')} → {n_new:,}"


def _sentence(
    change: Change, old: ConfigVersions, new: ConfigVersions, spelling: Mapping[str, str]
) -> Sentence:
    said = _Words()
    n_old, n_new = len(change.specs_old), len(change.specs_new)
    configs = change.configurations_new or change.configurations_old
    kind = change.kind
    if kind == "rebuilt":
        said.say("rebuilt at {}", change.versions_new[0])
        _where(configs, old, new, said)
        said.say(f": {_plural(n_new, 'spec')} with {'a new hash' if n_new == 1 else 'new hashes'}")
    elif kind in ("upgrade", "downgrade"):
        said.say("{} → {}", change.versions_old[0], change.versions_new[0])
        said.say(" (downgrade)" if kind == "downgrade" else "")
        _where(configs, old, new, said)
        said.say(f": {n_old:,} → {_plural(n_new, 'spec')}")
    elif kind in ("version-retired", "version-added"):
        version = (change.versions_old or change.versions_new)[0]
        said.say("{} " + ("retired" if kind == "version-retired" else "added"), version)
        _where(configs, old, new, said)
        said.say(f": {_plural(n_old or n_new, 'spec')}")
    elif kind in ("more-builds", "fewer-builds"):
        more = kind == "more-builds"
        version = (change.versions_new if more else change.versions_old)[0]
        said.say(f"{n_new or n_old:,} {'more' if more else 'fewer'} ")
        said.say(f"build{'s' * ((n_new or n_old) != 1)} of {{}}", version)
        _where(configs, old, new, said)
    elif kind in _WHOLE:
        new_side = kind == "new-configuration"
        versions = change.versions_new if new_side else change.versions_old
        said.say(f"{_plural(n_new or n_old, 'spec')} in {len(configs):,} ")
        said.say(f"{'new' if new_side else 'dropped'} configuration{'s' * (len(configs) != 1)}")
        said.say(" (" + ", ".join("{}" for _ in versions) + ")", *versions)
    else:
        said.say("{}", change.configurations_old[0][1])
        for index, dimension in enumerate(change.dimensions):
            said.say(" and" if index else "")
            _moved(said, change, dimension, spelling)
        configs_old, configs_new = len(change.configurations_old), len(change.configurations_new)
        said.say(f": {_configurations(configs_old, configs_new)}, ")
        said.say(f"{n_old:,} → {_plural(n_new, 'spec')}")
        _versions_moved(said, change)
    return said.sentence()


def describe(
    facts: Facts, old: ConfigVersions, new: ConfigVersions, spelling: Mapping[str, str]
) -> tuple[Change, ...]:
    """The package's records merged across configurations, each with its sentence.

    `old` and `new` are every configuration of the package on each side; `spelling` gives
    each normalised compiler and variant as the pages write it (the new side's first).
    """
    return tuple(
        dataclasses.replace(change, sentence=_sentence(change, old, new, spelling))
        for change in merge(facts)
    )


def variant_sentence(
    added: Sequence[str], removed: Sequence[str], spelling: Mapping[str, str]
) -> Sentence | None:
    """ "variant values new: `~asan`, `amdgpu_target=auto`; gone: `patches=5c7a3c0`": the
    package's variant tokens on one side only, as its pages write them; None when there are
    none."""
    if not (added or removed):
        return None
    said = _Words()
    plural = "s" if len(added) + len(removed) > 1 else ""
    for index, (word, values) in enumerate((("new", added), ("gone", removed))):
        if values:
            said.say("; " if index and added else f"variant value{plural} ")
            slots = ", ".join("{}" for _ in values)
            said.say(f"{word}: {slots}", *(spelling.get(v, v) for v in values))
    return said.sentence()
