"""Why specs were rebuilt (SPEC section 6) in words: the causes grouped as a reader sees them and
the first screen's sentences, derived from `Report.rebuilds` (and, for records no spec of the
report names, its packages); every format and `snapdiff log` say these."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter, not_

from .labels import counted
from .rebuilds import FieldValue, MissingDependency, OwnChange, Rebuilds, Trigger
from .records import Report, Sentence, Words

_HASH = attrgetter("hash")

__all__ = [
    "FIRST_SCREEN_CAUSES",
    "Cause",
    "cause_sentence",
    "causes",
    "first_screen",
    "hash_scheme",
    "shown",
    "unexplained",
]

# Causes named on the first screen, as many as its other lists name (downgrades, removals):
# a day's causes are few large bumps and many small ones, and the rest are one fold away.
FIRST_SCREEN_CAUSES = 5
STACK_ROOT = "root"  # the merged cache: not a stack in any count (SPEC section 2a)


@dataclass(frozen=True, slots=True)
class Cause:
    """The triggers of one package with the same own changes and values (the same bump in
    several configurations or stacks): one line, counting distinct cascade specs."""

    name: str
    changes: tuple[OwnChange, ...]
    before: tuple[tuple[str, FieldValue], ...]
    after: tuple[tuple[str, FieldValue], ...]
    version: str  # of the first trigger: the same in all when "version" is no change
    triggers: tuple[str, ...]  # their hashes, sorted
    # what is counted, not listed (no order): the distinct cascade specs of any of them, and
    # those reached through a build edge from every one reaching them
    cascade: frozenset[str]
    build_only: frozenset[str]
    stacks: tuple[str, ...]  # stacks holding a trigger or a cascade spec, `root` left out


def _linked(triggers: Iterable[Trigger]) -> set[str]:
    """The cascade specs some of these triggers reach through a link or run path."""
    return set().union(*(set(t.cascade).difference(t.cascade_build_only) for t in triggers))


def _cause(triggers: list[Trigger]) -> Cause:
    """The triggers of one group as one cause."""
    first = triggers[0]
    if len(triggers) == 1:
        cascade, build_only = frozenset(first.cascade), frozenset(first.cascade_build_only)
    else:  # build-only: through build edges from every trigger reaching it
        cascade = frozenset().union(*(t.cascade for t in triggers))
        build_only = cascade.difference(_linked(triggers))
    stacks = {s for t in triggers for s in t.stacks} - {STACK_ROOT}
    return Cause(
        first.name,
        first.changes,
        first.before,
        first.after,
        first.version,
        tuple(sorted(t.hash for t in triggers)),
        cascade,
        build_only,
        tuple(sorted(stacks)),
    )


def _group(trigger: Trigger) -> tuple[object, ...]:
    """What triggers said in one line share: package, changes and values; for a recipe, the
    version rather than the package hashes (which differ between configurations)."""
    if "recipe" not in trigger.changes:
        return (trigger.name, trigger.changes, trigger.before, trigger.after)
    before = tuple(item for item in trigger.before if item[0] != "recipe")
    after = tuple(item for item in trigger.after if item[0] != "recipe")
    version = "" if "version" in trigger.changes else trigger.version
    return (trigger.name, trigger.changes, before, after, version)


def causes(rebuilds: Rebuilds) -> list[Cause]:
    """Triggers grouped by package, changes and values; most cascade specs first, then name,
    then the change (ties broken by content)."""
    groups: dict[tuple[object, ...], list[Trigger]] = {}
    for t in rebuilds.triggers:
        groups.setdefault(_group(t), []).append(t)
    found = [_cause(group) for group in groups.values()]
    return sorted(
        found, key=lambda c: (-len(c.cascade), c.name, repr((c.changes, c.before, c.after)))
    )


def _tokens(value: FieldValue) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else value


def _slots(values: tuple[str, ...]) -> str:
    return ", ".join("{}" for _ in values)


def _change(said: Words, kind: str, old: FieldValue, new: FieldValue) -> None:
    """One own change: `target {} → {}`; tokens only one side has: `variants {} added`."""
    before, after = _tokens(old), _tokens(new)
    if before and after:
        said.say(f"{kind} {_slots(before)} → {_slots(after)}", *before, *after)
    elif before or after:
        which = "removed" if before else "added"
        said.say(f"{kind} {_slots(before or after)} {which}", *(before or after))
    else:
        said.say(f"{kind} changed")


def _head(cause: Cause) -> Words:
    """The package and its own changes: "{} {} → {} (version)", "{} recipe changed, same
    version"."""
    old, new = dict(cause.before), dict(cause.after)
    said = Words().say("{}", cause.name)
    version = "version" in cause.changes
    several = f"in {counted(len(cause.triggers), 'spec')}" if len(cause.triggers) > 1 else ""
    if version:
        words = f" {{}} → {{}} (version{', ' + several if several else ''})"
        said.say(words, *_tokens(old.get("version", "")), *_tokens(new.get("version", "")))
    for n, kind in enumerate(k for k in cause.changes if k != "version"):
        said.say(", " if n or version else " ")
        if kind == "recipe":
            if version:
                said.say("recipe changed")
            else:
                said.say("recipe changed, same version {}", cause.version)
        else:
            _change(said, kind, old.get(kind, ()), new.get(kind, ()))
    return said.say(f" ({several})" if several and not version else "")


