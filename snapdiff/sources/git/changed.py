"""Two git revisions in O(changed): read only the files that differ, count the rest from tallies.

The tree diff (`git diff-tree -r --no-renames`) names every file whose blob or mode differs; those
blobs, of both sides, are read through one `git cat-file --batch` and parsed in full. Everything
else is the same on both sides, so a diff needs only its counts: they come, per unit (a tag
folder `_cache/<tag>`, or the rest of the revision), from the tally of either side less that
side's changed pages. A unit neither side has a tally of is counted once, from its unchanged
pages' `meta` lines, as every page was before. Then each side's tally (the unchanged part plus
that side's changed pages) is stored, when the side loaded without a problem.
"""

from __future__ import annotations

import dataclasses
import hashlib

from ...errors import InputError
from ...model import Snapshot
from ..pages import (
    is_candidate,
)
from ..snapshot import ONE_PAGE, PageCache, Problems, build_snapshot
from .reader import CATALOGUE, ChangedRevision, PageReader, Progress, notes_of, quiet, unit_of
from .repo import GitRepo, Revision, TreeEntry, TreeFile
from .tallies import UnitTally, total
from .tallycache import TallyCache

__all__ = ["MixedUnits", "Revisions"]


def _units(repo: GitRepo, side: ChangedRevision) -> None:
    """A tree's units, prefix -> id: `_cache/<tag>/` -> that folder's tree id, and "" -> the
    rest (an id of the entries it is made of: the top and `_cache` less the tag folders)."""
    tree = side.rev.tree
    top = repo.list_tree(tree)
    folder = next((e for e in top if e.name == CATALOGUE and e.kind == "tree"), None)
    if folder is None:
        side.units, side.rest = {"": tree}, [TreeEntry("", "tree", tree, "040000")]
        return
    side.rest = [e for e in top if e is not folder]
    for entry in repo.list_tree(folder.sha):
        name = f"{CATALOGUE}/{entry.name}"
        if entry.kind == "tree" and is_candidate(f"{name}/x"):
            side.units[f"{name}/"] = entry.sha
        else:
            side.rest.append(entry._replace(name=name))
    listing = "".join(f"{e.mode} {e.kind} {e.sha}\t{e.name}\0" for e in side.rest)
    digest = hashlib.sha1(listing.encode("utf-8", "surrogateescape"), usedforsecurity=False)
    side.units[""] = "rest-" + digest.hexdigest()


class MixedUnits(Exception):
    """A package's page twice in one tag, at least once on a counted page: only a whole listing
    says which one is the second page (and leaves it out), so the caller reads both trees so."""


class _Counted:
    """The content both sides hold alike, unit by unit: its tally, and whether it is clean (no
    bad page in it, so that tallies built on it may be kept)."""

    def __init__(self) -> None:
        self.units: dict[str, UnitTally] = {}
        self.clean: dict[str, bool] = {}

    def check_apart_from(self, side: ChangedRevision) -> None:
        """MixedUnits when a changed page's package is also on a counted page: which of the two
        is the second page (and is left out) follows their paths, as a whole reading says."""
        for parsed in side.pages.values():
            page = parsed.page
            if any(tally.path_of(page.tag, page.name) for tally in self.units.values()):
                raise MixedUnits

    def check_apart(self) -> None:
        """MixedUnits when two units hold a page of the same (tag, name): a unit is a tag
        folder, so in a catalogue the units' tags never meet, and this costs nothing."""
        tallies = list(self.units.values())
        for number, one in enumerate(tallies):
            for other in tallies[number + 1 :]:
                if one.pages.keys() & other.pages.keys() and one.names.keys() & other.names.keys():
                    raise MixedUnits


