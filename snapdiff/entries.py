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
import re
import weakref
from collections import Counter
from collections.abc import Iterable, Iterator, KeysView, Mapping
from functools import lru_cache
from operator import itemgetter

import orjson

from .checks import FIX, check_entries, check_entry, json_value
from .errors import InputError
from .model import (
    Configuration,
    Entry,
    PageEntries,
    configuration_of,
    normal_compiler,
    normal_variants,
)
from .versions import spec_version

__all__ = ["FIX", "Entries", "check_entries", "json_value"]  # the checks re-exported

# One entry as the generator writes it; more keys may follow `versions`.
_ENTRY = re.compile(
    rb'"compiler": "([^"]*)", "hash": "([^"]*)", "os": "([^"]*)", "platform": "([^"]*)", '
    rb'"size": [^,]*, "stacks": (\[[^\]]*\]), "target": "([^"]*)", '
    rb'"variants": (\[[^\]]*\]), "versions": (\[[^\]]*\])'
)
# Distinct list texts seen, as sorted distinct strings (None: not a list of strings); a
# catalogue has a few thousand, shared by its tens of thousands of entries.
_LISTS: dict[bytes, tuple[str, ...] | None] = {}

Counts = tuple[tuple[str, int], ...]  # (stack, entries in it), sorted by stack


def _strings(text: bytes) -> tuple[str, ...] | None:
    """A JSON list of strings as its sorted distinct values; None when it is not one."""
    if text in _LISTS:
        return _LISTS[text]
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = None
    found = None
    if type(value) is list and all(type(item) is str for item in value):
        found = tuple(sorted(set(value)))
    _LISTS[text] = found
    return found


def _stack_counts(lists: Iterable[tuple[Iterable[str], int]]) -> Counts:
    """Entries per stack from (stacks list, entries with it), sorted; a stack listed twice in a
    list counts once."""
    counts: dict[str, int] = {}
    for stacks, times in lists:
        for stack in set(stacks):
            counts[stack] = counts.get(stack, 0) + times
    return tuple(sorted(counts.items()))


class _Line:
    """What one pass over a `spec_details` line in the generator's form finds, or why not."""

    def __init__(self, line: bytes) -> None:
        self.texts: dict[str, bytes] = {}
        self.counts: Counts = ()
        self.versions: frozenset[str] = frozenset()
        self.found: list[Match] = []  # what the regular expression found of each entry
        self.ok = line == b"[]" or self._read(line)

    def _read(self, line: bytes) -> bool:
        if not (line.startswith(b'[{"') and line.endswith(b"}]")) or b"\\" in line:
            return False  # not a list of objects, or a string with an escape
        if not line.isascii():
            try:
                line.decode()
            except UnicodeDecodeError:
                return False
        texts = line[2:-2].split(b"}, {")
        found = _ENTRY.findall(line)
        count = len(texts)
        if len(found) != count or line.count(b"{") != count:
            return False  # another key order, a nested object, or a brace in a string
        # (a "}" in a string alone splits nothing: the entry's text holds it, and parses so)
        hashes, stacks, variants, versions = (list(map(pick, found)) for pick in _COLUMNS)
        # (an entry matching twice and another not at all would pair texts with wrong hashes:
        # reading an entry checks its hash, and equal texts on both sides are equal anyway)
        keys = list(map(bytes.decode, hashes))
        if keys == sorted(keys):  # as the generator writes them: no need to sort the pairs
            self.texts = dict(zip(keys, texts, strict=True))
        else:
            self.texts = dict(sorted(zip(keys, texts, strict=True)))
        if len(self.texts) != count or "" in self.texts:
            return False  # a hash twice, or an empty one
        self.found = found
        return self._lists(stacks, versions, variants)

    def _lists(self, stacks: list[bytes], versions: list[bytes], variants: list[bytes]) -> bool:
        """Counts and versions from the distinct list texts; False if one is bad."""
        parsed = {text: _strings(text) for text in {*stacks, *versions, *variants}}
        if None in parsed.values():
            return False  # a list that is not a list of strings
        self.counts = _stack_counts((parsed[t] or (), n) for t, n in Counter(stacks).items())
        self.versions = frozenset(v for text in set(versions) for v in parsed[text] or ())
        return True


# One regular-expression match: (compiler, hash, os, platform, stacks, target, variants,
# versions), as the page's bytes; the columns a page's counts are read from (hash, stacks,
# variants, versions); and of a match, (os, platform, target, compiler, variants, X), X its
# versions or its stacks: what its configurations are read from, when asked (`Rows`).
Match = tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes]
_COLUMNS = (itemgetter(1), itemgetter(4), itemgetter(6), itemgetter(7))
_CONFIG_VERSION = itemgetter(2, 3, 5, 0, 6, 7)
_CONFIG_STACKS = itemgetter(2, 3, 5, 0, 6, 4)
Facet = tuple[bytes, bytes, bytes, bytes, bytes, bytes]


