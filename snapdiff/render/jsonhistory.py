"""The JSON of `snapdiff log` (docs/json.md): a history's steps and range as plain data."""

from __future__ import annotations

from ..history import History
from ..schema import HistoryJSON, StepBumpJSON, StepJSON
from ..versions import Bump
from .jsonreport import (
    bump_to_dict,
    dumps_json,
    stack_move_to_dict,
    stack_to_dict,
    summary_to_dict,
)

__all__ = ["history_to_dict", "render_history_json"]


def _step_bump(tag: str, name: str, bump: Bump) -> StepBumpJSON:
    return {"tag": tag, "name": name, **bump_to_dict(bump)}


def history_to_dict(history: History) -> HistoryJSON:
    """The JSON of `snapdiff log`: steps newest first, then the range summarised."""
    steps: list[StepJSON] = []
    for step in history.steps:
        steps.append(
            {
                "commit": step.commit,
                "date": step.date,
                "summary": summary_to_dict(step.summary),
                "bumps": [_step_bump(p.tag, p.name, p.bump) for p in step.bumps],
                "stacks": [stack_to_dict(s) for s in step.stacks],
                "stack_moves": [stack_move_to_dict(m) for m in step.moves],
                "rebuilds": None
                if step.rebuilt is None
                else {
                    "rebuilt": step.rebuilt,
                    "said": [s.plain() for s in (*step.causes, *filter(None, [step.missing]))],
                },
            }
        )
    base = history.merge_base_of
    return {
        "schema_version": 1,
        "range": {
            "start": history.start,
            "end": history.end,
            "commits": len(history.steps),
            "unit": history.unit,
            "start_commit": history.start_commit,
            "end_commit": history.end_commit,
            "merge_base_of": list(base) if base else None,
        },
        "steps": steps,
        "packages": [
            {
                "tag": p.tag,
                "name": p.name,
                "versions": list(p.versions),
                "first_seen": p.first_seen,
                "last_seen": p.last_seen,
            }
            for p in history.packages
        ],
        "flapping": [
            {
                "tag": f.tag,
                "hash": f.hash,
                "package": f.package,
                "left": list(f.left),
                "returned": list(f.returned),
                "returns": len(f.returned),
            }
            for f in history.flapping
        ],
        "incomplete": bool(history.skipped),
        "skipped": list(history.skipped),
    }


def render_history_json(history: History) -> str:
    """`snapdiff log --format json`."""
    return dumps_json(history_to_dict(history))
