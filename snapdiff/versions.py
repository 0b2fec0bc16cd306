"""Spack version order (SPEC section 3): parse a version string into a sort key; a change of
a package's highest version, its kind and size."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Literal

__all__ = [
    "Bump",
    "BumpKind",
    "BumpSize",
    "bump_kind",
    "bump_order",
    "highest",
    "sort_versions",
    "spec_version",
    "version_key",
    "version_of",
    "versions_of",
]

_TOKEN = re.compile(r"[0-9]+|[a-zA-Z]+")
# Infinity words beat every number; later in this tuple is higher. Exactly Spack 1.0's
# `infinity_versions` (spack/spack#49098 added `nightly`): any other word is an ordinary string,
# below every number.
_INFINITY = ("stable", "nightly", "trunk", "head", "master", "main", "develop")
_INFINITY_RANK = {word: rank for rank, word in enumerate(_INFINITY)}
# A trailing word and its optional number, as Spack reads them: `final` is the release itself.
_PRERELEASE = {"alpha": 0, "beta": 1, "rc": 2, "final": 3}
_RELEASE = (3,)  # `1.2` and `1.2final`; `1.2rc` is (2,), below `1.2rc0` (2, 0)

BumpKind = Literal["upgrade", "downgrade"]
BumpSize = Literal["major", "minor", "patch", "other"]
_SIZES: tuple[BumpSize, ...] = ("major", "minor", "patch")

# A component key is (class, value): strings < numbers < infinity words.
_Component = tuple[int, int | Decimal | str]
# components, pre-release, git ref given a version (0 or 1), the ref
VersionKey = tuple[tuple[_Component, ...], tuple[int | Decimal, ...], int, str]


_DIGITS = sys.get_int_max_str_digits()  # what `int` reads (4,300 by default; 0: no limit)


def _number(digits: str) -> int | Decimal:
    """A run of digits as a number: beyond what `int` reads, a `Decimal` (exact, and ordered
    with ints; a page's version may be that long)."""
    return Decimal(digits) if _DIGITS and len(digits) > _DIGITS else int(digits)


def _component(token: str) -> _Component:
    if token.isdigit():
        return (1, _number(token))
    rank = _INFINITY_RANK.get(token)
    if rank is not None:
        return (2, rank)
    return (0, token)


@lru_cache(maxsize=65536)
def version_key(version: str) -> VersionKey:
    """Sort key of one version string in Spack order: compare keys, never strings.

    As Spack's `StandardVersion` and `GitVersion` order them: a git ref assigned a version
    (`abc123=1.2`, `git.abc123=1.2`) orders just above that version, and two refs assigned
    equal versions order by ref, its `git.` prefix stripped.
    """
    ref = ""
    if "=" in version[1:]:
        ref, version = version.split("=", 1)
        ref = ref.removeprefix("git.")
    tokens = _TOKEN.findall(version)
    prerelease: tuple[int | Decimal, ...] = _RELEASE
    if len(tokens) >= 3 and tokens[-1].isdigit() and tokens[-2] in _PRERELEASE:
        prerelease = (_PRERELEASE[tokens[-2]], _number(tokens[-1]))
        tokens = tokens[:-2]
    elif len(tokens) >= 2 and tokens[-1] in _PRERELEASE:
        prerelease = (_PRERELEASE[tokens[-1]],)
        tokens = tokens[:-1]
    return (tuple(_component(t) for t in tokens), prerelease, 1 if ref else 0, ref)


def sort_versions(versions: Iterable[str]) -> list[str]:
    """Versions ascending in Spack order; equal versions keep a stable order by spelling."""
    return sorted(versions, key=lambda v: (version_key(v), v))


def versions_of(lists: Iterable[Iterable[str]]) -> tuple[str, ...]:
    """Every version of some lists, once each, ascending in Spack order."""
    return tuple(sort_versions({v for versions in lists for v in versions}))


def highest(versions: Iterable[str]) -> str | None:
    """The highest version in Spack order, or None for no versions."""
    if isinstance(versions, (list, tuple)) and len(versions) == 1:
        return versions[0]  # most specs list one version
    ordered = sort_versions(versions)
    return ordered[-1] if ordered else None


def spec_version(versions: Iterable[str]) -> str:
    """The version a spec is known by (SPEC section 2a): its highest, "" when it lists none."""
    return highest(versions) or ""


@lru_cache(maxsize=65536)  # a catalogue has a few thousand distinct versions lists
def version_of(versions: tuple[str, ...]) -> str:
    """`spec_version` of an entry's versions list, each distinct list worked out once."""
    return spec_version(versions)


def bump_kind(old: str, new: str) -> BumpSize:
    """Size of a version change: major, minor or patch (first differing component), else other."""
    old_parts, new_parts = version_key(old)[0], version_key(new)[0]
    index = 0
    while index < min(len(old_parts), len(new_parts)) and old_parts[index] == new_parts[index]:
        index += 1
    # the first differing component, or the first one only the longer version has
    differing = [parts[index] for parts in (old_parts, new_parts) if index < len(parts)]
    if index < 3 and differing and all(kind == 1 for kind, _ in differing):
        return _SIZES[index]
    return "other"


@dataclass(frozen=True, slots=True)
class Bump:
    """A change of a package's highest version."""

    old: str
    new: str
    kind: BumpKind
    size: BumpSize


_SIZE_RANK = {"major": 0, "minor": 1, "patch": 2, "other": 3}


def bump_order(bump: Bump) -> tuple[int, int]:
    """Where a version change goes in a list of them: downgrades first, then upgrades by size
    (major, minor, patch, other); a stable sort keeps the (tag, name) order among equals."""
    return (0 if bump.kind == "downgrade" else 1, _SIZE_RANK[bump.size])
