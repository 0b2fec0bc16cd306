"""Gates (`--fail-on`): which changes make a run fail, decided from the report alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, get_args

from .errors import UsageError
from .report import Report

__all__ = ["GATES", "Gate", "failed", "parse_gates"]

Gate = Literal["any", "removed-packages", "removed-specs", "downgrade", "stack-loss"]
GATES: tuple[Gate, ...] = get_args(Gate)
_BY_NAME: dict[str, Gate] = {gate: gate for gate in GATES}


def parse_gates(spec: str) -> list[Gate]:
    """The gates of a comma-separated `--fail-on` value, each checked."""
    named = [g.strip() for g in spec.split(",") if g.strip()]
    for gate in named:
        if gate not in GATES:
            raise UsageError("--fail-on", f"unknown gate {gate!r}", f"use {', '.join(GATES)}")
    return [_BY_NAME[name] for name in named]


def _downgrade(report: Report) -> tuple[int, str]:
    names = [p.name for p in report.packages if p.bump and p.bump.kind == "downgrade"]
    count = report.summary.version_downgrades
    return count, f"{count} packages' highest version went down: {', '.join(names)}"


def _stack_loss(report: Report) -> tuple[int, str]:
    losing = sum(1 for p in report.packages if p.stacks_removed)
    removed = report.summary.stacks_removed
    return removed + losing, f"{removed} stacks removed, {losing} packages lost a stack"


# gate -> (how many times the report trips it, what to say)
_CHECKS: dict[Gate, Callable[[Report], tuple[int, str]]] = {
    "any": lambda r: (r.summary.total, f"{r.summary.total} changes"),
    "removed-packages": lambda r: (
        r.summary.packages_removed,
        f"{r.summary.packages_removed} packages removed",
    ),
    "removed-specs": lambda r: (
        r.summary.specs_removed,
        f"{r.summary.specs_removed} specs removed",
    ),
    "downgrade": _downgrade,
    "stack-loss": _stack_loss,
}


def failed(report: Report, wanted: list[Gate]) -> list[str]:
    """One line per wanted gate the report fails: `downgrade (1 packages' highest ...)`."""
    found = [(gate, _CHECKS[gate](report)) for gate in wanted]
    return [f"{gate} ({said})" for gate, (count, said) in found if count]