class Revisions:
    """Two revisions of one repository, loaded in O(changed)."""

    def __init__(
        self,
        repo: GitRepo,
        tallies: TallyCache,
        pages: PageCache,
        keep_going: bool = False,
        progress: Progress = quiet,
    ) -> None:
        self.repo = repo
        self.tallies = tallies
        self.reader = PageReader(repo, pages, progress)
        self.keep_going = keep_going
        self._units: dict[str, tuple[dict[str, str], list[TreeEntry]]] = {}  # by tree id
        self._parsed: dict[str, str] = {}  # path -> blob id of the newest version parsed

    def _side(self, rev: Revision) -> ChangedRevision:
        side = ChangedRevision(rev, Problems(self.keep_going))
        if rev.tree not in self._units:
            _units(self.repo, side)
            self._units[rev.tree] = side.units, side.rest
        side.units, side.rest = self._units[rev.tree]
        return side

    def load(self, older: Revision, newer: Revision) -> tuple[Snapshot, Snapshot]:
        """Both snapshots: the changed pages in full, the rest as counts."""
        old, new = self._side(older), self._side(newer)
        changed = self.repo.changed_files(old.rev.tree, new.rev.tree)
        files = [(c.new, [new]) for c in changed if c.new is not None]
        files += [(c.old, [old]) for c in changed if c.old is not None]
        for path, side, parsed in self.reader.read(files):
            side.pages[path] = parsed
        counted = _Counted()
        paths = {c.path for c in changed}
        unread = [
            prefix
            for prefix in sorted(old.units.keys() | new.units.keys())
            if not self._count(prefix, old, new, counted)
        ]
        listings = {prefix: self._files(prefix, new) for prefix in unread}
        # what they are counted from, fetched in one batch when a partial clone lacks it
        self.repo.partial.fetch_missing(
            [f.sha for found in listings.values() for f in found if _unchanged_read(f, paths)],
            new.rev.arg,
        )
        for prefix in unread:
            counted.units[prefix], counted.clean[prefix] = self._read_unchanged(
                prefix, listings[prefix], old, new, paths
            )
        counted.check_apart()
        for side in (old, new):
            counted.check_apart_from(side)
        built = self._snapshot(new, counted, True)  # the newer first, as a whole reading
        old_snapshot, new_snapshot = self._snapshot(old, counted, False), built
        self._keep(old, new, counted)
        # what a later step may read again: the newer side's version of every page parsed so
        # far (a history: a page that changes twice is parsed once between), never more than
        # one revision's pages
        for found in changed:
            kept = new.pages.get(found.path)
            if kept is None:
                self._parsed.pop(found.path, None)
            else:
                self._parsed[found.path] = kept.page.digest
        self.reader.cache.keep(set(self._parsed.values()))
        self.tallies.keep(set(new.units.values()))  # the next step starts from the newer side
        return old_snapshot, new_snapshot

    def _count(
        self, prefix: str, old: ChangedRevision, new: ChangedRevision, counted: _Counted
    ) -> bool:
        """The tally of a unit's content both sides hold alike, when no page of it need be
        read for it (a unit one side lacks, or a tally of either side); False otherwise."""
        ids = old.units.get(prefix), new.units.get(prefix)
        if ids[0] is None or ids[1] is None:  # a unit one side lacks: all of it changed
            counted.units[prefix], counted.clean[prefix] = UnitTally(), True
            return True
        for side, unit in ((old, ids[0]), (new, ids[1])):
            base = self.tallies.get(unit)
            if base is not None and not any(unit_of(p, side.units) == prefix for p in side.bad):
                found = _less(base, side, prefix)
                if found is not None:
                    counted.units[prefix], counted.clean[prefix] = found, True
                    return True
        return False

    def _read_unchanged(
        self,
        prefix: str,
        listing: list[TreeFile],
        old: ChangedRevision,
        new: ChangedRevision,
        changed: set[str],
    ) -> tuple[UnitTally, bool]:
        """Count a unit's unchanged pages (`listing`: its files, with their paths in the
        revision) from their `meta` lines (as the new side's)."""
        files = [(f, [new, old]) for f in listing if f.path not in changed]
        shared = {f.sha for f, _ in files}
        counter = PageReader(self.repo, PageCache(shared), self.reader.progress)
        tally, clean = UnitTally(), True
        problems = len(old.problems.skipped), len(new.problems.skipped)
        for path, side, parsed in counter.read(files):
            if side is not new:
                continue
            page = parsed.page
            first = tally.path_of(page.tag, page.name)
            if first is not None:  # a package twice in one tag
                what = f"second page for {page.name} under tag {page.tag} (first: "
                for each in (new, old):
                    each.problems.skip(
                        InputError(
                            each.source(path),
                            what + each.source(prefix + first) + ")",
                            ONE_PAGE,
                        )
                    )
                clean = False
                continue
            tally.add(path[len(prefix) :], page, notes_of(parsed))
        clean = clean and problems == (len(old.problems.skipped), len(new.problems.skipped))
        return tally, clean

    def _files(self, prefix: str, side: ChangedRevision) -> list[TreeFile]:
        """Every file of a unit, with its path in the revision."""
        if prefix:
            listed = self.repo.list_files(side.units[prefix])
            return [f._replace(path=prefix + f.path) for f in listed]
        found = []
        for entry in side.rest:
            if entry.kind == "tree":
                below = f"{entry.name}/" if entry.name else ""
                found += [f._replace(path=below + f.path) for f in self.repo.list_files(entry.sha)]
            elif entry.kind == "blob" and entry.mode in ("100644", "100755", "120000"):
                found.append(TreeFile(entry.name, entry.sha, -1, entry.mode == "120000"))
        return sorted(found)

    def _snapshot(self, side: ChangedRevision, counted: _Counted, newer: bool) -> Snapshot:
        """A side's snapshot: its changed pages, and the counted content (named as its own;
        its warnings are the newer side's, as a diff reports them once)."""
        warnings = []
        for prefix, tally in counted.units.items() if newer else ():
            for path, notes in tally.notes.items():
                warnings += [f"{side.source(prefix + path)}: {note}" for note in notes]
        rest = total(counted.units.values())
        parsed = [side.pages[path] for path in sorted(side.pages)]
        rev = side.rev
        snapshot = build_snapshot(
            rev.arg, parsed, side.problems, rev.commit, rev.date, rest, rev.subject
        )
        return dataclasses.replace(snapshot, warnings=(*snapshot.warnings, *warnings))

    def _keep(self, old: ChangedRevision, new: ChangedRevision, counted: _Counted) -> None:
        """Store each side's tally of every unit it has none of, when it loaded cleanly."""
        for side in (old, new):
            if side.problems.skipped:
                continue
            for prefix, unit in side.units.items():
                if not counted.clean[prefix] or self.tallies.get(unit) is not None:
                    continue
                tally = counted.units[prefix].copy()
                for path, parsed in side.in_unit(prefix):
                    tally.add(path, parsed.page, notes_of(parsed))
                self.tallies.put(unit, tally)


def _unchanged_read(found: TreeFile, changed: set[str]) -> bool:
    """Whether a unit's file is read to count it: unchanged, and read as `readable` says (its
    size aside, which a partial clone does not know before the blob is there)."""
    return found.path not in changed and is_candidate(found.path) and not found.link


def _less(base: UnitTally, side: ChangedRevision, prefix: str) -> UnitTally | None:
    """A unit's tally less the side's changed pages in it: the part both sides hold alike; None
    when the tally does not hold those pages as they are (it is then not used)."""
    tally = base.copy()
    for path, parsed in side.in_unit(prefix):
        if not tally.remove(path, parsed.page):
            return None
    return tally
