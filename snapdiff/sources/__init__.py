"""Loaders, one per input kind, all returning a Snapshot; load_snapshots picks the kind."""

from __future__ import annotations

from ..model import Snapshot
from .directory import read_directory
from .snapshot import PageCache, build_snapshot

__all__ = ["load_snapshot", "load_snapshots"]


def load_snapshot(arg: str, cache: PageCache | None = None) -> Snapshot:
    """Load one snapshot: a directory of catalogue pages."""
    return build_snapshot(arg, read_directory(arg), cache or PageCache())


def load_snapshots(old: str, new: str) -> tuple[Snapshot, Snapshot]:
    """Load both sides of a diff, parsing content the two sides share only once."""
    cache = PageCache()
    return load_snapshot(old, cache), load_snapshot(new, cache)
