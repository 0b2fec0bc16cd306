"""Fit Markdown into a forge's size limit, cutting by priority, and mark it for sticky comments."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ..errors import TemplateError, UsageError
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
_CUT_NOTE = "\n\n… cut to fit {budget} characters{see}.\n"


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


_LISTED = 256  # a try lists a row of each section per this many characters of the budget
_WORTH = 5  # tries go on while the whole text looks more than this many budgets long


class _Renders:
    """The renders `fit` asks for: the size of the text with some limits, and the text itself
    when it fits the budget (a text over it is wanted only for its size).

    The sections' rows are most of a big report (a release pair's Markdown is megabytes, a
    comment 65 KB), so a text is first rendered listing only the first few rows of each
    section (`listing`: the rest as with the limits). Listing more rows never makes a text
    shorter: when that is over the budget, so is the whole text; else the whole is rendered.
    A try also tells, rows being alike, about how long the whole text is: once that is a few
    budgets or less, trying costs more renders than it saves, and texts are rendered whole
    from then on.

    Measured on the synthetic pairs at develop size (bench data), fitting in process, two
    runs: the release pair's 1.9 MB of Markdown to 65,536 characters in 0.14-0.15 s, to
    125,000 in 0.18-0.19 s (whole texts: 0.42-0.43 and 0.40-0.41 s); the daily pair's 340 KB
    in 0.07 and 0.09 s (whole: 0.09 and 0.08 s). Trying with more rows when a try fits, a
    first listing of a row per 512 or 1,024 characters, one shared by the sections, or trying
    whatever the report's length: each took more renders and longer on one of them.
    """

    def __init__(
        self,
        render: Callable[[dict[SectionId, int]], str],
        listing: Callable[[Mapping[SectionId, int], int], str] | None,
        totals: Mapping[SectionId, int],
        budget: int,
    ) -> None:
        self.render = render
        self.listing = listing  # None once tries stop
        self.totals = totals
        self.budget = budget
        self.most = max(budget // _LISTED, 1)  # rows of each section a try lists

    def __call__(self, limits: dict[SectionId, int]) -> tuple[int, str | None]:
        """The text's size (over the budget, from a try: at least that), and the text if it
        fits."""
        shown = [min(limits.get(s, n), n) for s, n in self.totals.items()]
        if self.listing is not None and self.most < max(shown, default=0):
            found = self._tried(self.listing, limits, shown)
            if found > self.budget:
                return found, None
        text = self.render(limits)
        found = size(text)
        return found, text if found <= self.budget else None

    def _tried(
        self,
        listing: Callable[[Mapping[SectionId, int], int], str],
        limits: dict[SectionId, int],
        shown: list[int],
    ) -> int:
        """The size of a try; tries stop once the whole text looks a few budgets long, or when
        the template fails on one (a template may rely on listing all the rows it counts)."""
        try:
            found = size(listing(limits, self.most))
        except TemplateError:
            self.listing = None
            return 0
        listed = sum(min(rows, self.most) for rows in shown)
        if found * sum(shown) <= _WORTH * self.budget * listed:
            self.listing = None
        return found


def _most_rows(
    tried: _Renders,
    limits: dict[SectionId, int],
    section: SectionId,
    fits: tuple[int, str],
    too_long: tuple[int, int],
    budget: int,
) -> str:
    """The text with the most rows of `section` that fits, given rows that fit (and their text)
    and rows that do not (and their size, or a size it is over): sizes grow with rows, so the
    answer lies between.

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
        found, fitting = tried(limits)
        if fitting is not None:
            low, low_size, text = middle, found, fitting
        else:
            high, high_size = middle, found
        bisect = not bisect and high - low > span // 2
    return text


def fit(
    render: Callable[[dict[SectionId, int]], str],
    totals: Mapping[SectionId, int],
    downgrades: int,
    budget: int,
    listing: Callable[[Mapping[SectionId, int], int], str] | None = None,
    see: str | None = None,
) -> str:
    """The longest Markdown within budget, cutting sections in CUT_ORDER, each as little as it can.

    A step either leaves its section at the most rows that fit and stops, or cuts it to its
    floor and moves on. If even the title and summary do not fit, the text is cut at a line
    boundary with a note saying so. `listing(limits, most)`, if given, renders as `render`
    does with each section listing only its first `most` of the rows the limits show. `see`:
    where the uncut report is, for the note of a text cut at a line.
    """
    tried = _Renders(render, listing, totals, budget)
    limits: dict[SectionId, int] = {}
    found, text = tried(limits)
    for section, floor in CUT_ORDER:
        if text is not None:
            return text
        keep = downgrades if floor < 0 else floor
        current = limits.get(section, totals.get(section, 0))
        if current <= keep:
            continue
        longer = found  # with `current` rows, which do not fit (or less, from a try)
        limits[section] = keep
        found, text = tried(limits)
        if text is not None:
            return _most_rows(tried, limits, section, (keep, text), (current, longer), budget)
    return truncated(render(limits), budget, see)  # nothing fits: the last cut, rendered whole


def truncated(text: str, budget: int, see: str | None = None) -> str:
    """The text if it fits, else cut at a line boundary with a note saying so, and where the
    uncut report is if `see` says (what is left when no section can be cut further, and all
    `snapdiff log` can do: it has no sections)."""
    if size(text) <= budget:
        return text
    note = _CUT_NOTE.format(budget=budget, see=f"; see {see}" if see else "")
    if see and 4 * size(note) > budget:  # a long address: the note without it
        return truncated(text, budget)
    room = budget - size(note)
    cut = text.encode("utf-8")[: max(room, 0)].decode("utf-8", "ignore")
    return cut[: cut.rfind("\n") + 1] + note.lstrip("\n") if "\n" in cut else note.strip() + "\n"
