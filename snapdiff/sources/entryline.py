"""Specs per stack, as a page's entries count them (read from its records, or from `meta`)."""

from __future__ import annotations

from collections.abc import Iterable

from ..model import NO_COMPILER

__all__ = ["NO_COMPILER_TEXT", "Counts", "stack_counts"]

Counts = tuple[tuple[str, int], ...]  # (stack, entries in it), sorted by stack
NO_COMPILER_TEXT = b'"compiler": "' + NO_COMPILER.encode() + b'"'  # as the generator writes it


def stack_counts(lists: Iterable[tuple[Iterable[str], int]]) -> Counts:
    """Entries per stack from (stacks list, entries with it), sorted; a stack listed twice in a
    list counts once."""
    counts: dict[str, int] = {}
    for stacks, times in lists:
        for stack in set(stacks):
            counts[stack] = counts.get(stack, 0) + times
    return tuple(sorted(counts.items()))
