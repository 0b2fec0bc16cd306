"""Why a package's highest version went down, when the data shows it: every old build of that
version was in stacks that no longer hold the package (SPEC section 2a: a claim, with its
evidence, said only when true)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from ..model import Page
from ..report import BuiltOnlyIn, PackageChange, Sentence, StackChange
from ..versions import version_key
from .coverage import ROOT
from .package import Key, page_entries

__all__ = ["built_only_in", "with_downgrade_causes"]


def _slots(values: Sequence[str]) -> str:
    return ", ".join("{}" for _ in values)


def _sentence(version: str, removed: Sequence[str], left: Sequence[str]) -> Sentence:
    """ "`0.7.9` was built only in the removed stack `data-vis-sdk`", "… in the stacks `a`, `b`,
    which no longer build the package", or both, joined by "and"."""
    parts = []
    if removed:
        parts.append(f"the removed stack{'s' * (len(removed) > 1)} {_slots(removed)}")
    if left:
        verb = "builds" if len(left) == 1 else "build"
        parts.append(
            f"the stack{'s' * (len(left) > 1)} {_slots(left)}, which no longer {verb} the package"
        )
    return Sentence("{} was built only in " + " and ".join(parts), (version, *removed, *left))


def built_only_in(
    package: PackageChange, old: Page, removed_stacks: Iterable[str]
) -> BuiltOnlyIn | None:
    """Where the old highest version of a downgraded package was built, when every old build of
    it (every spec listing that version) is in a stack other than `root` and all their stacks
    but `root` are ones the package lost; None otherwise. `removed_stacks`: those of its tag
    that the new side no longer has."""
    bump = package.bump
    if bump is None or bump.kind != "downgrade":
        return None
    wanted = version_key(bump.old)
    builds = [
        entry
        for entry in page_entries(old).values()
        if any(version_key(v) == wanted for v in entry.versions)
    ]
    lost, stacks = set(package.stacks_removed), set[str]()
    for entry in builds:
        own = set(entry.stacks) - {ROOT}
        if not own or not own <= lost:
            return None
        stacks |= own
    if not builds:
        return None
    gone = set(removed_stacks)
    removed = sorted(s for s in stacks if s in gone)
    left = sorted(s for s in stacks if s not in gone)
    hashes = tuple(sorted(entry.hash for entry in builds))
    said = _sentence(bump.old, removed, left)
    return BuiltOnlyIn(bump.old, hashes, tuple(removed), tuple(left), said)


def with_downgrade_causes(
    packages: Sequence[PackageChange], old: Mapping[Key, Page], stacks: Iterable[StackChange]
) -> list[PackageChange]:
    """The packages, each downgrade with its cause where the data shows one."""
    removed: dict[str, set[str]] = {}
    for stack in stacks:
        if stack.status == "removed":
            removed.setdefault(stack.tag, set()).add(stack.name)
    found = []
    for package in packages:
        page = old.get((package.tag, package.name))
        if package.bump and package.bump.kind == "downgrade" and page is not None:
            cause = built_only_in(package, page, removed.get(package.tag, ()))
            package = dataclasses.replace(package, built_only_in=cause)
        found.append(package)
    return found
