"""Stack coverage (SPEC section 2): spec count and package set of every (tag, stack), compared."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping

from .model import NOTHING, Page, Tally, renamed
from .report import StackChange, StackMove
from .schema import Status

__all__ = ["ROOT", "stack_coverage", "stack_moves"]

ROOT = "root"  # the merged cache that holds every spec (SPEC section 1)
MOVE_DIMENSIONS = {"os": 0, "target": 2, "compiler": 3}  # places in a Configuration

Key = tuple[str, str]  # (tag, package name) of a page; (tag, stack) of a stack
Coverage = dict[Key, tuple[int, set[str]]]  # (tag, stack) -> (spec count, package names)


def _counts(pages: Mapping[Key, Page], keys: Iterable[Key]) -> Counter[Key]:
    """Spec count of every (tag, stack) over some pages (those both sides hold alike)."""
    counts: Counter[Key] = Counter()
    for key in keys:
        tag = key[0]
        for stack, count in pages[key].stack_counts:
            counts[(tag, stack)] += count
    return counts


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
    """Every (tag, stack) whose spec count or package set differs.

    Pages both sides hold alike add the same specs and packages to both sides (`same` counts
    them), so only the pages that differ can change a stack; a package is on one page a tag.
    """
    changes = []
    for key in sorted(before.keys() | after.keys()):
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


def _mark_whole(
    changes: list[StackChange], old: Mapping[Key, Page], new: Mapping[Key, Page], rest: Tally
) -> list[StackChange]:
    """`root` marked as the whole tag where it holds every spec of its tag on both sides (a
    `root` added or removed with its tag stays a stack row: the tag itself came or went)."""
    if not any(c.name == ROOT for c in changes):
        return changes
    totals_old, totals_new = _totals(old, rest), _totals(new, rest)
    return [
        dataclasses.replace(c, whole=True)
        if c.name == ROOT
        and c.status == "changed"
        and (c.specs_old, c.specs_new) == (totals_old[c.tag], totals_new[c.tag])
        else c
        for c in changes
    ]


def stack_coverage(
    old: Mapping[Key, Page],
    new: Mapping[Key, Page],
    differing: list[Key],
    rest: Tally = NOTHING,
    moves: bool = True,
) -> tuple[list[StackChange], list[StackMove], int, int]:
    """Every stack added, removed or changed, the stacks that moved (unless `moves` is False),
    and how many stacks each side holds.

    `differing` lists the pages whose content differs (or that one side lacks); the others are
    equal on both sides and only counted, once, like the pages both sides hold only as counts
    (`rest`).
    """
    same = _counts(new, old.keys() - set(differing))
    same.update(rest.stacks)
    before, after = _coverage(old, differing), _coverage(new, differing)
    changes = _mark_whole(_stack_changes(same, before, after), old, new, rest)
    # a stack that an unchanged page holds keeps that page's values on both sides: no move
    candidates = sorted((before.keys() & after.keys()) - same.keys())
    moved = (
        stack_moves(old, new, differing, candidates, before, after) if moves and candidates else []
    )
    return changes, moved, len(same.keys() | before.keys()), len(same.keys() | after.keys())


Values = dict[Key, dict[str, set[str]]]  # (tag, stack) -> dimension -> values of its specs
Written = dict[Key, dict[str, str]]  # (tag, stack) -> value -> as its pages write it


def _values(
    pages: Mapping[Key, Page], differing: list[Key], stacks: set[Key]
) -> tuple[Values, Written]:
    """Per stack of `stacks` and per dimension, the values its specs have over some pages, and
    how those pages write their values (compilers, variants)."""
    values: Values = {key: {d: set() for d in MOVE_DIMENSIONS} for key in stacks}
    written: Written = {key: {} for key in stacks}
    tags = {tag for tag, _ in stacks}
    for key in differing:
        page = pages.get(key)
        if key[0] not in tags or page is None or page.entries is None:
            continue
        if not any((key[0], stack) in values for stack, _ in page.stack_counts):
            continue  # holds none of the stacks asked about
        spelling = page.entries.spellings()
        for name, configs in page.entries.configurations_by_stack().items():
            found = values.get((key[0], name))
            if found is None:
                continue
            for dimension, place in MOVE_DIMENSIONS.items():
                found[dimension].update(str(config[place]) for config in configs)
            written[(key[0], name)].update(spelling)
    return values, written


def stack_moves(
    old: Mapping[Key, Page],
    new: Mapping[Key, Page],
    differing: list[Key],
    candidates: list[Key],
    before: Coverage,
    after: Coverage,
) -> list[StackMove]:
    """Stacks whose specs all had values in one set along a dimension and now all in another,
    the sets disjoint (SPEC section 2a); `candidates` are held by differing pages only."""
    moves = []
    values_old, written_old = _values(old, differing, set(candidates))
    values_new, written_new = _values(new, differing, set(candidates))
    for key in candidates:
        was, now = values_old[key], values_new[key]
        for dimension in MOVE_DIMENSIONS:
            if was[dimension] and now[dimension] and not was[dimension] & now[dimension]:
                named = was[dimension] | now[dimension] if dimension == "compiler" else set()
                spelling = written_old[key] | written_new[key]
                moves.append(
                    StackMove(
                        *key,
                        dimension,
                        tuple(sorted(was[dimension])),
                        tuple(sorted(now[dimension])),
                        before[key][0],
                        after[key][0],
                        renamed({c: spelling.get(c, c) for c in named}),
                    )
                )
    return moves
