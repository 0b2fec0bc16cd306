"""Parse one catalogue page (Jekyll front matter) into a Page, fast and safely.

The generator writes one key per line, `meta` and `spec_details` as one-line JSON: those lines are
parsed with orjson straight from the bytes (measured on a develop-size snapshot: 0.13 s against
0.27 s for the standard json module, and 3.6 s for PyYAML's C loader). Front matter in any other
form goes through PyYAML's safe loader, which never constructs an object.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, NamedTuple

import orjson

from ..errors import InputError
from ..model import Page

__all__ = [
    "MAX_PAGE_BYTES",
    "ParsedPage",
    "blob_digest",
    "check_size",
    "counts_from_meta",
    "is_candidate",
    "is_catalogue_path",
    "is_page",
    "parse_page",
    "stack_counts",
]

_FIX = "regenerate the page or remove it from the snapshot"
MAX_PAGE_BYTES = 32 * 2**20  # the largest real pages are a few MiB
_JSON_KEYS = (b"meta", b"spec_details")
_LIST_KEYS = ("stacks", "versions", "variants")
_LIST: list[str] = []
# Plain YAML scalars and flow lists that mean the same as strings; anything else goes to YAML.
_PLAIN = re.compile(r"[\w.:/@+=-][\w .:/@+=-]*")
_PLAIN_LIST = re.compile(r"\[[\w .:/@+=-]*(,[\w .:/@+=-]*)*\]")
_KEY = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def blob_digest(data: bytes) -> str:
    """Git's blob id of these bytes, so a page read from a directory and from git compare equal."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def is_candidate(rel: str) -> bool:
    """False for files in hidden folders (`.git`, `.github`), which are never read."""
    return not any(part.startswith(".") for part in rel.split("/")[:-1])


def is_catalogue_path(rel: str) -> bool:
    """`_cache/<tag>/<package>/specs.md` (a `/`-separated path): a page by its place."""
    parts = rel.split("/")
    return len(parts) >= 4 and parts[-4] == "_cache" and parts[-1] == "specs.md"


def is_page(data: bytes) -> bool:
    """True when the bytes open with front matter whose `layout` is `cache` (SPEC section 1)."""
    if not data.startswith(b"---"):
        return False
    end = data.find(b"\n---", 3)
    head = data[: end if end >= 0 else len(data)]
    for line in head.split(b"\n"):
        if line.startswith(b"layout:"):
            return line[7:].strip().strip(b"\"'") == b"cache"
    return False


def _front_matter(data: bytes, source: str) -> list[bytes]:
    """The front-matter lines between the `---` fences (the first is line 2 of the file)."""
    start = data.find(b"\n") + 1
    if not start or data[:start].rstrip(b"\r\n") != b"---":
        raise InputError(source, "no front matter: the first line is not '---'", _FIX)
    end = start - 1  # the newline before each candidate fence
    while True:
        end = data.find(b"\n---", end)
        if end < 0:
            raise InputError(source, "unterminated front matter: no closing '---' line", _FIX)
        if data[end + 4 : end + 6] in (b"", b"\n", b"\r", b"\r\n"):
            break
        end += 1
    return [line.rstrip(b"\r") for line in data[start:end].split(b"\n")] if end > start else []


