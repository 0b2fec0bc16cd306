"""NEW read in a forked child (`forked.Forked`) while this process reads OLD, with `jobs` of 2,
where its kind can be (`Kind.apart`: a local build-cache index, sent back as `mirror.apart`
encodes it).

Measured on an idle machine (docs/performance.md, "Session 20"): the 200,000-record index pair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..forked import Told
from .git.reader import quiet
from .kinds import LoadOptions, kind_of
from .mirror.apart import Apart
from .mirror.index import read_indexes
from .mirror.source import IndexSource, local_indexes

if TYPE_CHECKING:
    from .mirror.nodes import Interned

__all__ = ["ApartSource", "read_apart"]


def _failed(arg: str, options: LoadOptions) -> Told:
    """What a side read here after all, its child having failed, tells the user."""

    def told(why: str) -> None:
        options.warn(f"{arg}: reading it in a second process failed ({why}); read here")

    return told


class ApartSource:
    """A local index side read in a forked child (`mirror.apart`) while this process reads the
    other side; `source()` waits for it, `cancel()` stops it."""

    def __init__(self, arg: str, options: LoadOptions) -> None:
        self.arg, self.options = arg, options
        indexes = local_indexes(arg, options)
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


def read_apart(arg: str, options: LoadOptions) -> ApartSource | None:
    """NEW started apart, with `options.jobs` of 2 or more, when its kind can be read so; None
    for any other snapshot."""
    if options.jobs < 2:
        return None
    kind = kind_of(arg, options)
    return ApartSource(arg, options) if kind is not None and kind.apart else None
