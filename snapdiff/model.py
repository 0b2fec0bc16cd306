"""Typed records passed between the stages: specs, pages, snapshots and the report. No I/O."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .entries import Entries

__all__ = [
    "Bump",
    "Explanation",
    "FieldChange",
    "Filters",
    "Migration",
    "PackageChange",
    "Page",
    "Report",
    "Sentence",
    "Side",
    "Snapshot",
    "Spec",
    "SpecChange",
    "StackChange",
    "Summary",
]

SCHEMA_VERSION = 1


Configuration = tuple[
    str, str, str, str, tuple[str, ...]
]  # os, platform, target, compiler, variants


class Spec(NamedTuple):
    """One prebuilt spec, normalised: sets are sorted tuples, `@=` is `@`, `tarball` dropped.

    A NamedTuple rather than a frozen dataclass: built by the ten thousand, and tuple
    construction and equality are the cheap path.
    """

    hash: str
    versions: tuple[str, ...]
    compiler: str
    os: str
    platform: str
    target: str
    variants: tuple[str, ...]
    stacks: tuple[str, ...]
    size: object
    extra: tuple[tuple[str, str], ...]  # other keys as (name, canonical JSON), sorted

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> Spec:
        """Normalise one `spec_details` entry whose types the loader has checked."""
        extra: tuple[tuple[str, str], ...] = ()
        if not entry.keys() <= _ENTRY_KEYS:
            extra = tuple(
                sorted(
                    (key, json.dumps(value, sort_keys=True))
                    for key, value in entry.items()
                    if key not in _ENTRY_KEYS
                )
            )
        return cls(
            entry["hash"],
            tuple(sorted(set(entry["versions"]))),
            compiler_of(entry),
            entry.get("os", ""),
            entry.get("platform", ""),
            entry.get("target", ""),
            tuple(sorted(set(entry.get("variants", ())))),
            tuple(sorted(set(entry["stacks"]))),
            entry.get("size"),
            extra,
        )

    def as_entry(self) -> dict[str, Any]:
        """The spec as a `spec_details` entry (normalised): lists for sets, other keys parsed."""
        return {
            "hash": self.hash,
            "versions": list(self.versions),
            "compiler": self.compiler,
            "os": self.os,
            "platform": self.platform,
            "target": self.target,
            "variants": list(self.variants),
            "stacks": list(self.stacks),
            "size": self.size,
            **{key: json.loads(value) for key, value in self.extra},
        }

    def configuration(self) -> Configuration:
        """What pairs a removed spec with an added one: os, platform, target, compiler, variants."""
        return (self.os, self.platform, self.target, self.compiler, self.variants)


def normal_compiler(compiler: str) -> str:
    """A compiler spelled `gcc@=11.4.0` (older pages) is `gcc@11.4.0`."""
    return compiler.replace("@=", "@")


def compiler_of(entry: Mapping[str, Any]) -> str:
    """An entry's compiler, normalised."""
    return normal_compiler(str(entry.get("compiler", "")))


def configuration_of(entry: Mapping[str, Any]) -> Configuration:
    """What Spec.from_entry(entry).configuration() gives, without building the whole Spec."""
    return (
        entry.get("os", ""),
        entry.get("platform", ""),
        entry.get("target", ""),
        compiler_of(entry),
        tuple(sorted(set(entry.get("variants", ())))),
    )


# keys with a field of their own, and `tarball`, which normalisation drops
_ENTRY_KEYS = frozenset(Spec._fields) - {"extra"} | {"tarball"}

Entry = Mapping[str, Any]  # one `spec_details` entry as read, its types checked by the loader


@dataclass(frozen=True, slots=True)
class Page:
    """One catalogue page: the specs of one package under one cache tag.

    Specs stay as read (`entries`, each kept as its text where the page allows) until the diff
    needs them normalised: most specs of a changed page are byte-for-byte the same on both
    sides, and comparing entries as read is far cheaper.
    """

    tag: str
    name: str
    source: str  # where it was read from, for messages
    digest: str  # git blob id of the raw content: equal digest, equal page
    entries: Entries | None  # by hash, sorted; None when only the counts were read
    spec_count: int
    stack_counts: tuple[tuple[str, int], ...]  # (stack, specs in it), sorted by stack

    def at(self, source: str) -> Page:
        """The same page read from another place (a direct copy: `replace` costs 5 µs more)."""
        return Page(
            self.tag,
            self.name,
            source,
            self.digest,
            self.entries,
            self.spec_count,
            self.stack_counts,
        )


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Every page of one side of a diff, keyed by (tag, package name)."""

    source: str
    pages: Mapping[tuple[str, str], Page]
    commit: str | None = None  # short commit id, for git revisions
    date: str | None = None  # commit date (ISO 8601), for git revisions
    warnings: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # bad pages left out (--keep-going), as error messages
    skipped_keys: frozenset[tuple[str, str]] = frozenset()  # their (tag, package), when known

    @property
    def tags(self) -> tuple[str, ...]:
        """The cache tags present, sorted."""
        return tuple(sorted({tag for tag, _ in self.pages}))

    def release_to(self, other: Snapshot) -> bool:
        """Release to release: each side holds one tag, and the tags differ (SPEC section 2)."""
        return len(self.tags) == 1 and len(other.tags) == 1 and self.tags != other.tags

    @property
    def spec_count(self) -> int:
        """How many specs the snapshot holds."""
        return sum(page.spec_count for page in self.pages.values())


@dataclass(frozen=True, slots=True)
class Filters:
    """Which specs a diff looks at: values are globs; several values of one filter are alternatives,
    and every filter given must match."""

    package: tuple[str, ...] = ()
    tag: tuple[str, ...] = ()
    stack: tuple[str, ...] = ()
    os: tuple[str, ...] = ()
    target: tuple[str, ...] = ()
    compiler: tuple[str, ...] = ()

    @property
    def applied(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(filter, globs) of every filter given, in a fixed order."""
        return tuple((name, getattr(self, name)) for name in self.__slots__ if getattr(self, name))

    @property
    def per_spec(self) -> bool:
        """True when a filter looks inside pages, so every page must be read in full."""
        return bool(self.stack or self.os or self.target or self.compiler)


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
