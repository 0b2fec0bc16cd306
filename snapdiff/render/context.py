"""What Markdown templates see: the JSON report, grouped and cut views of it (typed throughout).

Python groups, sorts, cuts and formats here; templates only loop. Every string from the data
reaches the Markdown as an inline code span (or escaped HTML inside a `<summary>`): see markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from ..report import GateOutcome, Rebuilds, Report
from ..report.labels import short_commit
from ..schema import (
    PackageJSON,
    RebuildsJSON,
    ReportJSON,
    SideJSON,
    StackJSON,
)
from ..versions import Bump, bump_order
from .environments import environment_views
from .jsonrebuilds import rebuilds_to_dict
from .jsonreport import report_to_dict
from .links import Links
from .markup import Safe, code, some
from .rebuildfolds import views
from .sections import SECTIONS, SectionId
from .sentences import class_counts, explained, notes, root_rows, spack1, stack_move_rows
from .views import (
    Attention,
    GateView,
    LabelledPackage,
    LabelledStack,
    LogContext,
    MarkdownContext,
    Rows,
    RowT,
    Sections,
    SectionView,
)

if TYPE_CHECKING:  # `snapdiff log` only: the diff path need not import it
    from ..history import History

__all__ = [
    "FOLD_AFTER",
    "LogContext",
    "MarkdownContext",
    "Rows",
    "cut_sections",
    "log_context",
    "markdown_context",
    "section_rows",
    "template_data",
]

FOLD_AFTER = 10  # a table with more rows than this goes inside <details>
_COMMIT_SOURCE = re.compile(r"[0-9a-f]{7,64}")


class _Deferred(Mapping[str, Any]):
    """A report's `rebuilds` as a template is given it: worked out when a template first reads
    it, then kept. The default template never does (it says rebuilds from `rebuilds` and the
    sections' folds), and its lists hold each cause→spec fact, which a ladder of triggers makes
    quadratic in the input."""

    __slots__ = ("_data", "_rebuilds")

    def __init__(self, rebuilds: Rebuilds) -> None:
        self._rebuilds = rebuilds
        self._data: RebuildsJSON | None = None

    def _whole(self) -> Mapping[str, Any]:
        if self._data is None:
            self._data = rebuilds_to_dict(self._rebuilds)
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._whole()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())


def template_data(report: Report, shipped: bool) -> ReportJSON:
    """The JSON report as a Markdown template is given it (`report`). For the shipped templates
    its `rebuilds` (when not null) is a mapping worked out when first read; a template of the
    user's gets the plain data, which its filters (`tojson`, `string`) take as JSON's."""
    if not shipped:
        return report_to_dict(report)
    return report_to_dict(report, lambda rebuilds: cast(RebuildsJSON, _Deferred(rebuilds)))


def link(text: str, url: str | None) -> Safe:
    """Text from the data as a code span, linked when snapdiff knows an address for it."""
    return Safe(f"[{code(text)}]({url})") if url else code(text)


def commit_linker(links: Links) -> Callable[[str], Safe]:
    """`commit_link(sha)` for templates: a commit id as a code span of its short form,
    linked (by its full id) where known."""
    return lambda commit: link(short_commit(commit), links.commit(commit))


def side_label(side: SideJSON, links: Links, with_tags: bool = False) -> Safe:
    """A side's name in a one-line title: its source; for a revision its short commit (linked
    when the forge is known) and date, the source left out when it is that commit itself."""
    commit = side["commit"]
    details = [some(side["tags"], 50)] if with_tags and side["tags"] else []
    if commit:
        details += [commit_linker(links)(commit), Safe((side["date"] or "")[:10])]
        source = side["source"]
        if _COMMIT_SOURCE.fullmatch(source) and source.startswith(commit[:7]):
            return Safe(" ".join(details[-2:]) if not with_tags else ", ".join(details))
    label = code(side["source"])
    return Safe(f"{label} ({', '.join(details)})" if details else label)


def _loses(stack: StackJSON) -> bool:
    return bool(
        stack["status"] == "removed"
        or stack["specs_new"] < stack["specs_old"]
        or stack["packages_lost"]
    )


def _order(package: LabelledPackage) -> tuple[int, int]:
    """Where a package row goes in a list of version changes (`versions.bump_order`)."""
    found = package["bump"]
    if found is None:
        return (2, 0)
    return bump_order(Bump(found["from"], found["to"], found["kind"], found["size"]))


def _change_size(p: PackageJSON) -> int:
    return len(p["specs_added"]) + len(p["specs_removed"]) + len(p["specs_changed"])


def _key(package: PackageJSON) -> tuple[str, str]:
    return package["tag"], package["name"]


def section_rows(report: Report, data: ReportJSON, all_causes: bool = False) -> Rows:
    """Every row of every section, in the order shown (downgrades first among version updates),
    and the first screen's lines on rebuilds (`all_causes`: naming every cause)."""
    label = report.labeller()
    causes = {(p.tag, p.name): p.built_only_in.sentence for p in report.packages if p.built_only_in}
    packages = [
        LabelledPackage(**p, label=label(p["tag"], p["name"]), cause=causes.get(_key(p)))
        for p in data["packages"]
    ]
    changed = [p for p in packages if p["status"] == "changed"]
    bumps = [p for p in changed if p["bump"]]
    bumps.sort(key=lambda p: p["bump"] is not None and p["bump"]["kind"] != "downgrade")
    stacks = [LabelledStack(**s, label=label(s["tag"], s["name"])) for s in data["stacks"]]
    # removed, then losing, then added, then the rest; each by name (a stable sort)
    order = {"removed": 0, "added": 2, "changed": 3}
    shown = sorted(
        stacks,
        key=lambda s: order[s["status"]] if s["status"] != "changed" or not _loses(s) else 1,
    )
    others = sorted((p for p in changed if not p["bump"]), key=lambda p: -_change_size(p))
    rebuilds = views(report, all_causes)
    return {
        "stacks": shown,
        "bumps": bumps,
        "removed": [p for p in packages if p["status"] == "removed"],
        "added": [p for p in packages if p["status"] == "added"],
        "other_changed": others,
        "package_stacks": [p for p in changed if p["stacks_added"] or p["stacks_removed"]],
        "explained": explained(report, label),
        "rebuilt": rebuilds["rebuilt"],
        "missing": rebuilds["missing"],
        "rebuilds": rebuilds["first_screen"],
    }


