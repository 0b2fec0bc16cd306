"""History over a range of revisions: one short entry per commit, then the range as a whole."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol

from .compare.causes import first_screen
from .compare.diff import diff_snapshots
from .model import Filters, Snapshot
from .report import (
    Labeller,
    OneTag,
    PackageChange,
    Sentence,
    StackChange,
    StackMove,
    Summary,
    one_tag,
)
from .versions import Bump, bump_order

__all__ = ["Flap", "History", "PackagePath", "Pair", "Step", "StepBump", "Unit", "history"]

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

    commit: str  # short id
    date: str
    summary: Summary
    bumps: tuple[StepBump, ...]
    stacks: tuple[StackChange, ...]
    moves: tuple[StackMove, ...] = ()
    rebuilt: int | None = None  # distinct specs rebuilt; None unless both sides are indexes
    causes: tuple[Sentence, ...] = ()  # the diff's first-screen lines on why
    missing: Sentence | None = None  # and on binaries the cache does not hold


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
    start_commit: str | None = None  # short ids of the ends
    end_commit: str | None = None
    merge_base_of: tuple[str, str] | None = None  # `A...B`: start is the merge base of A and B
    unit: Unit = "commit"  # a step: a commit of A..B, or a snapshot given after the first

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


def _commit(snapshot: Snapshot) -> str:
    return snapshot.commit or snapshot.source


def history(
    pairs: Iterable[Pair],
    start: str,
    end: str,
    filters: Filters | None = None,
    merge_base_of: tuple[str, str] | None = None,
    unit: Unit = "commit",
) -> History:
    """Walk the range from `start` to `end` a commit at a time, diffing each commit's snapshots
    after it with those before it (`pairs`, oldest first; `merge_base_of` names the revisions
    whose merge base `start` is, for the title). The ends' commit ids are the caller's to add."""
    steps: list[Step] = []
    paths, flaps = _Paths(), _Flaps()
    tags: set[str] = set()
    for pair in pairs:
        tags.update(pair.old.tags, pair.new.tags)
        report = diff_snapshots(pair.old, pair.new, filters, describe=False)
        if not report.summary.total:
            continue  # site files, or stack order only: the catalogue did not change
        commit = _commit(pair.new)
        bumped = sorted((p for p in report.packages if p.bump), key=_bump_order)
        bumps = tuple(StepBump(p.tag, p.name, p.bump) for p in bumped if p.bump)
        summary, stacks, moves = report.summary, report.stacks, report.stack_moves
        rebuilt = report.rebuilds.rebuilt if report.rebuilds is not None else None
        causes, missing = first_screen(report)
        date = pair.new.date or ""
        steps.append(
            Step(commit, date, summary, bumps, stacks, moves, rebuilt, tuple(causes), missing)
        )
        for package in report.packages:
            paths.step(package, commit)
            flaps.step(package, commit)
    return History(
        start,
        end,
        tuple(reversed(steps)),
        paths.found(),
        flaps.found(),
        tuple(sorted(tags)),
        merge_base_of=merge_base_of,
        unit=unit,
    )


class _Paths:
    """Each package's highest version through the steps, and the commits adding and removing
    it (the last removal, unless it came back after)."""

    def __init__(self) -> None:
        self.paths: dict[tuple[str, str], list[str]] = {}
        self.added: dict[tuple[str, str], str] = {}
        self.removed: dict[tuple[str, str], str] = {}

    def step(self, package: PackageChange, commit: str) -> None:
        key = (package.tag, package.name)
        if package.status == "added":
            self.added.setdefault(key, commit)
            self.removed.pop(key, None)
        elif package.status == "removed":
            self.removed[key] = commit
        old, new = package.versions_old, package.versions_new
        path = self.paths.setdefault(key, [old[-1]] if old else [])
        highest = new[-1] if new else None
        if highest and (not path or path[-1] != highest):
            path.append(highest)

    def found(self) -> tuple[PackagePath, ...]:
        return tuple(
            PackagePath(
                tag, name, tuple(path), self.added.get((tag, name)), self.removed.get((tag, name))
            )
            for (tag, name), path in sorted(self.paths.items())
        )


def _bump_order(package: PackageChange) -> tuple[int, int]:
    return bump_order(package.bump) if package.bump else (2, 0)


class _Flaps:
    """Hashes removed and later added again, with the commits of each. Every hash a step removes
    is remembered, so compactly (`_Removed`): a year of daily commits removes millions. Most
    hashes a range adds are new, and are not followed."""

    def __init__(self) -> None:
        self.commits: list[str] = []  # the steps' commits, in order
        self.left: dict[str, _Removed] = {}  # tag -> hashes removed, with the steps removing them
        self.returned: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.owner: dict[tuple[str, str], str] = {}  # of a hash that came back: its package

    def step(self, package: PackageChange, commit: str) -> None:
        if not self.commits or self.commits[-1] != commit:
            self.commits.append(commit)
        index, tag, name = len(self.commits) - 1, package.tag, package.name
        left = self.left.setdefault(tag, _Removed())
        for digest in package.specs_removed:
            left.add(digest, index)
            if (tag, digest) in self.returned:
                self.owner[(tag, digest)] = name
        for digest in package.specs_added:
            if left.steps(digest):
                self.returned[(tag, digest)].append(commit)
                self.owner[(tag, digest)] = name

    def found(self) -> tuple[Flap, ...]:
        flaps = []
        for (tag, digest), back in sorted(self.returned.items()):
            left = tuple(self.commits[i] for i in self.left[tag].steps(digest))
            flaps.append(Flap(tag, digest, self.owner[(tag, digest)], left, tuple(back)))
        return tuple(flaps)


_HASH_BYTES = 32  # a Spack hash: 32 base32 characters
_RECORD = _HASH_BYTES + 4  # and the index of a step removing it


class _Removed:
    """Hashes removed from one tag, each with the index of every step that removed it, in order.

    A hash of 32 ASCII characters (as Spack's are) is a record of 36 bytes, its characters and
    the step's index, appended to a bucket (a bytearray) by its first two characters: about 40
    bytes a hash, where a string keyed in a dictionary takes about 130. Any other hash is kept
    as a string in a dictionary.
    """

    def __init__(self) -> None:
        self.buckets: dict[str, bytearray] = {}
        self.other: dict[str, list[int]] = {}

    def add(self, digest: str, index: int) -> None:
        if len(digest) != _HASH_BYTES or not digest.isascii():
            self.other.setdefault(digest, []).append(index)
            return
        bucket = self.buckets.setdefault(digest[:2], bytearray())
        bucket += digest.encode()
        bucket += index.to_bytes(4, "big")

    def steps(self, digest: str) -> list[int]:
        """The indices of the steps that removed the hash, in order (none: never removed)."""
        if len(digest) != _HASH_BYTES or not digest.isascii():
            return self.other.get(digest, [])
        bucket = self.buckets.get(digest[:2])
        if bucket is None:
            return []
        found, wanted = [], digest.encode()
        at = bucket.find(wanted)
        while at != -1:
            if at % _RECORD:  # across two records: not this hash
                at = bucket.find(wanted, at + 1)
                continue
            found.append(int.from_bytes(bucket[at + _HASH_BYTES : at + _RECORD], "big"))
            at = bucket.find(wanted, at + _RECORD)
        return found
