"""Loaders, one per input kind, all returning a Snapshot; load_snapshots picks the kind."""

from __future__ import annotations

from ..model import Snapshot
from .directory import read_directory
from .snapshot import PageCache, build_snapshot

__all__ = ["load_snapshot", "load_snapshots"]


def load_snapshot(arg: str) -> Snapshot:
    """Load one snapshot: a directory of catalogue pages."""
    cache = PageCache()
    return build_snapshot(arg, map(cache.parse, read_directory(arg)))


def load_snapshots(old: str, new: str) -> tuple[Snapshot, Snapshot]:
    """Load both sides of a diff; content both sides hold is parsed once, for its counts only."""
    old_raw, new_raw = read_directory(old), read_directory(new)
    cache = PageCache({r.digest for r in old_raw} & {r.digest for r in new_raw})
    return (
        build_snapshot(old, map(cache.parse, old_raw)),
        build_snapshot(new, map(cache.parse, new_raw)),
    )
