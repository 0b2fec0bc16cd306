"""Counts of a unit's pages (a tag folder `_cache/<tag>`, or the rest of a revision): what a diff
needs of content it does not read, and how a tally changes as pages are taken away and added.

A diff of two revisions reads only the files that differ between them and takes the rest from
the tally of either side, less that side's changed pages; then it stores the other side's tally
as that plus the other side's changed pages (`changed`), so a daily chain of revisions never
reads an unchanged page twice. `tallycache` keeps tallies across runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import orjson

from ...errors import InputError
from ...model import Page, Tally

__all__ = ["UnitTally", "name_key", "total"]


def name_key(tag: str, name: str) -> str:
    """A (tag, package name) as one string, unambiguously (a tally's `names` are keyed so, so
    that they load as one dictionary, in C)."""
    return orjson.dumps([tag, name]).decode()


class UnitTally:
    """The pages of one unit, as counts: what a diff needs of content it does not read.

    Its page names are read from a file only when asked for: a diff asks for those of the units
    it changed, and a catalogue has dozens of tag folders (parsing a develop-size unit's names
    takes about 3 ms; its counts a tenth of that).
    """

    __slots__ = ("_names", "_raw_names", "compiled", "notes", "pages", "source", "specs", "stacks")

    def __init__(self, names: dict[str, str] | None = None, raw_names: bytes = b"{}") -> None:
        self._names = names  # name_key(tag, name) -> path; None until read from _raw_names
        self._raw_names = raw_names
        self.source = ""  # the file it was read from, if any
        self.pages: Counter[str] = Counter()  # tag -> pages
        self.specs: Counter[str] = Counter()  # tag -> specs
        self.stacks: Counter[tuple[str, str]] = Counter()  # (tag, stack) -> specs
        # (tag, stack) -> specs with a compiler (not `none`)
        self.compiled: Counter[tuple[str, str]] = Counter()
        self.notes: dict[str, list[str]] = {}  # path -> warnings, unlabelled

    @property
    def names(self) -> dict[str, str]:
        if self._names is None:
            self._names = _names(self._raw_names, sum(self.pages.values()), self.source)
        return self._names

    def add(self, path: str, page: Page, notes: list[str]) -> None:
        self.names[name_key(page.tag, page.name)] = path
        self.pages[page.tag] += 1
        self.specs[page.tag] += page.spec_count
        for stack, count in page.stack_counts:
            self.stacks[(page.tag, stack)] += count
        for stack, count in page.compiled_counts:
            self.compiled[(page.tag, stack)] += count
        if notes:
            self.notes[path] = notes

    def path_of(self, tag: str, name: str) -> str | None:
        """Where the page of a package is, when the unit holds one."""
        return self.names.get(name_key(tag, name)) if tag in self.pages else None

    def remove(self, path: str, page: Page) -> bool:
        """Take away a page `add` put in (with the same counts); False (and nothing taken)
        when the unit holds no such page at that path."""
        if self.path_of(page.tag, page.name) != path:
            return False
        del self.names[name_key(page.tag, page.name)]
        _take(self.pages, page.tag, 1)
        _take(self.specs, page.tag, page.spec_count)
        for stack, count in page.stack_counts:
            _take(self.stacks, (page.tag, stack), count)
        for stack, count in page.compiled_counts:
            _take(self.compiled, (page.tag, stack), count)
        self.notes.pop(path, None)
        return True

    def copy(self) -> UnitTally:
        copied = UnitTally(dict(self.names))
        copied.pages, copied.specs = Counter(self.pages), Counter(self.specs)
        copied.stacks, copied.notes = Counter(self.stacks), dict(self.notes)
        copied.compiled = Counter(self.compiled)
        return copied

    def to_json(self) -> bytes:
        """Two lines: the counts and warnings, then the names (read only when asked for)."""
        counts = {
            "pages": self.pages,
            "specs": self.specs,
            "stacks": _rows(self.stacks),
            "compiled": _rows(self.compiled),
            "notes": self.notes,
        }
        sort = orjson.OPT_SORT_KEYS
        return orjson.dumps(counts, option=sort) + b"\n" + orjson.dumps(self.names, option=sort)

    @classmethod
    def from_json(cls, body: bytes, source: str = "") -> UnitTally:
        """A tally from `to_json`'s bytes; ValueError on anything else (its names are checked
        when first read)."""
        counts, newline, raw_names = body.partition(b"\n")
        data = orjson.loads(counts)
        if not newline or type(data) is not dict or set(data) != _COUNTS:
            raise ValueError("not a tally")
        tally = cls(None, raw_names)
        tally.source = source
        tally.pages, tally.specs = _counts(data["pages"]), _counts(data["specs"])
        tally.stacks, tally.compiled = _by_stack(data["stacks"]), _by_stack(data["compiled"])
        notes = data["notes"]
        if type(notes) is not dict:
            raise ValueError("not a tally")
        for path, said in notes.items():
            if type(said) is not list:
                raise ValueError("not a tally")
            _strings(*said)
            tally.notes[path] = said
        if tally.specs.keys() - tally.pages.keys() or tally.compiled.keys() - tally.stacks.keys():
            raise ValueError("not a tally")
        return tally


_COUNTS = {"pages", "specs", "stacks", "compiled", "notes"}  # the keys of a tally's first line


def _names(raw: bytes, count: int, source: str) -> dict[str, str]:
    """A tally's names, as written: a file whose checksum matched holds what snapdiff wrote, so
    a names line that does not parse means the folder holds files of another origin."""
    try:
        names = orjson.loads(raw)
    except orjson.JSONDecodeError:
        names = None
    if type(names) is dict and len(names) == count and all(type(p) is str for p in names.values()):
        return names
    fix = "remove it: snapdiff's cache holds only what snapdiff wrote"
    raise InputError(source, "a cache file's page names do not match its counts", fix)


def _counts(value: object) -> Counter[str]:
    """A JSON object of counts."""
    if type(value) is not dict:
        raise ValueError("not counts")
    return Counter({key: _count(n) for key, n in value.items()})


def _rows(counts: Counter[tuple[str, str]]) -> list[list[str | int]]:
    """Counts per (tag, stack) as sorted [tag, stack, count] rows."""
    return sorted([tag, stack, n] for (tag, stack), n in counts.items())


def _by_stack(rows: object) -> Counter[tuple[str, str]]:
    """`_rows`' rows as counts per (tag, stack)."""
    if type(rows) is not list:
        raise ValueError("not counts")
    found: Counter[tuple[str, str]] = Counter()
    for tag, stack, count in rows:
        _strings(tag, stack)
        found[(tag, stack)] = _count(count)
    return found


def _take(counter: Counter[Any], key: Any, count: int) -> None:
    left = counter[key] - count
    if left:
        counter[key] = left
    else:
        del counter[key]


def _strings(*values: object) -> None:
    if not all(type(v) is str for v in values):
        raise ValueError("not a string")


def _count(value: object) -> int:
    if type(value) is not int or value < 0:
        raise ValueError("not a count")
    return value


def total(tallies: Iterable[UnitTally]) -> Tally:
    """The counts of several units together, as a snapshot holds them."""
    pages: Counter[str] = Counter()
    specs: Counter[str] = Counter()
    stacks: Counter[tuple[str, str]] = Counter()
    compiled: Counter[tuple[str, str]] = Counter()
    for tally in tallies:
        pages.update(tally.pages)
        specs.update(tally.specs)
        stacks.update(tally.stacks)
        compiled.update(tally.compiled)
    return Tally(dict(+pages), dict(+specs), dict(+stacks), dict(+compiled))
