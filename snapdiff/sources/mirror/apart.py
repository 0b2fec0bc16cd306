"""One side's build-cache indexes read in a forked child while this process reads the other.

Reading a 200k-record index is Python work per record and per edge (~5 s); the two sides are
independent, so the new side is read on the machine's second core (`forked.Forked`) and comes
back as one msgpack message of numbered values, rebuilt here in C-level passes (~1 s).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import chain, repeat
from operator import attrgetter
from typing import Any

import msgspec

from ...forked import Forked, Told
from ...model import EdgeKind, Node
from .index import Read
from .nodes import Interned

__all__ = ["Apart"]

Value = str | tuple[str, ...]
# The fields of a node that are values (as numbers), in `Node`'s order.
_NODE_VALUES = (
    "name",
    "version",
    "platform",
    "os",
    "target",
    "compiler",
    "variants",
    "package_hash",
    "namespace",
    "external",
)


class _Side(msgspec.Struct, array_like=True):
    """A side's `Read` as numbers into `values` (every distinct string and tuple once)."""

    values: list[Value]
    kinds: list[EdgeKind]
    digests: list[int]
    fields: list[list[int]]  # a column per field of `_NODE_VALUES`, a row per node
    binary: list[bool]
    kind_tuples: list[list[int]]  # each distinct tuple of a record's edge kinds (into `kinds`)
    edge_kinds: list[int]  # per node: its edges' kinds, a number into `kind_tuples`
    deps: list[list[int]]  # per node: its edges' hashes
    records: tuple[list[int], list[int]]  # binaries' hashes, their page entry's variants
    held: tuple[list[int], list[int]]
    seen: tuple[list[int], list[int]]
    twice: int


def _columns(
    pairs: Mapping[str, Value], number: Callable[[Value], int]
) -> tuple[list[int], list[int]]:
    return list(map(number, pairs)), list(map(number, pairs.values()))


def _encode(read: Read) -> bytes:
    nodes = list(read.nodes.values())
    columns = [list(map(attrgetter(field), nodes)) for field in _NODE_VALUES]
    hashes = chain.from_iterable(map(attrgetter("deps"), nodes))
    tables = (
        read.nodes,
        hashes,
        *columns,
        read.records.values(),
        read.held.values(),
        read.seen.values(),
    )
    values = list(dict.fromkeys(chain.from_iterable(tables)))
    numbers = {value: at for at, value in enumerate(values)}.__getitem__
    kinds = list({id(kind): kind for kind in read.intern.kinds.values()}.values())  # each once
    kind_numbers = {id(kind): at for at, kind in enumerate(kinds)}.__getitem__
    of_nodes = list(map(attrgetter("kinds"), nodes))  # shared by records alike: by id
    tuples = dict(zip(map(id, of_nodes), of_nodes, strict=True))
    tuple_numbers = {key: at for at, key in enumerate(tuples)}.__getitem__
    side = _Side(
        values,
        kinds,
        list(map(numbers, read.nodes)),
        [list(map(numbers, column)) for column in columns],
        list(map(attrgetter("binary"), nodes)),
        [list(map(kind_numbers, map(id, found))) for found in tuples.values()],
        list(map(tuple_numbers, map(id, of_nodes))),
        [list(map(numbers, node.deps)) for node in nodes],
        _columns(read.records, numbers),
        _columns(read.held, numbers),
        _columns(read.seen, numbers),
        read.intern.twice,
    )
    return msgspec.msgpack.encode(side)


def _decode(message: bytes | memoryview, shared: Interned | None = None) -> Read:
    """The side as read (`shared`: the other side's values, see `Interned`)."""
    side = msgspec.msgpack.decode(message, type=_Side)
    intern = Interned(shared)
    value = list(map(intern.seen.setdefault, side.values, side.values)).__getitem__
    known = {kind: kind for kind in intern.kinds.values()}
    kind = list(map(known.setdefault, side.kinds, side.kinds)).__getitem__

    def spelled(numbers: Iterable[int]) -> list[Any]:  # strings or tuples, as encoded
        return list(map(value, numbers))

    fields = [spelled(column) for column in side.fields]
    tuples = [tuple(map(kind, numbers)) for numbers in side.kind_tuples]
    alike = {found: found for found in intern.kind_tuples.values()}
    tuples = list(map(alike.setdefault, tuples, tuples))
    edges = map(tuples.__getitem__, side.edge_kinds)
    deps = map(tuple, map(map, repeat(value), side.deps))
    made = map(Node, *fields, side.binary, edges, deps)
    read = Read(intern)
    read.nodes = dict(zip(spelled(side.digests), made, strict=True))
    read.records, read.held, read.seen = (
        dict(zip(spelled(keys), spelled(values), strict=True))
        for keys, values in (side.records, side.held, side.seen)
    )
    read.intern.twice = side.twice
    return read


class Apart(Forked[Read]):
    """A side being read in a forked child (`forked.Forked`): `join()` gives it, `cancel()`
    stops the child. `read` is given the other side's values (`shared`, set before `join`;
    none in the child), `told` hears why when the side was read here after all."""

    def __init__(self, read: Callable[[Interned | None], Read], told: Told) -> None:
        self.shared: Interned | None = None
        super().__init__(
            lambda: read(self.shared),
            _encode,
            lambda message: _decode(message, self.shared),
            told,
        )
