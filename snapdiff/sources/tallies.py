"""Counts of a tree's pages, kept across runs in a content-addressed cache.

A *unit* is a tree (a tag folder `_cache/<tag>`, or the rest of a revision) named by a content
id, so what is stored under that id is true forever: its pages by (tag, name) and path, specs
per tag and per (tag, stack), and the warnings its pages give. A diff of two revisions reads only
the files that differ between them and takes the rest from the tally of either side, and then
stores the other side's tally as this one minus the pages that changed plus their new versions,
so a daily chain of revisions never reads an unchanged page twice.

Files are `<cache>/tallies-<FORMAT>/<id>`: a header line with the format, the id and a SHA-256
of the body, then the body as JSON. FORMAT changes with what a tally holds or how a page is
counted (tests/test_cache.py keeps a tally of real pages for each FORMAT, to catch a change).
A file that does not check out in every way is ignored (and rebuilt, with a warning), never
trusted; writes go through a temporary file and an atomic rename, so runs sharing the folder
never see half a file; the folder is kept under MAX_BYTES by dropping the files least recently
used.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..model import Page, Tally

__all__ = [
    "FORMAT",
    "MAX_BYTES",
    "TallyCache",
    "UnitTally",
    "default_cache_dir",
    "name_key",
    "total",
]

FORMAT = 1  # bump when what a tally holds, or how pages are counted, changes (then old files
# are simply not found: they sit in another folder)
MAX_BYTES = 256 * 2**20  # the folder's size bound: about 40 all-tags revisions
_MAGIC = b"snapdiff-tally"
_VERSION = str(FORMAT).encode()


def default_cache_dir() -> str:
    """`$XDG_CACHE_HOME/snapdiff`, else `~/.cache/snapdiff`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "snapdiff")


def name_key(tag: str, name: str) -> str:
    """A (tag, package name) as one string, unambiguously (a tally's `names` are keyed so, so
    that they load as one dictionary, in C)."""
    return orjson.dumps([tag, name]).decode()


@dataclass
class UnitTally:
    """The pages of one unit, as counts: what a diff needs of content it does not read."""

    names: dict[str, str] = field(default_factory=dict)  # name_key(tag, name) -> path
    pages: Counter[str] = field(default_factory=Counter)  # tag -> pages
    specs: Counter[str] = field(default_factory=Counter)  # tag -> specs
    stacks: Counter[tuple[str, str]] = field(default_factory=Counter)  # (tag, stack) -> specs
    notes: dict[str, list[str]] = field(default_factory=dict)  # path -> warnings, unlabelled

    def add(self, path: str, page: Page, notes: list[str]) -> None:
        self.names[name_key(page.tag, page.name)] = path
        self.pages[page.tag] += 1
        self.specs[page.tag] += page.spec_count
        for stack, count in page.stack_counts:
            self.stacks[(page.tag, stack)] += count
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
        self.notes.pop(path, None)
        return True

    def copy(self) -> UnitTally:
        return UnitTally(
            dict(self.names),
            Counter(self.pages),
            Counter(self.specs),
            Counter(self.stacks),
            dict(self.notes),
        )

    def to_json(self) -> bytes:
        return orjson.dumps(
            {
                "names": self.names,
                "pages": self.pages,
                "specs": self.specs,
                "stacks": sorted([tag, stack, n] for (tag, stack), n in self.stacks.items()),
                "notes": self.notes,
            },
            option=orjson.OPT_SORT_KEYS,
        )

    @classmethod
    def from_json(cls, body: bytes) -> UnitTally:
        """A tally from `to_json`'s bytes; ValueError on anything else."""
        data = orjson.loads(body)
        if type(data) is not dict or set(data) != {"names", "pages", "specs", "stacks", "notes"}:
            raise ValueError("not a tally")
        names, notes = data["names"], data["notes"]
        if type(names) is not dict or not all(type(path) is str for path in names.values()):
            raise ValueError("not a tally")
        tally = cls(names, _counts(data["pages"]), _counts(data["specs"]))
        for tag, stack, count in data["stacks"]:
            _strings(tag, stack)
            tally.stacks[(tag, stack)] = _count(count)
        if type(notes) is not dict:
            raise ValueError("not a tally")
        for path, said in notes.items():
            if type(said) is not list:
                raise ValueError("not a tally")
            _strings(*said)
            tally.notes[path] = said
        if sum(tally.pages.values()) != len(names) or tally.specs.keys() - tally.pages.keys():
            raise ValueError("not a tally")
        return tally