def _text(value: bytes, source: str, line: int, column: int = 1) -> str:
    """Decode UTF-8; an error names the line, and the column where `value` starts in it."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as exc:
        what = f"not UTF-8 text (bad byte at column {exc.start + column})"
        raise InputError(f"{source}:{line}", what, _FIX) from exc


def _json(key: bytes, value: bytes, source: str, line: int) -> Any:
    """A one-line JSON value; an error names the line and the column in it."""
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError as exc:
        what = f"{key.decode()} is not valid JSON ({exc.msg} at column {exc.colno + len(key) + 2})"
        raise InputError(f"{source}:{line}", what, _FIX) from None


def _fast_fields(lines: list[bytes], source: str, skip: bytes = b"") -> dict[str, Any] | None:
    """The generator's one-key-per-line form, JSON values parsed as JSON; None if not that form.

    A one-line `meta` or `spec_details` that is not valid JSON is an error, not a reason to try
    YAML: the generator writes JSON, and YAML's laxer flow syntax reads some broken JSON as data.
    """
    fields: dict[str, Any] = {}
    for number, line in enumerate(lines, start=2):
        key, sep, value = line.partition(b": ")
        if not sep or not _KEY.fullmatch(key):
            return None
        if key == skip:
            continue
        if key in _JSON_KEYS or value.startswith(b'"'):
            fields[key.decode()] = _json(key, value, source, number)
            continue
        text = _text(value, source, number, len(key) + 3)
        if _PLAIN_LIST.fullmatch(text):
            fields[key.decode()] = [item.strip() for item in text[1:-1].split(",")]
        elif _PLAIN.fullmatch(text):
            fields[key.decode()] = text.strip()
        else:
            return None
    return fields


def _yaml_fields(lines: list[bytes], source: str) -> dict[str, Any]:
    """Any other valid YAML front matter, loaded safely (no object is ever constructed)."""
    import yaml  # deferred: only pages not in the generator's form need it

    text = _text(b"\n".join(lines), source, 2)
    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        fields = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{source}:{mark.line + 2}" if mark is not None else source
        raise InputError(where, f"front matter is not valid YAML: {exc.problem}", _FIX) from exc
    except yaml.YAMLError as exc:
        raise InputError(source, f"front matter is not valid YAML: {exc}", _FIX) from exc
    if not isinstance(fields, dict):
        raise InputError(source, "front matter is not a mapping of keys", _FIX)
    return fields


def read_fields(data: bytes, source: str, skip: bytes = b"") -> dict[str, Any]:
    """The front-matter keys of a page (all but `skip`, in the generator's form)."""
    lines = _front_matter(data, source)
    fields = _fast_fields(lines, source, skip)
    return _yaml_fields(lines, source) if fields is None else fields


def _identity(fields: dict[str, Any], source: str) -> tuple[str, str]:
    """(tag, name) of a page: `categories[1]` and `title`."""
    name = fields.get("title")
    if not isinstance(name, str) or not name:
        raise InputError(source, "front matter has no 'title' string", _FIX)
    categories = fields.get("categories")
    if not isinstance(categories, list) or len(categories) < 2 or not categories[1]:
        raise InputError(source, "front matter has no tag in 'categories: [package, TAG]'", _FIX)
    return str(categories[1]), name


def _check_entries(details: Any, source: str) -> dict[str, dict[str, Any]]:
    """The `spec_details` entries by hash, after checking every type a reader relies on."""
    if not isinstance(details, list):
        raise InputError(source, "'spec_details' is missing or not a list", _FIX)
    entries: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(details):
        if type(entry) is not dict:
            raise InputError(source, f"spec_details[{index}] is not a mapping", _FIX)
        digest = entry.get("hash")
        if type(digest) is not str or not digest:
            raise InputError(source, f"spec_details[{index}] has no string 'hash'", _FIX)
        if type(entry.get("stacks")) is not list or type(entry.get("versions")) is not list:
            raise InputError(source, f"spec {digest} has no 'stacks' or 'versions' list", _FIX)
        get = entry.get
        if not (
            type(get("variants", _LIST)) is list
            and type(get("compiler", "")) is str
            and type(get("os", "")) is str
            and type(get("platform", "")) is str
            and type(get("target", "")) is str
        ):
            raise InputError(source, f"spec {digest} has a field of the wrong type", _FIX)
        if entries.setdefault(digest, entry) is not entry:
            raise InputError(source, f"hash {digest} appears twice", _FIX)
    kinds = {type(item) for e in entries.values() for k in _LIST_KEYS for item in e.get(k, ())}
    if not kinds <= {str}:
        raise InputError(source, "stacks, versions and variants must list strings", _FIX)
    return entries


def stack_counts(stack_lists: Iterable[Iterable[str]]) -> tuple[tuple[str, int], ...]:
    """How many specs each stack holds, sorted by stack; a stack listed twice counts once."""
    return tuple(sorted(Counter(itertools.chain.from_iterable(map(set, stack_lists))).items()))


def _meta_warnings(meta: Any, page: Page, versions: set[str]) -> list[str]:
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
    if isinstance(meta_versions, list) and set(meta_versions) != versions:
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


def parse_page(data: bytes, source: str, digest: str, full: bool = True) -> ParsedPage:
    """Parse one page's bytes; full=False keeps only its counts (for content both sides hold)."""
    check_size(len(data), source)
    fields = read_fields(data, source)
    tag, name = _identity(fields, source)
    entries = _check_entries(_details(fields, source), source)
    counts = stack_counts(entry["stacks"] for entry in entries.values())
    kept = dict(sorted(entries.items())) if full else None
    page = Page(tag, name, source, digest, kept, len(entries), counts)
    versions = {v for entry in entries.values() for v in entry["versions"]}
    warnings = _meta_warnings(fields.get("meta"), page, versions)
    return ParsedPage(page, tuple(entries), warnings)


def _lines_but_details(data: bytes) -> tuple[list[bytes], tuple[int, int]] | None:
    """Front-matter lines other than `spec_details`, and where its value lies; None if unusual.

    The `spec_details` line holds nearly all of a page's bytes, so it is located, not copied.
    """
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
    keys in `spec_details` must match meta's `num_specs`; when it does not, or meta lacks the
    counts, or the page is in another form, it is parsed for its counts instead (and any
    disagreement between meta and spec_details is warned about).
    """
    check_size(len(data), source)
    found = _lines_but_details(data)
    fields = None
    if found is not None:
        try:
            fields = _fast_fields(found[0], source)
        except InputError:
            fields = None
    meta = fields.get("meta") if fields else None
    if fields is None or found is None or not isinstance(meta, dict):
        return parse_page(data, source, digest, full=False)
    count, by_stack = meta.get("num_specs"), meta.get("num_specs_by_stack")
    if (
        type(count) is not int
        or not isinstance(by_stack, dict)
        or not all(type(k) is str and type(v) is int for k, v in by_stack.items())
        or data.count(b'"hash":', *found[1]) != count
    ):
        return parse_page(data, source, digest, full=False)
    tag, name = _identity(fields, source)
    page = Page(tag, name, source, digest, None, count, tuple(sorted(by_stack.items())))
    return ParsedPage(page, (), [])
