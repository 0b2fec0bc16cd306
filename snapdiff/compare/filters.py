"""Narrow snapshots to the specs matching --package, --tag, --stack, --os, --target, --compiler."""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from fnmatch import fnmatchcase

from ..errors import UsageError
from ..model import Entry, Filters, Page, Snapshot, normal_compiler

__all__ = ["apply_filters", "check_filters", "every_stack", "in_question"]


def _matches(value: str, globs: tuple[str, ...]) -> bool:
    return not globs or any(fnmatchcase(value, glob) for glob in globs)


def _keeps(entry: Entry, filters: Filters) -> bool:
    """Whether one spec passes the filters that look inside pages."""
    return (
        (not filters.stack or any(_matches(s, filters.stack) for s in entry.stacks))
        and _matches(entry.os, filters.os)
        and _matches(entry.target, filters.target)
        and _matches(normal_compiler(entry.compiler), filters.compiler)
    )


def every_stack(stack: str) -> bool:
    """Without --stack every stack is in question (a diff then leaves stacks as read)."""
    return True


def in_question(filters: Filters) -> Callable[[str], bool]:
    """Whether a stack is one the filters ask about: with --stack, only the matching ones (the
    other stacks the kept specs belong to are outside the question); else every stack."""
    if not filters.stack:
        return every_stack
    return lambda stack: _matches(stack, filters.stack)


def _narrow(page: Page, filters: Filters) -> Page | None:
    """The page with only the specs that pass, or None when none does; with --stack, its stack
    counts only of the stacks asked about."""
    if page.entries is None:
        raise UsageError(
            page.source,
            "per-spec filters need every page read in full",
            "load the sides with load_pair(old, new, options, filters)",
        )
    kept = [digest for digest, entry in page.entries.items() if _keeps(entry, filters)]
    if not kept:
        return None
    entries = page.entries if len(kept) == len(page.entries) else page.entries.subset(kept)
    asked = in_question(filters)
    counts = tuple((stack, n) for stack, n in entries.counts if asked(stack))
    compiled = tuple((stack, n) for stack, n in entries.compiled if asked(stack))
    if entries is page.entries and counts == page.stack_counts:
        return page
    # the digest stays: equal original content still means equal narrowed content
    return dataclasses.replace(
        page,
        entries=entries,
        spec_count=len(entries),
        stack_counts=counts,
        compiled_counts=compiled,
    )


def _values(name: str, sides: tuple[Snapshot, Snapshot]) -> set[str]:
    """Every value one of the snapshots holds for a filter."""
    pages = [page for side in sides for page in side.pages.values()]
    if name in ("package", "tag"):
        return {page.name if name == "package" else page.tag for page in pages}
    if name == "stack":
        return {stack for page in pages for stack, _ in page.stack_counts}
    return {
        str(getattr(config, name))
        for page in pages
        if page.entries is not None
        for config in page.entries.versions_by_configuration()
    }


def _every_page_held(snapshot: Snapshot) -> None:
    """Filters need every page by name: refuse a snapshot holding some only as counts."""
    if snapshot.rest.page_count:
        what = "filters need every page, and this snapshot holds some only as counts"
        fix = "load the pair for them: load_pair(old, new, options, filters)"
        raise UsageError(snapshot.source, what, fix)


def check_filters(old: Snapshot, new: Snapshot, filters: Filters) -> None:
    """Refuse a glob that matches nothing either snapshot holds: a typo would otherwise pass
    every gate, comparing nothing with nothing. Filters need every page by name, so snapshots
    that hold pages only as counts are refused first."""
    for side in (old, new):
        _every_page_held(side)
    for name, globs in filters.applied:
        values = _values(name, (old, new))
        for glob in globs:
            if not any(fnmatchcase(value, glob) for value in values):
                close = difflib.get_close_matches(glob, sorted(values), n=1)
                fix = f"did you mean {close[0]}?" if close else "check the value"
                raise UsageError(f"--{name} {glob}", "matches no spec", fix)


def apply_filters(snapshot: Snapshot, filters: Filters) -> Snapshot:
    """The snapshot as if its pages held only the matching specs (same as pre-filtered input)."""
    if not filters.applied:
        return snapshot
    _every_page_held(snapshot)
    pages = {}
    for (tag, name), page in snapshot.pages.items():
        if not (_matches(tag, filters.tag) and _matches(name, filters.package)):
            continue
        narrowed = _narrow(page, filters) if filters.per_spec else page
        if narrowed is not None:
            pages[(tag, name)] = narrowed
    return dataclasses.replace(snapshot, pages=pages)
