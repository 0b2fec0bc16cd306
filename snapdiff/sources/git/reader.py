"""Files of a repository read as pages, for the sides of a diff in O(changed) (`changed`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ...errors import InputError
from .. import pages as page_rules
from ..pages import (
    NOT_REGULAR_FIX,
    PAGE_FOLDER,
    PAGE_FOLDER_FIX,
    ParsedPage,
    check_size,
    is_candidate,
    is_catalogue_path,
    is_page_content,
    page_folder,
)
from ..snapshot import PageBytes, PageCache, Problems
from .repo import GitRepo, Revision, TreeEntry, TreeFile

__all__ = [
    "CATALOGUE",
    "ChangedRevision",
    "PageReader",
    "Progress",
    "notes_of",
    "quiet",
    "readable",
    "unit_of",
]

CATALOGUE = "_cache"
_EVERY = 2000  # pages between two words of progress


@dataclass
class ChangedRevision:
    """One revision of the pair: its units, and its changed files that are pages."""

    rev: Revision
    problems: Problems
    units: dict[str, str] = field(default_factory=dict)  # prefix -> unit id
    rest: list[TreeEntry] = field(default_factory=list)  # what the unit "" is made of
    pages: dict[str, ParsedPage] = field(default_factory=dict)  # changed path -> page
    bad: set[str] = field(default_factory=set)  # changed paths that are bad pages
    _by_unit: dict[str, list[tuple[str, ParsedPage]]] | None = None

    def source(self, path: str) -> str:
        return f"{self.rev.arg}:{path}"

    def in_unit(self, prefix: str) -> list[tuple[str, ParsedPage]]:
        """(path in the unit, page) of the changed pages in one unit (grouped once, when first
        asked for: the pages are all read by then)."""
        if self._by_unit is None:
            self._by_unit = {}
            for path, parsed in self.pages.items():
                unit = unit_of(path, self.units)
                self._by_unit.setdefault(unit, []).append((path[len(unit) :], parsed))
        return self._by_unit.get(prefix, [])


def unit_of(path: str, units: dict[str, str]) -> str:
    """The unit a path belongs to."""
    if path.startswith(CATALOGUE + "/"):
        cut = path.find("/", len(CATALOGUE) + 1)
        if cut > 0 and path[: cut + 1] in units:
            return path[: cut + 1]
    return ""


def readable(found: TreeFile, where: str) -> bool:
    """Whether a file of a git tree is read: a regular file outside hidden folders, no larger
    than a page can be (when its size is known). A page by its place that is a link or too large
    is a bad page: InputError, named `where`, as is a folder at a page's place (a file inside it,
    named as the folder). Anything else not read is False."""
    folder = page_folder(found.path)
    if folder is not None:
        raise InputError(where.removesuffix(found.path) + folder, PAGE_FOLDER, PAGE_FOLDER_FIX)
    if not is_candidate(found.path):
        return False
    try:
        if found.link:
            raise InputError(where, "a symbolic link, not a page", NOT_REGULAR_FIX)
        if found.size >= 0:
            check_size(found.size, where)
    except InputError:
        if is_catalogue_path(found.path):
            raise
        return False
    return True


def _as_side(error: InputError, path: str, side: ChangedRevision) -> InputError:
    """An error about a file, named as one side names it: `REV:path`, and what followed the
    path in the error (the line of a page, `:3`)."""
    at = error.where.find(path)
    rest = error.where[at + len(path) :] if at >= 0 else ""
    return InputError(side.source(path) + rest, error.what, error.fix)


def notes_of(parsed: ParsedPage) -> list[str]:
    """A page's warnings without its source (a tally serves any revision holding the page)."""
    label = parsed.page.source + ": "
    return [w[len(label) :] if w.startswith(label) else w for w in parsed.warnings]


Progress = Callable[[str], None]  # told what is being done, now and then (a line of text)


def quiet(_: str) -> None:
    """No progress reported (the library's default)."""


class PageReader:
    """Files of one repository read as pages: each distinct blob read and parsed once."""

    def __init__(self, repo: GitRepo, cache: PageCache, progress: Progress) -> None:
        self.repo = repo
        self.cache = cache
        self.progress = progress

    def _readable(self, found: TreeFile, sides: list[ChangedRevision]) -> bool:
        """Whether a file is read (`readable`); a bad page is one on every side holding it."""
        try:
            return readable(found, sides[0].source(found.path))
        except InputError as error:
            for side in reversed(sides):  # the older first, as a listing finds them
                side.bad.add(found.path)
                named = page_folder(found.path) or found.path  # a page's, or a folder's
                side.problems.skip(_as_side(error, named, side))
            return False

    def read(
        self, files: list[tuple[TreeFile, list[ChangedRevision]]]
    ) -> Iterator[tuple[str, ChangedRevision, ParsedPage]]:
        """(path, side, page) of each file that is a page, for each side holding it (newest
        first); a bad page is a problem of each side holding it, the newer's first, as reading
        finds it (a file that is not read, the older's first, as listing finds it)."""
        readable = [(found, sides) for found, sides in files if self._readable(found, sides)]
        needed: dict[
            str, dict[bool, tuple[ChangedRevision, str]]
        ] = {}  # sha -> layout -> first place
        for found, sides in readable:
            if found.sha not in self.cache:
                layouts = needed.setdefault(found.sha, {})
                layouts.setdefault(is_catalogue_path(found.path), (sides[0], found.path))
        results: dict[tuple[str, bool], ParsedPage | InputError | None] = {}
        blobs = self.repo.read_blobs(needed, self._revision(needed), page_rules.MAX_PAGE_BYTES)
        for count, (sha, data) in enumerate(blobs, start=1):
            if count % _EVERY == 0:
                self.progress(f"{count:,} of {len(needed):,} pages read")
            for layout, (side, path) in needed[sha].items():
                results[(sha, layout)] = self._parse(sha, data, layout, side.source(path))
        for found, sides in readable:
            if found.sha in self.cache:
                for side in sides:
                    yield found.path, side, self.cache.get(found.sha, side.source(found.path))
                continue
            got = results[(found.sha, is_catalogue_path(found.path))]
            if isinstance(got, InputError):
                for side in sides:
                    side.bad.add(found.path)
                    side.problems.skip(_as_side(got, found.path, side))

    @staticmethod
    def _revision(
        needed: dict[str, dict[bool, tuple[ChangedRevision, str]]],
    ) -> Callable[[str], str]:
        """The revision a blob was asked for, to name it when the blob is missing."""
        return lambda sha: next(iter(needed[sha].values()))[0].rev.arg

    def _parse(
        self, sha: str, data: bytes | int, layout: bool, source: str
    ) -> ParsedPage | InputError | None:
        """The page, the error that makes it a bad page, or None when the file is not a page
        (`data` an int: too large to be read, the blob's size)."""
        try:
            if not is_page_content(data, layout, source):
                return None
            return self.cache.parse(PageBytes(source, data, sha))
        except InputError as error:
            return error
