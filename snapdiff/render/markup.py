"""Markup for Markdown and HTML: strings from the data made inert, snapdiff's own kept as is."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, TypedDict

from markupsafe import Markup

from ..errors import HIDDEN, shown

__all__ = [
    "LIST_LIMIT",
    "Safe",
    "Said",
    "code",
    "delta",
    "finalize",
    "html_code",
    "mermaid",
    "sentence",
    "signed",
    "some",
]

LIST_LIMIT = 8  # items shown in one table cell before "… and N more"
_BACKTICKS = re.compile(r"`+")
# Line breaks and other control characters: in Markdown a line break can end an HTML block or a
# table row, so no string from the data keeps one. Bidirectional controls would reorder what a
# reader sees (a downgrade read as an upgrade), invisible characters hide in a name: shown as
# their escapes (errors.HIDDEN, as on a terminal).
_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
_HIDDEN = re.compile(f"[{HIDDEN}]")


def one_line(text: str) -> str:
    """The text with every run of line breaks and control characters folded to one space, and
    each bidirectional control or invisible character shown as its escape (`\\u202e`,
    `\\u200b`)."""
    return _BREAKS.sub(" ", _HIDDEN.sub(shown, text))


class Unlisted(TypedDict):
    """What a sentence lists under it: the configurations shown, and what the cut hid."""

    configurations: list[Safe]
    more: list[tuple[int, Safe]]


class Said(Unlisted):
    """A sentence: words with `{}` slots, the values from the data that fill them, and the
    configurations it is about when the words cannot name them (with how many more were cut,
    per platform: `(count, platform)`)."""

    words: str
    values: tuple[str, ...]


class Safe(Markup):
    """Markdown composed by snapdiff itself, which the template engine must not mark up again.

    A `Markup`, as what Jinja's macros and `caller()` return is: the environment escapes
    nothing itself (every data string becomes a code span first, in `finalize`). Made from a
    string as `str` makes one: Markup's own `__new__`, a Python call that looks for `__html__`,
    took 7 % of rendering a release pair's Markdown, and snapdiff makes a Safe only of text."""

    if not TYPE_CHECKING:  # typed as Markup's, which it is for text
        __new__ = str.__new__


@lru_cache(maxsize=65536)  # a report says its configurations, versions and stacks many times
def code(text: str) -> Safe:
    """A string from the data as an inline code span: inert in GitHub Markdown.

    Inside a code span nothing is markup: no emphasis, link, autolinked e-mail (`gcc@11.4.0`),
    mention or HTML. The fence is longer than any run of backticks in the text, and `|` is
    escaped so a table cell stays one cell (GitHub shows it as `|` there).
    """
    text = one_line(text) or " "
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    text = text.replace("|", "\\|")
    return Safe(f"{fence}{pad}{text}{pad}{fence}")


def html_code(text: str) -> Safe:
    """A string from the data inside raw HTML (a `<summary>`): on one line, escaped, in `<code>`
    (a line break would end the HTML block, and what follows would be read as Markdown)."""
    return Safe(f"<code>{html.escape(one_line(text))}</code>")


_MERMAID_UNSAFE = re.compile(r"[^A-Za-z0-9._@/+-]")


def mermaid(text: str) -> str:
    """A string from the data inside a Mermaid chart's quotes: reduced to a safe alphabet (no
    quote, bracket, backtick, `%%` or line break: every other character becomes `_`), cut to 60
    characters."""
    return _MERMAID_UNSAFE.sub("_", text)[:60]


def finalize(value: object) -> object:
    """Every string a template prints is a code span, unless snapdiff or the template itself
    composed it (Safe, or a macro's output)."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return code(value)
    return value


def signed(value: int) -> Safe:
    """+3, −2 (a real minus sign) or 0, with thousands separators (+1,234)."""
    if value > 0:
        return Safe(f"+{value:,}")
    return Safe(f"\u2212{-value:,}" if value < 0 else "0")


def delta(added: int, removed: int) -> Safe:
    """Added and removed, each with its sign, zero too (`+3 −0`): a bare 0 beside a signed count
    reads as neither."""
    return Safe(f"+{added:,} \u2212{removed:,}")


def number(value: int) -> Safe:
    """A count as text, with thousands separators (1,234): never a code span."""
    return Safe(f"{value:,}")


def plural(word: str, count: int) -> Safe:
    """The word for `count` of it: `package`, `packages` (snapdiff's own nouns take an s)."""
    return Safe(word if count == 1 else f"{word}s")


def some(items: Sequence[str], limit: int = LIST_LIMIT) -> Safe:
    """Values as code spans, comma-separated, cut after `limit` with how many were left out."""
    shown = ", ".join(map(code, items[:limit]))
    if len(items) > limit:
        shown += f", … and {len(items) - limit} more"
    return Safe(shown)


def sentence(said: Said | tuple[str, tuple[str, ...]]) -> Safe:
    """A sentence (a Said, or a report's Sentence: words, values) with its values as code
    spans."""
    words, values = (said["words"], said["values"]) if isinstance(said, dict) else said
    return Safe(words.format(*map(code, values)))
