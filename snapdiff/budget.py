"""Fit Markdown into a forge's size limit, cutting by priority, and mark it for sticky comments."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["PRESETS", "digest", "fit", "marker", "size"]

# What forges accept (characters; GitHub's job summary counts bytes).
PRESETS = {
    "github": 65_536,  # comments and pull-request bodies
    "gitlab": 1_000_000,  # notes
    "github-summary": 1_048_576,  # $GITHUB_STEP_SUMMARY, in bytes
    "github-release": 125_000,  # release bodies
}
# Cut first what matters least: per-spec detail, then additions, then version updates, then
# removals and losses. (section, rows it keeps at this step); "bumps" keeps its downgrades first.
CUT_ORDER = (
    ("explained", 0),
    ("stack_moves", 0),
    ("migrations", 0),
    ("other_changed", 0),
    ("stack_gains", 0),
    ("added", 0),
    ("bumps", -1),  # -1: as many rows as there are downgrades (listed first)
    ("bumps", 0),
    ("stack_losses", 0),
    ("removed", 0),
)
_CUT_NOTE = "\n\n… cut to fit {budget} characters; see the full report.\n"


def size(text: str) -> int:
    """Length as the strictest forge counts it: UTF-8 bytes, never fewer than characters."""
    return len(text.encode("utf-8"))


def digest(report: Mapping[str, Any]) -> str:
    """A digest of what the report says, not of where it was read from (sources left out)."""
    import hashlib  # deferred with orjson: `snapdiff --version` reads PRESETS only

    import orjson

    content = dict(report)
    for side in ("old", "new"):
        if side in report:
            content[side] = {
                k: v for k, v in report[side].items() if k not in ("source", "commit", "date")
            }
    return hashlib.sha256(orjson.dumps(content, option=orjson.OPT_SORT_KEYS)).hexdigest()[:32]


def marker(report: Mapping[str, Any]) -> str:
    """The hidden line a bot finds its previous comment by, and compares to skip an update."""
    return f"<!-- snapdiff report sha256:{digest(report)} -->"


def fit(
    render: Callable[[dict[str, int]], str],
    totals: Mapping[str, int],
    downgrades: int,
    budget: int,
) -> str:
    """The longest Markdown within budget, cutting sections in CUT_ORDER, each as little as it can.

    A step either leaves its section at the rows that fit (found by bisection) and stops, or
    cuts it to its floor and moves on. If even the title and summary do not fit, the text is cut
    at a line boundary with a note saying so.
    """
    limits: dict[str, int] = {}
    text = render(limits)
    for section, floor in CUT_ORDER:
        if size(text) <= budget:
            return text
        keep = downgrades if floor < 0 else floor
        current = limits.get(section, totals.get(section, 0))
        if current <= keep:
            continue
        limits[section] = keep
        text = render(limits)
        if size(text) > budget:
            continue
        low, high = keep, current  # keep fits, current does not
        while high - low > 1:
            middle = (low + high) // 2
            limits[section] = middle
            if size(render(limits)) <= budget:
                low = middle
            else:
                high = middle
        limits[section] = low
        return render(limits)
    if size(text) <= budget:
        return text
    note = _CUT_NOTE.format(budget=budget)
    room = budget - size(note)
    cut = text.encode("utf-8")[: max(room, 0)].decode("utf-8", "ignore")
    return cut[: cut.rfind("\n") + 1] + note.lstrip("\n") if "\n" in cut else note.strip() + "\n"
