"""The causes of rebuilds (`rebuilds.rebuild_causes`) worked out in a forked child while this
process compares the pages (`forked.Forked`): the child shares both sides' graphs as they are in
memory, and the causes come back as one msgpack message."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from ..forked import Forked
from ..model import Graph
from ..report import Rebuilds
from .rebuilds import rebuild_causes

__all__ = ["Found", "causes_apart"]

Found = tuple[Rebuilds, tuple[str, ...]]  # the causes, and warnings of the walk


def _encode(found: Found) -> bytes:
    return msgspec.msgpack.encode(found)


def _decode(message: memoryview) -> Found:
    found: Found = msgspec.msgpack.decode(message, type=Found)
    return found


def causes_apart(old: Graph, new: Graph, told: Callable[[str], None]) -> Forked[Found]:
    """`rebuild_causes(old, new)` started in a child; `told` hears why they were worked out
    here after all."""

    def failed(status: int) -> None:
        told(
            f"working out why specs were rebuilt in a second process failed (status {status});"
            " worked out here"
        )

    return Forked(lambda: rebuild_causes(old, new), _encode, _decode, failed)
