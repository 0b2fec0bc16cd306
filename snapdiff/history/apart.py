"""A range diffed in two halves side by side: the second in a forked child (`forked.Forked`)
while this process diffs the first, then walked in order (the command's `snapdiff log`).

A step's diff depends on no other step (`walk.stepped`); only the walk (paths, flapping specs)
needs them in order, and what it keeps of a step is small (`Stepped`). Over 60 develop-size
commits, each half is about half the work.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence

from ..forked import Forked
from ..model import Filters
from .records import History, Pair, Stepped
from .walk import stepped, walk

__all__ = ["Part", "history_apart"]

Said = Callable[[str], None]
Part = Callable[[Said], Iterable[Pair]]  # a part of the range's pairs, given where warnings go
_Found = tuple[list[Stepped], list[str]]  # a part diffed, and the warnings it gave


def history_apart(
    parts: Sequence[Part],
    start: str,
    end: str,
    warn: Said,
    filters: Filters | None = None,
    merge_base_of: tuple[str, str] | None = None,
) -> History:
    """`walk.history` of consecutive parts of a range (`sources.history_parts`): a second part
    is diffed in a child, its warnings said here after the first part's, as in one walk."""
    if len(parts) == 1:
        return walk(stepped(parts[0](warn), filters), start, end, merge_base_of)
    if len(parts) != 2:
        raise ValueError("a range is walked whole or in two halves")

    def later() -> _Found:
        said: list[str] = []
        return list(stepped(parts[1](said.append), filters)), said

    def failed(code: int) -> None:
        warn(f"{end}: the later half failed in a second process (exit code {code}); diffed here")

    child = Forked(later, pickle.dumps, pickle.loads, failed)

    told: list[str] = []

    def tell(warning: str) -> None:
        told.append(warning)
        warn(warning)

    def found() -> Iterator[Stepped]:  # walked as it comes: the first half while the child works
        yield from stepped(parts[0](tell), filters)
        second, said = child.join()
        for warning in said:
            if warning not in told:  # a cache both halves could not write: said once, as in one
                tell(warning)
        yield from second

    try:
        return walk(found(), start, end, merge_base_of)
    finally:
        child.cancel()  # an error or an interrupt while the child works
