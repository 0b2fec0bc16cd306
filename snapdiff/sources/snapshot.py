"""Assemble parsed pages into a Snapshot, checking what must be unique."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Set
from typing import NamedTuple

from ..errors import InputError
from ..model import NOTHING, Page, Snapshot, Tally
from .pages import ParsedPage, counts_from_meta, parse_page

# a repository holding several catalogues (say, snapshots of this one) names one as REV:path
ONE_PAGE = "keep one page per package and tag, or name one catalogue's folder: REV:path"

__all__ = ["ONE_PAGE", "PageBytes", "PageCache", "Problems", "build_snapshot"]

_CATALOGUE_PATH = re.compile(r"(?:^|[/:])_cache/([^/]+)/([^/]+)/specs\.md(?::\d+)?$")


class PageBytes(NamedTuple):
    """The raw content of one candidate page and where it came from."""

    source: str
    data: bytes
    digest: str


class Problems:
    """Bad pages: each an error, or with --keep-going a warning and a page left out."""

    def __init__(self, keep_going: bool = False) -> None:
        self.keep_going = keep_going
        self.skipped: list[str] = []
        self.keys: set[tuple[str, str]] = set()  # (tag, package) of skipped catalogue paths

    def skip(self, error: InputError) -> None:
        """Raise the error, or (keeping going) note it and carry on without the page."""
        if not self.keep_going:
            raise error
        if error.message in self.skipped:
            return  # said once (the files of a folder at a page's place, each its fault)
        self.skipped.append(error.message)
        place = _CATALOGUE_PATH.search(error.where)
        if place:
            self.keys.add((place.group(1), place.group(2)))


class PageCache:
    """Parse each distinct page content once, for both sides.

    Content both sides hold (`shared` digests) is equal there and never compared, so only its
    counts are read, from its `meta` line once they check out against the page's text.
    """

    def __init__(self, shared: Set[str] = frozenset()) -> None:
        self.shared = shared  # may change between diffs of a history; parses are kept
        self._pages: dict[str, ParsedPage] = {}

    def __contains__(self, digest: str) -> bool:
        """Whether a parse that serves now is cached: in full, or counts for shared content."""
        hit = self._pages.get(digest)
        return hit is not None and (hit.page.entries is not None or digest in self.shared)

    def keep(self, digests: Set[str]) -> None:
        """Forget every parse but these (a history keeps only what the next step can reuse)."""
        self._pages = {d: hit for d, hit in self._pages.items() if d in digests}

    def get(self, digest: str, source: str) -> ParsedPage:
        """A page parsed before, named by this source."""
        hit = self._pages[digest]
        if hit.page.source != source:
            hit = ParsedPage(hit.page.at(source), hit.hashes, hit.warnings)
        return hit

    def parsed(self, raw: PageBytes, problems: Problems) -> ParsedPage | None:
        """The page (`parse`), or None when it is bad and `problems` keep going."""
        try:
            return self.parse(raw)
        except InputError as error:
            problems.skip(error)
            return None

    def add(self, parsed: ParsedPage) -> None:
        """A page parsed elsewhere (a forked child) as `parse` parses it."""
        self._pages.setdefault(parsed.page.digest, parsed)

    def parse(self, raw: PageBytes) -> ParsedPage:
        """The page for these bytes, from the cache when the same content was parsed before."""
        if raw.digest in self:
            return self.get(raw.digest, raw.source)
        if raw.digest in self.shared:
            hit = counts_from_meta(raw.data, raw.source, raw.digest)
        else:
            hit = parse_page(raw.data, raw.source, raw.digest)
        self._pages[raw.digest] = hit
        return hit


def _check_unique(
    page: Page,
    hashes: tuple[str, ...],
    pages: Mapping[tuple[str, str], Page],
    seen: dict[str, _Held],
) -> None:
    """A package twice in one tag, or a hash on two pages of one tag, is an input error."""
    other = pages.get((page.tag, page.name))
    if other is not None:
        what = f"second page for {page.name} under tag {page.tag} (first: {other.source})"
        raise InputError(page.source, what, ONE_PAGE)
    held = seen.get(page.tag)
    if held is not None and not held.hashes.isdisjoint(hashes):  # a set operation, in C
        digest = min(held.hashes.intersection(hashes))
        first = next(source for source, owned in held.pages if digest in owned)
        what = f"hash {digest} of tag {page.tag} is also in {first}"
        fix = "keep the spec on one of the two pages: a spec belongs to one page of its tag"
        raise InputError(page.source, what, fix)


class _Held:
    """The hashes of one tag's pages so far, and each page's, to name one on a clash."""

    def __init__(self) -> None:
        self.hashes: set[str] = set()
        self.pages: list[tuple[str, tuple[str, ...]]] = []  # (source, hashes)


def build_snapshot(
    source: str,
    parsed: Iterable[ParsedPage],
    problems: Problems,
    commit: str | None = None,
    date: str | None = None,
    rest: Tally = NOTHING,
    subject: str | None = None,
) -> Snapshot:
    """Gather parsed pages into a Snapshot, each package and hash once per tag, beside the pages
    held only as counts (`rest`, which the loader has checked apart from these); `commit`,
    `date` and `subject`: a revision's."""
    pages: dict[tuple[str, str], Page] = {}
    seen: dict[str, _Held] = {}  # tag -> hashes of its pages
    warnings: list[str] = []
    for page, hashes, page_warnings in parsed:
        try:
            _check_unique(page, hashes, pages, seen)
        except InputError as error:
            problems.skip(error)
            continue
        warnings.extend(page_warnings)
        pages[(page.tag, page.name)] = page
        held = seen.setdefault(page.tag, _Held())
        held.hashes.update(hashes)
        held.pages.append((page.source, hashes))
    _require_pages(source, pages, rest)
    ordered = {key: pages[key] for key in sorted(pages)}
    skipped = tuple(problems.skipped)
    keys = frozenset(problems.keys)
    said = tuple(warnings)
    return Snapshot(
        source, ordered, commit, date, said, skipped, keys, rest, commit_subject=subject
    )


def _require_pages(source: str, pages: Mapping[tuple[str, str], Page], rest: Tally) -> None:
    """A snapshot with no page at all is an input error."""
    if not pages and not rest.page_count:
        fix = "point at a catalogue directory, a folder of page files, or a revision holding them"
        raise InputError(source, f"no catalogue pages found under {source}", fix)
