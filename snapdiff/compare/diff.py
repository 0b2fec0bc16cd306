"""Match two snapshots by (tag, hash) and classify every change (SPEC section 2)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from ..errors import printable
from ..model import Entry, Filters, Page, PageEntries, Snapshot, Spec, written_as
from ..report import (
    Bump,
    BumpKind,
    FieldChange,
    PackageChange,
    Report,
    Sentence,
    Side,
    SpecChange,
    StackChange,
    Summary,
)
from ..sources.entries import Entries
from ..versions import bump_kind, sort_versions, version_key
from .coverage import stack_coverage
from .explain import Explanation, describe_fields, explain, rebuilt_count
from .filters import apply_filters, check_filters, in_question

__all__ = ["diff_snapshots"]

Key = tuple[str, str]  # (tag, name)
# (tag, hash) -> (package name, entry): specs that left or joined a page whose content differs
Moves = dict[Key, tuple[str, Entry]]
_COMPARED_FIELDS = tuple(f for f in Spec._fields if f not in ("hash", "stacks"))


def _relabel(pages: Mapping[Key, Page], tag: str) -> dict[Key, Page]:
    """Release to release: the single tag of a side becomes a label, not part of identity."""
    return {(tag, name): page for (_, name), page in pages.items()}


_NO_ENTRIES = Entries.from_read({}, "")


def _entries(page: Page | None) -> PageEntries:
    """The entries of a page whose content differs between the sides (loaders keep those)."""
    if page is None:
        return _NO_ENTRIES
    if page.entries is None:
        raise AssertionError(f"{page.source}: content differs but only its counts were read")
    return page.entries


def _leftovers(
    one: Mapping[Key, Page], other: Mapping[Key, Page], keys: Iterable[Key]
) -> dict[Key, Key]:
    """Specs of a page that its counterpart on the other side lacks, (tag, hash) -> the page's
    (tag, name): candidates for a move."""
    found: dict[Key, Key] = {}
    for key in keys:
        tag = key[0]
        hashes = _entries(one.get(key)).hashes() - _entries(other.get(key)).hashes()
        found.update(((tag, digest), key) for digest in hashes)
    return found


def _moved(pages: Mapping[Key, Page], here: dict[Key, Key], there: dict[Key, Key]) -> Moves:
    """The specs of `here` that `there` holds too, each with its page's name and entry."""
    return {
        spec: (page[1], _entries(pages[page])[spec[1]])
        for spec, page in here.items()
        if spec in there
    }


Asked = Callable[[str], bool]  # whether a stack is one the filters ask about


def _spec_change(
    old_name: str, old: Entry, new_name: str, new: Entry, asked: Asked
) -> SpecChange | None:
    """How one hash differs between the sides (in the stacks asked about), or None."""
    if old == new and old_name == new_name:
        return None  # the same entry as read: nothing to normalise
    before, after = Spec.from_entry(old), Spec.from_entry(new)
    before = before._replace(stacks=tuple(s for s in before.stacks if asked(s)))
    after = after._replace(stacks=tuple(s for s in after.stacks if asked(s)))
    if before == after and old_name == new_name:
        return None
    fields = [
        FieldChange(name, getattr(before, name), getattr(after, name))
        for name in _COMPARED_FIELDS
        if getattr(before, name) != getattr(after, name)
    ]
    details = describe_fields(before, after, _written(old, new)) if fields else ()
    if old_name != new_name:
        fields.insert(0, FieldChange("package", old_name, new_name))
        details = (Sentence("package: {} → {}", (old_name, new_name)), *details)
    old_stacks, new_stacks = set(before.stacks), set(after.stacks)
    return SpecChange(
        after.hash,
        tuple(sorted(new_stacks - old_stacks)),
        tuple(sorted(old_stacks - new_stacks)),
        tuple(fields),
        details,
    )


def _written(*entries: Entry) -> dict[str, str]:
    """How these records write their compilers and variants, the later one's way first."""
    found: dict[str, str] = {}
    for entry in entries:
        found |= written_as([str(entry.get("compiler", ""))], entry.get("variants", ()))
    return found


def _bump(old_versions: list[str], new_versions: list[str]) -> Bump | None:
    """The change of the highest version, when both sides have one and it moved."""
    if not old_versions or not new_versions:
        return None
    old, new = old_versions[-1], new_versions[-1]
    old_key, new_key = version_key(old), version_key(new)
    if old_key == new_key:
        return None
    kind: BumpKind = "upgrade" if new_key > old_key else "downgrade"
    return Bump(old, new, kind, bump_kind(old, new))


