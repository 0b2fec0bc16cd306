"""The causes of rebuilds (`rebuilds.rebuild_causes`) worked out in a forked child while this
process builds the pages and compares them (`forked.Forked`): the child shares both sides' graphs
as they are in memory, and the causes come back as one msgpack message; the missing
dependencies, which need no walk, are found here meanwhile."""

from __future__ import annotations

from dataclasses import replace

import msgspec

from ..forked import Forked, Told
from ..model import Graph
from ..report import Rebuilds
from .rebuilds import missing_dependencies, rebuild_causes

__all__ = ["CausesApart", "Found"]

Found = tuple[Rebuilds, tuple[str, ...]]  # the causes, and warnings of the walk


def _encode(found: Found) -> bytes:
    return msgspec.msgpack.encode(found)


def _decode(message: memoryview) -> Found:
    found: Found = msgspec.msgpack.decode(message, type=Found)
    return found


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
