"""Stack coverage (SPEC section 2): spec count and package set of every (tag, stack), compared."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from .model import Page
from .report import StackChange

__all__ = ["stack_coverage"]

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
        status = "changed"
        if key not in same:  # else unchanged pages hold it on both sides
            status = "added" if key not in before else "removed" if key not in after else status
        base = same[key]
        changes.append(StackChange(*key, status, base + old_count, base + new_count, gained, lost))
    return changes


def stack_coverage(
    old: Mapping[Key, Page], new: Mapping[Key, Page], differing: list[Key]
) -> tuple[list[StackChange], int, int]:
    """Every stack added, removed or changed, and how many stacks each side holds.

    `differing` lists the pages whose content differs (or that one side lacks); the others are
    equal on both sides and only counted, once.
    """
    same = _counts(new, old.keys() - set(differing))
    before, after = _coverage(old, differing), _coverage(new, differing)
    changes = _stack_changes(same, before, after)
    return changes, len(same.keys() | before.keys()), len(same.keys() | after.keys())
