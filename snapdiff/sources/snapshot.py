"""Assemble parsed pages into a Snapshot, checking what must be unique."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import NamedTuple

from ..errors import InputError
from ..model import Page, Snapshot
from .pages import parse_page

__all__ = ["PageBytes", "PageCache", "build_snapshot"]


class PageBytes(NamedTuple):
    """The raw content of one candidate page and where it came from."""

    source: str
    data: bytes
    digest: str


class PageCache:
    """Parse each distinct page content once, even when both sides hold it."""

    def __init__(self) -> None:
        self._pages: dict[str, tuple[Page, list[str]]] = {}

    def parse(self, raw: PageBytes) -> tuple[Page, list[str]]:
        """The page for these bytes, from the cache when the same content was parsed before."""
        hit = self._pages.get(raw.digest)
        if hit is None:
            hit = self._pages[raw.digest] = parse_page(raw.data, raw.source, raw.digest)
            return hit
        page, warnings = hit
        if page.source == raw.source:
            return hit
        return dataclasses.replace(page, source=raw.source), warnings


def build_snapshot(
    source: str,
    raws: Iterable[PageBytes],
    cache: PageCache,
    commit: str | None = None,
    date: str | None = None,
) -> Snapshot:
    """Parse pages into a Snapshot; a package or a hash twice in one tag is an error."""
    pages: dict[tuple[str, str], Page] = {}
    seen: dict[tuple[str, str], str] = {}
    warnings: list[str] = []
    for raw in raws:
        page, page_warnings = cache.parse(raw)
        warnings.extend(page_warnings)
        key = (page.tag, page.name)
        other = pages.get(key)
        if other is not None:
            what = f"second page for {page.name} under tag {page.tag} (first: {other.source})"
            raise InputError(page.source, what, "keep one page per package and tag")
        pages[key] = page
        for spec in page.specs:
            first = seen.setdefault((page.tag, spec.hash), page.source)
            if first != page.source:
                what = f"hash {spec.hash} of tag {page.tag} is also in {first}"
                raise InputError(page.source, what, "a spec belongs to one page of its tag")
    if not pages:
        fix = "point at a catalogue directory, a folder of page files, or a revision holding them"
        raise InputError(source, f"no catalogue pages found under {source}", fix)
    ordered = {key: pages[key] for key in sorted(pages)}
    return Snapshot(source, ordered, commit, date, tuple(warnings))
