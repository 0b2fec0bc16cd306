"""The typed shapes of what Markdown templates see (`context.py` builds them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypedDict, TypeVar

from ..report import GateLevel, OneTag, Sentence
from ..schema import (
    HistoryJSON,
    HistoryPackageJSON,
    PackageJSON,
    ReportJSON,
    StackJSON,
    SummaryJSON,
)
from .environments import EnvironmentView
from .markup import Safe, Said

__all__ = [
    "Attention",
    "CountedPackage",
    "ExemptionView",
    "Explained",
    "GateView",
    "LabelledPackage",
    "LabelledStack",
    "LogContext",
    "MarkdownContext",
    "Notes",
    "PackagesView",
    "RebuildViews",
    "RebuildsView",
    "RootRow",
    "RowT",
    "Rows",
    "SectionView",
    "Sections",
    "Spack1",
    "StackMoveGroup",
    "StackMoveRow",
]


class LabelledPackage(PackageJSON):
    """A package of the JSON report, with its label (`tag/name` when tags differ), and a
    downgrade's cause as a sentence (`bump.cause`, with its values apart), or None."""

    label: str
    cause: Sentence | None


class LabelledStack(StackJSON):
    label: str


class Explained(TypedDict):
    """A changed package's explanation: its sentences."""

    label: str
    specs_added: int
    specs_removed: int
    specs_changed: int
    sentences: list[Said]


class StackMoveGroup(TypedDict):
    """A stack's moves over the same specs, each as (dimension, values before, values after):
    every spec, or every compiled spec when specs with no compiler are set aside (`compiled`),
    counted apart (`no_compiler_old`, `no_compiler_new`)."""

    compiled: bool
    specs_old: int
    specs_new: int
    no_compiler_old: int
    no_compiler_new: int
    moves: list[tuple[Safe, Safe, Safe]]


class StackMoveRow(TypedDict):
    """One stack that moved: its label and its moves, grouped by the specs they are about."""

    label: str
    groups: list[StackMoveGroup]


class RootRow(TypedDict):
    """`root` of a tag where its spec count differs from the tag's total (`tag` None when the
    report is about one tag)."""

    tag: str | None
    specs_old: int
    specs_new: int
    tag_specs_old: int
    tag_specs_new: int


class Spack1(TypedDict):
    """The move from a compiler to no compiler (`none`), counted once for the report: the
    packages, their configurations that moved (of them, how many with another dimension)."""

    packages: list[str]
    configurations: int
    specs_old: int
    specs_new: int
    with_other_moves: int


class Notes(TypedDict):
    """The report's notes and summary lines, as sentences every format words the same:
    `root` where it is not its tag's total, the move to no compiler, the specs added and
    removed by class, and that `root` is not counted as a stack."""

    root: list[Sentence]
    spack1: Sentence | None
    added: Sentence | None
    removed: Sentence | None
    root_not_a_stack: Sentence


CountedPackage = tuple[Safe, int, int]  # a package, its specs, of them in a subset the row names


class PackagesView(TypedDict):
    """A folded row of the rebuilds: its sentence (HTML, for a `<summary>`; Markdown, for a row
    with no packages: a list item, where HTML's inline tags would leave their text live) and its
    specs by package (build-only, or newly missing, as the subset), `more` packages not listed."""

    summary: Safe
    line: Safe
    packages: list[CountedPackage]
    more: int


class RebuildsView(TypedDict):
    """The first screen's lines on why specs were rebuilt, and the missing binaries' line."""

    lines: list[Sentence]
    missing: Sentence | None


class RebuildViews(TypedDict):
    """Everything the Markdown says of rebuilds, computed once however often it renders."""

    first_screen: RebuildsView | None
    rebuilt: list[PackagesView]
    missing: list[PackagesView]


class Rows(TypedDict):
    """Every row of every section (SectionId), in the order shown."""

    stacks: list[LabelledStack]
    bumps: list[LabelledPackage]
    removed: list[LabelledPackage]
    added: list[LabelledPackage]
    other_changed: list[LabelledPackage]
    package_stacks: list[LabelledPackage]
    explained: list[Explained]
    rebuilt: list[PackagesView]
    missing: list[PackagesView]
    rebuilds: RebuildsView | None  # not a section: the first screen's lines on rebuilds


RowT = TypeVar("RowT", LabelledPackage, LabelledStack, Explained, PackagesView)


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
    rebuilt: SectionView[PackagesView]
    missing: SectionView[PackagesView]


class Attention(TypedDict):
    """The first screen's list of what a release engineer must act on, each list whole (the
    template shows the first `limit` of each and says how many more)."""

    downgrades: list[LabelledPackage]
    removed_packages: list[str]
    removed_stacks: list[str]
    largest_bumps: list[LabelledPackage]
    limit: int


class ExemptionView(TypedDict):
    """An `allow:` entry a gate used: `package` or `stack`, its glob, and its reason."""

    kind: Safe
    name: str
    reason: str


class GateView(TypedDict):
    """A gate that tripped (`tripped`) or passed only thanks to `allow:` entries: its name,
    `fail` or `warn`, what it counted (values as code spans), its threshold (0: none)."""

    gate: str
    level: GateLevel
    tripped: bool
    said: Safe
    above: int
    exemptions: list[ExemptionView]


class MarkdownContext(TypedDict):
    """What `report.md.j2` sees (README, "Templates")."""

    report: ReportJSON
    summary: SummaryJSON
    marker: Safe
    old_label: Safe
    new_label: Safe
    full_report: Safe | None
    full_report_artifact: bool
    fold_after: int
    commit_link: Callable[[str], Safe]
    has_changes: bool
    attention: Attention
    sections: Sections
    filters: list[tuple[Safe, list[str]]]
    root: list[RootRow]
    stack_moves: list[StackMoveRow]
    spack1: Spack1 | None
    added_by_class: list[tuple[int, Safe]]
    removed_by_class: list[tuple[int, Safe]]
    notes: Notes
    warnings: list[str]
    one_tag: OneTag | None
    tags_counted: int
    gates: list[GateView]
    rebuilds: RebuildsView | None
    subject: Safe  # what is compared: Environment, Build cache or Catalogue (changes)
    stacks_row: bool  # the counts say stacks (catalogue pages, or a stack besides root)
    environments: list[EnvironmentView]  # SPEC section 7: environments that changed
    environments_counted: int  # several environments on a side: counts are per environment


class LogContext(TypedDict):
    """What `log.md.j2` sees (docs/templates.md)."""

    start_label: Safe
    end_label: Safe
    step_moves: list[list[StackMoveRow]]  # per step, as `history.steps`
    step_rebuilds: list[RebuildsView | None]  # per step: why specs were rebuilt (indexes)
    subject: Safe  # what the range compared: Environment, Build cache or Catalogue (history)
    step_environments: list[list[EnvironmentView]]  # per step: environments that changed
    history: HistoryJSON
    packages: list[HistoryPackageJSON]  # those whose version moved, or that came or went
    fold_after: int
    marker: Safe
    commit_link: Callable[[str], Safe]
    charts: list[Safe]
    label: Callable[[str, str], Safe]
    one_tag: OneTag | None
    tags_counted: int
