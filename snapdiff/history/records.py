"""The records of `snapdiff log`: a step per commit, a package's path, a flapping spec, the whole
history; and what a step diffed keeps for the walk (`Stepped`, `Moved`). No I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol

from ..model import Snapshot
from ..report import (
    EnvironmentChange,
    Labeller,
    OneTag,
    Sentence,
    StackChange,
    StackMove,
    Status,
    Summary,
    one_tag,
)
from ..versions import Bump

__all__ = [
    "Flap",
    "History",
    "Moved",
    "PackagePath",
    "Pair",
    "Step",
    "StepBump",
    "Stepped",
    "Unit",
]

Unit = Literal["commit", "snapshot"]  # what a step of a history is: a commit, or a snapshot given


class Pair(Protocol):
    """A commit's snapshots, before it and after it (as `sources.load_history` hands them)."""

    @property
    def old(self) -> Snapshot: ...

    @property
    def new(self) -> Snapshot: ...


class StepBump(NamedTuple):
    """A package whose highest version moved in one commit."""

    tag: str
    name: str
    bump: Bump


@dataclass(frozen=True, slots=True)
class Step:
    """What one commit changed: its counts, the packages whose highest version moved (in the
    diff's order, `versions.bump_order`), the stacks that changed and those that moved, and for
    build-cache indexes why specs were rebuilt, as a diff's first screen says it (no more of its
    report is kept, so a long range stays small)."""

    commit: str  # full id (a snapshot given: as given)
    date: str
    summary: Summary
    bumps: tuple[StepBump, ...]
    stacks: tuple[StackChange, ...]
    moves: tuple[StackMove, ...] = ()
    rebuilt: int | None = None  # distinct specs rebuilt; None unless both sides are indexes
    causes: tuple[Sentence, ...] = ()  # the diff's first-screen lines on why
    missing: Sentence | None = None  # and on binaries the cache does not hold
    subject: str = "Catalogue"  # what the step compared (`Report.subject`)
    environments: tuple[EnvironmentChange, ...] = ()  # each environment (SPEC section 7)
    commit_subject: str | None = None  # the commit's subject line (a snapshot given: None)


@dataclass(frozen=True, slots=True)
class PackagePath:
    """A package's highest version through the range, and where it appeared and disappeared."""

    tag: str
    name: str
    versions: tuple[str, ...]  # highest version at the start and after each change of it
    first_seen: str | None  # the commit that added it; None when present at the start
    last_seen: str | None  # the commit that removed it; None when present at the end


@dataclass(frozen=True, slots=True)
class Flap:
    """A spec that left and came back within the range: a sign of an unstable pipeline."""

    tag: str
    hash: str
    package: str
    left: tuple[str, ...]  # commits that removed it
    returned: tuple[str, ...]  # commits that brought it back


@dataclass(frozen=True, slots=True)
class History:
    """Every step of a range, newest first, and the range summarised."""

    start: str
    end: str
    steps: tuple[Step, ...]
    packages: tuple[PackagePath, ...]
    flapping: tuple[Flap, ...]
    tags: tuple[str, ...] = ()  # every cache tag the range's snapshots hold
    start_commit: str | None = None  # full ids of the ends
    end_commit: str | None = None
    merge_base_of: tuple[str, str] | None = None  # `A...B`: start is the merge base of A and B
    unit: Unit = "commit"  # a step: a commit of A..B, or a snapshot given after the first
    skipped: tuple[str, ...] = ()  # pages left out (--keep-going), in the steps' order, once each

    def subject(self) -> str:
        """What the range compared, as its steps say (the catalogue when no step changed)."""
        return self.steps[0].subject if self.steps else "Catalogue"

    def moved(self) -> tuple[PackagePath, ...]:
        """The packages whose highest version moved, or that came or went, within the range."""
        return tuple(p for p in self.packages if len(p.versions) > 1 or p.first_seen or p.last_seen)

    def changed_tags(self) -> set[str]:
        """The cache tags of every package and stack the range changed."""
        return {p.tag for p in self.packages} | {s.tag for x in self.steps for s in x.stacks}

    def one_tag(self) -> OneTag | None:
        """The one cache tag every change of the range is in, and the other tags, when the
        snapshots hold several (as `Report.one_tag`)."""
        return one_tag(self.tags, self.tags, self.changed_tags())

    def labeller(self) -> Labeller:
        """How `snapdiff log` names a package or stack (as `Report.labeller`)."""
        return Labeller(len(self.changed_tags()) > 1)

    def tags_counted(self) -> int:
        """How many cache tags the counts run over when the snapshots hold several; else 0."""
        return len(self.tags) if len(self.tags) > 1 else 0


class Moved(NamedTuple):
    """What the walk keeps of a package a step changed: its highest version on each side (None
    when it has none there), and the hashes added and removed."""

    tag: str
    name: str
    status: Status
    highest_old: str | None
    highest_new: str | None
    specs_added: tuple[str, ...]
    specs_removed: tuple[str, ...]


class Stepped(NamedTuple):
    """One pair diffed: the tags its snapshots hold, what it changed (no step: nothing), and
    the pages it left out (--keep-going)."""

    tags: tuple[str, ...]
    step: Step | None
    packages: tuple[Moved, ...]
    skipped: tuple[str, ...] = ()
