"""Match two snapshots by (tag, hash) and explain what changed: no I/O, no rendering."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["diff_snapshots"]

if TYPE_CHECKING:
    from .diff import diff_snapshots


def __getattr__(name: str) -> Any:
    """`diff_snapshots` imported when asked, so a module that needs one concept of this stage
    (the gates need the change classes) does not import the whole comparison."""
    if name == "diff_snapshots":
        from .diff import diff_snapshots

        return diff_snapshots
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
