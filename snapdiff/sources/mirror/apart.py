"""One side's build-cache indexes read in a forked child while this process reads the other.

Reading a 200k-record index is Python work per record and per edge (~5 s); the two sides are
independent, so the new side is read on the machine's second core and comes back as one
msgpack message of numbered values, rebuilt here in C-level passes (~1 s). Only where `fork`
exists and no other thread runs; a child that fails for any reason but a `SnapdiffError` (said
as this process would say it) leaves the side to be read here, as if never forked.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterable, Mapping
from itertools import chain, repeat
from operator import attrgetter
from typing import Any, NoReturn

import msgspec

from ... import errors
from ...errors import SnapdiffError
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
)


class _Side(msgspec.Struct, array_like=True):
    """A side's `Read` as numbers into `values` (every distinct string and tuple once)."""

    values: list[Value]
    kinds: list[EdgeKind]
    digests: list[int]
    fields: list[list[int]]  # a column per field of `_NODE_VALUES`, a row per node
    external: list[bool]
    binary: list[bool]
    kind_tuples: list[list[int]]  # each distinct tuple of a record's edge kinds (into `kinds`)
    edge_kinds: list[int]  # per node: its edges' kinds, a number into `kind_tuples`
    deps: list[list[int]]  # per node: its edges' hashes
    records: tuple[list[int], list[int]]  # binaries' hashes, their page entry's variants
    held: tuple[list[int], list[int]]
    seen: tuple[list[int], list[int]]
    twice: int


class _Failed(msgspec.Struct, array_like=True):
    """The child's `SnapdiffError`: said here as it would have been."""

    kind: str
    where: str
    what: str
    fix: str


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
    kinds = list(read.intern.kinds.values())
    kind_numbers = {id(kind): at for at, kind in enumerate(kinds)}.__getitem__
    of_nodes = list(map(attrgetter("kinds"), nodes))  # shared by records alike: by id
    tuples = dict(zip(map(id, of_nodes), of_nodes, strict=True))
    tuple_numbers = {key: at for at, key in enumerate(tuples)}.__getitem__
    side = _Side(
        values,
        kinds,
        list(map(numbers, read.nodes)),
        [list(map(numbers, column)) for column in columns],
        list(map(attrgetter("external"), nodes)),
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


def _decode(message: bytes | memoryview) -> Read:
    side = msgspec.msgpack.decode(message, type=_Side)
    value = side.values.__getitem__
    kind = side.kinds.__getitem__

    def spelled(numbers: Iterable[int]) -> list[Any]:  # strings or tuples, as encoded
        return list(map(value, numbers))

    fields = [spelled(column) for column in side.fields]
    tuples = [tuple(map(kind, numbers)) for numbers in side.kind_tuples]
    edges = map(tuples.__getitem__, side.edge_kinds)
    deps = map(tuple, map(map, repeat(value), side.deps))
    made = map(Node, *fields, side.external, side.binary, edges, deps)
    read = Read(Interned())
    read.nodes = dict(zip(spelled(side.digests), made, strict=True))
    read.records, read.held, read.seen = (
        dict(zip(spelled(keys), spelled(values), strict=True))
        for keys, values in (side.records, side.held, side.seen)
    )
    read.intern.twice = side.twice
    return read


_ERRORS: dict[str, type[SnapdiffError]] = {
    kind.__name__: kind
    for kind in (SnapdiffError, errors.InputError, errors.UsageError, errors.TemplateError)
}


class Apart:
    """A side being read in a forked child; `join()` gives it, `cancel()` stops the child.
    `told` hears why a side was read here after all."""

    def __init__(self, read: Callable[[], Read], told: Callable[[str], None]) -> None:
        self.read, self.told = read, told
        self.pid, self.out = 0, -1  # no child (yet): read here when joined
        if hasattr(os, "fork") and threading.active_count() == 1:
            try:
                self._fork()
            except OSError:  # no pipe or no process to be had: read here
                self.cancel()

    def _fork(self) -> None:
        self.out, into = os.pipe()
        try:
            self.pid = os.fork()
        except OSError:
            os.close(into)
            raise
        if self.pid == 0:
            _child(self.read, self.out, into)
        os.close(into)

    def join(self) -> Read:
        """The side as read; its error raised here; read here when the child could not."""
        if not self.pid:
            return self.read()
        out, self.out = self.out, -1  # closed below, whatever happens
        with os.fdopen(out, "rb") as pipe:
            message = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if status or not message:
            self.told(f"reading it in a second process failed (status {status}); read here")
            return self.read()
        body = memoryview(message)[1:]
        if message[:1] == b"E":
            failed = msgspec.msgpack.decode(body, type=_Failed)
            raise _ERRORS.get(failed.kind, SnapdiffError)(failed.where, failed.what, failed.fix)
        return _decode(body)

    def cancel(self) -> None:
        """Stop the child if it is still at work (the other side failed, or an interrupt)."""
        if self.pid:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0
        if self.out >= 0:
            os.close(self.out)
            self.out = -1


def _child(read: Callable[[], Read], out: int, into: int) -> NoReturn:
    """In the child: read, say it down the pipe, and leave; nothing of the caller's runs here
    (whatever is raised, even while saying an error, ends the child: the parent reads again)."""
    code = 1
    try:
        os.close(out)
        try:
            said = (b"R", _encode(read()))
        except SnapdiffError as exc:
            failed = _Failed(type(exc).__name__, exc.where, exc.what, exc.fix)
            said = (b"E", msgspec.msgpack.encode(failed))
        with os.fdopen(into, "wb") as pipe:
            for part in said:
                pipe.write(part)
        code = 0
    finally:
        os._exit(code)
