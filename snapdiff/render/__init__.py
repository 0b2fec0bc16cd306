"""Render a report: Markdown through Jinja, JSON, and text for a terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .jsonreport import render_json
    from .markdown import render_markdown

__all__ = ["render_json", "render_markdown"]

_LAZY = {"render_json": "jsonreport", "render_markdown": "markdown"}


def __getattr__(name: str) -> Any:
    """The renderers, imported when first asked for (Jinja only for Markdown)."""
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
