"""The later packages of a big diff compared in a forked child (`forked.Forked`) while this
process compares the earlier ones and the stacks.

When most pages differ (release to release), comparing packages is Python work per package on
one core while the machine has two. The child shares both sides' pages as they are in memory,
and its changes come back as one msgpack message, decoded into the same records (msgspec
encodes a release pair's in a quarter of the time pickle takes, and decodes them in two
thirds; pickle only for values msgpack cannot hold). A field change's values, typed `object`,
come back as lists where they were tuples; the JSON report, their one reader, writes both
alike. The packages keep their order, so the report is the same bytes whichever process
compared them.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence

import msgspec

from ..forked import Forked
from ..report import PackageChange

__all__ = ["PackagesApart", "Told"]

Work = Callable[[Sequence[tuple[str, str]]], list[PackageChange]]
Told = Callable[[str], None]  # hears a warning

# Specs on the differing pages (both sides) below which a second process costs more than it
# saves: forking, encoding and decoding take a few milliseconds before any package.
_LEAST = 20_000
# And above which memory comes first: the child's records come back as copies, sharing no
# string or configuration with the pages here. Release to release at all tags (840,000 specs
# on differing pages) that was 177 MiB more at the peak for 6 % less time; at develop size
# (125,000), 19 MiB more for 14 % less.
_MOST = 400_000
# The part of the work kept here: this process also compares the stacks and decodes the
# child's changes, while the child encodes them (measured on release and develop pairs).
_HERE = 0.45


def _cut(weights: Sequence[int]) -> int | None:
    """Where the packages kept here end: after the first `_HERE` of the weight; None when the
    work is too small to share, or too big."""
    total = sum(weights)
    if not _LEAST <= total <= _MOST:
        return None
    kept, goal = 0, total * _HERE
    for index, weight in enumerate(weights):
        kept += weight
        if kept >= goal:
            return index + 1
    return len(weights)


def _encode(changes: list[PackageChange]) -> bytes:
    """msgpack, or pickle for what msgpack cannot hold: an integer over 64 bits in a page's
    field (a spec's `size`)."""
    try:
        return b"m" + _ENCODER.encode(changes)
    except OverflowError:
        return b"p" + pickle.dumps(changes, pickle.HIGHEST_PROTOCOL)


def _decode(message: memoryview) -> list[PackageChange]:
    if bytes(message[:1]) == b"p":
        found: list[PackageChange] = pickle.loads(message[1:])  # noqa: S301 (our own child's)
        return found
    return _DECODER.decode(message[1:])


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(list[PackageChange])


def _failed(told: Told) -> Callable[[int], None]:
    def failed(status: int) -> None:
        told(f"comparing packages in a second process failed (exit code {status}); compared here")

    return failed


class PackagesApart:
    """The changes of `keys` (`work` of some of them gives theirs, in order): the later ones
    worked out in a child from the start, the earlier ones by `here()`, all of them by
    `joined()`. `weights` are each key's specs, both sides. `told` hears why the child's part
    was done here after all; None: every package is compared here. `cancel()` stops a child
    still at work (the caller failed)."""

    def __init__(
        self, work: Work, keys: Sequence[tuple[str, str]], weights: Sequence[int], told: Told | None
    ) -> None:
        self.work, self.keys = work, keys
        cut = _cut(weights) if told else None
        self.cut = len(keys) if cut is None else cut
        later = keys[self.cut :]
        self.child: Forked[list[PackageChange]] | None = None
        if later and told:
            self.child = Forked(lambda: work(later), _encode, _decode, _failed(told))
        self.first: list[PackageChange] = []

    def here(self) -> None:
        """Compare the earlier packages, here."""
        self.first = self.work(self.keys[: self.cut])

    def joined(self) -> list[PackageChange]:
        """Every package's change, in order (the child's part done here if it failed)."""
        if self.child is None:
            return self.first
        try:
            return self.first + self.child.join()
        finally:
            self.cancel()

    def cancel(self) -> None:
        if self.child is not None:
            self.child.cancel()
            self.child = None
