"""The causes of rebuilds (`rebuilds.rebuild_causes`) worked out in a forked child while this
process builds the pages and compares them (`forked.Forked`): the child shares both sides' graphs
as they are in memory, and the causes come back as one msgpack message; the missing
dependencies, which need no walk, are found here meanwhile."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from itertools import accumulate, chain, starmap
from operator import attrgetter

import msgspec

from ..forked import Forked, Told
from ..model import Graph, Node
from ..report import Cascade, Rebuilds
from .rebuilds import missing_dependencies, rebuild_causes

__all__ = ["CausesApart", "Found"]

Found = tuple[Rebuilds, tuple[str, ...]]  # the causes, and warnings of the walk


class _Wire(msgspec.Struct, array_like=True, gc=False):
    """The causes as they travel: every hash as a number, its record's place among its side's
    records (the child is a fork of this process: both sides' records are in the same order
    there), 4 bytes where a hash is 32 and a string of its own once decoded; each distinct list
    of hashes once, and each record's lists as numbers into those. A ladder of triggers has
    quadratically many cause->spec facts, but the specs of one reach share their list of causes,
    and most evidence lists are empty: the 200,000-record index pair's 204,074 cascade specs
    have 816,296 lists, 171,789 of them distinct."""

    rebuilds: Rebuilds  # its triggers' and new builds' lists emptied, and no cascades
    notes: tuple[str, ...]
    cascades: bytes  # each cascade spec's place among NEW's records
    predecessors: bytes  # its predecessor's among OLD's
    lengths: bytes  # the distinct lists' lengths
    hashes: bytes  # their hashes (places among NEW's records), one list after the other
    # numbers into the distinct lists: each trigger's, then each new build's, cascade and
    # build-only part; each cascade's causes, direct causes, `through` and `build_only`
    causing: bytes
    listed: bytes


def _emptied(found: Rebuilds) -> Rebuilds:
    """The records with their lists of hashes and the cascades left out (sent as numbers)."""
    return replace(
        found,
        triggers=tuple(replace(t, cascade=(), cascade_build_only=()) for t in found.triggers),
        new_builds=tuple(replace(b, cascade=(), cascade_build_only=()) for b in found.new_builds),
        cascades=(),
    )


_CAUSING = attrgetter("cascade", "cascade_build_only")
_LISTS = attrgetter("causes", "direct_causes", "through", "build_only")  # a cascade's
_HASH, _PREDECESSOR, _NAME = attrgetter("hash"), attrgetter("predecessor"), attrgetter("name")


def _numbers(values: Iterable[int]) -> bytes:
    return array("I", values).tobytes()


def _read(numbers: bytes) -> array[int]:
    found = array("I")
    found.frombytes(numbers)
    return found


def _places(nodes: Mapping[str, Node]) -> Callable[[str], int]:
    return {digest: at for at, digest in enumerate(nodes)}.__getitem__


def _encode(found: Found, old: Graph, new: Graph) -> bytes:
    rebuilds, notes = found
    causing = list(chain.from_iterable(map(_CAUSING, (*rebuilds.triggers, *rebuilds.new_builds))))
    listed = list(chain.from_iterable(map(_LISTS, rebuilds.cascades)))
    lists = dict.fromkeys(chain(causing, listed))  # each distinct list once, in C
    at = {hashes: n for n, hashes in enumerate(lists)}.__getitem__
    place = _places(new.nodes)
    wire = _Wire(
        _emptied(rebuilds),
        notes,
        _numbers(map(place, map(_HASH, rebuilds.cascades))),
        _numbers(map(_places(old.nodes), map(_PREDECESSOR, rebuilds.cascades))),
        _numbers(map(len, lists)),
        _numbers(map(place, chain.from_iterable(lists))),
        _numbers(map(at, causing)),
        _numbers(map(at, listed)),
    )
    return msgspec.msgpack.encode(wire)


def _decode(message: memoryview, old: Graph, new: Graph) -> Found:
    wire = msgspec.msgpack.decode(message, type=_Wire)
    rebuilds = wire.rebuilds
    new_hashes, old_hashes = list(new.nodes), list(old.nodes)
    hashes = list(map(new_hashes.__getitem__, _read(wire.hashes)))
    ends = list(accumulate(_read(wire.lengths)))
    lists = list(map(tuple, map(hashes.__getitem__, map(slice, [0, *ends], ends))))
    causing = map(lists.__getitem__, _read(wire.causing))
    listed = map(lists.__getitem__, _read(wire.listed))
    triggers = tuple(
        replace(t, cascade=next(causing), cascade_build_only=next(causing))
        for t in rebuilds.triggers
    )
    new_builds = tuple(
        replace(b, cascade=next(causing), cascade_build_only=next(causing))
        for b in rebuilds.new_builds
    )
    if next(causing, None) is not None:
        raise ValueError("more lists of causes than causes")  # the work is then done here
    specs = list(map(new_hashes.__getitem__, _read(wire.cascades)))
    names = map(_NAME, map(new.nodes.__getitem__, specs))
    predecessors = map(old_hashes.__getitem__, _read(wire.predecessors))
    # a cascade's four lists are the next four (`zip` takes from its iterables in order), and
    # as many as the cascades (`strict`: else the work is done here)
    fields = zip(specs, names, predecessors, listed, listed, listed, listed, strict=True)
    cascades = tuple(starmap(Cascade, fields))
    whole = replace(rebuilds, triggers=triggers, new_builds=new_builds, cascades=cascades)
    return whole, wire.notes


class CausesApart:
    """The causes of one pair's rebuilds in a child: started as soon as both graphs are read
    (`start` given as `LoadOptions.graphs`), else by `diff_snapshots`, which joins them. `told`
    hears why they were worked out here after all. A context manager: leaving it stops a child
    still at work (`load_pair` failed after the graphs were read)."""

    def __init__(self, told: Told) -> None:
        self.told = told
        self.graphs: tuple[Graph, Graph] | None = None
        self.child: Forked[Found] | None = None

    def start(self, old: Graph, new: Graph) -> None:
        """Start working out the causes between these graphs, unless started already."""
        if self.graphs is not None and self.graphs[0] is old and self.graphs[1] is new:
            return
        self.cancel()
        self.graphs = (old, new)
        self.child = Forked(
            lambda: rebuild_causes(old, new, missing=False),
            lambda found: _encode(found, old, new),
            lambda message: _decode(message, old, new),
            self._failed,
        )

    def _failed(self, why: str) -> None:
        self.told(
            f"working out why specs were rebuilt in a second process failed ({why});"
            " worked out here"
        )

    def join(self) -> Found:
        """The causes between the graphs started (`start`)."""
        if self.child is None or self.graphs is None:
            raise RuntimeError("join() of causes never started")
        old, new = self.graphs
        try:
            missing = missing_dependencies(old.nodes, new.nodes)  # here, while the child works
            rebuilds, notes = self.child.join()
        finally:
            self.cancel()  # the child reaped, even on an interrupt
        return replace(rebuilds, missing_dependencies=missing), notes

    def __enter__(self) -> CausesApart:
        return self

    def __exit__(self, *raised: object) -> None:
        self.cancel()

    def cancel(self) -> None:
        """Stop the child if it is still at work (an error, or an interrupt)."""
        if self.child is not None:
            self.child.cancel()
        self.child, self.graphs = None, None
