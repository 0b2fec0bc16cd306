"""snapdiff: what changed between two snapshots of the Spack binary cache catalogue.

Public API: load_pair (both sides of a diff), load_snapshot (one), diff_snapshots,
render_markdown, render_json.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = [
    "__version__",
    "diff_snapshots",
    "load_pair",
    "load_snapshot",
    "render_json",
    "render_markdown",
]

if TYPE_CHECKING:
    from .compare import diff_snapshots
    from .render import render_json, render_markdown
    from .sources import load_pair, load_snapshot

_LAZY = {
    "diff_snapshots": "compare",
    "render_json": "render",
    "render_markdown": "render",
    "load_snapshot": "sources",
    "load_pair": "sources",
}


def __getattr__(name: str) -> Any:
    """Re-export the public API lazily, so `snapdiff --version` imports almost nothing."""
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
