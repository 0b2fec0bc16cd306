"""Parse one catalogue page (Jekyll front matter) into a Page, fast and safely.

The generator writes one key per line, `meta` and `spec_details` as one-line JSON: its exact
head is matched at once, `meta` parsed with orjson, and `spec_details` handed to `Entries`,
which keeps each entry as text until a diff reads it. Other one-key-per-line pages have their
JSON values parsed with orjson (0.13 s a develop-size snapshot, against 0.27 s for the standard
json module and 3.6 s for PyYAML's C loader); front matter in any other form goes through
PyYAML's safe loader, which never constructs an object.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, NamedTuple, TypeGuard

import orjson

from ..errors import InputError
from ..model import NO_COMPILER, Page
from .entries import FIX, NO_COMPILER_TEXT, Entries, check_entries
from .frontmatter import fast_fields, read_fields

__all__ = [
    "MAX_PAGE_BYTES",
    "NOT_REGULAR_FIX",
    "PAGE_FOLDER",
    "PAGE_FOLDER_FIX",
    "ParsedPage",
    "blob_digest",
    "check_size",
    "counts_from_meta",
    "is_candidate",
    "is_catalogue_path",
    "is_page",
    "is_page_content",
    "page_folder",
    "parse_page",
    "without_bom",
]

MAX_PAGE_BYTES = 32 * 2**20  # the largest real pages are a few MiB
# Only regular files inside a snapshot are read, in a folder as in a revision: a link could lead
# out of it (or to /dev/zero), a FIFO would never end.
NOT_REGULAR_FIX = "snapdiff reads only regular files inside a snapshot: replace it with the page"
# The generator's front matter up to the `spec_details` value, exactly as it writes it.
_GENERATOR_HEAD = re.compile(
    rb'---\ntitle: "([^"\\\n]+)"\nlayout: cache\ncategories: \[package, ([\w.:/@+=-]+)\]\n'
    rb"meta: ([^\n]*)\nspec_details: "
)


def blob_digest(data: bytes) -> str:
    """Git's blob id of these bytes, so a page read from a directory and from git compare equal."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def is_candidate(rel: str) -> bool:
    """False for files in hidden folders (`.git`, `.github`), which are never read."""
    return "/." not in "/" + rel.rpartition("/")[0]


def is_catalogue_path(rel: str) -> bool:
    """`_cache/<tag>/<package>/specs.md` (a `/`-separated path): a page by its place."""
    parts = rel.split("/")
    return len(parts) >= 4 and parts[-4] == "_cache" and parts[-1] == "specs.md"


# A folder where a page should be: its page is missing, and whatever it holds is not read.
PAGE_FOLDER = "a directory where a page file should be"
PAGE_FOLDER_FIX = "replace it with the page, or remove it"


def page_folder(rel: str) -> str | None:
    """The folder a file (a `/`-separated path) is inside of that sits at a page's place
    (`_cache/<tag>/<package>/specs.md/...`), or None."""
    at = rel.find("/specs.md/")
    while at >= 0:
        if is_catalogue_path(rel[: at + len("/specs.md")]):
            return rel[: at + len("/specs.md")]
        at = rel.find("/specs.md/", at + 1)
    return None


_BOM = b"\xef\xbb\xbf"  # the UTF-8 byte-order mark some editors write first


def without_bom(data: bytes) -> bytes:
    """The bytes without a leading UTF-8 byte-order mark: a page saved so reads as without it."""
    return data[3:] if data.startswith(_BOM) else data


def is_page(data: bytes) -> bool:
    """True when the bytes open with front matter whose `layout` is `cache` (SPEC section 1)."""
    data = without_bom(data)
    if not data.startswith(b"---"):
        return False
    end = data.find(b"\n---", 3)
    head = data[: end if end >= 0 else len(data)]
    for line in head.split(b"\n"):
        if line.startswith(b"layout:"):
            return line[7:].strip().strip(b"\"'") == b"cache"
    return False


