"""The output formats, one table: what each renders a diff's report and a history with.

The command line reads its `--format` choices and every per-format decision from `FORMATS`;
each format's module (markdown, jsonreport, text) is imported only when that format is used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from ..errors import UsageError
from .links import Links

if TYPE_CHECKING:
    from ..history import History
    from ..report import Report
    from .markdown import MarkdownRenderer

__all__ = [
    "FORMATS",
    "Format",
    "Rendered",
    "Rendering",
    "log_formats",
    "render_history",
    "render_report",
]


@dataclass(frozen=True, slots=True)
class Rendering:
    """How to render, whatever the format: each format reads the fields it has a use for."""

    template: str | None = None  # Markdown: a Jinja template file
    template_dir: str | None = None  # Markdown: templates overriding the defaults
    full_report: str | None = None  # where the uncut report goes, for cut sections to point to
    artifact: str | None = None  # the CI artifact it is kept as: cut sections name that instead
    links: Links = field(default_factory=Links)
    budget: int | None = None  # Markdown: the size to cut to (None: everything)
    colour: bool = False  # text: ANSI colours
    all_causes: bool = False  # Markdown and text: every cause of rebuilds on the first screen
    cached: bool = False  # Markdown: keep compiled templates (the command line opts in)


def _renderer(report: Report, how: Rendering) -> MarkdownRenderer:
    from .markdown import MarkdownRenderer

    return MarkdownRenderer(
        report,
        template=how.template,
        template_dir=how.template_dir,
        full_report=how.artifact or how.full_report,
        cached=how.cached,
        links=how.links,
        all_causes=how.all_causes,
        artifact=how.artifact is not None,
    )


def _markdown(report: Report, how: Rendering) -> str:
    return _renderer(report, how).text(how.budget)


def _json(report: Report, how: Rendering) -> str:
    from .jsonreport import render_json

    return render_json(report)


def _text(report: Report, how: Rendering) -> str:
    from .text import render_text

    return render_text(report, colour=how.colour, all_causes=how.all_causes)


def _text_history(history: History, how: Rendering) -> str:
    from .textlog import render_history_text

    return render_history_text(history, colour=how.colour)


def _markdown_history(history: History, how: Rendering) -> str:
    from .markdown import render_history_markdown

    return render_history_markdown(
        history,
        template=how.template,
        template_dir=how.template_dir,
        budget=how.budget,
        cached=how.cached,
        links=how.links,
    )


def _json_history(history: History, how: Rendering) -> str:
    from .jsonreport import render_history_json

    return render_history_json(history)


@dataclass(frozen=True, slots=True)
class Format:
    """One output format: its help, how it renders a report and (if it can) a history."""

    help: str
    report: Callable[[Report, Rendering], str]
    history: Callable[[History, Rendering], str] | None = None  # None: `snapdiff log` has none
    sized: bool = False  # --max-chars and --for cut it
    coloured: bool = False  # --color colours it


FORMATS: dict[str, Format] = {
    "markdown": Format("Markdown (default)", _markdown, _markdown_history, sized=True),
    "json": Format("JSON", _json, _json_history),
    "text": Format("text for a terminal (see --color)", _text, _text_history, coloured=True),
}


def log_formats() -> list[str]:
    """The formats `snapdiff log` can write."""
    return [name for name, found in FORMATS.items() if found.history is not None]


class Rendered(NamedTuple):
    """What one run writes: the report, its full report and its job summary (None unasked)."""

    text: str
    full: str | None = None
    summary: str | None = None


def render_report(
    report: Report, name: str, how: Rendering, summary: int | None = None
) -> Rendered:
    """The report in format `name`; the uncut report for `how.full_report` (JSON if its name
    ends in .json, else Markdown); with `summary`, the Markdown cut to that size. The Markdown
    is worked out once for all of them (a comment that fits is its own full report)."""
    renderer: MarkdownRenderer | None = None

    def markdown(budget: int | None) -> str:
        nonlocal renderer
        renderer = renderer or _renderer(report, how)
        return renderer.text(budget)

    text = markdown(how.budget) if name == "markdown" else FORMATS[name].report(report, how)
    full = None
    if how.full_report and how.full_report.endswith(".json"):
        full = text if name == "json" else _json(report, how)
    elif how.full_report:
        full = markdown(None)
    return Rendered(text, full, markdown(summary) if summary else None)


def render_history(history: History, name: str, how: Rendering) -> str:
    """`snapdiff log` in format `name` (one of `log_formats()`)."""
    render = FORMATS[name].history
    if render is None:
        fix = f"use {' or '.join(log_formats())}"
        raise UsageError("--format", f"{name} is a diff's view, not a history's", fix)
    return render(history, how)