def cause_sentence(cause: Cause) -> Sentence:
    """ "{} {} → {} (version, in 3 specs): 2,112 other specs rebuilt in 14 stacks, 1,890 of
    them through build dependencies only" (the triggers are not among the specs counted)"""
    said = _head(cause)
    n, build = len(cause.cascade), len(cause.build_only)
    if not n:
        return said.say(": no other spec rebuilt through it").sentence()
    said.say(f": {n:,} other {'spec' if n == 1 else 'specs'} rebuilt")
    if cause.stacks:
        said.say(f" in {counted(len(cause.stacks), 'stack')}")
    if build:
        which = "" if n == 1 else "all of them " if build == n else f"{build:,} of them "
        said.say(f", {which}through build dependencies only")
    return said.sentence()


def hash_scheme(n: int) -> Sentence:
    """The hash-scheme specs, however many, in one sentence."""
    its = "its" if n == 1 else "their"
    return Sentence(
        f"{counted(n, 'spec')} rebuilt with no change of {its} own, nor of any of {its} "
        "dependencies beyond a new hash: a change of hash scheme (a new Spack version or a "
        "newly hashed field rehashes every spec)"
    )


def unexplained(n: int) -> Sentence:
    """The specs whose path down leaves the index."""
    return Sentence(f"{counted(n, 'spec')} rebuilt for a cause not in this index")


def _several(found: list[Cause]) -> int:
    """Specs rebuilt through more than one cause (each counted under every one)."""
    seen = Counter(chain.from_iterable(cause.cascade for cause in found))  # counted in C
    return sum(map((1).__lt__, seen.values()))


def _unbuilt(report: Report, rebuilds: Rebuilds) -> int:
    """Rebuilt records that are no spec of the report: records the cache holds no binary of
    (externals), which the counts of specs added leave out."""
    added = set(chain.from_iterable(package.specs_added for package in report.packages))
    rebuilt = chain(
        map(_HASH, rebuilds.triggers),
        map(_HASH, rebuilds.cascades),
        rebuilds.hash_scheme,
        rebuilds.unexplained,
    )
    return sum(map(not_, map(added.__contains__, rebuilt)))


def _build_only(rebuilds: Rebuilds) -> int:
    """Cascade specs reached through a build edge from every cause they have: rebuilt with no
    link or run path to any change (a cause's own build-only count may hide a link path from
    another cause)."""
    linked = _linked(rebuilds.triggers)
    return sum(map(not_, map(linked.__contains__, map(_HASH, rebuilds.cascades))))