class Rows:
    """The distinct facets of a page's entries as read, each kind made when first asked for
    (most pages of a diff are asked for versions, few for stacks)."""

    __slots__ = ("_by_stacks", "_by_versions", "_found")

    def __init__(self, found: list[Match]) -> None:
        self._found = found
        self._by_versions: set[Facet] | None = None
        self._by_stacks: set[Facet] | None = None

    def of(self, stacks: bool) -> set[Facet]:
        if stacks:
            if self._by_stacks is None:
                self._by_stacks = set(map(_CONFIG_STACKS, self._found))
            return self._by_stacks
        if self._by_versions is None:
            self._by_versions = set(map(_CONFIG_VERSION, self._found))
        return self._by_versions


def _text_list(text: bytes) -> tuple[str, ...]:
    """A list text already checked by `_Line` (so in `_LISTS`), as its sorted distinct strings."""
    return _LISTS[text] or ()


@lru_cache(maxsize=65536)
def _configuration(
    os: bytes, platform: bytes, target: bytes, compiler: bytes, variants: bytes
) -> Configuration:
    """A configuration from the page's bytes (lists as JSON text); a catalogue has few."""
    return (
        os.decode(),
        platform.decode(),
        target.decode(),
        normal_compiler(compiler.decode()),
        normal_variants(_text_list(variants)),
    )


@lru_cache(maxsize=65536)
def _version(versions: bytes) -> str:
    """The version of a spec whose versions list has this JSON text."""
    return spec_version(_text_list(versions))


class Entries(Mapping[str, Entry]):
    """One page's entries by hash, sorted: checked mappings once read, texts until then.

    `counts` (entries per stack), `stacks` and `versions` are those of all its entries.
    """

    __slots__ = (
        "__weakref__",
        "_checked",
        "_differs",
        "_kept",
        "_read",
        "_rows",
        "_texts",
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
        self.stacks = frozenset(stack for stack, _ in counts)
        self.versions = versions
        self._rows = rows  # what the regular expression found, when read as text

    @classmethod
    def from_line(cls, line: bytes, source: str) -> Entries | None:
        """The entries of a `spec_details` line in the generator's form; None for another form."""
        found = _Line(line)
        if not found.ok:
            return None
        return cls(source, found.texts, {}, found.counts, found.versions, Rows(found.found))

    @classmethod
    def from_read(cls, entries: Mapping[str, Entry], source: str) -> Entries:
        """Entries already parsed and checked (`check_entries`), sorted by hash."""
        counts = _stack_counts((entry["stacks"], 1) for entry in entries.values())
        versions = frozenset(v for entry in entries.values() for v in entry["versions"])
        return cls(source, None, dict(entries), counts, versions)

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

    def _facets(self, stacks: bool) -> Iterator[tuple[Configuration, str, tuple[str, ...]]]:
        """(configuration, version or "", stacks or ()) of every entry, repeats allowed."""
        if self._rows is not None:
            for *raw, last in self._rows.of(stacks):
                config = _configuration(*raw)
                yield (config, "", _text_list(last)) if stacks else (config, _version(last), ())
            return
        for entry in self._read.values():
            config = configuration_of(entry)
            if stacks:
                yield config, "", tuple(entry["stacks"])
            else:
                yield config, spec_version(entry["versions"]), ()

    def versions_by_configuration(self) -> dict[Configuration, set[str]]:
        """Each configuration of the entries with the versions built in it (SPEC section 2a)."""
        found: dict[Configuration, set[str]] = {}
        for config, version, _ in self._facets(stacks=False):
            found.setdefault(config, set()).add(version)
        return found

    def configurations_by_stack(self) -> dict[str, set[Configuration]]:
        """Each stack of the entries with the configurations of its specs."""
        found: dict[str, set[Configuration]] = {}
        for config, _, stacks in self._facets(stacks=True):
            for stack in stacks:
                found.setdefault(stack, set()).add(config)
        return found

    def compiler_spellings(self) -> dict[str, str]:
        """Each normalised compiler of the entries as this page spells it (`@=` read as `@`)."""
        if self._rows is not None:
            raw = {row[3].decode() for row in self._rows.of(stacks=False)}
        else:
            raw = {str(entry.get("compiler", "")) for entry in self._read.values()}
        return {normal_compiler(c): c.replace("@=", "@") for c in sorted(raw)}
