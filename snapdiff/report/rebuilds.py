"""Why specs were rebuilt (SPEC section 6): the records a cause analysis of two build-cache
indexes concludes, that every output renders. No I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import msgspec

__all__ = [
    "MOVE_DIMENSIONS",
    "Cascade",
    "MissingDependency",
    "Move",
    "NewBuild",
    "OwnChange",
    "Rebuilds",
    "Scheme",
    "Trigger",
]

# A rebuilt spec's own change against its predecessor, in the order they are listed.
OwnChange = Literal[
    "version",
    "variants",
    "recipe",
    "target",
    "os",
    "platform",
    "compiler",
    "namespace",
    "external",
    "dependencies",
]
# The own changes a move of the whole side is said of (SPEC section 6, "Moves first").
MOVE_DIMENSIONS: tuple[OwnChange, ...] = ("target", "os", "platform", "compiler")

# What a field was and is: a version, os, target, platform, compiler, namespace, package hash
# (`recipe`) or external (`built`, its path, `module NAME`) as a string; variants as the sorted
# tokens only one side has; dependencies as the names only one side has and, for a dependency
# resolved to another existing build, the two builds as spec texts naming what tells them apart.
FieldValue = str | tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Trigger:
    """A rebuilt spec with an own change: the cause of its cascade."""

    hash: str
    name: str
    predecessor: str
    changes: tuple[OwnChange, ...]
    before: tuple[tuple[str, FieldValue], ...]  # JSON `from`: (change, old value), as `changes`
    after: tuple[tuple[str, FieldValue], ...]  # JSON `to`
    cascade: tuple[str, ...]  # hashes of the cascade specs it causes, sorted
    cascade_build_only: tuple[str, ...]  # those reached through a build edge, sorted
    stacks: tuple[str, ...]  # stacks holding the trigger or a spec of its cascade, sorted
    # the cascade by package: (name, specs), most specs first, then name
    packages: tuple[tuple[str, int], ...] = ()
    version: str = ""  # the trigger's own version: what "recipe changed, same version" names
    # its build-only part by package, the same way (not in the JSON: the Markdown's folds)
    packages_build_only: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class NewBuild:
    """A spec with no predecessor reached by new edges from rebuilt specs: their cause."""

    hash: str
    name: str
    version: str
    cascade: tuple[str, ...]  # sorted, as a trigger's
    cascade_build_only: tuple[str, ...]
    stacks: tuple[str, ...]
    packages: tuple[tuple[str, int], ...] = ()
    packages_build_only: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Move:
    """One own change made by at least half the rebuilt specs: said once, before the causes."""

    dimension: OwnChange
    before: str
    after: str
    specs: int  # the rebuilt specs that made it


@dataclass(frozen=True, slots=True)
class Scheme:
    """Spack's hash scheme changed: every record rehashed. `evidence`: "formats" when the
    formats' versions differ, "rehashed" when only records equal in every field with a new hash
    show it."""

    evidence: Literal["formats", "rehashed"]
    kept: int  # specs whose hash both sides hold
    # each recorded: ("Spack", "0.20.0", "0.21.0"), ("lockfile", "v4", "v5"); "" where a side
    # records none
    versions: tuple[tuple[str, str, str], ...] = ()

    @property
    def before(self) -> str:
        """The Spack version and formats the old side records (`Spack 0.20, lockfile v4`)."""
        return ", ".join(f"{kind} {was}" for kind, was, _ in sorted(self.versions) if was)

    @property
    def after(self) -> str:
        """The same of the new side."""
        return ", ".join(f"{kind} {now}" for kind, _, now in sorted(self.versions) if now)


class Cascade(msgspec.Struct, frozen=True, gc=False):
    """A rebuilt spec with no own change from which triggers or new builds are reached by new
    edges.

    A Struct, not a frozen dataclass: a day's index pair has 10^5 of them, built in C (200k in
    0.02 s instead of 0.16 s), and holding no cycles (not tracked by the garbage collector)."""

    hash: str
    name: str
    predecessor: str
    # every trigger and new build it reaches, sorted: the cause->spec relation, which a ladder
    # of stacked triggers makes quadratic in the input (8 bytes a pair, tuples shared by the
    # specs of one reach); kept for the gates and the causes' counts, never written out whole
    causes: tuple[str, ...]
    # the evidence, one step down its new edges (the JSON's): the causes they name, the other
    # cascade specs they name (the rest of its causes is theirs), and those of both named by
    # build edges only; each sorted. Linear in the edges.
    direct_causes: tuple[str, ...]
    through: tuple[str, ...]
    build_only: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MissingDependency:
    """A `NEW` spec whose link or run dependency no record of `NEW` holds (and not external)."""

    hash: str
    name: str
    dependency: str  # its hash
    dependency_name: str
    new: bool  # the gap is new against `OLD`


@dataclass(frozen=True, slots=True)
class Rebuilds:
    """Every rebuilt spec is in exactly one of `triggers`, `cascades`, `hash_scheme`,
    `unexplained`. Lists are sorted by hash; triggers by cascade size (largest first), then
    name, then hash; missing dependencies new ones first, then by hash and dependency."""

    triggers: tuple[Trigger, ...]
    cascades: tuple[Cascade, ...]
    hash_scheme: tuple[str, ...]
    unexplained: tuple[str, ...]
    missing_dependencies: tuple[MissingDependency, ...]
    new_builds: tuple[NewBuild, ...] = ()  # those that cause a cascade, as triggers are sorted
    moves: tuple[Move, ...] = ()  # most specs first
    scheme: Scheme | None = None
    # with filters: the cascade specs they leave out that a kept one's `through` names,
    # directly or further down (so the evidence can be followed whole); sorted by hash
    filtered_out: tuple[Cascade, ...] = ()

    @property
    def rebuilt(self) -> int:
        """How many distinct specs were rebuilt."""
        parts = (self.triggers, self.cascades, self.hash_scheme, self.unexplained)
        return sum(map(len, parts))
