"""Mermaid charts for `snapdiff log`: specs in the stacks that changed most over a range.

GitHub and GitLab render ```` ```mermaid ```` blocks natively. Chart text is built from values
snapdiff checks: names reduced to a safe alphabet (`markup.mermaid`), commit ids, numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..report.labels import short_commit
from .markup import mermaid

if TYPE_CHECKING:
    from ..history import History

__all__ = ["CHARTS", "stack_charts"]

CHARTS = 4  # stacks charted at most: those whose spec count moved most


def _series(history: History) -> dict[tuple[str, str], list[int]]:
    """Specs of every stack that changed, before the first commit and after each one."""
    steps = list(reversed(history.steps))  # oldest first
    found: dict[tuple[str, str], list[int | None]] = {}
    for index, step in enumerate(steps):
        for change in step.stacks:
            key = (change.tag, change.name)
            values = found.setdefault(key, [None] * (len(steps) + 1))
            if values[index] is None:
                values[index] = change.specs_old
            values[index + 1] = change.specs_new
    series = {}
    for key, values in found.items():
        first = next(v for v in values if v is not None)
        filled, last = [], first
        for value in values:
            last = last if value is None else value
            filled.append(last)
        series[key] = filled
    return series


def stack_charts(history: History) -> list[str]:
    """One Mermaid `xychart-beta` per stack whose spec count moved most over the range."""
    series = _series(history)
    if not series or not history.steps:
        return []
    ranked = sorted(series, key=lambda key: (-(max(series[key]) - min(series[key])), key))
    commits = ["start", *(short_commit(step.commit)[:12] for step in reversed(history.steps))]
    label = history.labeller()
    axis = ", ".join(f'"{mermaid(commit)}"' for commit in commits)
    charts = []
    for tag, name in ranked[:CHARTS]:
        title = mermaid(label(tag, name))
        values = ", ".join(str(value) for value in series[(tag, name)])
        charts.append(
            f'xychart-beta\n    title "Specs in {title}"\n    x-axis [{axis}]\n'
            f'    y-axis "specs"\n    line [{values}]'
        )
    return charts