def _total(report: Report, rebuilds: Rebuilds, found: list[Cause]) -> Sentence:
    """ "20,676 distinct specs rebuilt in all, 24 at a new version; 19,116 through several
    causes, counted under each; 1,039 through build dependencies only from every cause" """
    said = f"{counted(rebuilds.rebuilt, 'distinct spec')} rebuilt in all"
    unbuilt = _unbuilt(report, rebuilds)
    if unbuilt:
        records = "1 of them a record" if unbuilt == 1 else f"{unbuilt:,} of them records"
        said += f" ({records} with no binary in this cache, not counted as specs added)"
    bumped = sum(1 for t in rebuilds.triggers if "version" in t.changes)
    if bumped:
        said += f", {bumped:,} at a new version"
    several = _several(found)
    if several:
        said += f"; {several:,} through several causes, counted under each"
    build_only = _build_only(rebuilds)
    if build_only and len(rebuilds.triggers) > 1:
        said += f"; {build_only:,} through build dependencies only from every cause"
    return Sentence(said)


def _missing(gaps: tuple[MissingDependency, ...]) -> Sentence | None:
    """ "4 specs depend on binaries this cache does not hold (newly for 3 of them): {}, {}" """
    specs = {gap.hash for gap in gaps}
    if not specs:
        return None
    newly = len({gap.hash for gap in gaps if gap.new})
    binaries = {gap.dependency for gap in gaps}
    verb = "depends on" if len(specs) == 1 else "depend on"
    what = "a binary" if len(binaries) == 1 else f"{len(binaries):,} binaries"
    words = f"{counted(len(specs), 'spec')} {verb} {what} this cache does not hold"
    if newly == len(specs):
        words += " (newly)" if newly == 1 else " (all newly)"
    elif newly:
        words += f" ({newly:,} of the {len(specs):,} specs newly)"
    names = sorted({(not gap.new, gap.dependency_name) for gap in gaps})
    first = list(dict.fromkeys(name for _, name in names))  # new ones first, each once
    shown = first[:FIRST_SCREEN_CAUSES]
    more = f", … and {len(first) - len(shown):,} more" if len(first) > len(shown) else ""
    return Sentence(f"{words}: {_slots(tuple(shown))}{more}", tuple(shown))


def shown(report: Report) -> bool:
    """Whether the report says anything of rebuilds: both sides were build-cache indexes and
    a spec was rebuilt or depends on a binary the cache does not hold."""
    found = report.rebuilds
    return found is not None and bool(found.rebuilt or found.missing_dependencies)


def first_screen(
    report: Report, found: list[Cause] | None = None
) -> tuple[list[Sentence], Sentence | None]:
    """The first screen's lines, in SPEC section 6's order: the largest causes, the hash-scheme
    and unexplained specs, how many causes more, the distinct total; then the missing binaries
    apart (a format may mark them). Nothing for pages. `found`: the report's `causes`, if known."""
    rebuilds = report.rebuilds
    if rebuilds is None or not shown(report):
        return [], None
    found = causes(rebuilds) if found is None else found
    lines = [cause_sentence(c) for c in found[:FIRST_SCREEN_CAUSES]]
    if rebuilds.hash_scheme:
        lines.append(hash_scheme(len(rebuilds.hash_scheme)))
    if rebuilds.unexplained:
        lines.append(unexplained(len(rebuilds.unexplained)))
    if len(found) > FIRST_SCREEN_CAUSES:
        lines.append(Sentence(f"… and {counted(len(found) - FIRST_SCREEN_CAUSES, 'more cause')}"))
    if rebuilds.rebuilt:
        lines.append(_total(report, rebuilds, found))
    return lines, _missing(rebuilds.missing_dependencies)
