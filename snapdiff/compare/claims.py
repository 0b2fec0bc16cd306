"""Say each change of SPEC section 2a in one true sentence, merged across configurations
(each class's wording is its row of `classes.CLASSES`).

Records of the same class and versions in several configurations become one record (its
evidence the union of theirs) and one sentence: "`0.4.31` → `0.4.38` in all 9 `linux`
configurations". "all" is said only when the record covers every configuration the package
has on that platform, on both sides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..model import Configuration
from ..report import Change, Sentence, Words
from ..versions import versions_of
from .classes import CLASSES, Package
from .classify import ConfigVersions, Facts

__all__ = ["describe", "merge", "variant_sentence"]


def merge(facts: Facts) -> list[Change]:
    """One record per class and merge key (`ClassInfo.merge_key`: the versions, mostly; new and
    dropped configurations: one per class)."""
    groups: dict[tuple[object, ...], list[Change]] = {}
    for fact in facts:
        groups.setdefault(CLASSES[fact.kind].merge_key(fact), []).append(fact)
    # a record alone in its group is already its merge: its fields are sorted sets
    merged = [group[0] if len(group) == 1 else _merged(group) for group in groups.values()]
    # ties of class and size are broken by content, never by the order facts arrived in
    return sorted(
        merged,
        key=lambda c: (
            CLASSES[c.kind].rank,
            -len(c.specs_old) - len(c.specs_new),
            c.configurations_old,
            c.configurations_new,
            c.specs_old,
            c.specs_new,
        ),
    )


def _merged(group: list[Change]) -> Change:
    """Records of one class and merge key as one: the union of their evidence."""
    first = group[0]
    return Change(
        first.kind,
        _union(f.configurations_old for f in group),
        _union(f.configurations_new for f in group),
        versions_of(f.versions_old for f in group),
        versions_of(f.versions_new for f in group),
        tuple(sorted(h for f in group for h in f.specs_old)),
        tuple(sorted(h for f in group for h in f.specs_new)),
        first.dimensions,
        first.sentence,
    )


def _union(lists: Iterable[tuple[Configuration, ...]]) -> tuple[Configuration, ...]:
    return tuple(sorted({c for configs in lists for c in configs}))


def _sentence(change: Change, package: Package) -> Sentence:
    said = Words()
    CLASSES[change.kind].say(said, change, package)
    return said.sentence()


def describe(
    facts: Facts, old: ConfigVersions, new: ConfigVersions, spelling: Mapping[str, str]
) -> tuple[Change, ...]:
    """The package's records merged across configurations, each with its sentence.

    `old` and `new` are every configuration of the package on each side; `spelling` gives
    each normalised compiler and variant as the pages write it (the new side's first).
    """
    package = Package.of(old, new, spelling)
    return tuple(_said(change, _sentence(change, package)) for change in merge(facts))


def _said(change: Change, sentence: Sentence) -> Change:
    """The record with its sentence (built directly: `dataclasses.replace` costs a tenth of
    a release's explanations)."""
    return Change(
        change.kind,
        change.configurations_old,
        change.configurations_new,
        change.versions_old,
        change.versions_new,
        change.specs_old,
        change.specs_new,
        change.dimensions,
        sentence,
    )


def variant_sentence(
    added: Sequence[str], removed: Sequence[str], spelling: Mapping[str, str]
) -> Sentence | None:
    """ "variant values new: `~asan`, `amdgpu_target=auto`; gone: `patches=5c7a3c0`": the
    package's variant tokens on one side only, as its pages write them; None when there are
    none."""
    if not (added or removed):
        return None
    said = Words()
    plural = "s" if len(added) + len(removed) > 1 else ""
    for index, (word, values) in enumerate((("new", added), ("gone", removed))):
        if values:
            said.say("; " if index and added else f"variant value{plural} ")
            slots = ", ".join("{}" for _ in values)
            said.say(f"{word}: {slots}", *(spelling.get(v, v) for v in values))
    return said.sentence()
