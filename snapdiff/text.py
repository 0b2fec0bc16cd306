"""`--format text`: a compact view for a terminal, one line per version change, grouped.

Like `nvd diff`: counts, then downgrades, upgrades, packages removed and added, stacks removed,
added and moved. Colour only where asked (the command line asks on a terminal, unless
NO_COLOR is set); every string from the data is shown on one line, control characters escaped.
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import printable
from .report import PackageChange, Report, StackChange, StackMove

__all__ = ["render_text"]

_RED, _GREEN, _YELLOW, _BOLD, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[1m", "\x1b[0m"


class _Out:
    def __init__(self, colour: bool) -> None:
        self.colour = colour
        self.lines: list[str] = []

    def paint(self, text: str, colour: str) -> str:
        return f"{colour}{text}{_RESET}" if self.colour else text

    def group(self, title: str, colour: str, items: list[str]) -> None:
        """A heading with its count, then one indented line per item."""
        if not items:
            return
        self.lines += ["", self.paint(f"{title} ({len(items):,})", _BOLD + colour)]
        self.lines += [f"  {item}" for item in items]


def _name(p: PackageChange | StackChange, multi_tag: bool) -> str:
    return printable(f"{p.tag}/{p.name}" if multi_tag else p.name)


def _bumps(packages: Iterable[PackageChange], kind: str, multi: bool) -> list[str]:
    return [
        f"{_name(p, multi)} {printable(p.bump.old)} → {printable(p.bump.new)}"
        + (f" ({p.bump.size})" if kind == "upgrade" else "")
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
        f"stacks   {old.stacks:,} → {new.stacks:,} "
        f"(+{s.stacks_added:,} −{s.stacks_removed:,} ~{s.stacks_changed:,})",
    ]


def _values(dimension: str, values: Iterable[str]) -> str:
    return ", ".join(
        "no compiler (none)" if dimension == "compiler" and v == "none" else v for v in values
    )


def _specs(old: int, new: int) -> str:
    """`old → new specs`, or `new specs` when the count did not change."""
    count = f"{old:,} → {new:,}" if old != new else f"{new:,}"
    return f"{count} spec{'' if new == 1 else 's'}"


def _moves(moves: Iterable[StackMove], multi: bool) -> list[str]:
    """One line per stack that moved, its moves over the same specs together; specs with no
    compiler, set aside from a compiler move, counted apart."""
    said: dict[tuple[str, str], dict[tuple[int, int, int, int], list[str]]] = {}
    for m in moves:
        before, after = m.written()
        moved = f"{m.dimension} {_values(m.dimension, before)} → {_values(m.dimension, after)}"
        counts = (m.specs_old, m.specs_new, m.no_compiler_old, m.no_compiler_new)
        said.setdefault((m.tag, m.stack), {}).setdefault(counts, []).append(moved)
    lines = []
    for (tag, stack), groups in said.items():
        parts = []
        for (old, new, aside_old, aside_new), said_moves in groups.items():
            text = f"{'; '.join(said_moves)} ({old:,} → {new:,} specs"
            if aside_old or aside_new:
                aside = _specs(aside_old, aside_new)
                parts.append(f"every compiled spec: {text}; {aside} with no compiler)")
            else:
                parts.append(f"{text})")
        lines.append(printable(f"{f'{tag}/{stack}' if multi else stack}: {'; '.join(parts)}"))
    return lines


def _root(report: Report, multi: bool) -> list[str]:
    """`root` where it does not hold every spec of its tag."""
    return [
        printable(
            f"root{f' of {r.tag}' if multi else ''} holds {r.specs_new:,} of the "
            f"{r.total_new:,} specs ({r.specs_old:,} of {r.total_old:,} before)"
        )
        for r in report.root
    ]


def render_text(report: Report, colour: bool = False) -> str:
    """The report as a few lines for a terminal (ANSI colours when `colour`)."""
    out = _Out(colour)
    multi = len({p.tag for p in report.packages} | {s.tag for s in report.stacks}) > 1
    out.lines.append(printable(f"snapdiff: {report.old.source} → {report.new.source}"))
    if not report.summary.total:
        out.lines.append(
            f"no changes: {report.new.specs:,} specs of {report.new.packages:,} packages"
        )
        return "\n".join(out.lines) + "\n"
    found = report.one_tag()
    if found:
        others = "other tag" if len(found.others) == 1 else f"{len(found.others):,} other tags"
        out.lines.append(
            printable(f"every change is in cache tag {found.tag}; the {others} did not change")
        )
    if report.tags_counted():
        out.lines.append(f"counted per cache tag ({report.tags_counted():,} tags)")
    out.lines += _counts(report)
    out.group("downgrades", _RED, _bumps(report.packages, "downgrade", multi))
    out.group("upgrades", _GREEN, _bumps(report.packages, "upgrade", multi))
    status: dict[str, list[str]] = {"removed": [], "added": []}
    for p in report.packages:
        if p.status in status:
            status[p.status].append(_name(p, multi))
    out.group("packages removed", _RED, status["removed"])
    out.group("packages added", _GREEN, status["added"])
    stacks: dict[str, list[str]] = {"removed": [], "added": []}
    for s in report.stacks:
        if s.status in stacks:
            stacks[s.status].append(f"{_name(s, multi)} ({s.specs_old or s.specs_new:,} specs)")
    out.group("stacks removed", _RED, stacks["removed"])
    out.group("stacks added", _GREEN, stacks["added"])
    out.group("stacks moved", _YELLOW, _moves(report.stack_moves, multi))
    out.group("root not the tag's total", _YELLOW, _root(report, multi))
    return "\n".join(out.lines) + "\n"
