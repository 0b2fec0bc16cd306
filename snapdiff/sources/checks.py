"""Check what a page's `spec_details` holds: JSON values and entries of the types a diff reads."""

from __future__ import annotations

import math
from typing import Any

import msgspec
import orjson

from ..errors import InputError

__all__ = ["FIX", "MAX_DEPTH", "check_entries", "check_entry", "check_plain", "json_value"]

FIX = "regenerate the page or remove it from the snapshot"
_LIST_KEYS = ("stacks", "versions", "variants")
_FLAT_KEYS = frozenset(
    ("hash", "stacks", "versions", "variants", "compiler", "os", "platform", "target", "tarball")
)
MAX_DEPTH = 16  # lists and mappings within a field of a spec; the catalogue's are flat
_SCALARS = (str, int, float, bool, type(None))


def check_plain(value: Any, where: str, what: str, depth: int = MAX_DEPTH) -> None:
    """Refuse a value that is not plain JSON (a YAML date or set, say) or nests deeper than
    `depth`: such values reach deepdiff, json and the Markdown only once they pass here."""
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, _SCALARS):
            if type(item) is float and not math.isfinite(item):  # YAML's .inf and .nan
                raise InputError(where, f"{what} holds {item}, which JSON cannot", FIX)
            continue
        if level >= depth:
            raise InputError(where, f"{what} nests more than {depth} levels deep", FIX)
        if type(item) is list:
            stack.extend((x, level + 1) for x in item)
        elif type(item) is dict and all(type(k) is str for k in item):
            stack.extend((x, level + 1) for x in item.values())
        else:
            kind = type(item).__name__
            raise InputError(where, f"{what} holds a {kind}, which JSON cannot (quote it)", FIX)


def json_value(key: str, value: bytes, where: str) -> Any:
    """A one-line JSON value of a front-matter key, exactly: an integer beyond 64 bits stays an
    integer (msgspec; orjson would make it a float, and a diff would see a change that is not
    there). An error names the line and the column, in orjson's words."""
    try:
        return msgspec.json.decode(value)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):  # orjson says which
        pass
    try:
        return orjson.loads(value)  # what msgspec refuses and orjson reads, read as before
    except orjson.JSONDecodeError as exc:
        what = f"{key} is not valid JSON ({exc.msg} at column {exc.colno + len(key) + 2})"
        raise InputError(where, what, FIX) from None


def check_entry(entry: Any, source: str, index: int) -> str:
    """The hash of one entry, after checking every type a reader relies on."""
    if type(entry) is not dict:
        raise InputError(source, f"spec_details[{index}] is not a mapping", FIX)
    digest = entry.get("hash")
    if type(digest) is not str or not digest:
        raise InputError(source, f"spec_details[{index}] has no string 'hash'", FIX)
    for key in _LIST_KEYS:  # the generator writes all three, if only as []
        if type(entry.get(key)) is not list:
            raise InputError(source, f"spec {digest} has no {key!r} list", FIX)
    get = entry.get
    if not (
        type(get("compiler", "")) is str
        and type(get("os", "")) is str
        and type(get("platform", "")) is str
        and type(get("target", "")) is str
    ):
        raise InputError(source, f"spec {digest} has a field of the wrong type", FIX)
    for key, value in entry.items():
        if key not in _FLAT_KEYS:  # `size` and keys a newer generator may add
            check_plain(value, source, f"spec {digest}: {key!r}")
    return digest


def check_entries(details: Any, source: str) -> dict[str, dict[str, Any]]:
    """A parsed `spec_details` value: its entries by hash, sorted, each one checked."""
    if not isinstance(details, list):
        raise InputError(source, "'spec_details' is missing or not a list", FIX)
    entries: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(details):
        digest = check_entry(entry, source, index)
        if entries.setdefault(digest, entry) is not entry:
            raise InputError(source, f"hash {digest} appears twice", FIX)
    kinds = {type(item) for e in entries.values() for k in _LIST_KEYS for item in e.get(k, ())}
    if not kinds <= {str}:
        raise InputError(source, "stacks, versions and variants must list strings", FIX)
    return dict(sorted(entries.items()))
