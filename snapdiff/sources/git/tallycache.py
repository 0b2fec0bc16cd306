"""Tallies kept across runs, in a content-addressed cache folder.

A unit is named by a content id, so what is stored under that id stays true: files are
`<cache>/tallies-<FORMAT>/<id>`, a header line with the format, the id and a SHA-256 of the
body, then the body (`UnitTally.to_json`). FORMAT changes with what a tally holds or how a page
is counted (tests/test_cache.py keeps a tally of real pages for each FORMAT, to catch a
change). A file that does not check out in every way is ignored (and rebuilt, with a warning),
never trusted; writes go through a temporary file and an atomic rename, so runs sharing the
folder never see half a file; the folder is kept under MAX_BYTES by dropping the files least
recently used.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from collections.abc import Callable, Set

from .tallies import UnitTally

__all__ = ["FORMAT", "MAX_BYTES", "TallyCache", "default_cache_dir"]

FORMAT = 4  # bump when what a tally holds, or how pages are counted, changes (then old files
# are simply not found: they sit in another folder)
MAX_BYTES = 256 * 2**20  # the folder's size bound: about 40 all-tags revisions
# Tallies held in memory, the most recently used: a pair asks for both sides' units (one per tag
# folder, and the rest); a history keeps only those of the revision its next step starts from
# (`keep`): each holds the names and paths of a unit's pages, about 0.5 MiB at develop size.
MEMORY_UNITS = 128
_MAGIC = b"snapdiff-tally"
_VERSION = str(FORMAT).encode()


def default_cache_dir() -> str:
    """`$XDG_CACHE_HOME/snapdiff`, else `~/.cache/snapdiff`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "snapdiff")


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


Warn = Callable[[str], None]


class TallyCache:
    """Tallies by unit id: the MEMORY_UNITS most recently used in memory for this run, and all in
    a folder across runs (`folder` None: memory only)."""

    def __init__(self, folder: str | None, warn: Warn) -> None:
        self.folder = os.path.join(folder, f"tallies-{FORMAT}") if folder else None
        self.warn = warn
        self._known: dict[str, UnitTally | None] = {}
        self._unwritable = False

    def get(self, unit: str) -> UnitTally | None:
        """The unit's tally, from memory or the folder; None when it is not (validly) there."""
        if unit in self._known or self.folder is None:
            return self._remember(unit, self._known.pop(unit, None))
        self._remember(unit, None)  # asked once: a file that is not there is looked for once
        path = os.path.join(self.folder, unit)
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
            found = UnitTally.from_json(body, path)
        except (ValueError, TypeError, KeyError, UnicodeDecodeError):
            self.warn(f"ignoring the cache file {path}: not a tally snapdiff wrote; rebuilding it")
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: kept longest
        return self._remember(unit, found)

    def _remember(self, unit: str, tally: UnitTally | None) -> UnitTally | None:
        """Hold a unit's tally (or that it has none) as the most recently used, forgetting the
        least recently used beyond MEMORY_UNITS."""
        self._known.pop(unit, None)
        self._known[unit] = tally
        while len(self._known) > MEMORY_UNITS:
            del self._known[next(iter(self._known))]
        return tally

    def keep(self, units: Set[str]) -> None:
        """Forget, in memory, every tally but these units' (a history's next step asks only for
        those of the revision it starts from; the folder still holds the others)."""
        self._known = {unit: found for unit, found in self._known.items() if unit in units}

    def put(self, unit: str, tally: UnitTally) -> None:
        """Keep a tally for this run and, atomically, in the folder."""
        self._remember(unit, tally)
        folder = self.folder
        if folder is None or self._unwritable:
            return
        body = tally.to_json()
        check = hashlib.sha256(body).hexdigest().encode()
        header = b" ".join((_MAGIC, _VERSION, unit.encode(), check))
        try:
            os.makedirs(folder, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=folder, prefix=".new-")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(header + b"\n" + body)
                os.replace(temporary, os.path.join(folder, unit))
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError as exc:
            self._unwritable = True
            self.warn(f"cannot write the cache in {folder}: {exc.strerror}; going on without")
            return
        self._bound(folder, os.path.join(folder, unit))

    @staticmethod
    def _bound(folder: str, kept: str) -> None:
        """Drop the least recently used files (but the one just written) while the folder
        holds more than MAX_BYTES."""
        try:
            found = []
            with os.scandir(folder) as listing:
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
