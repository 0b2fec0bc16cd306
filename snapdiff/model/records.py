"""Typed records of what is loaded: specs, pages, snapshots, and the filters of a diff. No I/O."""

from __future__ import annotations

import json
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple, Protocol

from .entry import Entry
from .graph import Graph
from .normal import normal_compiler, normal_variants

__all__ = [
    "NOTHING",
    "Configuration",
    "Entry",
    "Environment",
    "Filters",
    "Page",
    "PageEntries",
    "Root",
    "Snapshot",
    "Spec",
    "Tally",
    "configuration_from",
    "configuration_of",
    "counted_apart",
]


class Configuration(NamedTuple):
    """What pairs a removed spec with an added one (SPEC section 2a): where and how it was built.

    The one statement of the fields' order, which is also the order configurations sort in.
    """

    os: str
    platform: str
    target: str
    compiler: str
    variants: tuple[str, ...]  # normalised, a sorted set


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
    def from_entry(cls, entry: Entry) -> Spec:
        """Normalise one `spec_details` entry."""
        return cls(
            entry.hash,
            tuple(sorted(set(entry.versions))),
            normal_compiler(entry.compiler),
            entry.os,
            entry.platform,
            entry.target,
            normal_variants(entry.variants),
            tuple(sorted(set(entry.stacks))),
            entry.size,
            entry.extra,
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
        """What pairs a removed spec with an added one: its Configuration."""
        return Configuration(self.os, self.platform, self.target, self.compiler, self.variants)


def configuration_of(entry: Entry) -> Configuration:
    """What Spec.from_entry(entry).configuration() gives, without building the whole Spec."""
    return configuration_from(
        entry.os, entry.platform, entry.target, entry.compiler, entry.variants
    )


@lru_cache(maxsize=65536)
def configuration_from(
    os: str, platform: str, target: str, compiler: str, variants: tuple[str, ...]
) -> Configuration:
    """The configuration of an entry with these fields as read; a catalogue has a few thousand,
    each normalised once (and then shared by every record of it)."""
    return Configuration(os, platform, target, normal_compiler(compiler), normal_variants(variants))


class PageEntries(Protocol):
    """A page's entries by hash, sorted (`entries.Entries` reads them): what a diff asks of them.

    Every entry is decoded and checked when its page is read, so reading one never fails.
    """

    counts: tuple[tuple[str, int], ...]  # (stack, entries in it), sorted by stack
    compiled: tuple[tuple[str, int], ...]  # (stack, entries in it with a compiler), sorted
    stacks: frozenset[str]
    versions: frozenset[str]

    def __getitem__(self, digest: str) -> Entry: ...
    def __contains__(self, digest: object) -> bool: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def hashes(self) -> KeysView[str]: ...
    def items(self) -> ItemsView[str, Entry]: ...
    def values(self) -> ValuesView[Entry]: ...
    def differing(self, other: PageEntries) -> list[str]: ...
    def subset(self, digests: Iterable[str]) -> PageEntries: ...
    def versions_by_configuration(self) -> dict[Configuration, set[str]]: ...
    def stacks_by_configuration(self) -> dict[Configuration, frozenset[str]]: ...
    def spellings(self) -> dict[str, str]: ...


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
    entries: PageEntries | None  # by hash, sorted; None when only the counts were read
    spec_count: int
    stack_counts: tuple[tuple[str, int], ...]  # (stack, specs in it), sorted by stack
    # (stack, specs in it with a compiler: not `none`), sorted by stack; a stack whose specs
    # here all have no compiler is left out
    compiled_counts: tuple[tuple[str, int], ...]

    def at(self, source: str) -> Page:
        """The same page read from another place."""
        return Page(
            self.tag,
            self.name,
            source,
            self.digest,
            self.entries,
            self.spec_count,
            self.stack_counts,
            self.compiled_counts,
        )


@dataclass(frozen=True, slots=True)
class Tally:
    """Pages held only as counts: the content both sides of a diff hold alike (git revisions
    read in O(changed) keep no Page for it). The same on both sides of a pair."""

    pages: Mapping[str, int]  # tag -> pages
    specs: Mapping[str, int]  # tag -> specs
    stacks: Mapping[tuple[str, str], int]  # (tag, stack) -> specs
    compiled: Mapping[tuple[str, str], int]  # (tag, stack) -> specs with a compiler (not `none`)

    @property
    def page_count(self) -> int:
        """How many pages are counted."""
        return sum(self.pages.values())


NOTHING = Tally({}, {}, {}, {})


@dataclass(frozen=True, slots=True)
class Root:
    """One of an environment's input specs (SPEC section 7): its abstract spec text as written
    (an install database's explicit record has none: ""), the hash it was concretized to, its
    group (lockfile v7) and the environment it was written in (`.`, or an included one's path)."""

    spec: str
    hash: str
    group: str | None = None
    environment: str = "."
    trusted: bool = True  # false when its hash names a node of another package (a warning)


@dataclass(frozen=True, slots=True)
class Environment:
    """A Spack environment on one side (SPEC section 7): its name (the folder it was found in),
    roots, format versions and the Spack that wrote it. Its specs are the pages of the tag of
    its name."""

    name: str
    roots: tuple[Root, ...]
    lockfile: int | None  # the lockfile version, None for an install database
    database: int | None  # the database version, None for a lockfile
    spack_version: str | None = None
    spack_commit: str | None = None
    warnings: tuple[str, ...] = ()  # roots whose hash names another package's node


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Every page of one side of a diff, keyed by (tag, package name), and the pages it holds
    alike with the other side only counted (`rest`)."""

    source: str
    pages: Mapping[tuple[str, str], Page]
    commit: str | None = None  # full commit id, for git revisions
    date: str | None = None  # commit date (ISO 8601), for git revisions
    warnings: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # bad pages left out (--keep-going), as error messages
    skipped_keys: frozenset[tuple[str, str]] = frozenset()  # their (tag, package), when known
    rest: Tally = NOTHING  # pages not in `pages`, equal on the other side of the pair
    graph: Graph | None = None  # build-cache indexes only: every record and its edges
    environments: tuple[Environment, ...] = ()  # environments only, each a tag of its name
    commit_subject: str | None = None  # the commit's subject line, for git revisions

    @property
    def tags(self) -> tuple[str, ...]:
        """The cache tags present, sorted."""
        return tuple(sorted({tag for tag, _ in self.pages} | self.rest.pages.keys()))

    def release_to(self, other: Snapshot) -> bool:
        """Release to release: each side holds one tag, and the tags differ (SPEC section 2)."""
        return len(self.tags) == 1 and len(other.tags) == 1 and self.tags != other.tags

    @property
    def page_count(self) -> int:
        """How many pages the snapshot holds."""
        return len(self.pages) + self.rest.page_count

    @property
    def spec_count(self) -> int:
        """How many specs the snapshot holds."""
        held = sum(page.spec_count for page in self.pages.values())
        return held + sum(self.rest.specs.values())

    def pairs_with(self, other: Snapshot) -> bool:
        """Whether the two can be diffed: what either holds only as counts (pages with no
        entries, and `rest`), the other holds alike. Snapshots read in full always pair."""
        return self.rest == other.rest and not counted_apart(self, other)


def counted_apart(old: Snapshot, new: Snapshot) -> bool:
    """Whether a page read only for its counts differs from its counterpart: content both
    sides hold, whose page one side left out (`--keep-going`, a package's second page)."""
    for snapshot, other in (old, new), (new, old):
        for key, page in snapshot.pages.items():
            twin = other.pages.get(key)
            if page.entries is None and (twin is None or twin.digest != page.digest):
                return True
    return False


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
