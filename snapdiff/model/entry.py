"""One `spec_details` entry as read: the typed record a page's line is decoded into."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import msgspec

from .normal import canonical_json

__all__ = ["Entry"]


class Entry(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """One `spec_details` entry as read (lists as read, in order), its types checked.

    A page in the generator's form is decoded into these in one call (`sources.entries`), so
    the diff compares entries as read by C-level equality; any other entry (an unknown key, a
    nested `size`) is read from its checked mapping (`from_mapping`), its other keys kept as
    canonical JSON in `extra`, which a page never sets (`sources.entries` refuses it).
    Untracked by the cycle collector (`gc=False`): it holds only strings, numbers and tuples
    of strings (or of pairs of strings), so it can be in no cycle, and each of a release
    pair's 830,000 is 16 bytes smaller. `sources.entries` builds records by position (a field
    moved there fails `tests/test_entries.py`).
    """

    hash: Annotated[str, msgspec.Meta(min_length=1)]
    stacks: tuple[str, ...]
    variants: tuple[str, ...]
    versions: tuple[str, ...]
    compiler: str = ""
    os: str = ""
    platform: str = ""
    target: str = ""
    size: int | float | str | bool | None = None  # any plain JSON from a checked mapping
    tarball: str | None = None  # anything from a checked mapping; dropped by normalisation
    extra: tuple[tuple[str, str], ...] = ()  # other keys as (name, canonical JSON), sorted

    @classmethod
    def from_mapping(cls, entry: Mapping[str, Any]) -> Entry:
        """An entry from a mapping whose types the loader has checked (`sources.checks`)."""
        extra: tuple[tuple[str, str], ...] = ()
        if not entry.keys() <= _ENTRY_KEYS:
            extra = tuple(
                sorted(
                    (key, canonical_json(value))
                    for key, value in entry.items()
                    if key not in _ENTRY_KEYS
                )
            )
        get = entry.get
        return cls(
            entry["hash"],
            tuple(entry["stacks"]),
            tuple(entry["variants"]),
            tuple(entry["versions"]),
            get("compiler", ""),
            get("os", ""),
            get("platform", ""),
            get("target", ""),
            get("size"),
            get("tarball"),
            extra,
        )


# the keys of a page's entry with a field of their own
_ENTRY_KEYS = frozenset(Entry.__struct_fields__) - {"extra"}
