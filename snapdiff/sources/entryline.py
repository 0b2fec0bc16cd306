"""One pass over a `spec_details` line in the generator's form: each entry's text, hash,
configuration and lists, found by one regular expression in C (see `entries`)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from itertools import compress
from operator import itemgetter

import orjson

from ..model import NO_COMPILER, Configuration, normal_compiler, normal_variants
from ..versions import spec_version

__all__ = [
    "NO_COMPILER_TEXT",
    "Counts",
    "Line",
    "Rows",
    "configuration",
    "stack_counts",
    "text_list",
    "version_of",
]

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


def stack_counts(lists: Iterable[tuple[Iterable[str], int]]) -> Counts:
    """Entries per stack from (stacks list, entries with it), sorted; a stack listed twice in a
    list counts once."""
    counts: dict[str, int] = {}
    for stacks, times in lists:
        for stack in set(stacks):
            counts[stack] = counts.get(stack, 0) + times
    return tuple(sorted(counts.items()))


class Line:
    """What one pass over a `spec_details` line in the generator's form finds, or why not."""

    def __init__(self, line: bytes) -> None:
        self.texts: dict[str, bytes] = {}
        self.counts: Counts = ()
        self.compiled: Counts = ()  # entries per stack of those with a compiler (not `none`)
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
        if not self._lists(stacks, versions, variants):
            return False
        self.compiled = _compiled(found, stacks, self.counts)
        return True

    def _lists(self, stacks: list[bytes], versions: list[bytes], variants: list[bytes]) -> bool:
        """Counts and versions from the distinct list texts; False if one is bad."""
        parsed = {text: _strings(text) for text in {*stacks, *versions, *variants}}
        if None in parsed.values():
            return False  # a list that is not a list of strings
        self.counts = stack_counts((parsed[t] or (), n) for t, n in Counter(stacks).items())
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
_NONE = NO_COMPILER.encode()
NO_COMPILER_TEXT = b'"compiler": "' + _NONE + b'"'  # as an entry with no compiler writes it


def _compiled(found: list[Match], stacks: list[bytes], counts: Counts) -> Counts:
    """Entries per stack of those whose compiler is not `none`, of entries with these stack
    lists (already read) and `counts` per stack."""
    compilers = list(map(itemgetter(0), found))
    without = compilers.count(_NONE)
    if not without:
        return counts
    if without == len(compilers):
        return ()
    kept = compress(stacks, map(_NONE.__ne__, compilers))
    return stack_counts((text_list(text), n) for text, n in Counter(kept).items())


class Rows:
    """The distinct facets of a page's entries as read: (configuration, versions) and
    (configuration, stacks). Made at once: keeping the matches to make the second only when
    asked for (a few pages are) cost a third more memory for a develop-size pair (140 MiB
    against 107 MiB peak) to save about 0.01 s."""

    __slots__ = ("_by_stacks", "_by_versions")

    def __init__(self, found: list[Match]) -> None:
        self._by_versions = set(map(_CONFIG_VERSION, found))
        self._by_stacks = Counter(map(_CONFIG_STACKS, found))  # with how many entries each

    def version_facets(self) -> set[Facet]:
        """Each distinct (configuration, versions) facet."""
        return self._by_versions

    def stack_facets(self) -> Counter[Facet]:
        """Each (configuration, stacks) facet with the number of entries that have it."""
        return self._by_stacks


def text_list(text: bytes) -> tuple[str, ...]:
    """A list text already checked by `Line` (so in `_LISTS`), as its sorted distinct strings."""
    return _LISTS[text] or ()


@lru_cache(maxsize=65536)
def configuration(
    os: bytes, platform: bytes, target: bytes, compiler: bytes, variants: bytes
) -> Configuration:
    """A configuration from the page's bytes (lists as JSON text); a catalogue has few."""
    return Configuration(
        os.decode(),
        platform.decode(),
        target.decode(),
        normal_compiler(compiler.decode()),
        normal_variants(text_list(variants)),
    )


@lru_cache(maxsize=65536)
def version_of(versions: bytes) -> str:
    """The version of a spec whose versions list has this JSON text."""
    return spec_version(text_list(versions))
