"""The causes of rebuilds (`rebuilds.rebuild_causes`) worked out in a forked child while this
process builds the pages and compares them (`forked.Forked`): the child shares both sides' graphs
as they are in memory, and the causes come back as one msgpack message; the missing
dependencies, which need no walk, are found here meanwhile."""

from __future__ import annotations

from array import array
from dataclasses import replace

import msgspec

from ..forked import Forked, Told
from ..model import Graph
from ..report import Cascade, NewBuild, Rebuilds, Trigger
from .rebuilds import missing_dependencies, rebuild_causes

__all__ = ["CausesApart", "Found"]

Found = tuple[Rebuilds, tuple[str, ...]]  # the causes, and warnings of the walk


class _Wire(msgspec.Struct, array_like=True, gc=False):
    """The causes as they travel: each cause->spec fact as 4 bytes, a number in the `cascades`
    (or the causes) list, not a hash (a ladder of triggers has quadratically many facts, and
    a hash decoded is a string of its own each time)."""

    rebuilds: Rebuilds  # its triggers', new builds' and cascades' lists emptied
    notes: tuple[str, ...]
    cascade: list[bytes]  # a trigger's cascade, then a new build's: numbers in `cascades`
    build_only: list[bytes]
    causes: list[bytes]  # a cascade's causes: numbers in triggers, then new builds
    # a cascade's evidence one step down: its direct causes numbered as `causes` are, the specs
    # it goes through as `cascade`'s, and those of both named by build edges only numbered in
    # the causes, then the cascades
    direct_causes: list[bytes]
    through: list[bytes]
    named_by_build: list[bytes]


def _numbers(hashes: tuple[str, ...], number: dict[str, int]) -> bytes:
    return array("I", map(number.__getitem__, hashes)).tobytes()


def _hashes(numbers: bytes, hashes: list[str]) -> tuple[str, ...]:
    found = array("I")
    found.frombytes(numbers)
    return tuple(map(hashes.__getitem__, found))


def _emptied(found: Rebuilds) -> Rebuilds:
    """The records with their lists of facts left out (they travel as numbers)."""
    return replace(
        found,
        triggers=tuple(replace(t, cascade=(), cascade_build_only=()) for t in found.triggers),
        new_builds=tuple(replace(b, cascade=(), cascade_build_only=()) for b in found.new_builds),
        cascades=tuple(
            Cascade(c.hash, c.name, c.predecessor, (), (), (), ()) for c in found.cascades
        ),
    )


def _encode(found: Found) -> bytes:
    rebuilds, notes = found
    causing: tuple[Trigger | NewBuild, ...] = (*rebuilds.triggers, *rebuilds.new_builds)
    number = {c.hash: n for n, c in enumerate(rebuilds.cascades)}
    cause = {c.hash: n for n, c in enumerate(causing)}
    either = cause | {digest: len(cause) + n for digest, n in number.items()}
    wire = _Wire(
        _emptied(rebuilds),
        notes,
        [_numbers(c.cascade, number) for c in causing],
        [_numbers(c.cascade_build_only, number) for c in causing],
        [_numbers(c.causes, cause) for c in rebuilds.cascades],
        [_numbers(c.direct_causes, cause) for c in rebuilds.cascades],
        [_numbers(c.through, number) for c in rebuilds.cascades],
        [_numbers(c.build_only, either) for c in rebuilds.cascades],
    )
    return msgspec.msgpack.encode(wire)


def _decode(message: memoryview) -> Found:
    wire = msgspec.msgpack.decode(message, type=_Wire)
    rebuilds, n = wire.rebuilds, len(wire.rebuilds.triggers)
    specs = [c.hash for c in rebuilds.cascades]
    causing = [c.hash for c in rebuilds.triggers] + [b.hash for b in rebuilds.new_builds]
    lists = [
        (_hashes(c, specs), _hashes(b, specs))
        for c, b in zip(wire.cascade, wire.build_only, strict=True)
    ]
    either = causing + specs
    cascades = tuple(
        Cascade(
            c.hash,
            c.name,
            c.predecessor,
            _hashes(numbers, causing),
            _hashes(direct, causing),
            _hashes(through, specs),
            _hashes(build, either),
        )
        for c, numbers, direct, through, build in zip(
            rebuilds.cascades,
            wire.causes,
            wire.direct_causes,
            wire.through,
            wire.named_by_build,
            strict=True,
        )
    )
    triggers = tuple(
        replace(t, cascade=c, cascade_build_only=b)
        for t, (c, b) in zip(rebuilds.triggers, lists, strict=False)
    )
    new_builds = tuple(
        replace(nb, cascade=c, cascade_build_only=b)
        for nb, (c, b) in zip(rebuilds.new_builds, lists[n:], strict=True)
    )
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
            lambda: rebuild_causes(old, new, missing=False), _encode, _decode, self._failed
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
