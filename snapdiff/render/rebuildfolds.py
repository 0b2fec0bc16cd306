"""The folded lists of why specs were rebuilt, as the Markdown shows them: each cause (and the
hash-scheme and unexplained specs) with its rebuilt specs by package, each binary the cache does
not hold with the packages that need it; counts, never hash lists."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter, itemgetter
from typing import TypeVar

from ..report import MissingDependency, Rebuilds, Report, Sentence, counted
from ..report.causes import (
    Cause,
    Causing,
    cause_sentence,
    causes,
    first_screen,
    hash_scheme,
    unexplained,
)
from .markup import Safe, code, html_code, sentence
from .views import CountedPackage, PackagesView, RebuildViews

__all__ = [
    "PACKAGES_SHOWN",
    "MissingRow",
    "PackageCount",
    "RebuiltRow",
    "missing_rows",
    "rebuilt_rows",
    "views",
]

PACKAGES_SHOWN = 30  # packages listed under one cause or missing binary in a fold
SHORT_HASH = 7  # a missing binary is named `name/abcdefg`, as Spack's command line takes it

_HASH, _NAME = attrgetter("hash"), attrgetter("name")
_Row = TypeVar("_Row", "RebuiltRow", "MissingRow")
PackageCount = tuple[str, int, int]  # a package, its specs, how many through build edges only
Listed = tuple[tuple[PackageCount, ...], int]  # the first PACKAGES_SHOWN, how many packages
_SPECS = itemgetter(1)


@dataclass(frozen=True, slots=True)
class RebuiltRow:
    """One cause (or the hash-scheme or unexplained specs) and its rebuilt specs by package."""

    said: Sentence
    packages: tuple[PackageCount, ...]  # most specs first, then name: the first PACKAGES_SHOWN
    more: int = 0  # packages not kept: a cause in a ladder of triggers reaches thousands


@dataclass(frozen=True, slots=True)
class MissingRow:
    """One binary the cache does not hold and the packages of the specs that need it."""

    said: Sentence
    packages: tuple[PackageCount, ...]  # (package, specs, of them newly): the first shown
    more: int = 0  # packages not kept


def _by_package(
    specs: Iterable[str], names: Mapping[str, str], build: Iterable[str]
) -> tuple[PackageCount, ...]:
    """Specs counted by package, and those of them in `build` (some of the specs, each once;
    counted from its own list: never a look-up in it per spec)."""
    counts = Counter(map(names.get, specs, repeat("")))  # counted in C
    return _ordered(counts, Counter(map(names.get, build, repeat(""))))


def _ordered(counts: Counter[str], build: Counter[str]) -> tuple[PackageCount, ...]:
    """Packages with their specs and build-only specs, most specs first, then by name."""
    order = sorted(counts, key=lambda name: (-counts[name], name))
    return tuple((name, counts[name], build[name]) for name in order)


def _names(report: Report, rebuilds: Rebuilds) -> dict[str, str]:
    """Each added spec's package: the cascades name theirs, the report's packages the rest."""
    names = {h: p.name for p in report.packages for h in p.specs_added}
    cascades = rebuilds.cascades
    names.update(zip(map(_HASH, cascades), map(_NAME, cascades), strict=True))  # in C
    return names


def _whole(trigger: Causing) -> bool:
    """Whether a trigger's own counts are of all its cascade (records made without them are
    not)."""
    counted: int = sum(map(_SPECS, trigger.packages))
    build: int = sum(map(_SPECS, trigger.packages_build_only))
    return counted == len(trigger.cascade) and build == len(trigger.cascade_build_only)


def _counted(cause: Cause, triggers: Mapping[str, Causing]) -> Listed | None:
    """A cause's specs by package from its triggers' own counts, with no look-up per spec: when
    each trigger's counts are whole and their cascades are disjoint (then a spec's build-only
    part is its trigger's). None otherwise."""
    mine = [triggers[digest] for digest in cause.triggers]
    if sum(len(t.cascade) for t in mine) != cause.specs or not all(map(_whole, mine)):
        return None  # a spec reached from two of them, or counts not made
    if len(mine) == 1:  # its counts in the order of a row already: the first of them
        through = dict(mine[0].packages_build_only)
        shown = mine[0].packages[:PACKAGES_SHOWN]
        return tuple((name, n, through.get(name, 0)) for name, n in shown), len(mine[0].packages)
    counts: Counter[str] = Counter()
    build: Counter[str] = Counter()
    for t in mine:
        counts.update(dict(t.packages))
        build.update(dict(t.packages_build_only))
    return _listed(_ordered(counts, build))


