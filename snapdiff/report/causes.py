"""Why specs were rebuilt (SPEC section 6) in words: the causes grouped as a reader sees them and
the first screen's sentences, derived from `Report.rebuilds` (and, for records no spec of the
report names, its packages); every format and `snapdiff log` say these."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter, not_

from ..model import normal_compiler
from ..versions import version_key
from .labels import counted
from .rebuilds import (
    FieldValue,
    MissingDependency,
    Move,
    NewBuild,
    OwnChange,
    Rebuilds,
    Scheme,
    Trigger,
)
from .records import Report, Sentence, Words

_HASH = attrgetter("hash")

__all__ = [
    "FIRST_SCREEN_CAUSES",
    "Cause",
    "Causing",
    "cause_sentence",
    "causes",
    "first_screen",
    "hash_scheme",
    "move_sentence",
    "said_variants",
    "scheme_sentence",
    "shown",
    "unexplained",
]

# Causes named on the first screen, as many as its other lists name (downgrades, removals):
# a day's causes are few large bumps and many small ones, and the rest are one fold away.
FIRST_SCREEN_CAUSES = 5
STACK_ROOT = "root"  # the merged cache: not a stack in any count (SPEC section 2a)


@dataclass(frozen=True, slots=True)
class Cause:
    """One distinct change and the triggers that made it (the same bump in several
    configurations or stacks, or one dependency switch in several packages), or the new builds
    of one package and version: one line, counting distinct cascade specs."""

    name: str  # the package that changed; "" for a dependency switch made in several
    names: tuple[str, ...]  # the packages of its triggers, sorted
    changes: tuple[OwnChange, ...]  # none for new builds
    before: tuple[tuple[str, FieldValue], ...]
    after: tuple[tuple[str, FieldValue], ...]
    version: str  # of the first trigger: the same in all when "version" is no change
    triggers: tuple[str, ...]  # their hashes (or the new builds'), sorted
    # how many distinct cascade specs any of them has, and of those how many are reached
    # through a build edge from every one reaching them
    specs: int
    specs_build_only: int
    stacks: tuple[str, ...]  # stacks holding a trigger or a cascade spec, `root` left out
    new_build: bool = False
    # the records of its triggers (or new builds), whose cascades are its specs: the specs are
    # gathered when asked (`cascade`), never kept, so that causes whose cascades overlap (a
    # ladder of triggers) hold no copy of them
    group: tuple[Causing, ...] = ()

    def gathered(self) -> tuple[Collection[str], Collection[str]]:
        """The distinct cascade specs of its triggers (no order), and those of them reached
        through a build edge from every trigger reaching them: gathered anew at each call."""
        return _union(self.group)

    @property
    def cascade(self) -> Collection[str]:
        """The distinct cascade specs of its triggers (no order), gathered anew."""
        return self.gathered()[0]


Causing = Trigger | NewBuild  # what a cascade is reached from


def _linked(triggers: Iterable[Causing]) -> set[str]:
    """The cascade specs some of these triggers reach through a link or run path."""
    return set().union(*(set(t.cascade).difference(t.cascade_build_only) for t in triggers))


def _union(group: tuple[Causing, ...]) -> tuple[Collection[str], Collection[str]]:
    """The distinct cascade specs of a group of triggers and those of them reached through a
    build edge from every one reaching them (a trigger's own lists, when it is alone)."""
    if len(group) == 1:
        return group[0].cascade, group[0].cascade_build_only
    cascade = frozenset().union(*(t.cascade for t in group))
    return cascade, cascade.difference(_linked(group))


def _cause(group: list[Causing], name: str) -> Cause:
    """The triggers (or new builds) of one group as one cause."""
    first = group[0]
    cascade, build_only = _union(tuple(group))
    stacks = {s for t in group for s in t.stacks} - {STACK_ROOT}
    built = isinstance(first, NewBuild)
    return Cause(
        name,
        tuple(sorted({t.name for t in group})),
        () if isinstance(first, NewBuild) else first.changes,
        () if isinstance(first, NewBuild) else first.before,
        () if isinstance(first, NewBuild) else first.after,
        first.version,
        tuple(sorted(t.hash for t in group)),
        len(cascade),
        len(build_only),
        tuple(sorted(stacks)),
        built,
        tuple(group),
    )


def _group(trigger: Trigger) -> tuple[object, ...]:
    """What triggers said in one line share: package (none for a dependency switch alone, the
    same in any package), changes and values; for a recipe, the version rather than the package
    hashes (which differ between configurations)."""
    if trigger.changes == ("dependencies",):
        return ("", trigger.changes, trigger.before, trigger.after)
    if "recipe" not in trigger.changes:
        return (trigger.name, trigger.changes, trigger.before, trigger.after)
    before = tuple(item for item in trigger.before if item[0] != "recipe")
    after = tuple(item for item in trigger.after if item[0] != "recipe")
    version = "" if "version" in trigger.changes else trigger.version
    return (trigger.name, trigger.changes, before, after, version)


def _moved(trigger: Trigger, moves: Iterable[Move]) -> bool:
    """Whether every own change of a trigger is one of the moves (counted under them)."""
    before, after = dict(trigger.before), dict(trigger.after)
    made = {(m.dimension, m.before, m.after) for m in moves}
    return all((kind, before[kind], after[kind]) in made for kind in trigger.changes)


def causes(rebuilds: Rebuilds) -> list[Cause]:
    """Triggers grouped by distinct change (a trigger whose every change is a move is counted
    under the move), new builds by package and version; most cascade specs first, then name,
    then the change (ties broken by content)."""
    groups: dict[tuple[object, ...], list[Causing]] = {}
    for t in rebuilds.triggers:
        if not (rebuilds.moves and _moved(t, rebuilds.moves)):
            groups.setdefault(_group(t), []).append(t)
    for b in rebuilds.new_builds:
        groups.setdefault(("new build", b.name, b.version), []).append(b)
    found = [
        _cause(group, str(key[0] if key[0] != "new build" else key[1]))
        for key, group in groups.items()
    ]
    return sorted(
        found,
        key=lambda c: (-c.specs, c.name, c.names, repr((c.changes, c.before, c.after))),
    )


def _tokens(value: FieldValue) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else value


def _slots(values: tuple[str, ...]) -> str:
    return ", ".join("{}" for _ in values)


def _built(token: str) -> tuple[str, str]:
    """A build said as a spec text (`py-setuptools@59.4.0 ^…`): its package and version."""
    name, _, version = token.partition(" ")[0].partition("@")
    return name, version


def _lower(was: str, now: str) -> bool:
    return bool(was and now) and version_key(now) < version_key(was)


def _switches(said: Words, old: FieldValue, new: FieldValue) -> None:
    """A dependency change: each dependency resolved to another build ("{} → {}", "a
    downgrade" when its version went down), then the names only one side has."""
    before = {_built(token)[0]: token for token in _tokens(old)}
    after = {_built(token)[0]: token for token in _tokens(new)}
    parts: list[tuple[str, tuple[str, ...]]] = []
    for name in sorted(before.keys() & after.keys()):
        lower = _lower(_built(before[name])[1], _built(after[name])[1])
        parts.append(("{} → {}" + (" (a downgrade)" if lower else ""), (before[name], after[name])))
    for which, mine, theirs in (("removed", before, after), ("added", after, before)):
        only = _cut(tuple(mine[name] for name in sorted(mine.keys() - theirs.keys())))
        if only:
            parts.append((f"{_slots(only)} {which}", only))
    said.say("dependency " if len(before.keys() | after.keys()) == 1 else "dependencies ")
    said.say(", ".join(words for words, _ in parts), *(v for _, values in parts for v in values))


VARIANTS_SAID = 4  # variant tokens said of one side of a change, then "… and N more"


def _variant(token: str) -> str:
    """A variant token as said: a patch list's checksums cut to 7 characters."""
    name, _, value = token.partition("=")
    if name != "patches":
        return token
    return f"patches={','.join(p[:7] for p in value.split(','))}"


def _cut(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """A list longer than a line: its first items and "… and N more"."""
    if len(tokens) <= VARIANTS_SAID:
        return tokens
    return (*tokens[: VARIANTS_SAID - 1], f"… and {len(tokens) - VARIANTS_SAID + 1} more")


def said_variants(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """Variant tokens as a sentence says them: patches cut to 7 characters, a list longer than
    a line cut to its first ones and "… and N more"."""
    return _cut(tuple(map(_variant, tokens)))


def _change(said: Words, kind: str, old: FieldValue, new: FieldValue) -> None:
    """One own change: `target {} → {}`; tokens only one side has: `variants {} added`."""
    if kind == "dependencies":
        _switches(said, old, new)
        return
    before, after = _tokens(old), _tokens(new)
    if kind == "variants":
        before, after = said_variants(before), said_variants(after)
    elif kind == "compiler":  # by Spack 1.0 package, as the environments' lines say them
        before, after = tuple(map(normal_compiler, before)), tuple(map(normal_compiler, after))
    if before and after:
        said.say(f"{kind} {_slots(before)} → {_slots(after)}", *before, *after)
    elif before or after:
        which = "removed" if before else "added"
        said.say(f"{kind} {_slots(before or after)} {which}", *(before or after))
    else:
        said.say(f"{kind} changed")


PACKAGES_NAMED = 3  # packages named in a dependency switch's line, then "… and N more"


def _packages(names: tuple[str, ...]) -> Words:
    shown = names[:PACKAGES_NAMED]
    said = Words().say(_slots(shown), *shown)
    more = len(names) - len(shown)
    return said.say(f" and {more:,} more packages" if more else "")


def _head(cause: Cause) -> Words:
    """The change: "{} {} → {} (version)", "{} recipe changed, same version", "dependencies
    {} → {} (in {}, {})", "a new build of {} {}"."""
    old, new = dict(cause.before), dict(cause.after)
    several = f"in {counted(len(cause.triggers), 'spec')}" if len(cause.triggers) > 1 else ""
    if cause.new_build:
        said = Words().say("a new build of {} {}", cause.name, cause.version)
        return said.say(f" ({several})" if several else "")
    if not cause.name:  # a dependency switch, said once for every package making it
        said = Words()
        _switches(said, old["dependencies"], new["dependencies"])
        package = _packages(cause.names)
        said.say(" (in ").say("".join(package.words), *package.values)
        n, specs = len(cause.names), len(cause.triggers)
        return said.say(f"; {specs:,} specs)" if specs > max(n, 1) else ")")
    said = Words().say("{}", cause.name)
    version = "version" in cause.changes
    if version:
        was, now = str(old.get("version", "")), str(new.get("version", ""))
        what = "version, a downgrade" if _lower(was, now) else "version"
        said.say(f" {{}} → {{}} ({what}{', ' + several if several else ''})", was, now)
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
    n, build = cause.specs, cause.specs_build_only
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
    """The specs whose path down leads to a hash with no record on the new side."""
    its = "a dependency" if n == 1 else "dependencies"
    return Sentence(f"{counted(n, 'spec')} rebuilt through {its} this side has no record of")


def scheme_sentence(scheme: Scheme, rebuilt: int) -> Sentence:
    """ "Spack's hash scheme changed: Spack {} → {} (lockfile v4 → v5): every spec has a new
    hash; below, what changed besides" (the versions each side records)"""
    said = Words().say("Spack's hash scheme changed")
    recorded = {kind: (was, now) for kind, was, now in scheme.versions}
    if "Spack" in recorded:
        was, now = recorded.pop("Spack")
        if was != now:
            said.say(": Spack {} → {}", was or "not recorded", now or "not recorded")
        else:
            said.say(": Spack {} on both sides", now)
    formats = [
        f"{kind} {was} → {now}" if was != now else f"{kind} {now}"
        for kind, (was, now) in recorded.items()
    ]
    if formats:
        said.say(f" ({', '.join(formats)})")
    if scheme.kept:
        said.say(f": {counted(rebuilt, 'spec')} rebuilt, {scheme.kept:,} kept their hash")
    else:
        said.say(": every spec has a new hash")
    if scheme.evidence == "rehashed":
        said.say(", records equal in every field included")
    return said.say("; below, what changed besides").sentence()


def move_sentence(move: Move, rebuilds: Rebuilds) -> Sentence:
    """ "target {} → {}: 296 of 298 rebuilt specs, 2 more rebuilt through them" (the cascades
    of the triggers counted under the move)"""
    n = rebuilds.rebuilt
    said = f"{move.dimension} {{}} → {{}}: {move.specs:,} of {counted(n, 'rebuilt spec')}"
    made = [
        t
        for t in rebuilds.triggers
        if move.dimension in t.changes
        and _moved(t, rebuilds.moves)
        and dict(t.before)[move.dimension] == move.before
    ]
    through = set().union(*(t.cascade for t in made)).difference(t.hash for t in made)
    if through:
        said += f", {len(through):,} more rebuilt through them"
    values = (move.before, move.after)
    if move.dimension == "compiler":
        values = (normal_compiler(move.before), normal_compiler(move.after))
    return Sentence(said, values)


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
    linked = _linked((*rebuilds.triggers, *rebuilds.new_builds))
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
    if build_only and len(rebuilds.triggers) + len(rebuilds.new_builds) > 1:
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
    report: Report, found: list[Cause] | None = None, every: bool = False
) -> tuple[list[Sentence], Sentence | None]:
    """The first screen's lines, in SPEC section 6's order: a change of hash scheme, the moves,
    the largest causes (`every` one: all of them), the hash-scheme and unexplained specs, how
    many causes more, the distinct total; then the missing binaries apart (a format may mark
    them). Nothing for pages. `found`: the report's `causes`, if known."""
    rebuilds = report.rebuilds
    if rebuilds is None or not shown(report):
        return [], None
    found = causes(rebuilds) if found is None else found
    lines = [scheme_sentence(rebuilds.scheme, rebuilds.rebuilt)] if rebuilds.scheme else []
    lines += [move_sentence(move, rebuilds) for move in rebuilds.moves]
    named = len(found) if every else FIRST_SCREEN_CAUSES
    lines += [cause_sentence(c) for c in found[:named]]
    if rebuilds.hash_scheme:
        lines.append(hash_scheme(len(rebuilds.hash_scheme)))
    if rebuilds.unexplained:
        lines.append(unexplained(len(rebuilds.unexplained)))
    if len(found) > named:
        lines.append(Sentence(f"… and {counted(len(found) - named, 'more cause')}"))
    if rebuilds.rebuilt:
        lines.append(_total(report, rebuilds, found))
    return lines, _missing(rebuilds.missing_dependencies)
