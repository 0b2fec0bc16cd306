"""The Markdown reads well once rendered: tables intact, nothing from the data becomes markup."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

CASES = Path(__file__).parents[1] / "cases"
GOLDEN = sorted(CASES.glob("*/expected.md"))


def to_html(text: str) -> str:
    html: str = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)
    return html


def tables(text: str) -> list[list[str]]:
    """The rows of each Markdown table, as lines."""
    found: list[list[str]] = []
    current: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            found.append(current)
            current = []
    return found


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.parent.name)
def test_every_table_row_has_the_header_cell_count(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    html = to_html(text)
    for rows in tables(text):
        header_cells = html.count("<th")
        assert header_cells, "a table must render as a table"
        expected = rows[0].count("|") - 1
        for row in rows[2:]:
            cells = row.replace("\\|", "").count("|") - 1
            assert cells == expected, row
    assert "\n\n\n" not in text


def test_hostile_names_render_inert() -> None:
    html = to_html((CASES / "hostile-names" / "expected.md").read_text(encoding="utf-8"))
    assert "<script" not in html and "<b>" not in html
    assert "<a " not in html  # no link, javascript: or otherwise
    assert "<em>" not in html and "<del>" not in html
    outside_code = re.sub(r"<code>.*?</code>", "", html, flags=re.S)
    assert "someone" not in outside_code  # a mention never leaves a code span
    assert "javascript" not in outside_code
    assert "<code>a|b`c&lt;script&gt;alert(1)&lt;/script&gt;[x](javascript:alert(1))" in html


def test_compilers_are_not_autolinked_as_e_mail() -> None:
    """`gcc@11.4.0` outside a code span is an e-mail autolink on GitHub."""
    text = (CASES / "real-v1-v2" / "expected.md").read_text(encoding="utf-8")
    assert "gcc@11.4.0" in text
    assert all(m.group(0).startswith("`") for m in re.finditer(r"`?gcc@11\.4\.0", text))
