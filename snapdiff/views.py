"""The typed shapes of what Markdown templates see (`context.py` builds them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypedDict, TypeVar

from .markup import Safe, Said
from .report import OneTag
from .schema import PackageJSON, ReportJSON, StackJSON, SummaryJSON

__all__ = [
    "Attention",
    "Explained",
    "LabelledPackage",
    "LabelledStack",
    "MarkdownContext",
    "RowT",
    "Rows",
    "SectionView",
    "Sections",
    "Spack1",
    "StackMoveRow",
]


class LabelledPackage(PackageJSON):
    """A package of the JSON report, with its label (`tag/name` when tags differ)."""

    label: str


class LabelledStack(StackJSON):
    label: str


class Explained(TypedDict):
    """A changed package's explanation: its sentences."""

    label: str
    specs_added: int
    specs_removed: int
    specs_changed: int
    sentences: list[Said]


class StackMoveRow(TypedDict):
    """One stack that moved, with each dimension as (name, values before, values after)."""

    label: str
    specs_old: int
    specs_new: int
    moves: list[tuple[Safe, Safe, Safe]]


class Spack1(TypedDict):
    """The move from a compiler to no compiler (`none`), counted once for the report: the
    packages, their configurations that moved (of them, how many with another dimension)."""

    packages: list[str]
    configurations: int
    specs_old: int
    specs_new: int
    with_other_moves: int


class Rows(TypedDict):
    """Every row of every section (SectionId), in the order shown."""

    stacks: list[LabelledStack]
    bumps: list[LabelledPackage]
    removed: list[LabelledPackage]
    added: list[LabelledPackage]
    other_changed: list[LabelledPackage]
    package_stacks: list[LabelledPackage]
    explained: list[Explained]


RowT = TypeVar("RowT", LabelledPackage, LabelledStack, Explained)


class SectionView(TypedDict, Generic[RowT]):
    """One section cut to its limit: its title, what one row is, the rows shown, and how many
    there are in all and were cut (the template's `section` macro folds and says so)."""

    title: Safe
    noun: Safe
    rows: list[RowT]
    total: int
    more: int


class Sections(TypedDict):
    stacks: SectionView[LabelledStack]
    bumps: SectionView[LabelledPackage]
    removed: SectionView[LabelledPackage]
    added: SectionView[LabelledPackage]
    other_changed: SectionView[LabelledPackage]
    package_stacks: SectionView[LabelledPackage]
    explained: SectionView[Explained]


class Attention(TypedDict):
    """The first screen's list of what a release engineer must act on, each list whole (the
    template shows the first `limit` of each and says how many more)."""

    downgrades: list[LabelledPackage]
    removed_packages: list[str]
    removed_stacks: list[str]
    largest_bumps: list[LabelledPackage]
    limit: int


class MarkdownContext(TypedDict):
    """What `report.md.j2` sees (README, "Templates")."""

    report: ReportJSON
    summary: SummaryJSON
    marker: Safe
    old_label: Safe
    new_label: Safe
    full_report: Safe | None
    fold_after: int
    commit_link: Callable[[str], Safe]
    has_changes: bool
    attention: Attention
    sections: Sections
    filters: list[tuple[Safe, list[str]]]
    root_is_total: bool
    stack_moves: list[StackMoveRow]
    spack1: Spack1 | None
    added_by_class: list[tuple[int, Safe]]
    removed_by_class: list[tuple[int, Safe]]
    warnings: list[str]
    one_tag: OneTag | None
    tags_counted: int
