"""Parse one catalogue page (Jekyll front matter) into a typed Page, fast and safely."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, NamedTuple

import yaml

from ..errors import InputError
from ..model import Page, Spec

__all__ = [
    "ParsedPage",
    "blob_digest",
    "is_page",
    "page_from_meta",
    "page_identity",
    "parse_page",
    "read_fields",
    "stack_counts",
]

_FIX = "regenerate the page or remove it from the snapshot"
_KNOWN_KEYS = frozenset(
    ("hash", "versions", "compiler", "os", "platform", "target", "variants", "stacks", "size")
)
_IGNORED_KEYS = frozenset(("tarball",))
_JSON_KEYS = ("meta", "spec_details")
# Plain YAML scalars and flow lists that mean the same as strings; anything else goes to YAML.
_PLAIN = re.compile(r"[\w.:/@+=-][\w .:/@+=-]*")
_PLAIN_LIST = re.compile(r"\[[\w .:/@+=-]*(,[\w .:/@+=-]*)*\]")
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def blob_digest(data: bytes) -> str:
    """Git's blob id of these bytes, so a page read from a directory and from git compare equal."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


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


def _front_matter(text: str, source: str) -> tuple[list[str], int]:
    """The front-matter lines between the `---` fences, and the line number of the first one."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        raise InputError(source, "no front matter: the first line is not '---'", _FIX)
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r") == "---":
            return [line.rstrip("\r") for line in lines[1:index]], 2
    raise InputError(source, "unterminated front matter: no closing '---' line", _FIX)


def _fast_fields(lines: list[str]) -> dict[str, Any] | None:
    """The generator's one-key-per-line form, JSON values parsed by json; None if not that form.

    Raises for a one-line `meta` or `spec_details` that is not valid JSON: the generator writes
    JSON, and YAML's laxer flow syntax would read some broken JSON as something else.
    """
    fields: dict[str, Any] = {}
    for line in lines:
        key, sep, value = line.partition(": ")
        if not sep or not key.isidentifier():
            return None
        if key in _JSON_KEYS or value.startswith('"'):
            try:
                fields[key] = json.loads(value)
            except ValueError:
                return None
        elif _PLAIN_LIST.fullmatch(value):
            fields[key] = [item.strip() for item in value[1:-1].split(",")]
        elif _PLAIN.fullmatch(value):
            fields[key] = value.strip()
        else:
            return None
    return fields


def _yaml_fields(lines: list[str], first_line: int, source: str) -> dict[str, Any]:
    """Any other valid YAML front matter, loaded safely (no object is ever constructed)."""
    try:
        fields = yaml.load("\n".join(lines), Loader=_SafeLoader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = f":{mark.line + first_line}" if mark is not None else ""
        raise InputError(
            f"{source}{line}", f"front matter is not valid YAML: {exc.problem}", _FIX
        ) from exc
    except yaml.YAMLError as exc:
        raise InputError(source, f"front matter is not valid YAML: {exc}", _FIX) from exc
    if not isinstance(fields, dict):
        raise InputError(source, "front matter is not a mapping of keys", _FIX)
    return fields


def _json_error(lines: list[str], first_line: int, source: str) -> InputError | None:
    """Name the line and column of a `meta` or `spec_details` value that is not valid JSON."""
    for offset, line in enumerate(lines):
        key, _, value = line.partition(": ")
        if key in _JSON_KEYS:
            try:
                json.loads(value)
            except json.JSONDecodeError as exc:
                where = f"{source}:{first_line + offset}"
                what = f"{key} is not valid JSON ({exc.msg} at column {exc.colno + len(key) + 2})"
                return InputError(where, what, _FIX)
    return None


def _spec(raw: Any, source: str, index: int) -> Spec:
    """Normalise one `spec_details` entry: sets sorted, `@=` as `@`, `tarball` dropped."""
    digest = _check_entry(raw, source, index)
    try:
        versions, variants = raw["versions"], raw.get("variants", [])
        if type(versions) is not list or type(variants) is not list:
            raise TypeError("versions and variants must be lists")
        extra: tuple[tuple[str, str], ...] = ()
        if not raw.keys() <= _KNOWN_KEYS:
            extra = tuple(
                sorted(
                    (key, json.dumps(value, sort_keys=True))
                    for key, value in raw.items()
                    if key not in _KNOWN_KEYS and key not in _IGNORED_KEYS
                )
            )
        return Spec(
            digest,
            tuple(sorted(set(versions))),
            str(raw.get("compiler", "")).replace("@=", "@"),
            str(raw.get("os", "")),
            str(raw.get("platform", "")),
            str(raw.get("target", "")),
            tuple(sorted(set(variants))),
            tuple(sorted(set(raw["stacks"]))),
            raw.get("size"),
            extra,
        )
    except KeyError as exc:
        raise InputError(source, f"spec {digest} has no {exc.args[0]!r}", _FIX) from exc
    except TypeError as exc:
        raise InputError(source, f"spec {digest} is malformed: {exc}", _FIX) from exc


def _check_entry(raw: Any, source: str, index: int) -> str:
    """The hash of one `spec_details` entry, after checking what every reader relies on."""
    if type(raw) is not dict:
        raise InputError(source, f"spec_details[{index}] is not a mapping", _FIX)
    digest = raw.get("hash")
    if type(digest) is not str or not digest:
        raise InputError(source, f"spec_details[{index}] has no string 'hash'", _FIX)
    stacks = raw.get("stacks")
    if type(stacks) is not list or not all(type(stack) is str for stack in stacks):
        raise InputError(source, f"spec {digest} has no 'stacks' list of strings", _FIX)
    return digest


def stack_counts(stack_lists: Iterable[Iterable[str]]) -> tuple[tuple[str, int], ...]:
    """How many specs each stack holds, sorted by stack; a stack listed twice counts once."""
    return tuple(sorted(Counter(itertools.chain.from_iterable(map(set, stack_lists))).items()))


def _meta_warnings(meta: Any, page: Page, versions: set[str], source: str) -> list[str]:
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
    return [f"{source}: {what} (using spec_details)" for what in found]


class ParsedPage(NamedTuple):
    """A page, the hashes it holds (to check they are unique) and warnings about it."""

    page: Page
    hashes: tuple[str, ...]
    warnings: list[str]


def read_fields(data: bytes, source: str) -> dict[str, Any]:
    """The front-matter keys of a page, read fast when in the generator's form, else as YAML."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        what = f"not UTF-8 text (bad byte at offset {exc.start})"
        raise InputError(source, what, _FIX) from exc
    lines, first_line = _front_matter(text, source)
    fields = _fast_fields(lines)
    if fields is None:
        json_error = _json_error(lines, first_line, source)
        if json_error is not None:
            raise json_error
        fields = _yaml_fields(lines, first_line, source)
    return fields


