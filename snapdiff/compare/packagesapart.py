"""The later packages of a big diff compared in a forked child (`forked.Forked`) while this
process compares the earlier ones and the stacks.

When most pages differ (release to release), comparing packages is Python work per package on
one core while the machine has two. The child shares both sides' pages as they are in memory,
and its changes come back as one msgpack message, decoded into the same records: msgspec
encoded the later 60 % of a release pair's packages in 28–50 ms and decoded them in 41 (pickle:
99–105 and 62). Those records share no string with the pages here: 30 MiB where pickle's hold
13 at develop size (this process's peak 174 -> 193 MiB), about 185 MiB at all tags, where the
command frees the pages before rendering (`process.FREED_ABOVE`), for a lower peak than without
a child. Pickle only carries what msgpack cannot hold. The packages keep their order and field
values their tuples, so the report is the same, and the same bytes, whichever process compared
them.
"""

from __future__ import annotations

import dataclasses
import functools
import pickle
from collections.abc import Callable, Sequence
from typing import TypeVar

import msgspec

from ..forked import Forked, Told
from ..report import FieldChange, PackageChange
from .package import Key

__all__ = ["compared_apart"]

T = TypeVar("T")

# Specs on the differing pages (both sides) below which a second process costs more than it
# saves: forking, encoding and decoding take a few milliseconds before any package.
_LEAST = 20_000
# The part of the work kept here: this process also compares the stacks and decodes the
# child's changes, while the child encodes them (measured on release and develop pairs).
_HERE = 0.45


def _cut(weights: Sequence[int]) -> int | None:
    """Where the packages kept here end: after the first `_HERE` of the weight; None when the
    work is too small to share."""
    total = sum(weights)
    if total < _LEAST:
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
    return [_as_made(change) for change in _decoder().decode(message[1:])]


_ENCODER = msgspec.msgpack.Encoder()


@functools.cache
def _decoder() -> msgspec.msgpack.Decoder[list[PackageChange]]:
    """Made when first needed: reading the records' types costs 2.5 ms, which a diff compared
    in one process never needs."""
    return msgspec.msgpack.Decoder(list[PackageChange])


_TUPLES = frozenset(("versions", "variants"))  # the compared fields a record holds as tuples


def _field(field: FieldChange) -> FieldChange:
    """A field change's values as made: msgpack gives tuples back as lists (a `size`, or a key
    the generator does not write, is a page's own JSON value, whose lists stay lists)."""
    if field.name not in _TUPLES:
        return field
    old, new = (tuple(v) if isinstance(v, list) else v for v in (field.old, field.new))
    return FieldChange(field.name, old, new, field.missing)


def _as_made(change: PackageChange) -> PackageChange:
    """The package's change as the child made it (`_field`); most have no field changes."""
    if not any(spec.fields for spec in change.specs_changed):
        return change
    specs = tuple(
        dataclasses.replace(spec, fields=tuple(map(_field, spec.fields)))
        for spec in change.specs_changed
    )
    return dataclasses.replace(change, specs_changed=specs)


def _failed(told: Told) -> Told:
    def failed(why: str) -> None:
        told(f"comparing packages in a second process failed ({why}); compared here")

    return failed


def compared_apart(
    work: Callable[[Sequence[Key]], list[PackageChange]],
    keys: Sequence[Key],
    weights: Sequence[int],
    told: Told,
    meanwhile: Callable[[], T],
) -> tuple[list[PackageChange], T]:
    """Every package's change of `keys`, in order (`work` of some of them gives theirs), and
    what `meanwhile` gives: the later packages compared in a child, when `weights` (each key's
    specs, both sides) make it worth one, while this process compares the earlier ones, then
    does `meanwhile`. `told` hears why the child's part was compared here after all; the child
    is stopped whatever fails here."""
    cut = _cut(weights)
    if cut is None or cut == len(keys):
        return work(keys), meanwhile()
    later = keys[cut:]
    child = Forked(lambda: work(later), _encode, _decode, _failed(told))
    try:
        first = work(keys[:cut])
        found = meanwhile()
        return first + child.join(), found
    finally:
        child.cancel()  # reaped already when joined; else an error or an interrupt here
