"""History over a range of revisions: one short entry per commit, then the range as a whole."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..compare.diff import diff_snapshots
from ..model import Filters, Snapshot
from ..report import PackageChange
from ..report.causes import first_screen
from ..versions import bump_order
from .flaps import Flaps
from .records import History, Moved, PackagePath, Pair, Step, StepBump, Stepped, Unit

__all__ = ["history", "stepped", "walk"]


def _commit(snapshot: Snapshot) -> str:
    return snapshot.commit or snapshot.source


def stepped(pairs: Iterable[Pair], filters: Filters | None = None) -> Iterator[Stepped]:
    """Each pair diffed (oldest first), kept as `history` walks it: a step's own work, which
    depends on no other step."""
    for pair in pairs:
        tags = tuple(sorted({*pair.old.tags, *pair.new.tags}))
        report = diff_snapshots(pair.old, pair.new, filters, describe=False)
        if not report.changed:  # site files, or stack order only: no change
            yield Stepped(tags, None, (), report.skipped)
            continue
        bumped = sorted((p for p in report.packages if p.bump), key=_bump_order)
        bumps = tuple(StepBump(p.tag, p.name, p.bump) for p in bumped if p.bump)
        summary, stacks, moves = report.summary, report.stacks, report.stack_moves
        rebuilt = report.rebuilds.rebuilt if report.rebuilds is not None else None
        causes, missing = first_screen(report)
        date = pair.new.date or ""
        commit = _commit(pair.new)
        step = Step(
            commit,
            date,
            summary,
            bumps,
            stacks,
            moves,
            rebuilt,
            tuple(causes),
            missing,
            report.subject(),
            report.environments,
            pair.new.commit_subject,
        )
        yield Stepped(tags, step, tuple(map(_moved, report.packages)), report.skipped)


def _moved(package: PackageChange) -> Moved:
    old, new = package.versions_old, package.versions_new
    return Moved(
        package.tag,
        package.name,
        package.status,
        old[-1] if old else None,
        new[-1] if new else None,
        package.specs_added,
        package.specs_removed,
    )


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
    return walk(stepped(pairs, filters), start, end, merge_base_of, unit)


def walk(
    found: Iterable[Stepped],
    start: str,
    end: str,
    merge_base_of: tuple[str, str] | None = None,
    unit: Unit = "commit",
) -> History:
    """The history of the range from its pairs diffed (`stepped`, oldest first)."""
    steps: list[Step] = []
    paths, flaps = _Paths(), Flaps()
    tags: set[str] = set()
    skipped: dict[str, None] = {}  # in the order the steps leave them out, once each
    for one in found:
        tags.update(one.tags)
        skipped.update(dict.fromkeys(one.skipped))
        if one.step is None:
            continue
        steps.append(one.step)
        for package in one.packages:
            paths.step(package, one.step.commit)
            flaps.step(package, one.step.commit)
    return History(
        start,
        end,
        tuple(reversed(steps)),
        paths.found(),
        flaps.found(),
        tuple(sorted(tags)),
        merge_base_of=merge_base_of,
        unit=unit,
        skipped=tuple(skipped),
    )


class _Paths:
    """Each package's highest version through the steps, and the commits adding and removing
    it (the last removal, unless it came back after)."""

    def __init__(self) -> None:
        self.paths: dict[tuple[str, str], list[str]] = {}
        self.added: dict[tuple[str, str], str] = {}
        self.removed: dict[tuple[str, str], str] = {}

    def step(self, package: Moved, commit: str) -> None:
        key = (package.tag, package.name)
        if package.status == "added":
            self.added.setdefault(key, commit)
            self.removed.pop(key, None)
        elif package.status == "removed":
            self.removed[key] = commit
        path = self.paths.setdefault(key, [package.highest_old] if package.highest_old else [])
        highest = package.highest_new
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
