"""History over a range of revisions: one short entry per commit, then the range as a whole."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .diff import diff_snapshots
from .model import Filters, Snapshot
from .report import Report
from .sources import LoadOptions, load_history

__all__ = ["Flap", "History", "PackagePath", "Step", "history"]


@dataclass(frozen=True, slots=True)
class Step:
    """What one commit changed."""

    commit: str  # short id
    date: str
    report: Report


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


def _commit(snapshot: Snapshot) -> str:
    return snapshot.commit or snapshot.source


def history(
    start: str, end: str, options: LoadOptions | None = None, filters: Filters | None = None
) -> History:
    """Walk the first-parent commits after `start` up to `end`, diffing each with its parent."""
    steps: list[Step] = []
    paths: dict[tuple[str, str], list[str]] = {}
    added: dict[tuple[str, str], str] = {}
    removed: dict[tuple[str, str], str] = {}
    events: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)  # (tag, hash)
    owner: dict[tuple[str, str], str] = {}
    for before, after in load_history(start, end, options):
        report = diff_snapshots(before, after, filters, describe=False)
        if not report.summary.total:
            continue  # site files, or stack order only: the catalogue did not change
        commit = _commit(after)
        steps.append(Step(commit, after.date or "", report))
        for p in report.packages:
            key = (p.tag, p.name)
            if p.status == "added":
                added.setdefault(key, commit)
                removed.pop(key, None)
            elif p.status == "removed":
                removed[key] = commit
            path = paths.setdefault(key, [p.versions_old[-1]] if p.versions_old else [])
            highest = p.versions_new[-1] if p.versions_new else None
            if highest and (not path or path[-1] != highest):
                path.append(highest)
            for digest in p.specs_removed:
                events[(p.tag, digest)].append(("left", commit))
                owner[(p.tag, digest)] = p.name
            for digest in p.specs_added:
                events[(p.tag, digest)].append(("returned", commit))
                owner[(p.tag, digest)] = p.name
    packages = tuple(
        PackagePath(tag, name, tuple(path), added.get((tag, name)), removed.get((tag, name)))
        for (tag, name), path in sorted(paths.items())
    )
    return History(start, end, tuple(reversed(steps)), packages, _flaps(events, owner))


def _flaps(
    events: dict[tuple[str, str], list[tuple[str, str]]], owner: dict[tuple[str, str], str]
) -> tuple[Flap, ...]:
    """Hashes removed and later added again, with the commits of each."""
    found = []
    for (tag, digest), happened in sorted(events.items()):
        left = [commit for kind, commit in happened if kind == "left"]
        first_left = next((i for i, (kind, _) in enumerate(happened) if kind == "left"), None)
        if first_left is None:
            continue
        returned = [commit for kind, commit in happened[first_left:] if kind == "returned"]
        if returned:
            found.append(Flap(tag, digest, owner[(tag, digest)], tuple(left), tuple(returned)))
    return tuple(found)
