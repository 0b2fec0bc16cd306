"""Render a Report: JSON for machines, Markdown through Jinja templates for people."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .errors import TemplateError
from .model import (
    Configuration,
    Migration,
    PackageChange,
    Pair,
    Report,
    Side,
    SpecChange,
    StackChange,
)

__all__ = ["code", "render_json", "render_markdown", "report_to_dict"]

DEFAULT_TEMPLATE = "report.md.j2"
FOLD_AFTER = 10  # a table with more rows than this goes inside <details>
LIST_LIMIT = 8  # items shown in one table cell before "… and N more"

_BACKTICKS = re.compile(r"`+")


class Safe(str):
    """Markdown composed by snapdiff itself, which the template engine must not mark up again."""


def code(text: str) -> Safe:
    """A string from the data as an inline code span: inert in GitHub Markdown.

    Inside a code span nothing is markup: no emphasis, link, autolinked e-mail (`gcc@11.4.0`),
    mention or HTML. The fence is longer than any run of backticks in the text, and `|` is
    escaped so a table cell stays one cell (GitHub shows it as `|` there).
    """
    text = " ".join(text.splitlines()) or " "
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    text = text.replace("|", "\\|")
    return Safe(f"{fence}{pad}{text}{pad}{fence}")


def html_code(text: str) -> Safe:
    """A string from the data inside raw HTML (a `<summary>`): escaped, in `<code>`."""
    return Safe(f"<code>{html.escape(text)}</code>")


def _finalize(value: Any) -> Any:
    """Every string a template prints is a code span, unless snapdiff composed it (Safe)."""
    if isinstance(value, str) and not isinstance(value, Safe):
        return code(value)
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
        "details": [line.plain() for line in change.details],
    }


def _configuration(config: Configuration) -> dict[str, Any]:
    os_, platform, target, compiler, variants = config
    return {
        "os": os_,
        "platform": platform,
        "target": target,
        "compiler": compiler,
        "variants": list(variants),
    }


def _pair(pair: Pair) -> dict[str, Any]:
    fields: dict[str, Any] = {"old": pair.old, "new": pair.new}
    if pair.kind == "rebuilt":
        fields["version"] = pair.new_version
    else:
        fields |= {"from": pair.old_version, "to": pair.new_version, "kind": pair.kind}
    return fields | {"configuration": _configuration(pair.configuration)}


def _migration(m: Migration) -> dict[str, Any]:
    return {
        "platform": m.platform,
        "dimension": m.dimension,
        "old": list(m.old),
        "new": list(m.new),
        "specs_old": m.specs_old,
        "specs_new": m.specs_new,
    }


def _package(change: PackageChange) -> dict[str, Any]:
    bump = change.bump
    why = change.explanation
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
        "rebuilt": [_pair(p) for p in why.pairs if p.kind == "rebuilt"],
        "pairs": [_pair(p) for p in why.pairs if p.kind != "rebuilt"],
        "appeared": list(why.appeared),
        "disappeared": list(why.disappeared),
        "migrations": [_migration(m) for m in why.migrations],
        "explanation": [line.plain() for line in why.lines],
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
        "filters": {name: list(globs) for name, globs in report.filters.applied},
    }


def render_json(report: Report) -> str:
    """The JSON report, indented, keys in schema order, ending with a newline."""
    return json.dumps(report_to_dict(report), indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- Markdown context


def signed(number: int) -> Safe:
    """+3, −2 (a real minus sign) or 0."""
    if number > 0:
        return Safe(f"+{number}")
    return Safe(f"\u2212{-number}" if number < 0 else "0")


def some(items: Sequence[str], limit: int = LIST_LIMIT) -> Safe:
    """Values as code spans, comma-separated, cut after `limit` with how many were left out."""
    shown = ", ".join(code(item) for item in items[:limit])
    if len(items) > limit:
        shown += f", … and {len(items) - limit} more"
    return Safe(shown)


def sentence(said: dict[str, Any]) -> Safe:
    """An explanation sentence with its values as code spans."""
    return Safe(said["words"].format(*(code(v) for v in said["values"])))


def side_label(side: dict[str, Any], with_tags: bool = False) -> Safe:
    """A side's name in titles: its source; a revision's commit and date; its tags if asked."""
    details = [some(side["tags"], 50)] if with_tags and side["tags"] else []
    if side.get("commit"):
        details += [code(side["commit"]), code(side["date"][:10])]
    return Safe(
        f"{code(side['source'])} ({', '.join(details)})" if details else code(side["source"])
    )


def _labelled(entries: Iterable[dict[str, Any]], multi_tag: bool) -> list[dict[str, Any]]:
    """Each entry with `label`: its name, as `tag/name` when the report spans several tags."""
    return [dict(e, label=f"{e['tag']}/{e['name']}" if multi_tag else e["name"]) for e in entries]


def migrations(packages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Migrations of every package gathered: one row per (platform, dimension, from, to)."""
    rows: dict[tuple[str, str, tuple[str, ...], tuple[str, ...]], dict[str, Any]] = {}
    for p in packages:
        for m in p["migrations"]:
            key = (m["platform"], m["dimension"], tuple(m["old"]), tuple(m["new"]))
            row = rows.setdefault(
                key,
                {
                    "platform": key[0],
                    "dimension": Safe(key[1]),
                    "old": list(key[2]),
                    "new": list(key[3]),
                    "packages": [],
                    "specs_old": 0,
                    "specs_new": 0,
                },
            )
            row["packages"].append(p["label"])
            row["specs_old"] += m["specs_old"]
            row["specs_new"] += m["specs_new"]
    return sorted(
        rows.values(),
        key=lambda r: (
            -r["specs_old"] - r["specs_new"],
            r["platform"],
            r["dimension"],
            r["old"],
            r["new"],
        ),
    )


def _explained(report: Report, labels: dict[tuple[str, str], str]) -> list[dict[str, Any]]:
    """Changed packages with their explanation sentences, as words and values."""
    return [
        {
            "label": labels[(p.tag, p.name)],
            "specs_added": len(p.specs_added),
            "specs_removed": len(p.specs_removed),
            "specs_changed": len(p.specs_changed),
            "sentences": [line._asdict() for line in p.explanation.lines],
        }
        for p in report.packages
        if p.status == "changed" and p.explanation.lines
    ]


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
        "explained": _explained(report, {(p["tag"], p["name"]): p["label"] for p in packages}),
        "migrations": migrations(changed),
        "filters": [(Safe(name), list(globs)) for name, globs in report.filters.applied],
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
    env.filters.update(signed=signed, some=some, sentence=sentence, code=code, html=html_code)
    try:
        return env.get_template(template).render(markdown_context(report))
    except jinja2.TemplateError as exc:
        name = getattr(exc, "filename", None) or template
        line = getattr(exc, "lineno", None)
        where = f"{name}:{line}" if line else name
        raise TemplateError(where, f"template error: {exc.message}", "fix the template") from exc
