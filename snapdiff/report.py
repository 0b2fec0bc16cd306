"""The report's typed records: what a diff concluded, that every output is rendered from. No I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from .model import Configuration, Filters

__all__ = [
    "Bump",
    "Explanation",
    "FieldChange",
    "Migration",
    "PackageChange",
    "Report",
    "Sentence",
    "Side",
    "SpecChange",
    "StackChange",
    "Summary",
]

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class Side:
    """What the report says about one input."""

    source: str
    tags: tuple[str, ...]
    packages: int
    specs: int
    stacks: int
    commit: str | None = None
    date: str | None = None


@dataclass(frozen=True, slots=True)
class Bump:
    """A change of a package's highest version."""

    old: str
    new: str
    kind: str  # "upgrade" | "downgrade"
    size: str  # "major" | "minor" | "patch" | "other"


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One normalised field, other than stacks, that differs for the same hash."""

    name: str
    old: object
    new: object


@dataclass(frozen=True, slots=True)
class SpecChange:
    """A spec present on both sides (same tag and hash) whose normalised fields differ."""

    hash: str
    stacks_added: tuple[str, ...]
    stacks_removed: tuple[str, ...]
    fields: tuple[FieldChange, ...] = ()
    details: tuple[Sentence, ...] = ()  # the fields' differences, one sentence each


class Sentence(NamedTuple):
    """Words with `{}` where values from the data go: plain in JSON, marked up in Markdown."""

    words: str
    values: tuple[str, ...] = ()

    def plain(self) -> str:
        """The sentence as plain text."""
        return self.words.format(*self.values)


@dataclass(frozen=True, slots=True)
class Pair:
    """A removed spec and an added one of the same package and configuration."""

    old: str  # hash
    new: str  # hash
    old_version: str
    new_version: str
    kind: str  # "rebuilt" (same version) | "upgrade" | "downgrade"
    configuration: Configuration


@dataclass(frozen=True, slots=True)
class Migration:
    """Values of one dimension that left a package's specs, arrived, or replaced each other."""

    platform: str  # values are compared within one platform (linux, darwin)
    dimension: str  # "os" | "compiler" | "target"
    old: tuple[str, ...]  # values no spec of the package has any more
    new: tuple[str, ...]  # values no spec of the package had before
    specs_old: int  # disappeared specs with an old value
    specs_new: int  # appeared specs with a new value


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a package's specs were added and removed: every one lands in exactly one class."""

    pairs: tuple[Pair, ...]  # rebuilt, upgraded and downgraded, sorted by new hash
    appeared: tuple[str, ...]  # added specs of a configuration no removed spec had
    disappeared: tuple[str, ...]  # removed specs of a configuration no added spec has
    migrations: tuple[Migration, ...]
    lines: tuple[Sentence, ...]  # the same, said in a few sentences

    def count(self, kind: str) -> int:
        """How many pairs are of this kind."""
        return sum(1 for pair in self.pairs if pair.kind == kind)


@dataclass(frozen=True, slots=True)
class PackageChange:
    """A package added, removed or changed."""

    tag: str
    name: str
    status: str  # "added" | "removed" | "changed"
    versions_old: tuple[str, ...]
    versions_new: tuple[str, ...]
    versions_added: tuple[str, ...]
    versions_removed: tuple[str, ...]
    bump: Bump | None
    specs_added: tuple[str, ...]
    specs_removed: tuple[str, ...]
    specs_changed: tuple[SpecChange, ...]
    stacks_added: tuple[str, ...]
    stacks_removed: tuple[str, ...]
    explanation: Explanation


@dataclass(frozen=True, slots=True)
class StackChange:
    """Coverage of one (tag, stack) that appeared, disappeared or changed."""

    tag: str
    name: str
    status: str  # "added" | "removed" | "changed"
    specs_old: int
    specs_new: int
    packages_gained: tuple[str, ...]
    packages_lost: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Summary:
    """Counts of every kind of change."""

    packages_added: int
    packages_removed: int
    packages_changed: int
    specs_added: int
    specs_removed: int
    specs_changed: int
    version_bumps: int
    version_downgrades: int
    specs_rebuilt: int  # pairs: each is one added and one removed spec
    specs_upgraded: int
    specs_downgraded: int
    specs_appeared: int
    specs_disappeared: int
    stacks_added: int
    stacks_removed: int
    stacks_changed: int

    @property
    def total(self) -> int:
        """Number of changed packages, specs and stacks: zero means no change at all."""
        return (
            self.packages_added
            + self.packages_removed
            + self.packages_changed
            + self.specs_added
            + self.specs_removed
            + self.specs_changed
            + self.stacks_added
            + self.stacks_removed
            + self.stacks_changed
        )


@dataclass(frozen=True, slots=True)
class Report:
    """Everything snapdiff concluded about two snapshots; every output is rendered from it."""

    old: Side
    new: Side
    summary: Summary
    packages: tuple[PackageChange, ...]
    stacks: tuple[StackChange, ...]
    warnings: tuple[str, ...] = field(default=())
    filters: Filters = field(default=Filters())
    skipped: tuple[str, ...] = field(default=())  # bad pages left out: the report is incomplete
    schema_version: int = SCHEMA_VERSION
