"""The Markdown reads well once rendered: tables intact, nothing from the data becomes markup."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt

CASES = Path(__file__).parent / "cases"
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
    assert "<code" not in html and "<em>" not in html and "<del>" not in html
    assert "@someone" not in html  # the zero-width space breaks the mention
    assert "a|b`c&lt;script&gt;" in html  # the name itself is shown, literally
