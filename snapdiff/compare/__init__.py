"""Match two snapshots by (tag, hash) and explain what changed: no I/O, no rendering."""

from __future__ import annotations

from .diff import diff_snapshots

__all__ = ["diff_snapshots"]
