"""The sections of the Markdown report: one table of their ids, titles and cutting order."""

from __future__ import annotations

from typing import Literal, NamedTuple

__all__ = ["CUT_ORDER", "SECTIONS", "Section", "SectionId"]

SectionId = Literal[
    "stacks",
    "bumps",
    "removed",
    "added",
    "other_changed",
    "package_stacks",
    "explained",
    "rebuilt",
    "missing",
]


class Section(NamedTuple):
    """One section: its id in the template context, heading, what one row is, and when it is
    cut to fit a size budget (lower `cut_rank` first; each floor a step, -1 the downgrades)."""

    id: SectionId
    title: str
    noun: str
    cut_rank: int
    floors: tuple[int, ...] = (0,)


# In the order shown, after the first screen (which is never cut). Cut first what matters
# least: per-spec detail, other changes, the packages rebuilt per cause (a few folds that say
# what a thousand "+8 −8" lines of other changes only count), additions, missing binaries,
# version updates (downgrades last), stacks, removals.
SECTIONS = (
    Section("stacks", "Stacks", "stack", 7),
    Section("bumps", "Version updates", "package", 6, (-1, 0)),
    Section("removed", "Removed packages", "package", 8),
    Section("added", "New packages", "package", 4),
    Section("other_changed", "Other changed packages", "package", 2),
    Section("package_stacks", "Stacks gained and lost per package", "package", 1),
    Section("explained", "What changed, package by package", "package", 0),
    Section("rebuilt", "Why specs were rebuilt, cause by cause", "cause", 3),
    Section("missing", "Binaries this cache does not hold", "missing spec", 5),
)
# (section, rows it keeps at this step), in the order a size budget cuts them
CUT_ORDER: tuple[tuple[SectionId, int], ...] = tuple(
    (s.id, floor) for s in sorted(SECTIONS, key=lambda s: s.cut_rank) for floor in s.floors
)
