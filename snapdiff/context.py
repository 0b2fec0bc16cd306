"""What Markdown templates see: the JSON report, grouped and cut views of it, safe helpers.

Python groups, sorts, cuts and formats here; templates only loop. Every string from the data
reaches the Markdown as an inline code span (or escaped HTML inside a `<summary>`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .report import Report

__all__ = [
    "SECTIONS",
    "Safe",
    "code",
    "finalize",
    "html_code",
    "markdown_context",
    "section_rows",
    "sentence",
    "signed",
    "some",
]

FOLD_AFTER = 10  # a table with more rows than this goes inside <details>
LIST_LIMIT = 8  # items shown in one table cell before "… and N more"
# id, heading, what one row is
SECTIONS = (
    ("bumps", "Version updates", "package"),
    ("removed", "Removed packages", "package"),
    ("stack_losses", "Stacks that lost coverage", "stack"),
    ("migrations", "Migrations", "migration"),
    ("other_changed", "Other changed packages", "package"),
    ("added", "New packages", "package"),
    ("stack_gains", "Stacks that gained coverage", "stack"),
    ("stack_moves", "Stacks gained and lost per package", "package"),
    ("explained", "What changed, package by package", "package"),
)

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


def finalize(value: Any) -> Any:
    """Every string a template prints is a code span, unless snapdiff composed it (Safe)."""
    if isinstance(value, str) and not isinstance(value, Safe):
        return code(value)
    return value


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


def _loses(stack: dict[str, Any]) -> bool:
    return bool(
        stack["status"] == "removed"
        or stack["specs_new"] < stack["specs_old"]
        or stack["packages_lost"]
    )


def section_rows(report: Report, data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Every row of every section, in the order shown (downgrades first among version updates)."""
    tags = {p["tag"] for p in data["packages"]} | {s["tag"] for s in data["stacks"]}
    multi = len(tags) > 1
    packages = _labelled(data["packages"], multi)
    changed = [p for p in packages if p["status"] == "changed"]
    bumps = [p for p in changed if p["bump"]]
    bumps.sort(key=lambda p: p["bump"]["kind"] != "downgrade")  # stable: downgrades first
    stacks = _labelled(data["stacks"], multi)
    return {
        "bumps": bumps,
        "removed": [p for p in packages if p["status"] == "removed"],
        "stack_losses": [s for s in stacks if _loses(s)],
        "migrations": migrations(changed),
        "other_changed": [p for p in changed if not p["bump"]],
        "added": [p for p in packages if p["status"] == "added"],
        "stack_gains": [s for s in stacks if not _loses(s)],
        "stack_moves": [p for p in changed if p["stacks_added"] or p["stacks_removed"]],
        "explained": _explained(report, {(p["tag"], p["name"]): p["label"] for p in packages}),
    }


def _section(
    title: str, noun: str, rows: list[dict[str, Any]], limit: int | None, full_report: str | None
) -> dict[str, Any]:
    """One section cut to `limit` rows, with the Markdown that opens and closes it."""
    shown = rows if limit is None else rows[:limit]
    fold = len(shown) > FOLD_AFTER
    more = len(rows) - len(shown)
    close = ""
    if more:
        where = code(full_report) if full_report else "the full report"
        close += "\n" if shown else ""
        close += f"… {more} more {noun}{'s' * (more != 1)}, see {where}.\n"
    if fold:
        close += "\n</details>\n"
    return {
        "title": Safe(title),
        "rows": shown,
        "total": len(rows),
        "more": more,
        "open": Safe(
            f"<details><summary>{title} ({len(shown)} of {len(rows)})</summary>\n\n"
            if fold and more
            else f"<details><summary>{title} ({len(rows)})</summary>\n\n"
            if fold
            else ""
        ),
        "close": Safe(close),
    }


def markdown_context(
    report: Report,
    data: dict[str, Any],
    rows: Mapping[str, list[dict[str, Any]]],
    limits: Mapping[str, int] | None = None,
    full_report: str | None = None,
    marker: str = "",
) -> dict[str, Any]:
    """The template context: `report` (the JSON report), `sections` cut to `limits`, labels.

    `data` is the JSON report and `rows` its section_rows, computed once however often the
    budget renders.
    """
    limits = limits or {}
    releases = data["old"]["tags"] != data["new"]["tags"]
    return {
        "report": data,
        "summary": data["summary"],
        "marker": Safe(marker),
        "old_label": side_label(data["old"], releases),
        "new_label": side_label(data["new"], releases),
        "has_changes": bool(report.summary.total),
        "sections": {
            name: _section(title, noun, rows[name], limits.get(name), full_report)
            for name, title, noun in SECTIONS
        },
        "new_stacks": [s["label"] for s in rows["stack_gains"] if s["status"] == "added"],
        "removed_stacks": [s["label"] for s in rows["stack_losses"] if s["status"] == "removed"],
        "filters": [(Safe(name), list(globs)) for name, globs in report.filters.applied],
        "warnings": data["warnings"],
    }
