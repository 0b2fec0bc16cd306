"""Fit Markdown into a forge's size limit, cutting by priority, and mark it for sticky comments."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ..errors import UsageError
from .sections import CUT_ORDER, SectionId

__all__ = [
    "MIN_BUDGET",
    "PLACEHOLDER",
    "PRESETS",
    "budget",
    "fit",
    "marked",
    "size",
    "truncated",
]

# What forges accept (characters; GitHub's job summary counts bytes).
PRESETS = {
    "github": 65_536,  # comments and pull-request bodies
    "gitlab": 1_000_000,  # notes
    "github-summary": 1_048_576,  # $GITHUB_STEP_SUMMARY, in bytes
    "github-release": 125_000,  # release bodies
}
MIN_BUDGET = 500  # the title and summary of any report fit in this
_CUT_NOTE = "\n\n… cut to fit {budget} characters.\n"


def budget(max_chars: int | None, forge: str | None) -> int | None:
    """The size budget `--max-chars` or `--for` asks for (the first wins), or None."""
    found = max_chars if max_chars is not None else PRESETS.get(forge or "")
    if found is not None and found < MIN_BUDGET:
        option = "--max-chars" if max_chars is not None else "--for"
        raise UsageError(option, f"{found} is too small", f"give at least {MIN_BUDGET}")
    return found


def size(text: str) -> int:
    """Length as the strictest forge counts it: UTF-8 bytes, never fewer than characters."""
    return len(text.encode("utf-8"))


_MARK = "<!-- snapdiff report sha256:{} -->"
PLACEHOLDER = _MARK.format("0" * 32)  # a template prints it; `marked` puts the digest in


def marked(text: str, labels: Iterable[str] = ()) -> str:
    """The text with its marker line: a digest of what it says as rendered (so a template change
    changes it), with the sides' labels left out (so a new commit with the same changes does
    not). A bot finds its previous comment by the marker, and skips an update when it is equal."""
    import hashlib  # deferred: `snapdiff --version` reads PRESETS only

    content = text.replace(PLACEHOLDER, "")
    for label in labels:
        content = content.replace(label, "")
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:32]
    return text.replace(PLACEHOLDER, _MARK.format(digest))


def _most_rows(
    render: Callable[[dict[SectionId, int]], str],
    limits: dict[SectionId, int],
    section: SectionId,
    fits: tuple[int, str],
    too_long: tuple[int, int],
    budget: int,
) -> str:
    """The text with the most rows of `section` that fits, given rows that fit (and their text)
    and rows that do not (and their size): sizes grow with rows, so the answer lies between.

    Each guess interpolates between the sizes known, since rows are of similar length; a
    guess that does not halve the interval is followed by a bisection, so that uneven rows
    cost at most twice the renders of bisecting. At develop size: 4 renders where bisection
    took 11.
    """
    (low, text), (high, high_size) = fits, too_long
    low_size, bisect = size(text), False
    while high - low > 1:
        span = high - low
        if bisect:
            middle = low + span // 2
        else:
            guess = low + (budget - low_size) * span // max(high_size - low_size, 1)
            middle = min(max(guess, low + 1), high - 1)
        limits[section] = middle
        found = render(limits)
        if size(found) <= budget:
            low, low_size, text = middle, size(found), found
        else:
            high, high_size = middle, size(found)
        bisect = not bisect and high - low > span // 2
    return text


def fit(
    render: Callable[[dict[SectionId, int]], str],
    totals: Mapping[SectionId, int],
    downgrades: int,
    budget: int,
) -> str:
    """The longest Markdown within budget, cutting sections in CUT_ORDER, each as little as it can.

    A step either leaves its section at the most rows that fit and stops, or cuts it to its
    floor and moves on. If even the title and summary do not fit, the text is cut at a line
    boundary with a note saying so.
    """
    limits: dict[SectionId, int] = {}
    text = render(limits)
    for section, floor in CUT_ORDER:
        if size(text) <= budget:
            return text
        keep = downgrades if floor < 0 else floor
        current = limits.get(section, totals.get(section, 0))
        if current <= keep:
            continue
        longer = size(text)  # with `current` rows, which do not fit
        limits[section] = keep
        text = render(limits)
        if size(text) <= budget:
            return _most_rows(render, limits, section, (keep, text), (current, longer), budget)
    return truncated(text, budget)


def truncated(text: str, budget: int) -> str:
    """The text if it fits, else cut at a line boundary with a note saying so (what is left
    when no section can be cut further, and all `snapdiff log` can do: it has no sections)."""
    if size(text) <= budget:
        return text
    note = _CUT_NOTE.format(budget=budget)
    room = budget - size(note)
    cut = text.encode("utf-8")[: max(room, 0)].decode("utf-8", "ignore")
    return cut[: cut.rfind("\n") + 1] + note.lstrip("\n") if "\n" in cut else note.strip() + "\n"
