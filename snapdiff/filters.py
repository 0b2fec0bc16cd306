"""Narrow snapshots to the specs matching --package, --tag, --stack, --os, --target, --compiler."""

from __future__ import annotations

import dataclasses
from fnmatch import fnmatchcase

from .model import Entry, Filters, Page, Snapshot, compiler_of

__all__ = ["apply_filters"]


def _matches(value: str, globs: tuple[str, ...]) -> bool:
    return not globs or any(fnmatchcase(value, glob) for glob in globs)


def _keeps(entry: Entry, filters: Filters) -> bool:
    """Whether one spec passes the filters that look inside pages."""
    return (
        (not filters.stack or any(_matches(s, filters.stack) for s in entry["stacks"]))
        and _matches(entry.get("os", ""), filters.os)
        and _matches(entry.get("target", ""), filters.target)
        and _matches(compiler_of(entry), filters.compiler)
    )


def _narrow(page: Page, filters: Filters) -> Page | None:
    """The page with only the specs that pass, or None when none does."""
    if page.entries is None:
        raise AssertionError(f"{page.source}: per-spec filters need every page read in full")
    kept = [digest for digest, entry in page.entries.items() if _keeps(entry, filters)]
    if not kept:
        return None
    if len(kept) == len(page.entries):
        return page
    entries = page.entries.subset(kept)
    # the digest stays: equal original content still means equal narrowed content
    return dataclasses.replace(
        page, entries=entries, spec_count=len(entries), stack_counts=entries.counts
    )


def apply_filters(snapshot: Snapshot, filters: Filters) -> Snapshot:
    """The snapshot as if its pages held only the matching specs (same as pre-filtered input)."""
    if not filters.applied:
        return snapshot
    pages = {}
    for (tag, name), page in snapshot.pages.items():
        if not (_matches(tag, filters.tag) and _matches(name, filters.package)):
            continue
        narrowed = _narrow(page, filters) if filters.per_spec else page
        if narrowed is not None:
            pages[(tag, name)] = narrowed
    return dataclasses.replace(snapshot, pages=pages)
