"""What Markdown templates see: the JSON report, grouped and cut views of it, safe helpers.

Python groups, sorts, cuts and formats here; templates only loop. Every string from the data
reaches the Markdown as an inline code span (or escaped HTML inside a `<summary>`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .model import Configuration
from .report import Change, Report
from .sections import SECTIONS

__all__ = [
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

_BACKTICKS = re.compile(r"`+")
# What happened to the specs of each class of explanation (SPEC section 2a), in a summary line
ADDED_WORDS = {
    "rebuilt": "rebuilt (same version and configuration, new hash)",
    "upgrade": "upgraded in a configuration kept",
    "downgrade": "downgraded in a configuration kept",
    "version-retired": "of versions retired from a configuration kept",
    "version-added": "of versions added to a configuration kept",
    "more-builds": "more builds of a version kept",
    "fewer-builds": "fewer builds of a version kept",
    "new-configuration": "in new configurations",
    "dropped-configuration": "in dropped configurations",
    "migration": "in configurations that migrated",
}
REMOVED_WORDS = ADDED_WORDS | {
    "upgrade": "of a version upgraded in a configuration kept",
    "downgrade": "of a version downgraded in a configuration kept",
}


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


def spack1_compilers(change: Change) -> bool:
    """A migration of Spack 1.0's: from a compiler to no compiler (`none`), nothing else moved."""
    return (
        change.kind == "migration"
        and change.dimensions == ("compiler",)
        and all(c[3] == "none" for c in change.configurations_new)
    )


def _spack1(report: Report, labels: dict[tuple[str, str], str]) -> dict[str, Any] | None:
    """The Spack 1.0 move to no compiler, said once for the report rather than per package."""
    moved = [(p, c) for p in report.packages for c in p.changes if spack1_compilers(c)]
    if not moved:
        return None
    return {
        "packages": sorted({labels[(p.tag, p.name)] for p, _ in moved}),
        "configurations": sum(len(c.configurations_old) for _, c in moved),
        "specs_old": sum(len(c.specs_old) for _, c in moved),
        "specs_new": sum(len(c.specs_new) for _, c in moved),
    }


CONFIGS_SHOWN = 5  # configurations listed under a new or dropped configurations line


def configuration(config: Configuration) -> Safe:
    """One configuration on a line: os, target, compiler, variants, then the platform."""
    os_, platform, target, compiler, variants = config
    parts = [code(os_), code(target), _values("compiler", [compiler])]
    parts += [code(v) for v in variants]
    return Safe(f"{' '.join(parts)} ({code(platform)})")


def _said(change: Change) -> dict[str, Any]:
    """A record's sentence, and the configurations it is about when the sentence cannot say."""
    configs = change.configurations_new or change.configurations_old
    listed = change.kind in ("new-configuration", "dropped-configuration")
    shown = [configuration(c) for c in configs[:CONFIGS_SHOWN]] if listed else []
    more = len(configs) - len(shown) if listed else 0
    return {**change.sentence._asdict(), "configurations": shown, "more": more}


def _explained(report: Report, labels: dict[tuple[str, str], str]) -> list[dict[str, Any]]:
    """Changed packages with their explanation sentences, as words and values."""
    rows = []
    for p in report.packages:
        said = [_said(c) for c in p.changes if not spack1_compilers(c)]
        said += [{**line._asdict(), "configurations": [], "more": 0} for line in p.kept]
        if p.status == "changed" and (said or p.changes):
            rows.append(
                {
                    "label": labels[(p.tag, p.name)],
                    "specs_added": len(p.specs_added),
                    "specs_removed": len(p.specs_removed),
                    "specs_changed": len(p.specs_changed),
                    "sentences": said,
                    "spack1": any(spack1_compilers(c) for c in p.changes),
                }
            )
    return rows


def _classes(counts: Mapping[str, Mapping[str, int]], side: str) -> list[tuple[int, Safe]]:
    """(specs, what happened to them) of each class with specs on one side, in class order."""
    words = ADDED_WORDS if side == "added" else REMOVED_WORDS
    return [(c[side], Safe(words[kind])) for kind, c in counts.items() if c[side]]


def _values(dimension: str, values: list[str]) -> Safe:
    """Values of one dimension as code spans; `none` as a compiler is "no compiler (`none`)"."""
    return Safe(
        ", ".join(
            f"no compiler ({code(v)})" if dimension == "compiler" and v == "none" else code(v)
            for v in values
        )
    )


def _stack_moves(moves: list[dict[str, Any]], multi_tag: bool) -> list[dict[str, Any]]:
    """One row per stack that moved: its label, counts and the moves along each dimension."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for m in moves:
        label = f"{m['tag']}/{m['stack']}" if multi_tag else m["stack"]
        row = rows.setdefault((m["tag"], m["stack"]), dict(m, label=label, moves=[]))
        # os, target or compiler: snapdiff's own words, not data
        row["moves"].append(
            (
                Safe(m["dimension"]),
                _values(m["dimension"], m["from"]),
                _values(m["dimension"], m["to"]),
            )
        )
    return list(rows.values())


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
        "stack_losses": [s for s in stacks if _loses(s) and not s["whole"]],
        "other_changed": [p for p in changed if not p["bump"]],
        "added": [p for p in packages if p["status"] == "added"],
        "stack_gains": [s for s in stacks if not _loses(s) and not s["whole"]],
        "package_stacks": [p for p in changed if p["stacks_added"] or p["stacks_removed"]],
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
    multi_tag = len({p["tag"] for p in data["packages"]} | {s["tag"] for s in data["stacks"]}) > 1
    labels = {
        (p.tag, p.name): f"{p.tag}/{p.name}" if multi_tag else p.name for p in report.packages
    }
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
            for name, title, noun, *_ in SECTIONS
        },
        "new_stacks": [s["label"] for s in rows["stack_gains"] if s["status"] == "added"],
        "removed_stacks": [s["label"] for s in rows["stack_losses"] if s["status"] == "removed"],
        "filters": [(Safe(name), list(globs)) for name, globs in report.filters.applied],
        "root_is_total": any(s["whole"] for s in data["stacks"]),
        "stack_moves": _stack_moves(data["stack_moves"], multi_tag),
        "spack1": _spack1(report, labels),
        "added_by_class": _classes(data["specs_by_class"], "added"),
        "removed_by_class": _classes(data["specs_by_class"], "removed"),
        "warnings": data["warnings"],
    }
