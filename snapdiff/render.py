"""Render a Report: JSON for machines, Markdown through Jinja templates for people."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .errors import TemplateError
from .model import PackageChange, Report, Side, SpecChange, StackChange

__all__ = ["md_escape", "render_json", "render_markdown", "report_to_dict"]

DEFAULT_TEMPLATE = "report.md.j2"
FOLD_AFTER = 10  # a table with more rows than this goes inside <details>
LIST_LIMIT = 8  # items shown in one table cell before "… and N more"

_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "@": "@&#8203;"}
_ESCAPES.update({c: "\\" + c for c in "\\`*_[]|#~"})
_ESCAPE_TABLE = str.maketrans(_ESCAPES)


class Safe(str):
    """Markdown composed by snapdiff itself, which the template engine must not escape again."""


def md_escape(text: str) -> str:
    """Make a data string inert in GitHub Markdown: no markup, link, mention or table cell."""
    return text.translate(_ESCAPE_TABLE).replace("\n", " ")


def _finalize(value: Any) -> Any:
    """Every string a template prints is escaped, unless snapdiff composed it (Safe)."""
    if isinstance(value, str) and not isinstance(value, Safe):
        return md_escape(value)
    return value


# ---------------------------------------------------------------- JSON


def _side(side: Side) -> dict[str, Any]:
    return {
        "source": side.source,
        "tags": list(side.tags),
        "packages": side.packages,
        "specs": side.specs,
        "stacks": side.stacks,
        "commit": side.commit,
        "date": side.date,
    }


def _json_value(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    return value


def _spec_change(change: SpecChange) -> dict[str, Any]:
    return {
        "hash": change.hash,
        "stacks_added": list(change.stacks_added),
        "stacks_removed": list(change.stacks_removed),
        "fields": {
            f.name: {"old": _json_value(f.old), "new": _json_value(f.new)} for f in change.fields
        },
    }


def _package(change: PackageChange) -> dict[str, Any]:
    bump = change.bump
    return {
        "tag": change.tag,
        "name": change.name,
        "status": change.status,
        "versions_old": list(change.versions_old),
        "versions_new": list(change.versions_new),
        "versions_added": list(change.versions_added),
        "versions_removed": list(change.versions_removed),
        "bump": bump and {"from": bump.old, "to": bump.new, "kind": bump.kind, "size": bump.size},
        "specs_added": list(change.specs_added),
        "specs_removed": list(change.specs_removed),
        "specs_changed": [_spec_change(c) for c in change.specs_changed],
        "stacks_added": list(change.stacks_added),
        "stacks_removed": list(change.stacks_removed),
    }


def _stack(change: StackChange) -> dict[str, Any]:
    return {
        "tag": change.tag,
        "name": change.name,
        "status": change.status,
        "specs_old": change.specs_old,
        "specs_new": change.specs_new,
        "packages_gained": list(change.packages_gained),
        "packages_lost": list(change.packages_lost),
    }


def report_to_dict(report: Report) -> dict[str, Any]:
    """The JSON report of SPEC section 4 (plus a few documented extra keys)."""
    summary = report.summary
    return {
        "schema_version": report.schema_version,
        "old": _side(report.old),
        "new": _side(report.new),
        "summary": {name: getattr(summary, name) for name in summary.__dataclass_fields__},
        "packages": [_package(p) for p in report.packages],
        "stacks": [_stack(s) for s in report.stacks],
        "warnings": list(report.warnings),
    }


def render_json(report: Report) -> str:
    """The JSON report, indented, keys in schema order, ending with a newline."""
    return json.dumps(report_to_dict(report), indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- Markdown context


def signed(number: int) -> str:
    """+3, −2 (a real minus sign) or 0."""
    if number > 0:
        return f"+{number}"
    return f"\u2212{-number}" if number < 0 else "0"


def some(items: Sequence[str], limit: int = LIST_LIMIT) -> str:
    """A comma-separated list, cut after `limit` items with how many were left out."""
    shown = ", ".join(items[:limit])
    if len(items) > limit:
        shown += f", … and {len(items) - limit} more"
    return shown


def side_label(side: dict[str, Any], with_tags: bool = False) -> str:
    """A side's name in titles: its source; a revision's commit and date; its tags if asked."""
    details = [", ".join(side["tags"])] if with_tags else []
    if side.get("commit"):
        details += [side["commit"], side["date"][:10]]
    return f"{side['source']} ({', '.join(details)})" if details else str(side["source"])


def _labelled(entries: Iterable[dict[str, Any]], multi_tag: bool) -> list[dict[str, Any]]:
    """Each entry with `label`: its name, as `tag/name` when the report spans several tags."""
    return [dict(e, label=f"{e['tag']}/{e['name']}" if multi_tag else e["name"]) for e in entries]


def markdown_context(report: Report) -> dict[str, Any]:
    """What the Markdown templates see: the JSON report plus grouped, sorted views of it."""
    data = report_to_dict(report)
    tags = {p["tag"] for p in data["packages"]} | {s["tag"] for s in data["stacks"]}
    multi = len(tags) > 1
    releases = data["old"]["tags"] != data["new"]["tags"]
    packages = _labelled(data["packages"], multi)
    changed = [p for p in packages if p["status"] == "changed"]
    bumps = [p for p in changed if p["bump"]]
    bumps.sort(key=lambda p: p["bump"]["kind"] != "downgrade")  # stable: downgrades first
    return {
        "report": data,
        "summary": data["summary"],
        "old_label": side_label(data["old"], releases),
        "new_label": side_label(data["new"], releases),
        "has_changes": bool(report.summary.total),
        "bumps": bumps,
        "other_changed": [p for p in changed if not p["bump"]],
        "added": [p for p in packages if p["status"] == "added"],
        "removed": [p for p in packages if p["status"] == "removed"],
        "stacks": _labelled(data["stacks"], multi),
        "stack_moves": [p for p in changed if p["stacks_added"] or p["stacks_removed"]],
        "fold_after": FOLD_AFTER,
        "warnings": data["warnings"],
    }


# ---------------------------------------------------------------- Markdown


def templates_dir() -> Path:
    """The default templates: inside the installed package, or top-level in a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "templates", here.parent / "templates"):
        if (candidate / DEFAULT_TEMPLATE).is_file():
            return candidate
    raise TemplateError(str(here), "default templates not found", "reinstall snapdiff")


def render_markdown(report: Report, template: str = DEFAULT_TEMPLATE) -> str:
    """Render the report through a Jinja template; every data string is escaped for Markdown."""
    import jinja2  # deferred: about 50 ms of start-up that JSON output does not need

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # noqa: S701 - Markdown, escaped for Markdown by _finalize
        finalize=_finalize,
    )
    env.filters.update(signed=signed, some=some)
    try:
        return env.get_template(template).render(markdown_context(report))
    except jinja2.TemplateError as exc:
        name = getattr(exc, "filename", None) or template
        line = getattr(exc, "lineno", None)
        where = f"{name}:{line}" if line else name
        raise TemplateError(where, f"template error: {exc.message}", "fix the template") from exc
