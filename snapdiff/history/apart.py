"""A range diffed in two halves side by side: the later one in a forked child (`forked.Forked`)
while this process diffs the first, then walked in order (the command's `snapdiff log`).

A step's diff depends on no other step (`walk.stepped`); only the walk (paths, flapping specs)
needs them in order, and what it keeps of a step is small (`Stepped`). The child's steps come
back one pickle each, unpickled as the walk reaches them from views of the one message, so this
process never holds the later half's hashes as strings all at once, nor twice as bytes.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence

from ..errors import SnapdiffError
from ..forked import Failed, Forked, Told
from ..model import Filters
from .records import History, Pair, Stepped
from .walk import stepped, walk

__all__ = ["Part", "history_apart"]

# A part of a range's pairs, given where its warnings go (`sources.HistoryPart`, typed here as
# the walk sees it: `history` imports no `sources`).
Part = Callable[[Told], Iterable[Pair]]


class _Later:
    """The later half, as the child diffed it: each step pickled, the warnings it gave, and
    the error that stopped it (said here after those warnings, as one walk would)."""

    def __init__(self) -> None:
        self.steps: list[bytes | memoryview] = []
        self.said: list[str] = []
        self.failed: Failed | None = None

    @classmethod
    def diffed(cls, part: Part, filters: Filters | None) -> _Later:
        """The later half diffed (in the child)."""
        later = cls()
        try:
            for one in stepped(part(later.said.append), filters):
                later.steps.append(pickle.dumps(one, pickle.HIGHEST_PROTOCOL))
        except SnapdiffError as exc:
            later.failed = Failed.of(exc)
        return later

    def encode(self) -> bytes:
        """One message: the length of a head (warnings, error, each step's length), the head,
        then the steps."""
        head = pickle.dumps((self.said, self.failed, [len(step) for step in self.steps]))
        return b"".join((len(head).to_bytes(8, "big"), head, *self.steps))

    @classmethod
    def decode(cls, message: memoryview) -> _Later:
        """The later half from its message, each step a view of it (not a copy)."""
        later, size = cls(), int.from_bytes(message[:8], "big")
        later.said, later.failed, sizes = pickle.loads(message[8 : 8 + size])  # noqa: S301 (ours)
        at = 8 + size
        for length in sizes:
            later.steps.append(message[at : at + length])
            at += length
        if at != len(message):  # a step cut short, or bytes left over: unread, not misread
            raise ValueError(f"steps of {at - 8 - size:,} bytes in {len(message):,}")
        return later


def history_apart(
    parts: Sequence[Part],
    start: str,
    end: str,
    warn: Told,
    filters: Filters | None = None,
    merge_base_of: tuple[str, str] | None = None,
    progress: Told = lambda text: None,
) -> History:
    """`walk.history` of consecutive parts of a range (`sources.history_parts`): with two, the
    later is diffed in a child; each warning is said once, in the order one walk says them."""
    if len(parts) == 1:
        return walk(stepped(parts[0](warn), filters), start, end, merge_base_of)
    if len(parts) != 2:
        raise ValueError("a range is walked whole or in two halves")

    def failed(why: str) -> None:
        warn(f"{end}: the later half failed in a second process ({why}); diffed here")

    child = Forked(lambda: _Later.diffed(parts[1], filters), _Later.encode, _Later.decode, failed)
    try:
        return walk(_steps(parts[0], child, filters, warn, progress), start, end, merge_base_of)
    finally:
        child.cancel()  # an error or an interrupt while the child works


def _steps(
    first: Part, child: Forked[_Later], filters: Filters | None, warn: Told, progress: Told
) -> Iterator[Stepped]:
    """The first half's steps as this process diffs them, then the child's."""
    told: set[str] = set()

    def tell(warning: str) -> None:
        told.add(warning)
        warn(warning)

    yield from stepped(first(tell), filters)
    progress(f"the later half of the range{': in a second process' if child.pid else ''}")
    later = child.join()
    for warning in later.said:
        if warning not in told:  # a cache both halves could not write: said once, as in one walk
            warn(warning)
    if later.failed is not None:
        raise later.failed.error()
    for one in later.steps:
        yield pickle.loads(one)  # noqa: S301 (this process's own child pickled it)
