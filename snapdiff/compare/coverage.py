"""Stack coverage (SPEC section 2): spec count and package set of every (tag, stack), compared."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from operator import attrgetter
from typing import Any, NamedTuple

from ..model import NO_COMPILER, NOTHING, Page, Tally, renamed
from ..report import RootCount, StackChange, StackMove, Status
from .builtas import known_configuration

__all__ = ["ROOT", "StackCoverage", "stack_coverage", "stack_moves"]

ROOT = "root"  # the merged cache that holds every spec (SPEC section 1)
MOVE_DIMENSIONS = ("os", "target", "compiler")  # the Configuration fields a stack moves along

Key = tuple[str, str]  # (tag, package name) of a page; (tag, stack) of a stack
Coverage = dict[Key, tuple[int, set[str]]]  # (tag, stack) -> (spec count, package names)


def _counts(pages: Mapping[Key, Page], keys: Iterable[Key]) -> tuple[Counter[Key], Counter[Key]]:
    """Spec count of every (tag, stack) over some pages (those both sides hold alike), and of
    its specs with a compiler (not `none`)."""
    counts: Counter[Key] = Counter()
    compiled: Counter[Key] = Counter()
    for key in keys:
        tag = key[0]
        for stack, count in pages[key].stack_counts:
            counts[(tag, stack)] += count
        for stack, count in pages[key].compiled_counts:
            compiled[(tag, stack)] += count
    return counts, compiled


def _coverage(pages: Mapping[Key, Page], keys: Iterable[Key]) -> Coverage:
    """Spec count and package names of every (tag, stack) over some pages (those that differ)."""
    coverage: Coverage = {}
    for key in keys:
        page = pages.get(key)
        if page is None:
            continue
        tag, name = key
        for stack, count in page.stack_counts:
            found = coverage.get((tag, stack))
            if found is None:
                coverage[(tag, stack)] = (count, {name})
            else:
                found[1].add(name)
                coverage[(tag, stack)] = (found[0] + count, found[1])
    return coverage


def _stack_changes(same: Counter[Key], before: Coverage, after: Coverage) -> list[StackChange]:
    """Every (tag, stack) but `root` whose spec count or package set differs.

    Pages both sides hold alike add the same specs and packages to both sides (`same` counts
    them), so only the pages that differ can change a stack; a package is on one page a tag.
    """
    changes = []
    for key in sorted(before.keys() | after.keys()):
        if key[1] == ROOT:
            continue
        old_count, old_pkgs = before.get(key, (0, set()))
        new_count, new_pkgs = after.get(key, (0, set()))
        gained, lost = tuple(sorted(new_pkgs - old_pkgs)), tuple(sorted(old_pkgs - new_pkgs))
        if old_count == new_count and not gained and not lost:
            continue
        status: Status = "changed"
        if key not in same:  # else unchanged pages hold it on both sides
            status = "added" if key not in before else "removed" if key not in after else status
        base = same[key]
        changes.append(StackChange(*key, status, base + old_count, base + new_count, gained, lost))
    return changes


def _totals(pages: Mapping[Key, Page], rest: Tally) -> Counter[str]:
    """Specs per tag."""
    totals: Counter[str] = Counter(rest.specs)
    for (tag, _), page in pages.items():
        totals[tag] += page.spec_count
    return totals


def _root_counts(
    same: Counter[Key],
    before: Coverage,
    after: Coverage,
    totals: tuple[Counter[str], Counter[str]],
) -> list[RootCount]:
    """`root` of every tag that has one where its spec count differs from the tag's total on a
    side that holds the tag (SPEC section 2a: else `root` is the tag's total, the Specs row)."""
    found = []
    for tag in sorted(totals[0].keys() | totals[1].keys()):
        key = (tag, ROOT)
        if key not in same and key not in before and key not in after:
            continue  # no `root` in this tag: nothing to say of it
        held_old = same[key] + before.get(key, (0, set()))[0]
        held_new = same[key] + after.get(key, (0, set()))[0]
        total_old, total_new = totals[0][tag], totals[1][tag]
        if (total_old and held_old != total_old) or (total_new and held_new != total_new):
            found.append(RootCount(tag, held_old, held_new, total_old, total_new))
    return found


class StackCoverage(NamedTuple):
    """What a diff says of stacks: changes, moves, `root` short of its tag, and how many stacks
    (`root` not among them) each side holds."""

    changes: list[StackChange]
    moves: list[StackMove]
    root: list[RootCount]
    stacks_old: int
    stacks_new: int


def stack_coverage(
    old: Mapping[Key, Page],
    new: Mapping[Key, Page],
    differing: list[Key],
    rest: Tally = NOTHING,
) -> StackCoverage:
    """Every stack added, removed or changed, the stacks that moved,
    `root` where it is not its tag's total, and how many stacks each side holds.

    `differing` lists the pages whose content differs (or that one side lacks); the others are
    equal on both sides and only counted, once, like the pages both sides hold only as counts
    (`rest`).
    """
    same, compiled = _counts(new, old.keys() - set(differing))
    same.update(rest.stacks)
    compiled.update(rest.compiled)
    before, after = _coverage(old, differing), _coverage(new, differing)
    changes = _stack_changes(same, before, after)
    root = _root_counts(same, before, after, (_totals(old, rest), _totals(new, rest)))
    # a stack that an unchanged page holds keeps that page's values on both sides: no move,
    # but on the compiler dimension when its specs there all have no compiler (they are set
    # aside on both sides); nor does one whose packages were all replaced (its coverage tells
    # it; a package of an unchanged page is on both sides)
    candidates = sorted(
        key
        for key in before.keys() & after.keys()
        if key[1] != ROOT and not compiled[key] and (key in same or before[key][1] & after[key][1])
    )
    moved = (
        stack_moves(old, new, differing, candidates, (before, after), same) if candidates else []
    )
    return StackCoverage(
        changes,
        moved,
        root,
        sum(1 for key in same.keys() | before.keys() if key[1] != ROOT),
        sum(1 for key in same.keys() | after.keys() if key[1] != ROOT),
    )


Values = dict[Key, dict[str, Counter[str]]]  # (tag, stack) -> dimension -> specs per value
# of an entry: its configuration's fields as read, with its stacks
_BY_STACKS = attrgetter("os", "platform", "target", "compiler", "variants", "stacks")


def _values(pages: Mapping[Key, Page], differing: list[Key], stacks: set[Key]) -> Values:
    """Per stack of `stacks` and per dimension, how many of its specs have each value over some
    pages.

    The entries of a tag's pages that hold any of them are tallied by configuration fields and
    stacks in one C-level pass first, then each distinct tuple is split into its dimensions
    once: a tag's pages share most of their configurations."""
    names: dict[str, set[str]] = {}  # per tag, the stacks asked about
    for tag, name in stacks:
        names.setdefault(tag, set()).add(name)
    tallies: dict[str, Counter[tuple[Any, ...]]] = {}
    for key in differing:
        page, wanted = pages.get(key), names.get(key[0])
        if wanted is None or page is None or page.entries is None:
            continue
        if wanted.isdisjoint(page.entries.stacks):
            continue  # a page holding none of them adds nothing
        tallies.setdefault(key[0], Counter()).update(map(_BY_STACKS, page.entries.values()))
    values: Values = {key: {d: Counter() for d in MOVE_DIMENSIONS} for key in stacks}
    for tag, tally in tallies.items():
        for fields, count in tally.items():
            config = None
            for name in set(fields[-1]):
                split = values.get((tag, name))
                if split is None:
                    continue
                if config is None:
                    config = known_configuration(fields[:-1])
                for dimension in MOVE_DIMENSIONS:
                    split[dimension][str(getattr(config, dimension))] += count
    return values


def _written(
    pages: Mapping[Key, Page], differing: list[Key], named: Mapping[Key, set[str]]
) -> dict[Key, dict[str, str]]:
    """How the pages (of those that differ) holding each stack of `named` write the compilers
    it names; of several ways, the later page's. One pass over the pages for every stack."""
    found: dict[Key, dict[str, str]] = {key: {} for key in named}
    tags = {tag for tag, _ in named}
    for key in differing if tags else ():
        page = pages.get(key)
        if key[0] not in tags or page is None or page.entries is None:
            continue
        stacks = [(key[0], s) for s in page.entries.stacks if (key[0], s) in found]
        if not stacks:
            continue
        spelling = page.entries.spellings()
        for stack in stacks:
            into = found[stack]
            for compiler in named[stack]:
                if compiler in spelling:
                    into[compiler] = spelling[compiler]
    return found


def _moved(
    was: Counter[str], now: Counter[str], dimension: str
) -> tuple[set[str], set[str], int, int] | None:
    """The values before and after of a move along one dimension, and the specs set aside on
    each side (no compiler on both sides, on the compiler dimension), or None for no move."""
    aside = dimension == "compiler" and NO_COMPILER in was and NO_COMPILER in now
    drop = {NO_COMPILER} if aside else set()
    before, after = set(was) - drop, set(now) - drop
    if not before or not after or before & after:
        return None
    return before, after, was[NO_COMPILER] if aside else 0, now[NO_COMPILER] if aside else 0


def stack_moves(
    old: Mapping[Key, Page],
    new: Mapping[Key, Page],
    differing: list[Key],
    candidates: list[Key],
    coverage: tuple[Coverage, Coverage],
    unchanged: Counter[Key],
) -> list[StackMove]:
    """Stacks whose specs all had values in one set along a dimension and now all in another,
    the sets disjoint (SPEC section 2a). `coverage` is that of the differing pages on each
    side; `unchanged` counts the specs of each stack that pages equal on both sides hold (of a
    candidate, all with no compiler): such a stack can move on the compiler dimension only."""
    before, after = coverage
    values_old = _values(old, differing, set(candidates))
    values_new = _values(new, differing, set(candidates))
    found: list[tuple[Key, str, tuple[set[str], set[str], int, int], int]] = []
    for key in candidates:
        held = unchanged[key]  # the specs of unchanged pages, with no compiler on both sides
        if held:
            for values in (values_old, values_new):
                values[key]["compiler"][NO_COMPILER] += held
        for dimension in ("compiler",) if held else MOVE_DIMENSIONS:
            moved = _moved(values_old[key][dimension], values_new[key][dimension], dimension)
            if moved is not None:
                found.append((key, dimension, moved, held))
    # the compilers a move names, as the stack's pages write them (the new side's way first)
    named = {
        key: was | now for key, dimension, (was, now, _, _), _ in found if dimension == "compiler"
    }
    written_old, written_new = _written(old, differing, named), _written(new, differing, named)
    moves = []
    for key, dimension, (was, now, aside_old, aside_new), held in found:
        spelling = written_old.get(key, {}) | written_new.get(key, {})
        names = named[key] if dimension == "compiler" else set()
        moves.append(
            StackMove(
                *key,
                dimension,
                tuple(sorted(was)),
                tuple(sorted(now)),
                before[key][0] + held - aside_old,
                after[key][0] + held - aside_new,
                renamed({c: spelling.get(c, c) for c in names}),
                aside_old,
                aside_new,
            )
        )
    return moves
