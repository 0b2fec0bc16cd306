"""`--format text`: a compact view for a terminal, one line per version change, grouped.

Like `nvd diff`: counts, then downgrades, upgrades, packages removed and added, stacks removed,
added and moved, then why specs were added and removed, package by package. Its notes and
summary lines are the Markdown's sentences (`sentences.notes`), without code spans. Colour
only where asked (`--color`: by default on a terminal, unless NO_COLOR is set); every string
from the data is shown on one line, control characters escaped.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..compare.claims import variant_sentence
from ..compare.classes import CLASSES
from ..errors import printable
from ..model import Configuration
from ..report import Change, Labeller, PackageChange, Report, StackChange, StackMove, counted
from ..report.causes import first_screen
from .environments import environment_lines, environment_views
from .markup import LIST_LIMIT
from .sentences import cut
from .sentences import notes as report_notes
from .views import Notes

__all__ = ["BOLD", "GREEN", "RED", "YELLOW", "Out", "moved_stacks", "render_text"]

CHANGED_LEGEND = (
    "~ changed: a package with a spec added, removed or changed; a spec kept (same hash) whose "
    "stacks or fields changed; a stack whose spec count or packages changed"
)
RED, GREEN, YELLOW, BOLD, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[1m", "\x1b[0m"


class Out:
    """Lines of a terminal view, painted when `colour`."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour
        self.lines: list[str] = []

    def paint(self, text: str, colour: str) -> str:
        return f"{colour}{text}{_RESET}" if self.colour else text

    def group(self, title: str, colour: str, items: list[str]) -> None:
        """A heading with its count, then one indented line per item."""
        if not items:
            return
        self.lines += ["", self.paint(f"{title} ({len(items):,})", BOLD + colour)]
        self.lines += [f"  {item}" for item in items]


def _gates(report: Report) -> list[str]:
    """The gates as the Markdown's first screen says them: failed and warning, exemptions used."""
    said = [
        f"{'failed' if g.level == 'fail' else 'warning'}: {printable(g.plain())}"
        for g in report.gates
        if g.tripped
    ]
    for g in report.gates:
        for e in g.exemptions:
            kind, name = ("packages", e.package) if e.package is not None else ("stacks", e.stack)
            said.append(
                printable(
                    f"exemption used, {g.gate}: changes of {kind} {name} not counted ({e.reason})"
                )
            )
    return said


def _name(p: PackageChange | StackChange, label: Labeller) -> str:
    return printable(label(p.tag, p.name))


def _bumps(packages: Iterable[PackageChange], kind: str, label: Labeller) -> list[str]:
    """One line per version change of this kind; a downgrade's cause, when the data shows it."""
    return [
        f"{_name(p, label)} {printable(p.bump.old)} → {printable(p.bump.new)}"
        + (f" ({p.bump.size})" if kind == "upgrade" else "")
        + (f" ({printable(p.built_only_in.sentence.plain())})" if p.built_only_in else "")
        for p in packages
        if p.bump and p.bump.kind == kind
    ]


def _counts(report: Report) -> list[str]:
    s, old, new = report.summary, report.old, report.new
    return [
        f"packages {old.packages:,} → {new.packages:,} "
        f"(+{s.packages_added:,} −{s.packages_removed:,} ~{s.packages_changed:,})",
        f"specs    {old.specs:,} → {new.specs:,} "
        f"(+{s.specs_added:,} −{s.specs_removed:,} ~{s.specs_changed:,})",
        *[
            f"stacks   {old.stacks:,} → {new.stacks:,} "
            f"(+{s.stacks_added:,} −{s.stacks_removed:,} ~{s.stacks_changed:,})"
        ][: int(report.stacks_row())],
    ]


def _values(dimension: str, values: Iterable[str]) -> str:
    return ", ".join(
        "no compiler (none)" if dimension == "compiler" and v == "none" else v for v in values
    )


def _specs(old: int, new: int) -> str:
    """`old → new specs`, or `new specs` when the count did not change."""
    count = f"{old:,} → {new:,}" if old != new else f"{new:,}"
    return f"{count} spec{'' if new == 1 else 's'}"


