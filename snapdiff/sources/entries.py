"""A page's `spec_details` entries by hash, kept as JSON text and parsed only where a diff looks.

Most entries of a changed page are byte-for-byte the same on both sides, and a Python loop over
every entry costs more than the rest of a diff. The generator writes `spec_details` on one line
as `[{...}, {...}]` of flat objects with sorted keys, so one regular-expression pass reads what a
diff needs of every entry (hash, configuration, stacks, versions) in C, and the line splits at
`}, {` into each entry's text. The diff compares entries by text; only those whose text differs
between the sides are parsed and type-checked (by the loader, before the diff). Each distinct
list text (stacks, versions, variants) is parsed once. Measured on a develop-size pair with 5%
churn: of 72,000 entries on changed pages, 9,400 are parsed.

A line in any other form (another key order, nested objects, escapes, braces in strings) is
parsed whole and checked entry by entry; both ways give the same entries.
"""

from __future__ import annotations

import contextlib
import weakref
from collections import Counter
from collections.abc import Iterable, Iterator, KeysView, Mapping

import orjson

from ..errors import InputError
from ..model import (
    NO_COMPILER,
    Configuration,
    Entry,
    PageEntries,
    compiler_of,
    configuration_of,
    written_as,
)
from ..versions import spec_version
from .checks import FIX, check_entries, check_entry, json_value
from .entryline import Counts, Line, Rows, configuration, stack_counts, text_list, version_of

__all__ = ["FIX", "Entries", "check_entries", "json_value"]  # the checks re-exported


