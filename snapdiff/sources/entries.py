"""A page's `spec_details` entries by hash, decoded in one call into typed records.

A line in the generator's form (flat objects of the known keys) is decoded by msgspec straight
into frozen `Entry` records, checked as it goes (the only Python work per entry: sharing each
field value with the equal ones read before); a diff then compares entries as read by C-level
equality, and sums a page up (specs per stack, versions, configurations) from the distinct
values of its fields. Any other line (an unknown key, a
nested `size`, a bad value) is parsed whole and checked entry by entry (`checks`), which names
what is wrong; both ways give the same entries.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from itertools import chain
from operator import attrgetter, itemgetter
from typing import Any

import msgspec

from ..model import NO_COMPILER, Configuration, Entry, PageEntries, configuration_from, written_as
from ..versions import version_of
from .checks import FIX, check_entries, json_value

__all__ = [
    "FIX",
    "NO_COMPILER_TEXT",
    "Counts",
    "Entries",
    "check_entries",
    "json_value",
    "stack_counts",
]

_DECODER = msgspec.json.Decoder(list[Entry])
_HASH = attrgetter("hash")
_FIRST = itemgetter(0)
_STACKS = attrgetter("stacks")
_COMPILER = attrgetter("compiler")
_VERSIONS = attrgetter("versions")
_EXTRA = attrgetter("extra")
# of an entry: its configuration's fields as read, with its versions or with its stacks
_BY_VERSIONS = attrgetter("os", "platform", "target", "compiler", "variants", "versions")
_BY_STACKS = attrgetter("os", "platform", "target", "compiler", "variants", "stacks")


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


# Each distinct field value decoded (but hashes), shared by every record that holds it: a
# release pair at all tags holds 830,000 records and a few thousand distinct values, and a
# record's own copies took 3.8 times the memory (469 MiB against 125 MiB for one side's
# 416,000 records). Emptied when large, so a long history does not grow it for ever.
_SHARED: dict[object, Any] = {}
_SHARED_MOST = 1 << 18


def _shared(found: list[Entry]) -> list[Entry]:
    """The records with every field value but the hash shared with equal ones read before
    (built anew by position: 25.7 ms over 3,000 develop pages' records, against 32.6 ms by
    name through `msgspec.structs.replace`)."""
    if len(_SHARED) > _SHARED_MOST:
        _SHARED.clear()
    one = _SHARED.setdefault
    return [
        Entry(
            e.hash,
            one(e.stacks, e.stacks),
            one(e.variants, e.variants),
            one(e.versions, e.versions),
            one(e.compiler, e.compiler),
            one(e.os, e.os),
            one(e.platform, e.platform),
            one(e.target, e.target),
            e.size,
            e.tarball,
            e.extra,
        )
        for e in found
    ]


def _decoded(line: bytes) -> dict[str, Entry] | None:
    """The entries of a `spec_details` line by hash, sorted, decoded and checked in one call;
    None when the line needs reading entry by entry (to say what is wrong, or for other keys)."""
    try:
        found = _DECODER.decode(line)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    if any(map(_EXTRA, found)):
        return None  # a key named `extra`: read as any other unknown key
    found = _shared(found)
    hashes = list(map(_HASH, found))
    if hashes == sorted(hashes):  # as the generator writes them
        by_hash = dict(zip(hashes, found, strict=True))
    else:
        by_hash = dict(sorted(zip(hashes, found, strict=True), key=_FIRST))
    return by_hash if len(by_hash) == len(found) else None  # else a hash twice


def _tally(values: Iterable[tuple[str, ...]]) -> dict[tuple[str, ...], int]:
    """How many times each value comes (a Counter's own setup costs more than a page's few
    records: 11 on average at develop size)."""
    found: dict[tuple[str, ...], int] = {}
    get = found.get
    for value in values:
        found[value] = get(value, 0) + 1
    return found


class Entries(Mapping[str, Entry]):
    """One page's entries by hash, sorted.

    `counts` (entries per stack), `stacks` and `versions` are those of all its entries;
    `compiled` counts per stack those with a compiler (not `none`).
    """

    __slots__ = ("_by_hash", "_spellings", "compiled", "counts", "source", "stacks", "versions")

    def __init__(self, by_hash: dict[str, Entry], source: str) -> None:
        self.source = source
        self._by_hash = by_hash
        self._spellings: dict[str, str] | None = None  # worked out when first asked
        records = by_hash.values()
        self.counts: Counts = stack_counts(_tally(map(_STACKS, records)).items())
        self.compiled: Counts = self.counts
        if NO_COMPILER in set(map(_COMPILER, records)):
            with_one = (e.stacks for e in records if e.compiler != NO_COMPILER)
            self.compiled = stack_counts(_tally(with_one).items())
        self.stacks = frozenset(stack for stack, _ in self.counts)
        self.versions = frozenset(chain.from_iterable(set(map(_VERSIONS, records))))

    @classmethod
    def from_line(cls, line: bytes, source: str) -> Entries | None:
        """The entries of a `spec_details` line in the generator's form; None for another form."""
        found = _decoded(line)
        return None if found is None else cls(found, source)

    @classmethod
    def from_read(cls, entries: Mapping[str, Mapping[str, Any]], source: str) -> Entries:
        """Entries already parsed and checked (`check_entries`), sorted by hash."""
        return cls({d: Entry.from_mapping(e) for d, e in entries.items()}, source)

    def subset(self, digests: Iterable[str]) -> Entries:
        """Only these entries (each one of ours)."""
        wanted = set(digests)
        return Entries({d: e for d, e in self._by_hash.items() if d in wanted}, self.source)

    def __getitem__(self, digest: str) -> Entry:
        return self._by_hash[digest]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_hash)

    def __len__(self) -> int:
        return len(self._by_hash)

    def __contains__(self, digest: object) -> bool:
        return digest in self._by_hash

    def hashes(self) -> KeysView[str]:
        """The hashes, as a set-like view."""
        return self._by_hash.keys()

    def values(self) -> ValuesView[Entry]:  # the dict's own views: iterated in C
        return self._by_hash.values()

    def items(self) -> ItemsView[str, Entry]:
        return self._by_hash.items()

    def differing(self, other: PageEntries) -> list[str]:
        """Our entries that `other` lacks or holds otherwise as read, sorted by hash."""
        theirs = other._by_hash if isinstance(other, Entries) else dict(other.items())
        return [d for d, entry in self._by_hash.items() if theirs.get(d) != entry]

    def versions_by_configuration(self) -> dict[Configuration, set[str]]:
        """Each configuration of the entries with the versions built in it (SPEC section 2a)."""
        found: dict[Configuration, set[str]] = {}
        for *raw, versions in set(map(_BY_VERSIONS, self._by_hash.values())):
            found.setdefault(configuration_from(*raw), set()).add(version_of(versions))
        return found

    def stacks_by_configuration(self) -> dict[Configuration, frozenset[str]]:
        """Each configuration of the entries with the stacks its specs are in (SPEC section 2a:
        a migration's configurations are related only when their specs share a stack)."""
        found: dict[Configuration, set[str]] = {}
        for *raw, stacks in set(map(_BY_STACKS, self._by_hash.values())):
            found.setdefault(configuration_from(*raw), set()).update(stacks)
        return {config: frozenset(stacks) for config, stacks in found.items()}

    def spellings(self) -> dict[str, str]:
        """Each normalised compiler and variant of the entries as this page writes it (`@=`
        read as `@`; Spack 1.0 writes `oneapi@X` as `intel-oneapi-compilers@X`, `name=v` as
        `name:=v`); of several ways, the last in sorted order (worked out once: a diff asks
        for a page's explanations and for its stacks)."""
        if self._spellings is None:
            records = self._by_hash.values()
            compilers = set(map(_COMPILER, records))
            variants = set(chain.from_iterable(set(map(attrgetter("variants"), records))))
            self._spellings = written_as(compilers, variants)
        return self._spellings
