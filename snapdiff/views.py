"""The typed shapes of what Markdown templates see (`context.py` builds them)."""

from __future__ import annotations

from typing import Generic, TypedDict, TypeVar

from .markup import Safe, Said
from .schema import PackageJSON, ReportJSON, StackJSON, SummaryJSON

__all__ = [
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
    """A changed package's explanation: its sentences, and whether the Spack 1.0 note holds."""

    label: str
    specs_added: int
    specs_removed: int
    specs_changed: int
    sentences: list[Said]
    spack1: bool


class StackMoveRow(TypedDict):
    """One stack that moved, with each dimension as (name, values before, values after)."""

    label: str
    specs_old: int
    specs_new: int
    moves: list[tuple[Safe, Safe, Safe]]


class Spack1(TypedDict):
    """The Spack 1.0 move to no compiler, counted once for the report."""

    packages: list[str]
    configurations: int
    specs_old: int
    specs_new: int


class Rows(TypedDict):
    """Every row of every section (SectionId), in the order shown."""

    bumps: list[LabelledPackage]
    removed: list[LabelledPackage]
    stack_losses: list[LabelledStack]
    other_changed: list[LabelledPackage]
    added: list[LabelledPackage]
    stack_gains: list[LabelledStack]
    package_stacks: list[LabelledPackage]
    explained: list[Explained]


RowT = TypeVar("RowT", LabelledPackage, LabelledStack, Explained)


class SectionView(TypedDict, Generic[RowT]):
    """One section cut to its limit: rows shown, how many in all and cut, and the Markdown
    that folds a long section into `<details>` (`open`) and says what was cut (`close`)."""

    title: Safe
    rows: list[RowT]
    total: int
    more: int
    open: Safe
    close: Safe


class Sections(TypedDict):
    bumps: SectionView[LabelledPackage]
    removed: SectionView[LabelledPackage]
    stack_losses: SectionView[LabelledStack]
    other_changed: SectionView[LabelledPackage]
    added: SectionView[LabelledPackage]
    stack_gains: SectionView[LabelledStack]
    package_stacks: SectionView[LabelledPackage]
    explained: SectionView[Explained]


class MarkdownContext(TypedDict):
    """What `report.md.j2` sees (README, "Templates")."""

    report: ReportJSON
    summary: SummaryJSON
    marker: Safe
    old_label: Safe
    new_label: Safe
    has_changes: bool
    sections: Sections
    new_stacks: list[str]
    removed_stacks: list[str]
    filters: list[tuple[Safe, list[str]]]
    root_is_total: bool
    stack_moves: list[StackMoveRow]
    spack1: Spack1 | None
    added_by_class: list[tuple[int, Safe]]
    removed_by_class: list[tuple[int, Safe]]
    warnings: list[str]