class Entries(Mapping[str, Entry]):
    """One page's entries by hash, sorted: checked mappings once read, texts until then.

    `counts` (entries per stack), `stacks` and `versions` are those of all its entries;
    `compiled` counts per stack those with a compiler (not `none`).
    """

    __slots__ = (
        "__weakref__",
        "_checked",
        "_differs",
        "_kept",
        "_read",
        "_rows",
        "_texts",
        "compiled",
        "counts",
        "source",
        "stacks",
        "versions",
    )

    def __init__(
        self,
        source: str,
        texts: dict[str, bytes] | None,
        read: dict[str, Entry],
        counts: Counts,
        compiled: Counts,
        versions: frozenset[str],
        rows: Rows | None = None,
    ) -> None:
        self.source = source
        self._texts = texts  # None: every entry was read (and checked) up front
        self._read = read
        self._checked: set[str] = set()  # entries kept as text whose checks passed
        # those of them a diff reads (that differ from the other side), kept as read: each is
        # read by the loader's check and again by the diff (no caller changes an entry)
        self._kept: dict[str, Entry] = {}
        self._differs: tuple[weakref.ref[PageEntries], tuple[str, ...]] | None = None
        self.counts = counts
        self.compiled = compiled
        self.stacks = frozenset(stack for stack, _ in counts)
        self.versions = versions
        self._rows = rows  # what the regular expression found, when read as text

    @classmethod
    def from_line(cls, line: bytes, source: str) -> Entries | None:
        """The entries of a `spec_details` line in the generator's form; None for another form."""
        found = Line(line)
        if not found.ok:
            return None
        return cls(
            source, found.texts, {}, found.counts, found.compiled, found.versions, Rows(found.found)
        )

    @classmethod
    def from_read(cls, entries: Mapping[str, Entry], source: str) -> Entries:
        """Entries already parsed and checked (`check_entries`), sorted by hash."""
        counts = stack_counts((entry["stacks"], 1) for entry in entries.values())
        compiled = stack_counts(
            (entry["stacks"], 1) for entry in entries.values() if compiler_of(entry) != NO_COMPILER
        )
        versions = frozenset(v for entry in entries.values() for v in entry["versions"])
        return cls(source, None, dict(entries), counts, compiled, versions)

    def subset(self, digests: Iterable[str]) -> Entries:
        """Only these entries (each one of ours), read."""
        wanted = set(digests)
        return Entries.from_read({d: self[d] for d in self if d in wanted}, self.source)

    def __getitem__(self, digest: str) -> Entry:
        """The entry, parsed from its text when kept as text (each time, but for those the
        loader checked as differing: keeping every parsed entry of a catalogue would not fit)."""
        if self._texts is None:
            return self._read[digest]
        return self._parse(digest, self._texts[digest])

    def _parse(self, digest: str, text: bytes, keep: bool = False) -> Entry:
        found = self._kept.get(digest)
        if found is not None:
            return found
        try:
            entry: Entry = orjson.loads(b"{" + text + b"}")
        except orjson.JSONDecodeError as exc:
            what = f"the spec_details entry of hash {digest} is not valid JSON ({exc.msg})"
            raise InputError(self.source, what, FIX) from None
        if digest not in self._checked:  # the same text passed the checks before
            if check_entry(entry, self.source, 0) != digest:
                raise InputError(self.source, f"spec {digest} names its hash twice", FIX)
            self._checked.add(digest)
        if keep:
            self._kept[digest] = entry
        return entry

    def __iter__(self) -> Iterator[str]:
        return iter(self._read if self._texts is None else self._texts)

    def __len__(self) -> int:
        return len(self._read if self._texts is None else self._texts)

    def __contains__(self, digest: object) -> bool:
        return digest in (self._read if self._texts is None else self._texts)

    def hashes(self) -> KeysView[str]:
        """The hashes, as a set-like view."""
        return (self._read if self._texts is None else self._texts).keys()

    def differing(self, other: PageEntries) -> list[str]:
        """Our entries that `other` lacks or holds otherwise as read, sorted by hash (kept for
        the last `other` asked about: the loader's check and the diff ask alike)."""
        if self._differs is not None and self._differs[0]() is other:
            return list(self._differs[1])
        if self._texts is not None and isinstance(other, Entries) and other._texts is not None:
            found = sorted(digest for digest, _ in self._texts.items() - other._texts.items())
        else:
            found = [d for d in self if d not in other or not self.same(other, d)]
        with contextlib.suppress(TypeError):  # an `other` that cannot be referred to weakly
            self._differs = (weakref.ref(other), tuple(found))
        return found

    def same(self, other: PageEntries, digest: str) -> bool:
        """Whether an entry both hold is the same as read (same text, or equal once parsed)."""
        if self._texts is not None and isinstance(other, Entries) and other._texts is not None:
            return self._texts[digest] == other._texts[digest]
        return self[digest] == other[digest]

    def check(self, other: PageEntries | None) -> None:
        """Parse and check every entry that `other` (the counterpart page) lacks as it is."""
        if self._texts is not None:  # kept for the diff only when few: those that differ
            for digest in self if other is None else self.differing(other):
                self._parse(digest, self._texts[digest], keep=other is not None)

    def versions_by_configuration(self) -> dict[Configuration, set[str]]:
        """Each configuration of the entries with the versions built in it (SPEC section 2a)."""
        found: dict[Configuration, set[str]] = {}
        if self._rows is not None:
            for *raw, versions in self._rows.version_facets():
                found.setdefault(configuration(*raw), set()).add(version_of(versions))
            return found
        for entry in self._read.values():
            found.setdefault(configuration_of(entry), set()).add(spec_version(entry["versions"]))
        return found

    def configurations_by_stack(self) -> dict[str, Counter[Configuration]]:
        """Each stack of the entries with the configurations of its specs, and how many specs
        each has."""
        found: dict[str, Counter[Configuration]] = {}
        if self._rows is not None:
            for (*raw, last), count in self._rows.stack_facets().items():
                config = configuration(*raw)
                for stack in text_list(last):
                    found.setdefault(stack, Counter())[config] += count
            return found
        for entry in self._read.values():
            config = configuration_of(entry)
            for stack in set(entry["stacks"]):
                found.setdefault(stack, Counter())[config] += 1
        return found

    def spellings(self) -> dict[str, str]:
        """Each normalised compiler and variant of the entries as this page writes it (`@=`
        read as `@`; Spack 1.0 writes `oneapi@X` as `intel-oneapi-compilers@X`, `name=v` as
        `name:=v`); of several ways, the last in sorted order."""
        if self._rows is not None:
            rows = self._rows.version_facets()
            compilers = {row[3].decode() for row in rows}
            variants = {v for text in {row[4] for row in rows} for v in text_list(text)}
        else:
            compilers = {str(entry.get("compiler", "")) for entry in self._read.values()}
            variants = {v for entry in self._read.values() for v in entry["variants"]}
        return written_as(compilers, variants)