def is_page_content(data: bytes | int, by_place: bool, source: str) -> TypeGuard[bytes]:
    """Whether a file's content is read as a page: one by its place (`is_catalogue_path`) always,
    any other file when its bytes say so (`is_page`). `data` is the content, or its size when it
    was too large to be read: InputError (named `source`) for a page by its place, else False."""
    try:
        check_size(data if isinstance(data, int) else len(data), source)
    except InputError:  # too large: a bad page by its place, else not a page
        if by_place:
            raise
        return False
    return not isinstance(data, int) and (by_place or is_page(data))


def _identity(fields: dict[str, Any], source: str) -> tuple[str, str]:
    """(tag, name) of a page: `categories[1]` and `title`."""
    name = fields.get("title")
    if not isinstance(name, str) or not name:
        raise InputError(source, "front matter has no 'title' string", FIX)
    categories = fields.get("categories")
    if not isinstance(categories, list) or len(categories) < 2 or not categories[1]:
        raise InputError(source, "front matter has no tag in 'categories: [package, TAG]'", FIX)
    return str(categories[1]), name


def _meta_warnings(meta: Any, page: Page, versions: frozenset[str]) -> list[str]:
    """Where the derived `meta` disagrees with `spec_details` (which is trusted), say so."""
    if not isinstance(meta, dict):
        return []
    found: list[str] = []
    if "num_specs" in meta and meta["num_specs"] != page.spec_count:
        found.append(f"meta says {meta['num_specs']} specs, spec_details has {page.spec_count}")
    by_stack = meta.get("num_specs_by_stack")
    if isinstance(by_stack, dict) and by_stack != dict(page.stack_counts):
        found.append("meta.num_specs_by_stack disagrees with spec_details")
    meta_versions = meta.get("versions")
    if isinstance(meta_versions, list) and (
        not all(isinstance(v, str) for v in meta_versions) or set(meta_versions) != versions
    ):
        found.append("meta.versions disagrees with spec_details")
    return [f"{page.source}: {what} (using spec_details)" for what in found]


class ParsedPage(NamedTuple):
    """A page, the hashes it holds (to check they are unique) and warnings about it."""

    page: Page
    hashes: tuple[str, ...]
    warnings: list[str]


def check_size(size: int, source: str) -> None:
    """Refuse a page too large to be a catalogue page before reading or parsing it."""
    if size > MAX_PAGE_BYTES:
        what = f"{size / 2**20:.1f} MiB, more than a page can be ({MAX_PAGE_BYTES // 2**20} MiB)"
        raise InputError(source, what, "this is not a catalogue page: remove or replace it")


def _details(fields: dict[str, Any], source: str) -> Any:
    """`spec_details`, or a clear word about the 2022 generation that had none."""
    if "spec_details" not in fields and ("spec_files" in fields or "spec_names" in fields):
        what = "unsupported page generation (2022: spec_files and spec_names, no spec_details)"
        raise InputError(source, what, "compare catalogue snapshots from 2023 or later")
    return fields.get("spec_details")


def _entries(data: bytes, source: str) -> tuple[dict[str, Any], Entries]:
    """The front-matter fields and the entries; `spec_details` split, not parsed, when it can be."""
    found = _head(data, source)
    if found is not None:
        start, end = found[1]
        entries = Entries.from_line(data[start:end].rstrip(b"\r"), source)
        if entries is not None:
            return found[0], entries
    fields = read_fields(data, source)
    return fields, Entries.from_read(check_entries(_details(fields, source), source), source)


def parse_page(data: bytes, source: str, digest: str, full: bool = True) -> ParsedPage:
    """Parse one page's bytes; full=False keeps only its counts (for content both sides hold)."""
    check_size(len(data), source)
    data = without_bom(data)
    fields, entries = _entries(data, source)
    tag, name = _identity(fields, source)
    kept = entries if full else None
    page = Page(tag, name, source, digest, kept, len(entries), entries.counts, entries.compiled)
    warnings = _meta_warnings(fields.get("meta"), page, entries.versions)
    return ParsedPage(page, tuple(entries), warnings)


