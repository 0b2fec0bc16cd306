"""Say each change of SPEC section 2a in one true sentence, merged across configurations
(each class's wording is its row of `classes.CLASSES`).

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
from ..report import Change, Sentence
from ..versions import versions_of
from .classes import CLASSES, Package, Words
from .classify import ConfigVersions, Facts

__all__ = ["describe", "merge", "variant_sentence"]


def merge(facts: Facts) -> list[Change]:
    """One record per class and merge key (`ClassInfo.merge_key`: the versions, mostly; new and
    dropped configurations: one per class)."""
    groups: dict[tuple[object, ...], list[Change]] = defaultdict(list)
    for fact in facts:
        groups[CLASSES[fact.kind].merge_key(fact)].append(fact)
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
    package = Package(old, new, spelling)
    return tuple(
        dataclasses.replace(change, sentence=_sentence(change, package)) for change in merge(facts)
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