def moved_stacks(found: Iterable[StackMove], label: Labeller) -> list[str]:
    """One line per stack that moved, its moves over the same specs together; specs with no
    compiler, set aside from a compiler move, counted apart."""
    said: dict[tuple[str, str], dict[tuple[int, int, int, int], list[str]]] = {}
    for m in found:
        before, after = m.written()
        moved = f"{m.dimension} {_values(m.dimension, before)} → {_values(m.dimension, after)}"
        counts = (m.specs_old, m.specs_new, m.no_compiler_old, m.no_compiler_new)
        said.setdefault((m.tag, m.stack), {}).setdefault(counts, []).append(moved)
    lines = []
    for (tag, stack), groups in said.items():
        parts = []
        for (old, new, aside_old, aside_new), said_moves in groups.items():
            text = f"{'; '.join(said_moves)} ({old:,} → {new:,} spec{'' if new == 1 else 's'}"
            if aside_old or aside_new:
                aside = _specs(aside_old, aside_new)
                parts.append(f"every compiled spec: {text}; {aside} with no compiler)")
            else:
                parts.append(f"{text})")
        lines.append(printable(f"{label(tag, stack)}: {'; '.join(parts)}"))
    return lines


def _configuration(config: Configuration, spelling: dict[str, str]) -> str:
    written = spelling.get(config.compiler, config.compiler)
    parts = [config.os, config.target, "no compiler (none)" if written == "none" else written]
    return " ".join(
        [*parts, *(spelling.get(v, v) for v in config.variants), f"({config.platform})"]
    )


def _change_lines(change: Change, spelling: dict[str, str]) -> list[str]:
    """A record's sentence, then the configurations it lists, cut as the Markdown cuts them."""
    lines = [f"  - {change.sentence.plain()}"]
    if CLASSES[change.kind].lists:
        shown, more = cut(change.configurations_new or change.configurations_old)
        lines += [f"      {_configuration(c, spelling)}" for c in shown]
        lines += [f"      … and {n:,} more {platform}" for n, platform in more]
    return lines


def _some(items: tuple[str, ...]) -> str:
    """Values comma-separated, cut after as many as a Markdown table cell shows."""
    shown = ", ".join(items[:LIST_LIMIT])
    return shown + (f", … and {len(items) - LIST_LIMIT:,} more" if len(items) > LIST_LIMIT else "")


def _package_line(p: PackageChange, label: Labeller) -> str:
    """A changed package's name, its specs added, removed and changed, the versions added and
    removed and the stacks gained and lost: what the Markdown's tables say of it."""
    parts = []
    if p.specs_added or p.specs_removed:
        parts.append(f"+{len(p.specs_added):,} −{len(p.specs_removed):,} specs")
    if p.specs_changed:
        parts.append(f"{len(p.specs_changed):,} changed")
    said = [", ".join(parts)] if parts else []
    for words, items in (
        ("versions added", p.versions_added),
        ("versions removed", p.versions_removed),
        ("stacks gained", p.stacks_added),
        ("stacks lost", p.stacks_removed),
    ):
        if items:
            said.append(f"{words} {_some(items)}")
    return f"{_name(p, label)}: {'; '.join(said)}" if said else _name(p, label)


def _explanations(report: Report, notes: Notes, label: Labeller) -> list[str]:
    """The summary lines by class and the note on the move to no compiler, then each changed
    package's sentences."""
    lines = [n.plain() for n in (notes["added"], notes["removed"], notes["spack1"]) if n]
    for p in report.packages:
        spelling = dict(p.spellings)
        # in the Markdown's order (sentences.explained): variant values, changes, specs kept
        variants = variant_sentence(p.variants_added, p.variants_removed, spelling)
        said = [f"  - {variants.plain()}"] if variants is not None else []
        for change in p.changes:
            said += _change_lines(change, spelling)
        said += [f"  - {line.plain()}" for line in p.kept]
        if p.status == "changed" and said:
            lines += [_package_line(p, label), *said]
    return [printable(line) for line in lines]