def _section(title: str, noun: str, rows: list[RowT], limit: int | None) -> SectionView[RowT]:
    """One section cut to `limit` rows."""
    shown = rows if limit is None else rows[:limit]
    return {
        "title": Safe(title),
        "noun": Safe(noun),
        "rows": shown,
        "total": len(rows),
        "more": len(rows) - len(shown),
    }


def cut_sections(rows: Rows, limits: Mapping[SectionId, int]) -> Sections:
    """Every section cut to its limit."""
    by_id = {s.id: s for s in SECTIONS}

    def cut(name: SectionId, found: list[RowT]) -> SectionView[RowT]:
        section = by_id[name]
        return _section(section.title, section.noun, found, limits.get(name))

    return {
        "stacks": cut("stacks", rows["stacks"]),
        "bumps": cut("bumps", rows["bumps"]),
        "removed": cut("removed", rows["removed"]),
        "added": cut("added", rows["added"]),
        "other_changed": cut("other_changed", rows["other_changed"]),
        "package_stacks": cut("package_stacks", rows["package_stacks"]),
        "explained": cut("explained", rows["explained"]),
        "rebuilt": cut("rebuilt", rows["rebuilt"]),
        "missing": cut("missing", rows["missing"]),
    }


ATTENTION_LIMIT = 5  # items of each kind named on the first screen


def _attention(rows: Rows) -> Attention:
    """What the first screen names: downgrades, removals, the largest version bumps."""
    downgrades = [p for p in rows["bumps"] if p["bump"] and p["bump"]["kind"] == "downgrade"]
    upgrades = [p for p in rows["bumps"] if p["bump"] and p["bump"]["kind"] == "upgrade"]
    upgrades.sort(key=_order)
    return {
        "downgrades": downgrades,
        "removed_packages": [p["label"] for p in rows["removed"]],
        "removed_stacks": [s["label"] for s in rows["stacks"] if s["status"] == "removed"],
        "largest_bumps": upgrades,
        "limit": ATTENTION_LIMIT,
    }


def _gate(outcome: GateOutcome) -> GateView:
    """A gate for the first screen: what it counted, with the data's values as code spans."""
    said = outcome.said
    return {
        "gate": outcome.gate,
        "level": outcome.level,
        "tripped": outcome.tripped,
        "said": Safe(said.words.format(*map(code, said.values))),
        "above": outcome.above,
        "exemptions": [
            {
                "kind": Safe("packages" if e.package is not None else "stacks"),
                "name": e.package or e.stack or "",
                "reason": e.reason,
            }
            for e in outcome.exemptions
        ],
    }