def _counts(value: object) -> Counter[str]:
    """A JSON object of counts."""
    if type(value) is not dict:
        raise ValueError("not counts")
    return Counter({key: _count(n) for key, n in value.items()})


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_MAX_FILE = 64 * 2**20  # far more than the tally of every tag of the catalogue


def _read_regular(path: str) -> bytes | None:
    """A regular file's bytes (never through a link, never a FIFO), or None."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_FILE:
        os.close(fd)
        return b""  # not a tally: reported as such
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as handle:
        return handle.read(_MAX_FILE + 1)


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
    for tally in tallies:
        pages.update(tally.pages)
        specs.update(tally.specs)
        stacks.update(tally.stacks)
    return Tally(dict(+pages), dict(+specs), dict(+stacks))


Warn = Callable[[str], None]


class TallyCache:
    """Tallies by unit id: in memory for this run, and in a folder across runs (`folder` None:
    memory only)."""

    def __init__(self, folder: str | None, warn: Warn) -> None:
        self.folder = os.path.join(folder, f"tallies-{FORMAT}") if folder else None
        self.warn = warn
        self._known: dict[str, UnitTally | None] = {}
        self._unwritable = False

    def _path(self, unit: str) -> str:
        assert self.folder is not None
        return os.path.join(self.folder, unit)

    def get(self, unit: str) -> UnitTally | None:
        """The unit's tally, from memory or the folder; None when it is not (validly) there."""
        if unit in self._known or self.folder is None:
            return self._known.get(unit)
        self._known[unit] = None  # asked once: a file that is not there is looked for once
        path = self._path(unit)
        data = _read_regular(path)
        if data is None:
            return None
        header, _, body = data.partition(b"\n")
        try:
            magic, version, named, check = header.split(b" ")
            if (magic, version, named.decode()) != (_MAGIC, _VERSION, unit):
                raise ValueError("another file")
            if hashlib.sha256(body).hexdigest().encode() != check:
                raise ValueError("checksum mismatch")
            found = UnitTally.from_json(body)
        except (ValueError, TypeError, KeyError, UnicodeDecodeError):
            self.warn(f"ignoring the cache file {path}: not a tally snapdiff wrote; rebuilding it")
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: kept longest
        self._known[unit] = found
        return found

    def put(self, unit: str, tally: UnitTally) -> None:
        """Keep a tally for this run and, atomically, in the folder."""
        self._known[unit] = tally
        if self.folder is None or self._unwritable:
            return
        body = tally.to_json()
        check = hashlib.sha256(body).hexdigest().encode()
        header = b" ".join((_MAGIC, _VERSION, unit.encode(), check))
        try:
            os.makedirs(self.folder, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=self.folder, prefix=".new-")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(header + b"\n" + body)
                os.replace(temporary, self._path(unit))
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError as exc:
            self._unwritable = True
            self.warn(f"cannot write the cache in {self.folder}: {exc.strerror}; going on without")
            return
        self._bound(self._path(unit))

    def _bound(self, kept: str) -> None:
        """Drop the least recently used files (but the one just written) while the folder
        holds more than MAX_BYTES."""
        assert self.folder is not None
        try:
            found = []
            with os.scandir(self.folder) as listing:
                for item in listing:
                    if item.path != kept and item.is_file(follow_symlinks=False):
                        info = item.stat(follow_symlinks=False)
                        found.append((info.st_mtime_ns, info.st_size, item.path))
            size = sum(s for _, s, _ in found) + os.stat(kept).st_size
        except OSError:  # another run changed the folder meanwhile: bound it next time
            return
        for _, file_size, path in sorted(found):
            if size <= MAX_BYTES:
                break
            with contextlib.suppress(OSError):
                os.unlink(path)
            size -= file_size
