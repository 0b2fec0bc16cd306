"""Front matter in any form: the generator's one key per line (JSON values parsed as JSON), else
YAML read safely (no object constructed, no alias, only what JSON can hold)."""

from __future__ import annotations

import re
from typing import Any

from ..errors import InputError
from .checks import MAX_DEPTH, check_plain
from .entries import FIX, json_value

__all__ = ["fast_fields", "read_fields"]

_JSON_KEYS = (b"meta", b"spec_details")
# Plain YAML scalars and flow lists that mean the same as strings; anything else goes to YAML.
_PLAIN = re.compile(r"[\w.:/@+=-][\w .:/@+=-]*")
_PLAIN_LIST = re.compile(r"\[[\w .:/@+=-]*(,[\w .:/@+=-]*)*\]")
_KEY = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _front_matter(data: bytes, source: str) -> list[bytes]:
    """The front-matter lines between the `---` fences (the first is line 2 of the file)."""
    start = data.find(b"\n") + 1
    if not start or data[:start].rstrip(b"\r\n") != b"---":
        raise InputError(source, "no front matter: the first line is not '---'", FIX)
    end = start - 1  # the newline before each candidate fence
    while True:
        end = data.find(b"\n---", end)
        if end < 0:
            raise InputError(source, "unterminated front matter: no closing '---' line", FIX)
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
        raise InputError(f"{source}:{line}", what, FIX) from exc


def fast_fields(lines: list[bytes], source: str) -> dict[str, Any] | None:
    """The generator's one-key-per-line form, JSON values parsed as JSON; None if not that form.

    A one-line `meta` or `spec_details` that is not valid JSON is an error, not a reason to try
    YAML: the generator writes JSON, and YAML's laxer flow syntax reads some broken JSON as data.
    """
    fields: dict[str, Any] = {}
    for number, line in enumerate(lines, start=2):
        key, sep, value = line.partition(b": ")
        if not sep or not _KEY.fullmatch(key):
            return None
        if key in _JSON_KEYS or value.startswith(b'"'):
            fields[key.decode()] = json_value(key.decode(), value, f"{source}:{number}")
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
        for event in yaml.parse(text, Loader=loader):  # the catalogue never uses aliases:
            if isinstance(event, yaml.AliasEvent):  # refused before a bomb of them can grow
                line = event.start_mark.line + 2 if event.start_mark else 1
                raise InputError(f"{source}:{line}", "front matter uses a YAML alias", FIX)
        fields = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{source}:{mark.line + 2}" if mark is not None else source
        raise InputError(where, f"front matter is not valid YAML: {exc.problem}", FIX) from exc
    except yaml.YAMLError as exc:
        raise InputError(source, f"front matter is not valid YAML: {exc}", FIX) from exc
    except ValueError as exc:  # a value YAML parses but Python will not build: a 4,301-digit int
        what = str(exc).split(";")[0]
        raise InputError(
            source, f"front matter holds a value that cannot be read ({what})", FIX
        ) from exc
    if not isinstance(fields, dict):
        raise InputError(source, "front matter is not a mapping of keys", FIX)
    check_plain(fields, source, "front matter", depth=MAX_DEPTH + 3)  # key, list, entry, field
    return fields


def read_fields(data: bytes, source: str) -> dict[str, Any]:
    """The front-matter keys of a page, in any YAML form."""
    lines = _front_matter(data, source)
    fields = fast_fields(lines, source)
    return _yaml_fields(lines, source) if fields is None else fields
