"""Errors snapdiff reports to its user: each names the file or revision at fault and the fix."""

from __future__ import annotations

import re

__all__ = [
    "HIDDEN",
    "InputError",
    "SnapdiffError",
    "TemplateError",
    "UsageError",
    "printable",
    "shown",
]

# Control characters (C0, DEL, C1), line and paragraph separators, lone surrogates (a file
# name that is not UTF-8) and bidirectional controls (which can make `1.2 → 1.10` read backwards):
# none may reach a terminal or a CI log as is.
BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Characters that show nothing: zero-width space and joiners, the word joiner and invisible
# operators, the deprecated format controls, the byte order mark, the soft hyphen, the combining
# grapheme joiner, the Mongolian vowel separator, Khmer's inherent vowels, the Hangul fillers, the
# Braille blank, variation selectors, interlinear annotation marks and Unicode's tag characters.
# `zlib` and `z\u200blib` would read the same, and tag characters carry text no reader sees.
INVISIBLE = (
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200d\u2060-\u2064\u206a-\u206f"
    "\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f"
    "\U000e0100-\U000e01ef"
)
HIDDEN = BIDI + INVISIBLE  # shown as their escapes wherever data is shown
_UNPRINTABLE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff{HIDDEN}]")


def printable(text: str) -> str:
    """Text for one line of a terminal or log: every control character and line break shown as
    an escape (`\\x0a`, `\\x1b`), so data cannot start a line of its own or move the cursor; a
    byte of a file name that is not UTF-8 is shown as that byte (`\\xff`)."""
    return _UNPRINTABLE.sub(shown, text)


def shown(found: re.Match[str]) -> str:
    """The escape a character is shown as: `\\x1b`, `\\u202e`, `\\U000e0041`; a byte of a
    file name that is not UTF-8 as that byte."""
    code = ord(found[0])
    if 0xDC80 <= code <= 0xDCFF:  # how Python keeps an undecodable byte of a file name
        return f"\\x{code - 0xDC00:02x}"
    if code > 0xFFFF:
        return f"\\U{code:08x}"
    return f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}"


class SnapdiffError(Exception):
    """Base of every error the CLI turns into a one-line message and exit code 2."""

    def __init__(self, where: str, what: str, fix: str = "") -> None:
        self.where = where
        self.what = what
        self.fix = fix
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """`<where>: <what> (<fix>)` on a single line."""
        text = f"{self.where}: {self.what}" if self.where else self.what
        if self.fix:
            text += f" ({self.fix})"
        return printable(text)


class InputError(SnapdiffError):
    """A snapshot, page or revision that cannot be read as a catalogue."""


class UsageError(SnapdiffError):
    """An option or argument that does not make sense."""


class TemplateError(SnapdiffError):
    """A Markdown template that does not load or render."""