def _rebuilds(out: Out, report: Report, all_causes: bool) -> None:
    """Why specs were rebuilt: the Markdown's first-screen lines, in its order."""
    lines, missing = first_screen(report, every=all_causes)
    if not lines and not missing:
        return
    out.lines += ["", out.paint("why specs were rebuilt", BOLD)]
    out.lines += [printable(f"  {line.plain()}") for line in lines]
    if missing:
        out.lines.append(out.paint(printable(f"  {missing.plain()}"), RED))


def _filters(report: Report) -> list[str]:
    """The filters that narrowed the report, as the Markdown names them."""
    applied = report.filters.applied
    if not applied:
        return []
    said = "; ".join(f"{name} {', '.join(globs)}" for name, globs in applied)
    return [printable(f"only specs matching: {said}")]


def _counted_over(report: Report) -> list[str]:
    """What the counts run over: the one cache tag that changed, or each tag or environment."""
    lines = []
    found = report.one_tag()
    if found:
        others = "other tag" if len(found.others) == 1 else f"{len(found.others):,} other tags"
        said = f"every change is in cache tag {found.tag}; the {others} did not change"
        lines.append(printable(said))
    if report.tags_counted():
        lines.append(f"counted per cache tag ({report.tags_counted():,} tags)")
    if report.environments_counted():
        lines.append(f"counted per environment ({report.environments_counted():,})")
    return lines


def render_text(report: Report, colour: bool = False, all_causes: bool = False) -> str:
    """The report as a few lines for a terminal (ANSI colours when `colour`; every cause of
    rebuilds with `all_causes`, else the largest five)."""
    out = Out(colour)
    label = report.labeller()
    subject = "" if report.subject() == "Catalogue" else f"{report.subject().lower()} changes, "
    out.lines.append(printable(f"snapdiff: {subject}{report.old.source} → {report.new.source}"))
    out.lines += _filters(report)
    if not report.changed:
        out.lines.append(
            f"no changes: {counted(report.new.specs, 'spec')} of "
            f"{counted(report.new.packages, 'package')}"
        )
        return "\n".join(out.lines) + "\n"
    out.lines += [*_counted_over(report), *_counts(report)]
    out.lines.append(
        CHANGED_LEGEND if report.stacks_row() else CHANGED_LEGEND.split("; a stack")[0]
    )
    for view in environment_views(report.environments, len(report.environments) > 1):
        title = f"environment {view['name']}" if view["named"] else "environment"
        out.lines += ["", out.paint(printable(title), BOLD)]
        out.lines += [f"  {printable(line)}" for line in environment_lines(view)]
    out.group("gates", RED, _gates(report))
    notes = report_notes(report, label)
    for line in notes["root"]:
        out.lines += ["", printable(line.plain())]
    out.group("downgrades", RED, _bumps(report.packages, "downgrade", label))
    out.group("upgrades", GREEN, _bumps(report.packages, "upgrade", label))
    status: dict[str, list[str]] = {"removed": [], "added": []}
    for p in report.packages:
        if p.status in status:
            status[p.status].append(_name(p, label))
    out.group("packages removed", RED, status["removed"])
    out.group("packages added", GREEN, status["added"])
    stacks: dict[str, list[str]] = {"removed": [], "added": []}
    for s in report.stacks:
        if s.status in stacks:
            stacks[s.status].append(
                f"{_name(s, label)} ({counted(s.specs_old or s.specs_new, 'spec')})"
            )
    out.group("stacks removed", RED, stacks["removed"])
    out.group("stacks added", GREEN, stacks["added"])
    out.group("stacks moved", YELLOW, moved_stacks(report.stack_moves, label))
    _rebuilds(out, report, all_causes)
    if report.stacks:
        out.lines += ["", printable(notes["root_not_a_stack"].plain())]
    explained = _explanations(report, notes, label)
    if explained:
        out.lines += ["", out.paint("why specs were added and removed", BOLD)]
        out.lines += [f"  {line}" for line in explained]
    return "\n".join(out.lines) + "\n"
