"""SYNTHETIC hostile inputs: every string of a golden case's inputs made hostile, and the checks
that snapdiff's Markdown, text view and stderr keep each of them inert (issue 47).

Each input kind is covered by rewriting a golden case's own inputs (pages, build-cache indexes,
a lockfile pair): every string value, every variant name and every folder name is given a
marker naming its field (`xqcompiler`, `xqtarget`, ...) and then HOSTILE, so that the diff keeps
its shape (a version bump stays a bump) while every string the report can print is an attack.
A marker found outside a code span, or in a link's address, an image or raw HTML, names the
field that leaked.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt  # CommonMark, with GFM's tables and strikethrough

CASES = Path(__file__).parents[1] / "cases"

CORPUS = Path(__file__).parents[1] / "render" / "hostile-strings.json"
# The corpus: links, images, HTML, autolinks (CommonMark's and GFM's extension), mentions and
# references, backticks of each length, table pipes, escapes, emphasis, line breaks (and
# Unicode's), entities, C0 and C1 controls, bidirectional controls, invisible characters.
STRINGS: dict[str, str] = json.loads(CORPUS.read_text(encoding="utf-8"))["strings"]
HOSTILE = " " + " ".join(STRINGS.values())  # every attack in one value
LONG = "L" * 5000  # one value far longer than any table cell
# HOSTILE's kinds as a name in a file system can hold them (no `/`, no NUL, under 255 bytes).
HOSTILE_PATH = (
    " [x](evil) ![i](evil.png) <img src=x> <a href=x> <https:evil> www.evil.example @mention"
    " #123 ` `` | \\ *_~ \n\r\u2028 &lt; \x07\x1b[31m\x85 \u202e\u2066 \u200b\ufeff end"
)
MARKER = re.compile(r"xq[a-z_]+")
# Keys whose values are structure, not text: hashes tie records together.
_KEPT = frozenset(
    ("hash", "package_hash", "full_hash", "build_hash", "dag_hash", "file-type", "deptypes")
)
# What must never reach a terminal, a log or the Markdown as is (written out here, not taken from
# snapdiff: the audit's own list).
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u061c]")
# (not U+FE0F, the emoji selector: the template's own warning sign holds it)
INVISIBLE = re.compile(
    "[\u200b-\u200f\u2060-\u2064\ufeff\u00ad\U000e0000-\U000e007f"
    "\u034f\u115f\u1160\u3164\uffa0\u2800\ufe00-\ufe0e\U000e0100-\U000e01ef]"
)
_COLOUR = re.compile("\x1b\\[[0-9;]*m")  # the text view's own colours


def hostile(text: str, field: str) -> str:
    """The text with its field's marker and every attack after it (the same text and field
    always give the same string, so what was equal stays equal)."""
    return f"{text}xq{field}{HOSTILE}"


def poisoned(value: Any, field: str = "value", long: str = "") -> Any:
    """A JSON value with every string hostile, keys of `parameters` too, hashes kept; a string
    equal to `long` also gets LONG after it."""
    if isinstance(value, str):
        if field in _KEPT:
            return value
        return hostile(value, field) + (LONG if value == long else "")
    if isinstance(value, list):
        return [poisoned(item, field, long) for item in value]
    if isinstance(value, dict):
        names = field in ("parameters", "variants")
        return {
            (hostile(key, "variantname") if names else key): poisoned(item, key, long)
            for key, item in value.items()
        }
    return value


def _page(path: Path, target: Path) -> None:
    """A catalogue page with its title, tag and every spec's strings hostile."""
    lines = path.read_text(encoding="utf-8").split("\n")
    title = json.loads(lines[1][len("title: ") :])
    tag = lines[3][len("categories: [package, ") : -1]
    meta = json.loads(lines[4][len("meta: ") :])
    details = [poisoned(entry) for entry in json.loads(lines[5][len("spec_details: ") :])]
    meta.update(
        stacks=sorted({s for e in details for s in e["stacks"]}),
        num_specs_by_stack={},
        versions=sorted({v for e in details for v in e["versions"]}),
    )
    text = (
        f"---\ntitle: {quoted(hostile(title, 'title'))}\nlayout: cache\n"
        f"categories: [package, {quoted(hostile(tag, 'tag'))}]\n"
        f"meta: {_json(meta)}\nspec_details: {_json(details)}\n---"
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def pages(case: str, root: Path) -> tuple[Path, Path]:
    """A golden case's catalogue pages, hostile: (old, new) under root."""
    for side in ("old", "new"):
        for page in sorted((CASES / case / side).rglob("specs.md")):
            rel = page.relative_to(CASES / case / side)
            _page(page, root / side / rel)
    return root / "old", root / "new"


def indexes(case: str, root: Path) -> tuple[Path, Path]:
    """A golden case's build-cache mirrors, hostile: each stack's folder named with HOSTILE,
    every string of each record hostile (`rerax`, every name of that package, with LONG after
    it too)."""
    for side in ("old", "new"):
        for index in sorted((CASES / case / side).rglob("index.json")):
            stack = index.parents[1].name
            data = json.loads(index.read_text(encoding="utf-8"))
            installs = data["database"]["installs"]
            for key, record in installs.items():
                installs[key] = {**record, "spec": poisoned(record["spec"], long="rerax")}
            target = root / side / f"{stack}xqstack{HOSTILE_PATH}" / "build_cache" / "index.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(data), encoding="utf-8")
    return root / "old", root / "new"


def lockfiles(case: str, root: Path) -> tuple[Path, Path]:
    """A golden case's lockfiles, hostile (root spec texts, Spack's version and commit, every
    node's strings), each in a folder whose name is HOSTILE (the environment's name): the
    folders, (old, new)."""
    for side in ("old", "new"):
        data = json.loads((CASES / case / side / "spack.lock").read_text(encoding="utf-8"))
        data["spack"] = poisoned(data.get("spack", {}), "spack")
        data["roots"] = [{**r, "spec": hostile(r["spec"], "rootspec")} for r in data["roots"]]
        data["concrete_specs"] = {k: poisoned(v) for k, v in data["concrete_specs"].items()}
        target = root / side / f"envxqenvironment{HOSTILE_PATH}" / "spack.lock"
        target.parent.mkdir(parents=True)
        target.write_text(json.dumps(data), encoding="utf-8")
    folder = f"envxqenvironment{HOSTILE_PATH}"
    return root / "old" / folder, root / "new" / folder


def _json(value: Any) -> str:
    """JSON that YAML reads alike (a page's head is read as YAML where a line is not JSON):
    as `quoted` writes strings."""
    text = json.dumps(value, ensure_ascii=False)
    return re.sub("[\x7f-\uffff]", lambda found: f"\\u{ord(found[0]):04x}", text)


def quoted(text: str) -> str:
    """The text as a double-quoted string that JSON and YAML read alike: `\\uXXXX` for all but
    printable ASCII, a character beyond U+FFFF as it is (YAML reads no surrogate pair)."""
    return '"' + "".join(_quoted_char(c) for c in text) + '"'


def _quoted_char(char: str) -> str:
    code = ord(char)
    if (0x20 <= code < 0x7F and char not in '"\\') or code > 0xFFFF:
        return char
    return f"\\u{code:04x}"


def copy_pages(case: str, side: str, target: Path) -> None:
    """A golden case's pages as they are (for a repository's first commit)."""
    shutil.copytree(CASES / case / side, target, dirs_exist_ok=True)


# The Markdown's checks -------------------------------------------------------------------


def _tokens(text: str) -> Iterator[Any]:
    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    for token in parser.parse(text):
        yield token
        yield from token.children or ()


def _without_code(html: str) -> str:
    return re.sub(r"<code>.*?</code>", "", html, flags=re.S)


def _cut_rows(text: str) -> Iterator[tuple[str, int]]:
    """Table rows with another count of cells than their header (GFM splits a row at each `|`
    no backslash escapes, in a code span too)."""
    header = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = len(re.findall(r"(?<!\\)\|", line)) - 1
        if header is None:
            header = cells
        elif cells != header:
            yield line, cells


def markdown_leaks(text: str) -> list[str]:
    """What of the data a CommonMark (with GFM's tables) render of `text` does not hold inert:
    a marker in a text token (where GitHub would autolink, mention or reference it), in a
    link's address or an image, or in raw HTML outside `<code>`, or raw HTML in a `<code>`;
    and any raw control, line-separator or bidirectional character anywhere."""
    found = [f"raw character {c!r}" for c in sorted(set(RAW.findall(text)))]
    found += [f"invisible character {c!r}" for c in sorted(set(INVISIBLE.findall(text)))]
    found += [f"table row {row[:80]!r} of {n} cells" for row, n in _cut_rows(text)]
    for token in _tokens(text):
        if token.type in ("link_open", "image"):
            target = str(token.attrs.get("href", token.attrs.get("src", "")))
            if "evil" in target or MARKER.search(target) or token.type == "image":
                found.append(f"{token.type} {target!r}")
        elif token.type in ("html_inline", "html_block"):
            outside = _without_code(token.content)
            inside = "".join(re.findall(r"<code>(.*?)</code>", token.content, flags=re.S))
            if MARKER.search(outside) or "evil" in outside or re.search("[<>]", inside):
                found.append(f"{token.type} {token.content[:120]!r}")
        elif token.type == "text" and (MARKER.search(token.content) or "evil" in token.content):
            found.append(f"text {token.content[:120]!r}")
    return found


def terminal_leaks(text: str) -> list[str]:
    """Raw control, bidirectional or invisible characters in text for a terminal or a log."""
    bad = set(RAW.findall(text.replace("\n", ""))) | set(INVISIBLE.findall(text))
    return [f"raw character {c!r}" for c in sorted(bad)]


def uncoloured(text: str) -> str:
    """The text view without the colours snapdiff itself writes."""
    return _COLOUR.sub("", text)


def markers(text: str) -> set[str]:
    """The fields whose marker `text` shows."""
    return set(MARKER.findall(text))