def _package_change(
    key: Key,
    old: Page | None,
    new: Page | None,
    moved_from: Moves,
    moved_to: Moves,
    describe: bool = True,
    asked: Asked = lambda _: True,
) -> PackageChange | None:
    """The change of one package whose page content differs, or None if it is only byte noise.

    A hash that left one page of a tag and joined another is the same spec, changed (its
    `package` field), and is reported as changed by both packages.
    """
    tag, name = key
    old_entries, new_entries = _entries(old), _entries(new)
    added, changed = [], []
    for digest in new_entries.differing(old_entries):  # entries equal as read are equal
        if digest not in old_entries:
            came = moved_from.get((tag, digest))
            if came is None:
                added.append(digest)
            elif (change := _spec_change(*came, name, new_entries[digest], asked)) is not None:
                changed.append(change)
        else:
            change = _spec_change(name, old_entries[digest], name, new_entries[digest], asked)
            if change is not None:
                changed.append(change)
    removed = []
    for digest in old_entries.differing(new_entries):
        if digest not in new_entries:
            went = moved_to.get((tag, digest))
            if went is None:
                removed.append(digest)
            elif (change := _spec_change(name, old_entries[digest], *went, asked)) is not None:
                changed.append(change)
    changed.sort(key=lambda c: c.hash)
    if old is not None and new is not None and not (added or removed or changed):
        return None
    removed_entries = [old_entries[h] for h in removed]
    added_entries = [new_entries[h] for h in added]
    explained = (
        explain(
            list(map(Spec.from_entry, removed_entries)),
            list(map(Spec.from_entry, added_entries)),
            old_entries,
            new_entries,
            changed,
        )
        if describe
        else Explanation()
    )
    old_set, new_set = old_entries.versions, new_entries.versions
    versions_old, versions_new = sort_versions(old_set), sort_versions(new_set)
    stacks_old = {s for s in old_entries.stacks if asked(s)}
    stacks_new = {s for s in new_entries.stacks if asked(s)}
    return PackageChange(
        tag=tag,
        name=name,
        status="added" if old is None else "removed" if new is None else "changed",
        versions_old=tuple(versions_old),
        versions_new=tuple(versions_new),
        versions_added=tuple(v for v in versions_new if v not in old_set),
        versions_removed=tuple(v for v in versions_old if v not in new_set),
        bump=_bump(versions_old, versions_new) if old and new else None,
        specs_added=tuple(added),
        specs_removed=tuple(removed),
        specs_changed=tuple(changed),
        stacks_added=tuple(sorted(stacks_new - stacks_old)),
        stacks_removed=tuple(sorted(stacks_old - stacks_new)),
        changes=explained.changes,
        kept=explained.kept,
        rebuilt=rebuilt_count(removed_entries, added_entries),
        spellings=explained.spellings,
        # variant values of a package on both sides (one added or removed has every value new)
        variants_added=explained.variants_added if old and new else (),
        variants_removed=explained.variants_removed if old and new else (),
    )


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


def _side(snapshot: Snapshot, stacks: int) -> Side:
    return Side(
        printable(snapshot.source),
        snapshot.tags,
        snapshot.page_count,
        snapshot.spec_count,
        stacks,
        snapshot.commit,
        snapshot.date,
    )


def diff_snapshots(
    old: Snapshot, new: Snapshot, filters: Filters | None = None, describe: bool = True
) -> Report:
    """Compare two snapshots (narrowed by the filters): every package, spec and stack changed.

    describe=False leaves out the explanations (`changes`, `kept`); rebuilt specs still count,
    and stack moves are still found.
    """
    filters = filters or Filters()
    if filters.applied:
        check_filters(old, new, filters)
    old, new = apply_filters(old, filters), apply_filters(new, filters)
    unknown = old.skipped_keys | new.skipped_keys  # a page left out on either side
    if unknown:
        old, new = (
            dataclasses.replace(
                side, pages={k: p for k, p in side.pages.items() if k not in unknown}
            )
            for side in (old, new)
        )
    old_pages: Mapping[Key, Page] = old.pages
    if old.release_to(new):
        old_pages = _relabel(old.pages, new.tags[0])
    new_pages = new.pages
    differing = [
        key
        for key in sorted(old_pages.keys() | new_pages.keys())
        if key not in old_pages
        or key not in new_pages
        or old_pages[key].digest != new_pages[key].digest
    ]
    left = _leftovers(old_pages, new_pages, differing)
    joined = _leftovers(new_pages, old_pages, differing)
    moved_from, moved_to = _moved(old_pages, left, joined), _moved(new_pages, joined, left)
    packages = []
    for key in differing:
        change = _package_change(
            key,
            old_pages.get(key),
            new_pages.get(key),
            moved_from,
            moved_to,
            describe,
            in_question(filters),
        )
        if change is not None:
            packages.append(change)
    if old.rest != new.rest:
        raise AssertionError("the sides of a pair hold different counted-only content")
    stacks = stack_coverage(old_pages, new_pages, differing, new.rest)
    # what the reports carry of paths and page data, on one line and valid UTF-8
    warnings = tuple(sorted({printable(w) for w in (*old.warnings, *new.warnings)}))
    summary = _summary(packages, stacks.changes)
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
    )
