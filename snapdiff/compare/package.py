"""One package's change between the sides: its specs added, removed and changed (matched by
hash, a spec that moved between pages included), its versions, stacks and explanations."""

from __future__ import annotations

import json
from collections.abc import Callable

from ..errors import UsageError
from ..model import Entry, Page, PageEntries, Spec, written_as
from ..report import FieldChange, PackageChange, Sentence, SideName, SpecChange
from ..versions import Bump, BumpKind, bump_kind, sort_versions, version_key
from .builtas import built_of, rebuilt_count
from .explain import Explanation, describe_fields, explain
from .filters import every_stack

__all__ = ["Asked", "Key", "Moves", "package_change", "page_entries"]

Key = tuple[str, str]  # (tag, name)
# (tag, hash) -> (package name, entry): specs that left or joined a page whose content differs
Moves = dict[Key, tuple[str, Entry]]
Asked = Callable[[str], bool]  # whether a stack is one the filters ask about
# compared by name; `extra`, the keys the generator does not write, each as a field of its own
_COMPARED_FIELDS = tuple(f for f in Spec._fields if f not in ("hash", "stacks", "extra"))


def page_entries(page: Page) -> PageEntries:
    """The entries of a page whose content differs between the sides (loaders keep those)."""
    if page.entries is None:
        raise UsageError(
            page.source,
            "content differs but only its counts were read",
            "load both sides together with load_pair",
        )
    return page.entries


def _sides(old: Page | None, new: Page | None) -> tuple[PageEntries, PageEntries]:
    """A package's entries on each side; where its page is missing, none (the other side's
    entries, none of them kept)."""
    if old is not None and new is not None:
        return page_entries(old), page_entries(new)
    if new is not None:
        return page_entries(new).subset(()), page_entries(new)
    if old is not None:
        return page_entries(old), page_entries(old).subset(())
    raise AssertionError("a package changed without a page on either side")


def _spec_change(
    old_name: str, old: Entry, new_name: str, new: Entry, asked: Asked
) -> SpecChange | None:
    """How one hash differs between the sides (in the stacks asked about), or None."""
    if old == new and old_name == new_name:
        return None  # the same entry as read: nothing to normalise
    before, after = Spec.from_entry(old), Spec.from_entry(new)
    if asked is not every_stack:
        before = before._replace(stacks=tuple(s for s in before.stacks if asked(s)))
        after = after._replace(stacks=tuple(s for s in after.stacks if asked(s)))
    if before == after and old_name == new_name:
        return None
    fields = [
        FieldChange(name, getattr(before, name), getattr(after, name))
        for name in _COMPARED_FIELDS
        if getattr(before, name) != getattr(after, name)
    ]
    fields += _other_fields(before.extra, after.extra)
    details = describe_fields(before, after, _written(old, new)) if fields else ()
    if old_name != new_name:  # the move is `package` (a page's own key so named: in the details)
        moved = FieldChange("package", old_name, new_name)
        fields = [moved, *(f for f in fields if f.name != "package")]
        details = (Sentence("package: {} → {}", (old_name, new_name)), *details)
    old_stacks, new_stacks = set(before.stacks), set(after.stacks)
    return SpecChange(
        after.hash,
        tuple(sorted(new_stacks - old_stacks)),
        tuple(sorted(old_stacks - new_stacks)),
        tuple(fields),
        details,
    )


def _other_fields(
    old: tuple[tuple[str, str], ...], new: tuple[tuple[str, str], ...]
) -> list[FieldChange]:
    """Each key the generator does not write that differs, by its own name, its values as the
    page holds them (`None`, JSON's null, on a side without it, which `missing` names)."""
    was, now = dict(old), dict(new)
    found = []
    for key in sorted(was.keys() | now.keys()):
        before, after = was.get(key), now.get(key)  # canonical JSON text, or None
        if before != after:
            was_value, now_value = (json.loads(t) if t else None for t in (before, after))
            missing: SideName | None = None
            if before is None:
                missing = "old"
            elif after is None:
                missing = "new"
            found.append(FieldChange(key, was_value, now_value, missing))
    return found


def _written(*entries: Entry) -> dict[str, str]:
    """How these records write their compilers and variants, the later one's way first."""
    found: dict[str, str] = {}
    for entry in entries:
        found |= written_as([entry.compiler], entry.variants)
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


def _specs(
    key: Key,
    old: PageEntries,
    new: PageEntries,
    moves: tuple[Moves, Moves],
    asked: Asked,
) -> tuple[list[str], list[str], list[SpecChange]]:
    """The hashes added and removed, and the specs changed (sorted by hash), of one package:
    a hash that left one page of a tag and joined another is the same spec, changed (its
    `package` field), and is reported as changed by both packages."""
    (tag, name), (moved_from, moved_to) = key, moves
    added, removed, changed = [], [], []
    old_hashes, new_hashes = old.hashes(), new.hashes()
    for digest in new.differing(old):  # entries equal as read are equal
        if digest in old_hashes:
            change = _spec_change(name, old[digest], name, new[digest], asked)
        elif moved_from and (came := moved_from.get((tag, digest))) is not None:
            change = _spec_change(*came, name, new[digest], asked)
        else:
            added.append(digest)
            continue
        if change is not None:
            changed.append(change)
    for digest in old.differing(new):
        if digest in new_hashes:
            continue  # a spec changed: found above
        if moved_to and (went := moved_to.get((tag, digest))) is not None:
            if (change := _spec_change(name, old[digest], *went, asked)) is not None:
                changed.append(change)
        else:
            removed.append(digest)
    changed.sort(key=lambda c: c.hash)
    return added, removed, changed


def package_change(
    key: Key,
    old: Page | None,
    new: Page | None,
    moves: tuple[Moves, Moves],
    describe: bool = True,
    asked: Asked = every_stack,
) -> PackageChange | None:
    """The change of one package whose page content differs, or None if it is only byte noise.

    `moves` are the specs that left and joined pages of the sides (`Moves`, old then new).
    """
    old_entries, new_entries = _sides(old, new)
    added, removed, changed = _specs(key, old_entries, new_entries, moves, asked)
    if old is not None and new is not None and not (added or removed or changed):
        return None
    if describe:
        explained = explain(removed, added, old_entries, new_entries, changed)
        rebuilt = explained.rebuilt
    else:
        explained = Explanation()
        gone = built_of(old_entries[h] for h in removed)
        rebuilt = rebuilt_count(gone, built_of(new_entries[h] for h in added))
    old_set, new_set = old_entries.versions, new_entries.versions
    versions_old, versions_new = sort_versions(old_set), sort_versions(new_set)
    stacks_old, stacks_new = old_entries.stacks, new_entries.stacks
    if asked is not every_stack:
        stacks_old = frozenset(s for s in stacks_old if asked(s))
        stacks_new = frozenset(s for s in stacks_new if asked(s))
    return PackageChange(
        tag=key[0],
        name=key[1],
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
        rebuilt=rebuilt,
        spellings=explained.spellings,
        # variant values of a package on both sides (one added or removed has every value new)
        variants_added=explained.variants_added if old and new else (),
        variants_removed=explained.variants_removed if old and new else (),
    )
