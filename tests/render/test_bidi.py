"""Issue 47: bidirectional control characters from the data (U+202E and its kind) would make
`1.10 → 1.9` read as `1.9 → 1.10`, and invisible ones (U+200B and its kind) make `z\u200blib`
read as `zlib`; every escaping path shows them as escapes instead."""

from __future__ import annotations

import pytest

from snapdiff.errors import printable
from snapdiff.render.markup import code, html_code

CONTROLS = ["\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f", "\u061c"]
INVISIBLE = {
    "\u200b": "\\u200b",
    "\u200d": "\\u200d",
    "\u2060": "\\u2060",
    "\ufeff": "\\ufeff",
    "\u00ad": "\\xad",
    "\U000e0041": "\\U000e0041",
}


@pytest.mark.parametrize("control", CONTROLS)
def test_bidi_controls_are_escaped_on_every_path(control: str) -> None:
    value = f"1.9{control}01.1"
    escape = f"\\u{ord(control):04x}"
    for said in (code(value), html_code(value), printable(value)):
        assert control not in said and escape in said, said


@pytest.mark.parametrize("char", INVISIBLE)
def test_invisible_characters_are_escaped_on_every_path(char: str) -> None:
    value = f"z{char}lib"
    for said in (code(value), html_code(value), printable(value)):
        assert char not in said and f"z{INVISIBLE[char]}lib" in said, said
