"""`snapdiff log --format text`: a history for a terminal, as the Markdown's `log.md.j2` says it.

Per step, newest first: its short id, date and subject; its counts; its environments; its
version changes (as many as the Markdown lists, then how many more); why specs were rebuilt;
the stacks that came, went or moved. Then per package the path of its highest version, the
flapping specs, and the pages left out. Every string from the data is shown on one line,
control characters escaped; colour only where asked (`text.Out`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import printable
from ..report import counted
from ..report.labels import short_commit
from .context import FOLD_AFTER
from .environments import environment_lines, environment_views
from .text import BOLD, GREEN, RED, YELLOW, Out, moved_stacks

if TYPE_CHECKING:
    from ..history import History, Step

__all__ = ["render_history_text"]


def _end(name: str, commit: str | None, base_of: tuple[str, str] | None) -> str:
    """One end of the range: its short commit id, then what names it (as the Markdown's)."""
    if commit is None:
        return name
    if base_of:
        return f"{short_commit(commit)} (merge base of {base_of[0]} and {base_of[1]})"
    if name.startswith(commit) or (len(name) >= 7 and commit.startswith(name)):
        return short_commit(commit)
    return f"{short_commit(commit)} ({name})"


def _what(history: History) -> str:
    subject = history.subject()
    return {"Environment": "an environment", "Build cache": "the build caches"}.get(
        subject, "the catalogue"
    )


def _counts(step: Step) -> str:
    """The step's counts, as the Markdown's line under its heading."""
    s = step.summary
    said = (
        f"packages +{s.packages_added:,} −{s.packages_removed:,} ~{s.packages_changed:,}; "
        f"specs +{s.specs_added:,} −{s.specs_removed:,} ~{s.specs_changed:,} "
        f"({s.specs_rebuilt:,} rebuilt at the same version and configuration); "
        f"{counted(s.version_bumps, 'version bump')}"
    )
    if s.version_downgrades:
        said += f", {counted(s.version_downgrades, 'downgrade')}"
    if step.subject == "Catalogue" or s.stacks_added or s.stacks_removed or s.stacks_changed:
        said += f"; stacks +{s.stacks_added:,} −{s.stacks_removed:,} ~{s.stacks_changed:,}"
    return said


def _step(out: Out, step: Step, history: History) -> None:
    """One step: its heading line, counts, environments, version changes, rebuilds, stacks."""
    label = history.labeller()
    head = " ".join(filter(None, [short_commit(step.commit), step.date[:10], step.commit_subject]))
    out.lines += ["", out.paint(printable(head), BOLD), f"  {_counts(step)}"]
    for view in environment_views(step.environments, len(step.environments) > 1):
        title = f"environment {view['name']}" if view["named"] else "environment"
        out.lines.append(f"  {printable(title)}")
        out.lines += [f"    {printable(line)}" for line in environment_lines(view)]
    if step.bumps:
        out.lines.append("  version changes:")
        for b in step.bumps[:FOLD_AFTER]:
            said = printable(f"{label(b.tag, b.name)} {b.bump.old} → {b.bump.new}")
            downgrade = b.bump.kind == "downgrade"
            out.lines.append(f"    {out.paint(said + ' (downgrade)', RED) if downgrade else said}")
        if len(step.bumps) > FOLD_AFTER:
            out.lines.append(f"    … and {len(step.bumps) - FOLD_AFTER:,} more")
    if step.causes or step.missing:
        out.lines.append("  why specs were rebuilt:")
        out.lines += [f"    {printable(line.plain())}" for line in step.causes]
        if step.missing:
            out.lines.append(f"    {out.paint(printable(step.missing.plain()), RED)}")
    stacks = [
        f"{printable(label(t.tag, t.name))} appeared ({counted(t.specs_new, 'spec')})"
        if t.status == "added"
        else f"{printable(label(t.tag, t.name))} disappeared ({counted(t.specs_old, 'spec')})"
        for t in step.stacks
        if t.status != "changed"
    ]
    stacks += moved_stacks(step.moves, label)
    if stacks:
        out.lines.append("  stacks:")
        out.lines += [f"    {line}" for line in stacks]


def _packages(out: Out, history: History) -> None:
    """Each package whose highest version moved, or that came or went, within the range."""
    label = history.labeller()
    items = []
    for p in history.moved():
        said = f"{label(p.tag, p.name)} {' → '.join(p.versions)}"
        if p.first_seen:
            said += f"; added in {short_commit(p.first_seen)}"
        if p.last_seen:
            said += f"; removed in {short_commit(p.last_seen)}"
        items.append(printable(said))
    out.group("packages over the range", GREEN, items)


def _flapping(out: Out, history: History) -> None:
    """The specs that left and came back: a sign of an unstable pipeline."""
    label = history.labeller()
    items = [
        printable(
            f"{f.hash} {label(f.tag, f.package)}: left in "
            f"{', '.join(map(short_commit, f.left))}, came back in "
            f"{', '.join(map(short_commit, f.returned))}"
        )
        for f in history.flapping
    ]
    out.group("flapping specs: left and came back within the range", YELLOW, items)


def _range(history: History) -> str:
    """How many steps changed what, and the cache tags they are in (as the Markdown)."""
    unit = history.unit
    if not history.steps:
        return f"no {unit} {'in this range ' * (unit == 'commit')}changed {_what(history)}"
    said = f"{counted(len(history.steps), unit)} changed {_what(history)}"
    found = history.one_tag()
    if found:
        others = "other tag" if len(found.others) == 1 else "other tags"
        said += f"; every change is in cache tag {found.tag}, the {others} did not change"
    if history.tags_counted():
        said += f"; counted per cache tag ({history.tags_counted():,} tags)"
    return printable(said)


def render_history_text(history: History, colour: bool = False) -> str:
    """`snapdiff log` as a few lines a step for a terminal (ANSI colours when `colour`)."""
    out = Out(colour)
    start = _end(history.start, history.start_commit, history.merge_base_of)
    end = _end(history.end, history.end_commit, None)
    title = f"snapdiff log: {history.subject().lower()} history, {start} → {end}"
    out.lines.append(printable(title))
    if history.skipped:
        left = counted(len(history.skipped), "page")
        out.lines.append(out.paint(f"incomplete: {left} could not be read, left out", RED))
    out.lines.append(_range(history))
    for step in history.steps:
        _step(out, step, history)
    _packages(out, history)
    _flapping(out, history)
    out.group("pages left out", RED, [printable(line) for line in history.skipped])
    return "\n".join(out.lines) + "\n"