def _head(data: bytes, source: str) -> tuple[dict[str, Any], tuple[int, int]] | None:
    """The front-matter fields but `spec_details`, and where its value lies; None if unusual.

    The `spec_details` line holds nearly all of a page's bytes, so it is located, not copied.
    The generator's exact head is matched at once; other layouts are read line by line.
    """
    found = _GENERATOR_HEAD.match(data)
    if found is not None:
        start = found.end()
        end = data.find(b"\n", start)
        if end > 0 and data[end : end + 5] in (b"\n---", b"\n---\n"):
            try:
                tag, meta = found[2].decode(), orjson.loads(found[3])
                title = found[1].decode()
            except (UnicodeDecodeError, orjson.JSONDecodeError):
                pass  # read line by line, for an error that names the line
            else:
                categories = ["package", tag]
                fields = {"title": title, "layout": "cache", "categories": categories, "meta": meta}
                return fields, (start, end)
    lines = _lines_but_details(data)
    read = fast_fields(lines[0], source) if lines is not None else None
    return None if read is None or lines is None else (read, lines[1])


def _lines_but_details(data: bytes) -> tuple[list[bytes], tuple[int, int]] | None:
    """Front-matter lines other than `spec_details`, and where its value lies; None if unusual."""
    pos = data.find(b"\n") + 1
    if not pos or data[:pos].rstrip(b"\r\n") != b"---":
        return None
    lines: list[bytes] = []
    details: tuple[int, int] | None = None
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        if data.startswith(b"spec_details: ", pos):
            details = (pos + 14, end)
        else:
            line = data[pos:end].rstrip(b"\r")
            if line == b"---":
                return (lines, details) if details else None
            lines.append(line)
        pos = end + 1
    return None  # no closing fence


def counts_from_meta(data: bytes, source: str, digest: str) -> ParsedPage:
    """A counts-only page read from its `meta` line, `spec_details` left unparsed.

    For content both sides hold (equal by construction, never compared). The number of `"hash":`
    keys in `spec_details` must match meta's `num_specs`, and each stack's count be 1 to that
    number; when not, or meta lacks the counts, or the page is in another form, or some of its
    specs have a compiler and some do not (meta does not count them per stack), it is parsed
    for its counts instead (and any disagreement between meta and spec_details is warned
    about).
    """
    check_size(len(data), source)
    data = without_bom(data)
    try:
        found = _head(data, source)
    except InputError:
        found = None
    fields = found[0] if found is not None else {}
    meta = fields.get("meta")
    if found is None or not isinstance(meta, dict):
        return parse_page(data, source, digest, full=False)
    count, by_stack = meta.get("num_specs"), meta.get("num_specs_by_stack")
    if (
        type(count) is not int
        or not isinstance(by_stack, dict)
        or not all(
            type(k) is str and type(v) is int and 0 < v <= count for k, v in by_stack.items()
        )
        or data.count(b'"hash":', *found[1]) != count
    ):
        return parse_page(data, source, digest, full=False)
    counts = tuple(sorted(by_stack.items()))
    compiled = _compiled(data, found[1], count, counts, meta.get("compilers"))
    if compiled is None:
        return parse_page(data, source, digest, full=False)
    tag, name = _identity(fields, source)
    page = Page(tag, name, source, digest, None, count, counts, compiled)
    return ParsedPage(page, (), [])


def _compiled(
    data: bytes,
    where: tuple[int, int],
    count: int,
    counts: tuple[tuple[str, int], ...],
    compilers: object,
) -> tuple[tuple[str, int], ...] | None:
    """Specs per stack with a compiler (not `none`) of `count` entries (as many `"hash":`
    keys) held as `counts` per stack, when meta's `compilers` or the `spec_details` text at
    `where` tell them at once: all of them when meta lists no `none` (if it lies, a stack
    looks compiled: it cannot move, never a false move) or no entry writes
    `"compiler": "none"`, none when each of the `count` entries (as many `{`: no nested
    object) does; else None (the entries must be read). (`"compiler": "none"` is a key and its
    value wherever it is: a string holds no bare `"`.)"""
    if isinstance(compilers, list) and NO_COMPILER not in compilers:
        return counts
    start, end = where
    without = data.count(NO_COMPILER_TEXT, start, end)
    if not without:
        return counts
    if without == count == data.count(b"{", start, end):
        return ()
    return None
