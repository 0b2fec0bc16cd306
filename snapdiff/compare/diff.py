"""Match two snapshots by (tag, hash) and classify every change (SPEC section 2)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from ..errors import UsageError, printable
from ..forked import Told
from ..model import Filters, Page, Snapshot
from ..report import PackageChange, Rebuilds, Report, Side, StackChange, Summary
from .builtas import next_diff
from .coverage import stack_coverage
from .downgrades import with_downgrade_causes
from .environments import environment_changes
from .filters import apply_filters, check_filters, in_question
from .package import Asked, Key, Moves, package_change, page_entries
from .rebuilds import narrow_rebuilds, rebuild_causes
from .scheme import rebuild_scheme

if TYPE_CHECKING:
    from .causesapart import CausesApart

__all__ = ["diff_snapshots"]


def _relabel(pages: Mapping[Key, Page], tag: str) -> dict[Key, Page]:
    """Release to release: the single tag of a side becomes a label, not part of identity."""
    return {(tag, name): page for (_, name), page in pages.items()}


def _leftovers(
    one: Mapping[Key, Page], other: Mapping[Key, Page], keys: Iterable[Key]
) -> dict[Key, set[str]]:
    """The hashes of each page that its counterpart on the other side lacks: candidates for a
    move (set algebra on the pages' hashes, no work per spec in Python)."""
    found: dict[Key, set[str]] = {}
    for key in keys:
        page, counterpart = one.get(key), other.get(key)
        if page is None:
            continue
        there = page_entries(counterpart).hashes() if counterpart is not None else ()
        if hashes := page_entries(page).hashes() - there:
            found[key] = hashes
    return found


def _by_tag(leftovers: Mapping[Key, set[str]]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for (tag, _), hashes in leftovers.items():
        found.setdefault(tag, set()).update(hashes)
    return found


def _moved(
    pages: Mapping[Key, Page], here: Mapping[Key, set[str]], there: Mapping[str, set[str]]
) -> Moves:
    """The specs of `here` (by page) that `there` holds too (by tag), each with its page's name
    and entry (a hash left over on two pages of a tag: the later page's)."""
    found: Moves = {}
    for key, hashes in here.items():
        entries = page_entries(pages[key])
        for digest in hashes.intersection(there.get(key[0], ())):
            found[(key[0], digest)] = (key[1], entries[digest])
    return found


def _known(old: Snapshot, new: Snapshot) -> tuple[Snapshot, Snapshot]:
    """The sides without the pages left out (bad, with --keep-going) on either side."""
    unknown = old.skipped_keys | new.skipped_keys
    if not unknown:
        return old, new
    old, new = (
        dataclasses.replace(side, pages={k: p for k, p in side.pages.items() if k not in unknown})
        for side in (old, new)
    )
    return old, new


def _packages(
    old: Mapping[Key, Page],
    new: Mapping[Key, Page],
    differing: list[Key],
    describe: bool,
    asked: Asked,
) -> Callable[[Sequence[Key]], list[PackageChange]]:
    """Given some of the packages whose page content differs, their changes in order (a page
    that differs only as bytes gives none), a spec that moved between pages of a tag being
    changed, not added and removed."""
    left, joined = _leftovers(old, new, differing), _leftovers(new, old, differing)
    moves = _moved(old, left, _by_tag(joined)), _moved(new, joined, _by_tag(left))

    def changes(keys: Sequence[Key]) -> list[PackageChange]:
        found = []
        for key in keys:
            change = package_change(key, old.get(key), new.get(key), moves, describe, asked)
            if change is not None:
                found.append(change)
        return found

    return changes


def _summary(packages: list[PackageChange], stacks: list[StackChange]) -> Summary:
    status = Counter(p.status for p in packages)
    bumps = Counter(p.bump.kind for p in packages if p.bump)
    stack_status = Counter(s.status for s in stacks)
    return Summary(
        packages_added=status["added"],
        packages_removed=status["removed"],
        packages_changed=status["changed"],
        specs_added=sum(len(p.specs_added) for p in packages),
        specs_removed=sum(len(p.specs_removed) for p in packages),
        specs_changed=len({(p.tag, c.hash) for p in packages for c in p.specs_changed}),
        version_bumps=bumps["upgrade"],
        version_downgrades=bumps["downgrade"],
        specs_rebuilt=sum(p.rebuilt for p in packages),
        stacks_added=stack_status["added"],
        stacks_removed=stack_status["removed"],
        stacks_changed=stack_status["changed"],
    )


class _Rebuilds:
    """Why specs were rebuilt, when both sides carry a dependency graph (SPEC section 6):
    worked out at once, or with `jobs` of 2 or more in a forked child until `joined()`."""

    def __init__(
        self, old: Snapshot, new: Snapshot, jobs: int, told: Told, started: CausesApart | None
    ) -> None:
        self.source = new.source
        self.apart: CausesApart | None = None
        self.found: tuple[Rebuilds, tuple[str, ...]] | None = None
        if old.graph is None or new.graph is None:
            if started:
                started.cancel()  # started for other sides, if at all
            return
        if jobs < 2 and started is None:
            self.found = rebuild_causes(old.graph, new.graph)
            return
        from .causesapart import CausesApart  # msgspec and a fork: only when asked

        self.apart = started or CausesApart(told)
        self.apart.start(old.graph, new.graph)  # unless started for these graphs already

    def joined(self) -> tuple[Rebuilds | None, tuple[str, ...]]:
        found = self.apart.join() if self.apart else self.found
        if found is None:
            return None, ()
        return found[0], tuple(f"{self.source}: {note}" for note in found[1])

    def cancel(self) -> None:
        if self.apart:
            self.apart.cancel()


def _ignored(_: str) -> None:
    """Where a child's failure goes when the caller gives nowhere: the work is redone here."""


def _side(snapshot: Snapshot, stacks: int) -> Side:
    """What the report says of one input: an environment's tags are its names, not cache tags
    (SPEC section 7: none)."""
    kind: Literal["catalogue", "build cache", "environment"] = "catalogue"
    if snapshot.environments:
        kind = "environment"
    elif snapshot.graph is not None:
        kind = "build cache"
    return Side(
        printable(snapshot.source),
        () if snapshot.environments else snapshot.tags,
        snapshot.page_count,
        snapshot.spec_count,
        stacks,
        snapshot.commit,
        snapshot.date,
        kind,
    )


def diff_snapshots(
    old: Snapshot,
    new: Snapshot,
    filters: Filters | None = None,
    describe: bool = True,
    jobs: int = 1,
    told: Told = _ignored,
    started: CausesApart | None = None,
) -> Report:
    """Compare two snapshots (narrowed by the filters): every package, spec and stack changed.

    describe=False leaves out the explanations (`changes`, `kept`); rebuilt specs still count,
    and stack moves are still found. With `jobs` of 2 or more, the causes of rebuilds are
    worked out in a forked child while the pages are compared (`told` hears why, if that child
    failed and the work was done here after all); the report is the same bytes either way.
    `started`: that child, started already (the command starts it as soon as both graphs are
    read, through `LoadOptions.graphs`, so that it works while NEW's pages are built).
    """
    if not old.pairs_with(new):
        raise UsageError(
            f"{old.source} and {new.source}",
            "not a pair: content read only for its counts differs between the sides",
            "load both sides together with load_pair, or each with load_snapshot",
        )
    filters = filters or Filters()
    if filters.applied:
        check_filters(old, new, filters)
    next_diff()
    causes = _Rebuilds(
        old, new, jobs, told, started
    )  # on the whole graph: causes lie outside the filters
    try:
        return _report(old, new, filters, describe, causes)
    finally:
        causes.cancel()  # an error or an interrupt while the child works


def _narrowed(rebuilds: Rebuilds | None, new: Snapshot, filters: Filters) -> Rebuilds | None:
    """The causes of the specs the filters keep in `new` (filtered): the walk ran on the whole
    graph."""
    if rebuilds is None or not filters.applied or new.graph is None:
        return rebuilds
    kept = {digest for page in new.pages.values() for digest in page_entries(page)}
    return narrow_rebuilds(rebuilds, kept.__contains__, new.graph)


def _report(
    old: Snapshot, new: Snapshot, filters: Filters, describe: bool, causes: _Rebuilds
) -> Report:
    whole = (old, new, old.pages if not old.release_to(new) else _relabel(old.pages, new.tags[0]))
    old, new = apply_filters(old, filters), apply_filters(new, filters)
    filtered = new
    old, new = _known(old, new)
    old_pages: Mapping[Key, Page] = old.pages
    if old is whole[0] and new is whole[1]:  # no filter and no page left out: relabelled once
        old_pages = whole[2]
    elif old.release_to(new):
        old_pages = _relabel(old.pages, new.tags[0])
    new_pages = new.pages
    differing = [
        key
        for key in sorted(old_pages.keys() | new_pages.keys())
        if key not in old_pages
        or key not in new_pages
        or old_pages[key].digest != new_pages[key].digest
    ]
    changes = _packages(old_pages, new_pages, differing, describe, in_question(filters))
    packages = changes(differing)
    stacks = stack_coverage(old_pages, new_pages, differing, new.rest)
    packages = with_downgrade_causes(packages, old_pages, stacks.changes)
    summary = _summary(packages, stacks.changes)
    rebuilds, notes = causes.joined()
    if rebuilds is not None:
        rebuilds = dataclasses.replace(rebuilds, scheme=rebuild_scheme(old, new))
    # what the reports carry of paths and page data, on one line and valid UTF-8
    warnings = tuple(sorted({printable(w) for w in (*old.warnings, *new.warnings, *notes)}))
    return Report(
        _side(old, stacks.stacks_old),
        _side(new, stacks.stacks_new),
        summary,
        tuple(packages),
        tuple(stacks.changes),
        stack_moves=tuple(stacks.moves),
        root=tuple(stacks.root),
        warnings=warnings,
        filters=filters,
        skipped=tuple(sorted({printable(s) for s in (*old.skipped, *new.skipped)})),
        rebuilds=_narrowed(rebuilds, filtered, filters),
        environments=environment_changes(*whole, packages),
    )