def page_identity(fields: dict[str, Any], source: str) -> tuple[str, str]:
    """(tag, name) of a page: `categories[1]` and `title`."""
    name = fields.get("title")
    if not isinstance(name, str) or not name:
        raise InputError(source, "front matter has no 'title' string", _FIX)
    categories = fields.get("categories")
    if not isinstance(categories, list) or len(categories) < 2 or not categories[1]:
        raise InputError(source, "front matter has no tag in 'categories: [package, TAG]'", _FIX)
    return str(categories[1]), name


def parse_page(data: bytes, source: str, digest: str, full: bool = True) -> ParsedPage:
    """Parse one page's bytes. full=False keeps only counts: for content both sides share."""
    fields = read_fields(data, source)
    tag, name = page_identity(fields, source)
    details = fields.get("spec_details")
    if not isinstance(details, list):
        raise InputError(source, "'spec_details' is missing or not a list", _FIX)
    specs: tuple[Spec, ...] | None = None
    if full:
        normalised = sorted((_spec(raw, source, i) for i, raw in enumerate(details)), key=_by_hash)
        specs = tuple(normalised)
        hashes = tuple(spec.hash for spec in normalised)
        counts = stack_counts(spec.stacks for spec in normalised)
        versions = {v for spec in normalised for v in spec.versions}
    else:
        hashes = tuple(sorted(_check_entry(raw, source, i) for i, raw in enumerate(details)))
        counts = stack_counts(raw["stacks"] for raw in details)
        versions = {v for raw in details for v in raw.get("versions", ()) if type(v) is str}
    for before, after in itertools.pairwise(hashes):
        if before == after:
            raise InputError(source, f"hash {before} appears twice", _FIX)
    page = Page(tag, name, source, digest, specs, len(hashes), counts)
    return ParsedPage(page, hashes, _meta_warnings(fields.get("meta"), page, versions, source))


def page_from_meta(fields: dict[str, Any], source: str, digest: str) -> Page | None:
    """A counts-only page from its `meta` line, or None when meta lacks what it takes."""
    meta = fields.get("meta")
    if not isinstance(meta, dict):
        return None
    count, by_stack = meta.get("num_specs"), meta.get("num_specs_by_stack")
    if type(count) is not int or not isinstance(by_stack, dict):
        return None
    if not all(type(k) is str and type(v) is int for k, v in by_stack.items()):
        return None
    tag, name = page_identity(fields, source)
    return Page(tag, name, source, digest, None, count, tuple(sorted(by_stack.items())))


def _by_hash(spec: Spec) -> str:
    return spec.hash
