"""NEW read in a forked child (`forked.Forked`) while this process reads OLD, with
`LoadOptions.apart` (the command): a local build-cache index (sent back as `mirror.apart`
encodes it), or a directory of pages (read there, and its content both sides hold counted
there: `dirapart`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..forked import Told
from .dirapart import DirectoryApart
from .git.reader import quiet
from .kinds import IndexSource, LoadOptions, Source, local_indexes
from .mirror.apart import Apart
from .mirror.index import read_indexes
from .mirror.layouts import Index, is_url

if TYPE_CHECKING:
    from .mirror.nodes import Interned

__all__ = ["ApartSource", "DirectoryApart", "read_apart"]


def _failed(arg: str, options: LoadOptions) -> Told:
    """What a side read here after all, its child having failed, tells the user."""

    def told(why: str) -> None:
        options.warn(f"{arg}: reading it in a second process failed ({why}); read here")

    return told


class ApartSource:
    """A local index side read in a forked child (`mirror.apart`) while this process reads the
    other side; `source()` waits for it, `cancel()` stops it."""

    def __init__(self, arg: str, indexes: Iterator[Index], options: LoadOptions) -> None:
        self.arg, self.options = arg, options
        self.apart = Apart(  # quiet: the progress line is this process's
            lambda shared: read_indexes(indexes, quiet, shared), _failed(arg, options)
        )

    def source(self, other: Source, shared: Interned | None, counted: bool) -> IndexSource:
        """The side read (`shared`: the other side's values, see `Interned`; `other` and
        `counted` are for directories)."""
        self.apart.shared = shared
        self.options.progress(f"{self.arg}: reading its records beside the other side")
        return IndexSource(self.arg, self.apart.join(), self.options)

    def cancel(self) -> None:
        self.apart.cancel()


def read_apart(arg: str, options: LoadOptions) -> ApartSource | DirectoryApart | None:
    """NEW started apart, with `options.apart`: a local index or a directory of pages (not of
    mirrors); None for any other snapshot."""
    if not options.apart or is_url(arg):
        return None
    indexes = local_indexes(arg, options)
    if indexes is not None:
        return ApartSource(arg, indexes, options)
    return DirectoryApart(arg, options, _failed(arg, options)) if os.path.isdir(arg) else None
