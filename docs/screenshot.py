"""Render snapdiff's Markdown as a forge would and take a screenshot with headless Chromium.

Not part of the tests. Needs the test extras (markdown-it-py) and Debian's `chromium`:

    python docs/screenshot.py docs/sample.md docs/sample.png [--width 900] [--height 2400]

The HTML uses GitHub's table and <details> look closely enough to judge the layout; it is a
reviewer's check of what a comment looks like, not a pixel copy of any forge.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from markdown_it import MarkdownIt

STYLE = """
body { font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
       color: #1f2328; max-width: 860px; margin: 16px auto; padding: 0 16px; }
h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
h3 { font-size: 1.25em; margin-top: 24px; }
table { border-collapse: collapse; margin: 8px 0 16px; display: block; overflow: auto; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
tr:nth-child(2n) { background: #f6f8fa; }
code { background: rgba(129,139,152,.12); border-radius: 6px; padding: .2em .4em;
       font: 85% ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
details { margin: 4px 0; } summary { cursor: pointer; }
"""


def main() -> None:
    """Write the screenshot of one Markdown file."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("markdown", type=Path)
    args.add_argument("png", type=Path)
    args.add_argument("--width", type=int, default=900)
    args.add_argument("--height", type=int, default=2400)
    args.add_argument("--open", action="store_true", help="open every <details> first")
    options = args.parse_args()
    body = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    html = body.render(options.markdown.read_text(encoding="utf-8"))
    if options.open:
        html = html.replace("<details>", "<details open>")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("screenshot.py: needs Chromium (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "page.html"
        page.write_text(f"<!doctype html><meta charset=utf-8><style>{STYLE}</style>{html}")
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--window-size={options.width},{options.height}",
                f"--screenshot={options.png.resolve()}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
        )


if __name__ == "__main__":
    main()
