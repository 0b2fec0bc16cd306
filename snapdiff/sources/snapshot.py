"""Assemble parsed pages into a Snapshot, checking what must be unique."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Set
from typing import NamedTuple

from ..errors import InputError
from ..model import Page, Snapshot
from .pages import ParsedPage, counts_from_meta, parse_page

__all__ = ["PageBytes", "PageCache", "build_snapshot"]


class PageBytes(NamedTuple):
    """The raw content of one candidate page and where it came from."""

    source: str
    data: bytes
    digest: str


class PageCache:
    """Parse each distinct page content once, for both sides.

    Content both sides hold (`shared` digests) is equal there and never compared, so only its
    counts are read, from its `meta` line once they check out against the page's text.
    """

    def __init__(self, shared: Set[str] = frozenset()) -> None:
        self.shared = shared
        self._pages: dict[str, ParsedPage] = {}

    def __contains__(self, digest: str) -> bool:
        return digest in self._pages

    def get(self, digest: str, source: str) -> ParsedPage:
        """A page parsed before, named by this source."""
        hit = self._pages[digest]
        if hit.page.source != source:
            hit = hit._replace(page=dataclasses.replace(hit.page, source=source))
        return hit

    def parse(self, raw: PageBytes) -> ParsedPage:
        """The page for these bytes, from the cache when the same content was parsed before."""
        if raw.digest in self._pages:
            return self.get(raw.digest, raw.source)
        if raw.digest in self.shared:
            hit = counts_from_meta(raw.data, raw.source, raw.digest)
        else:
            hit = parse_page(raw.data, raw.source, raw.digest)
        self._pages[raw.digest] = hit
        return hit


def build_snapshot(
    source: str,
    parsed: Iterable[ParsedPage],
    commit: str | None = None,
    date: str | None = None,
) -> Snapshot:
    """Gather parsed pages into a Snapshot; a package or a hash twice in one tag is an error."""
    pages: dict[tuple[str, str], Page] = {}
    seen: dict[tuple[str, str], str] = {}
    warnings: list[str] = []
    for page, hashes, page_warnings in parsed:
        warnings.extend(page_warnings)
        key = (page.tag, page.name)
        other = pages.get(key)
        if other is not None:
            what = f"second page for {page.name} under tag {page.tag} (first: {other.source})"
            raise InputError(page.source, what, "keep one page per package and tag")
        pages[key] = page
        for digest in hashes:
            first = seen.setdefault((page.tag, digest), page.source)
            if first != page.source:
                what = f"hash {digest} of tag {page.tag} is also in {first}"
                raise InputError(page.source, what, "a spec belongs to one page of its tag")
    if not pages:
        fix = "point at a catalogue directory, a folder of page files, or a revision holding them"
        raise InputError(source, f"no catalogue pages found under {source}", fix)
    ordered = {key: pages[key] for key in sorted(pages)}
    return Snapshot(source, ordered, commit, date, tuple(warnings))
