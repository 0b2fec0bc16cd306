"""NEW read in a forked child (`forked.Forked`) while this process reads OLD, with
`LoadOptions.apart` (the command): a local build-cache index (sent back as `mirror.apart`
encodes it), or a directory of pages (sent back as its pages' bytes, which are parsed here).

Listing and opening a develop-size directory's 6,000 files is system calls and Python per file
(about 0.15 s a side), and the sides are independent until their pages are compared.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import msgspec

from ..forked import Forked, as_bytes, as_text
from .directory import read_directory
from .git.reader import quiet
from .kinds import DirectorySource, IndexSource, LoadOptions, local_indexes
from .mirror.apart import Apart
from .mirror.index import read_indexes
from .mirror.layouts import Index, is_url
from .snapshot import PageBytes, Problems

if TYPE_CHECKING:
    from .mirror.nodes import Interned

__all__ = ["ApartSource", "DirectoryApart", "read_apart"]


def _failed(arg: str, options: LoadOptions) -> Callable[[int], None]:
    """What a side read here after all, its child having failed, tells the user."""

    def told(code: int) -> None:
        options.warn(f"{arg}: reading it in a second process failed (exit code {code}); read here")

    return told


class ApartSource:
    """A local index side read in a forked child (`mirror.apart`) while this process reads the
    other side; `source()` waits for it, `cancel()` stops it."""

    def __init__(self, arg: str, indexes: Iterator[Index], options: LoadOptions) -> None:
        self.arg, self.options = arg, options
        self.apart = Apart(  # quiet: the progress line is this process's
            lambda shared: read_indexes(indexes, quiet, shared), _failed(arg, options)
        )

    def source(self, shared: Interned | None) -> IndexSource:
        """The side read (`shared`: the other side's values, see `Interned`)."""
        self.apart.shared = shared
        self.options.progress(f"{self.arg}: reading its records beside the other side")
        return IndexSource(self.arg, self.apart.join(), self.options)

    def cancel(self) -> None:
        self.apart.cancel()


class _Read(msgspec.Struct, array_like=True):
    """A directory as read: its pages (where, bytes, digest) and what was left out of it
    (--keep-going), every path and message as bytes (`forked.as_bytes`)."""

    pages: list[tuple[bytes, bytes, str]]
    skipped: list[bytes]
    keys: list[tuple[bytes, bytes]]


def _read(arg: str, keep_going: bool) -> _Read:
    problems = Problems(keep_going)
    pages = [(as_bytes(p.source), p.data, p.digest) for p in read_directory(arg, problems)]
    keys = [(as_bytes(tag), as_bytes(name)) for tag, name in sorted(problems.keys)]
    return _Read(pages, list(map(as_bytes, problems.skipped)), keys)


class DirectoryApart:
    """A directory side's files listed and read in a forked child (`directory.read_directory`);
    `source()` waits for them and parses nothing yet, `cancel()` stops the child."""

    def __init__(self, arg: str, options: LoadOptions) -> None:
        self.arg, self.options = arg, options
        self.child = Forked(
            lambda: _read(arg, options.keep_going),
            msgspec.msgpack.encode,
            lambda message: msgspec.msgpack.decode(message, type=_Read),
            _failed(arg, options),
        )

    def source(self, shared: Interned | None = None) -> DirectorySource:
        """The side read (`shared` is for indexes: unused)."""
        found = self.child.join()
        problems = Problems(self.options.keep_going)
        problems.skipped.extend(map(as_text, found.skipped))
        problems.keys.update((as_text(tag), as_text(name)) for tag, name in found.keys)
        pages = [PageBytes(as_text(where), data, digest) for where, data, digest in found.pages]
        return DirectorySource(self.arg, problems, self.options.progress, pages)

    def cancel(self) -> None:
        self.child.cancel()


def read_apart(arg: str, options: LoadOptions) -> ApartSource | DirectoryApart | None:
    """NEW started apart, with `options.apart`: a local index or a directory of pages (not of
    mirrors); None for any other snapshot."""
    if not options.apart or is_url(arg):
        return None
    indexes = local_indexes(arg, options)
    if indexes is not None:
        return ApartSource(arg, indexes, options)
    return DirectoryApart(arg, options) if os.path.isdir(arg) else None