def _listed(packages: tuple[PackageCount, ...]) -> Listed:
    return packages[:PACKAGES_SHOWN], len(packages)


def _gathered(cause: Cause, names: Mapping[str, str]) -> Listed:
    """A cause's specs by package, its specs gathered for this row only."""
    cascade, build_only = cause.gathered()
    return _listed(_by_package(cascade, names, build_only))


def rebuilt_rows(report: Report, found: list[Cause]) -> list[RebuiltRow]:
    """Every cause (`found`, the report's `causes`) with its cascade by package, then the
    hash-scheme and unexplained specs."""
    rebuilds = report.rebuilds
    if rebuilds is None or not rebuilds.rebuilt:
        return []
    triggers: dict[str, Causing] = {t.hash: t for t in rebuilds.triggers}
    triggers.update((b.hash, b) for b in rebuilds.new_builds)
    counts = [_counted(c, triggers) for c in found]
    names: dict[str, str] = {}  # each spec's package, when some rows need it (a look-up a spec)
    if None in counts or rebuilds.hash_scheme or rebuilds.unexplained:
        names = _names(report, rebuilds)
    rows = [
        _cut(RebuiltRow, cause_sentence(c), _gathered(c, names) if n is None else n)
        for c, n in zip(found, counts, strict=True)
    ]
    for said, specs in (
        (hash_scheme, rebuilds.hash_scheme),
        (unexplained, rebuilds.unexplained),
    ):
        if specs:
            rows.append(_cut(RebuiltRow, said(len(specs)), _listed(_by_package(specs, names, ()))))
    return rows


def missing_rows(report: Report) -> list[MissingRow]:
    """Every binary the cache does not hold, newly missing ones first, with its dependents."""
    rebuilds = report.rebuilds
    gaps: dict[tuple[str, str], list[MissingDependency]] = {}
    for gap in rebuilds.missing_dependencies if rebuilds else ():
        gaps.setdefault((gap.dependency_name, gap.dependency), []).append(gap)
    rows = []
    for (name, dependency), found in gaps.items():
        names = {gap.hash: gap.name for gap in found}
        newly = {gap.hash for gap in found if gap.new}
        n = len(names)
        words = f"{{}}: needed by {counted(n, 'spec')}"
        if newly:
            words += " (newly)" if n == 1 else f" ({len(newly):,} of them newly)"
        said = Sentence(words, (f"{name}/{dependency[:SHORT_HASH]}",))
        rows.append(
            (
                not newly,
                name,
                dependency,
                _cut(MissingRow, said, _listed(_by_package(names, names, newly))),
            )
        )
    return [row for *_, row in sorted(rows, key=lambda r: r[:3])]


def _cut(
    row: Callable[[Sentence, tuple[PackageCount, ...], int], _Row], said: Sentence, listed: Listed
) -> _Row:
    """A row keeping the packages a fold lists (the first PACKAGES_SHOWN) and how many more."""
    shown, packages = listed
    return row(said, shown, packages - len(shown))


def _package(name: str) -> Safe:
    return code(name) if name else Safe("a package not in this report")


def _view(row: RebuiltRow | MissingRow) -> PackagesView:
    """A folded row: its sentence for a `<summary>` (values in HTML `<code>`), its packages."""
    listed: list[CountedPackage] = [(_package(name), n, some) for name, n, some in row.packages]
    return {
        "summary": Safe(row.said.words.format(*map(html_code, row.said.values))),
        "line": sentence(row.said),
        "packages": listed,
        "more": row.more,
    }


def views(report: Report, all_causes: bool = False) -> RebuildViews:
    """What the Markdown says of rebuilds: the first screen's lines (with `all_causes`, every
    cause), the causes with their rebuilt packages, the missing binaries with their dependents
    (the causes grouped once)."""
    found = causes(report.rebuilds) if report.rebuilds else []
    lines, missing = first_screen(report, found, all_causes)
    return {
        "first_screen": {"lines": lines, "missing": missing} if lines or missing else None,
        "rebuilt": list(map(_view, rebuilt_rows(report, found))),
        "missing": list(map(_view, missing_rows(report))),
    }