def markdown_context(
    report: Report,
    data: ReportJSON,
    rows: Rows,
    limits: Mapping[SectionId, int] | None = None,
    full_report: str | None = None,
    marker: str = "",
    links: Links | None = None,
    artifact: bool = False,
) -> MarkdownContext:
    """The template context: `report` (the JSON report), `sections` cut to `limits`, labels.

    `data` is the JSON report and `rows` its section_rows, computed once however often the
    budget renders. `artifact`: `full_report` is the name of the CI artifact the full report is
    kept as, not a file's.
    """
    links = links or Links()
    label = report.labeller()
    releases = data["old"]["tags"] != data["new"]["tags"]
    moved = spack1(report, label)
    return {
        "report": data,
        "summary": data["summary"],
        "marker": Safe(marker),
        "old_label": side_label(data["old"], links, releases),
        "new_label": side_label(data["new"], links, releases),
        "full_report": link(full_report, links.full_report) if full_report else None,
        "full_report_artifact": artifact and full_report is not None,
        "fold_after": FOLD_AFTER,
        "commit_link": commit_linker(links),
        "has_changes": report.changed,
        "attention": _attention(rows),
        "sections": cut_sections(rows, limits or {}),
        "filters": [(Safe(name), list(globs)) for name, globs in report.filters.applied],
        "root": root_rows(report.root, label),
        "stack_moves": stack_move_rows(report.stack_moves, label),
        "spack1": moved,
        "added_by_class": class_counts(data["specs_by_class"], added=True),
        "removed_by_class": class_counts(data["specs_by_class"], added=False),
        "notes": notes(report, label, data["specs_by_class"], moved),
        "warnings": data["warnings"],
        "one_tag": report.one_tag(),
        "tags_counted": report.tags_counted(),
        "environments_counted": report.environments_counted(),
        "gates": [_gate(outcome) for outcome in report.gates],
        "rebuilds": rows["rebuilds"],
        "subject": Safe(report.subject()),
        "stacks_row": report.stacks_row(),
        "environments": environment_views(report.environments, len(report.environments) > 1),
    }


def _end(
    name: str, commit: str | None, base_of: tuple[str, str] | None, linked: Callable[[str], Safe]
) -> Safe:
    """One end of a history's range: its short commit id, then what names it (the revision
    given, or the merge base of the two `A...B` names)."""
    if commit is None:
        return code(name)
    if base_of:
        return Safe(f"{linked(commit)} (merge base of {code(base_of[0])} and {code(base_of[1])})")
    if name.startswith(commit) or (len(name) >= 7 and commit.startswith(name)):
        return linked(commit)  # the name is the commit id itself
    return Safe(f"{linked(commit)} ({code(name)})")


def log_context(history: History, marker: str = "", links: Links | None = None) -> LogContext:
    """The template context of `snapdiff log`: the JSON history, the packages that moved, each
    step's stack moves, the charts, and labels by the history's one rule."""
    from .charts import stack_charts  # here: the history's modules, which a pair never needs
    from .jsonreport import history_to_dict

    data = history_to_dict(history)
    keys = {(p.tag, p.name) for p in history.moved()}
    moved = [p for p in data["packages"] if (p["tag"], p["name"]) in keys]
    labeller = history.labeller()
    linked = commit_linker(links or Links())
    return {
        "start_label": _end(history.start, history.start_commit, history.merge_base_of, linked),
        "end_label": _end(history.end, history.end_commit, None, linked),
        "step_moves": [stack_move_rows(step.moves, labeller) for step in history.steps],
        "step_rebuilds": [
            {"lines": list(step.causes), "missing": step.missing}
            if step.causes or step.missing
            else None
            for step in history.steps
        ],
        "history": data,
        "packages": moved,
        "fold_after": FOLD_AFTER,
        "marker": Safe(marker),
        "commit_link": linked,
        "charts": [Safe(chart) for chart in stack_charts(history)],  # built of safe parts
        "label": lambda tag, name: code(labeller(tag, name)),
        "one_tag": history.one_tag(),
        "tags_counted": history.tags_counted(),
        "subject": Safe(history.subject()),
        "step_environments": [
            environment_views(step.environments, len(step.environments) > 1)
            for step in history.steps
        ],
    }
