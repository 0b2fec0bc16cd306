"""What the first screen says of environments (SPEC section 7), for Markdown and text alike: per
environment, the Spack that wrote it when it moved, roots added, removed and re-concretized
(counted per compiler when many), compilers, new duplicates and downgrades."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TypedDict

from ..report import EnvironmentChange, RootSpec, SpackRun
from .markup import Safe

__all__ = [
    "ROOTS_NAMED",
    "EnvironmentView",
    "RootsView",
    "environment_lines",
    "environment_views",
    "short_hash",
]

# Roots named one by one on the first screen; past this, counted per compiler (SPEC section 7).
ROOTS_NAMED = 5
_SHORT = 7  # characters of a hash or commit id said


def short_hash(digest: str) -> str:
    """A hash or commit as a reader finds it (`spack find /abcdefg`)."""
    return digest[:_SHORT]


class RootRow(TypedDict):
    spec: str  # the abstract spec text ("" for an install database's explicit record)
    name: str
    version: str
    compiler: str
    hash: str  # short


class RootsView(TypedDict):
    """Roots of one kind: each named when few, else counted per compiler, most first."""

    total: int
    rows: list[RootRow]
    by_compiler: list[tuple[str, int]]


class ReconcretizedRow(TypedDict):
    spec: str
    name: str
    old_version: str
    new_version: str
    old_compiler: str
    new_compiler: str
    old: str  # short hashes
    new: str


class SpackSide(TypedDict):
    version: str
    commit: str  # short, "" when not recorded


class SpackView(TypedDict):
    old: SpackSide | None  # None: not recorded (unknown)
    new: SpackSide | None


class DowngradeRow(TypedDict):
    name: str
    old: str
    new: str
    asked: bool  # a root of it was added or removed
    rooted: bool  # it has a root (else a dependency only)


class RespelledRow(TypedDict):
    old: str
    new: str
    hash: str  # short


class EnvironmentView(TypedDict):
    """One environment that changed, as the first screen says it."""

    name: str
    named: bool  # several environments: each line says which
    status: str
    spack: SpackView | None  # when the Spack that wrote it moved
    formats: list[Safe]  # how each side is written, when that changed (or the new's, Spack moved)
    added: RootsView
    removed: RootsView
    reconcretized: list[ReconcretizedRow]
    respelled: list[RespelledRow]
    compilers_added: list[str]
    compilers_removed: list[str]
    duplicates_new: list[str]
    downgrades: list[DowngradeRow]


def _spack(run: SpackRun | None) -> SpackSide | None:
    return None if run is None else {"version": run.version, "commit": short_hash(run.commit)}


def _row(root: RootSpec) -> RootRow:
    return {
        "spec": root.spec,
        "name": root.name,
        "version": root.version,
        "compiler": root.compiler,
        "hash": short_hash(root.hash),
    }


def _roots(roots: Sequence[RootSpec]) -> RootsView:
    """Named one by one up to ROOTS_NAMED, else counted per compiler (most first, then name)."""
    if len(roots) <= ROOTS_NAMED:
        return {"total": len(roots), "rows": [_row(r) for r in roots], "by_compiler": []}
    counts = Counter(r.compiler for r in roots)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return {"total": len(roots), "rows": [], "by_compiler": ranked}


def _format(lockfile: int | None, database: int | None) -> Safe:
    """How one side is written: `lockfile v5`, `install database v9`, or `unknown`."""
    if lockfile is not None:
        return Safe(f"lockfile v{lockfile}")
    return Safe(f"install database v{database}" if database is not None else "unknown")


def _formats(change: EnvironmentChange) -> list[Safe]:
    """Both sides' formats when they differ, the new side's when only Spack moved, else none."""
    old = _format(change.lockfile_old, change.database_old)
    new = _format(change.lockfile_new, change.database_new)
    if change.format_moved:
        return [old, new]
    return [new] if change.spack_moved else []


def _view(change: EnvironmentChange, named: bool) -> EnvironmentView:
    return {
        "name": change.name,
        "named": named,
        "status": change.status,
        "spack": {"old": _spack(change.spack_old), "new": _spack(change.spack_new)}
        if change.spack_moved
        else None,
        "formats": _formats(change),
        "added": _roots(change.roots_added),
        "removed": _roots(change.roots_removed),
        "reconcretized": [
            {
                "spec": r.spec,
                "name": r.name,
                "old_version": r.versions[0],
                "new_version": r.versions[1],
                "old_compiler": r.compilers[0],
                "new_compiler": r.compilers[1],
                "old": short_hash(r.old),
                "new": short_hash(r.new),
            }
            for r in change.roots_reconcretized
        ],
        "respelled": [
            {"old": r.old, "new": r.new, "hash": short_hash(r.hash)} for r in change.roots_respelled
        ],
        "compilers_added": list(change.compilers_added),
        "compilers_removed": list(change.compilers_removed),
        "duplicates_new": list(change.duplicates_new),
        "downgrades": [
            {
                "name": d.name,
                "old": d.before,
                "new": d.after,
                "asked": d.asked,
                "rooted": d.name in change.rooted,
            }
            for d in change.downgrades
        ],
    }


def environment_views(changes: Sequence[EnvironmentChange], named: bool) -> list[EnvironmentView]:
    """The environments that changed (added, removed or changed), in name order; `named`: each
    says its name (a side holds several)."""
    return [_view(change, named) for change in changes if change.status != "unchanged"]


def _side(side: SpackSide | None) -> str:
    if side is None:
        return "unknown"
    return f"{side['version']} ({side['commit']})" if side["commit"] else side["version"]


def _roots_line(sign: str, what: str, roots: RootsView) -> str:
    said = [
        f"{r['spec']} ({r['version']} %{r['compiler']}, {r['hash']})"
        if r["spec"]
        else f"{r['name']}@{r['version']}%{r['compiler']} ({r['hash']})"
        for r in roots["rows"]
    ] or [f"{n:,} %{compiler}" for compiler, n in roots["by_compiler"]]
    total = roots["total"]
    return f"{sign}{total:,} root{'' if total == 1 else 's'} {what}: {', '.join(said)}"


def _reconcretized_line(rows: Sequence[ReconcretizedRow]) -> str:
    said = []
    for r in rows[:ROOTS_NAMED]:
        version = r["new_version"]
        if r["old_version"] != version:
            version = f"{r['old_version']} → {version}"
        compiler = f"%{r['new_compiler']}"
        if r["old_compiler"] != r["new_compiler"]:
            compiler = f"%{r['old_compiler']} → {compiler}"
        said.append(f"{r['spec']} ({version} {compiler}, {r['old']} → {r['new']})")
    more = f", … and {len(rows) - ROOTS_NAMED:,} more" if len(rows) > ROOTS_NAMED else ""
    return (
        f"{len(rows):,} root{'' if len(rows) == 1 else 's'} re-concretized: {', '.join(said)}{more}"
    )


def environment_lines(view: EnvironmentView) -> list[str]:
    """The text view's lines of one environment, as the Markdown's first screen says them."""
    lines = []
    formats = " → ".join(view["formats"])
    if view["spack"]:
        said = f"Spack {_side(view['spack']['old'])} → {_side(view['spack']['new'])}"
        lines.append(f"{said}, {formats}" if formats else said)
    elif formats:
        lines.append(formats)
    if view["added"]["total"]:
        lines.append(_roots_line("+", "added", view["added"]))
    if view["removed"]["total"]:
        lines.append(_roots_line("−", "removed", view["removed"]))
    if view["reconcretized"]:
        lines.append(_reconcretized_line(view["reconcretized"]))
    if view["compilers_added"] or view["compilers_removed"]:
        parts = [f"added {', '.join(view['compilers_added'])}"] if view["compilers_added"] else []
        if view["compilers_removed"]:
            parts.append(f"removed {', '.join(view['compilers_removed'])}")
        lines.append(f"compilers: {'; '.join(parts)}")
    if view["duplicates_new"]:
        lines.append(f"new duplicates: {', '.join(view['duplicates_new'])}")
    for r in view["respelled"]:
        said = f"counted as removed and added; the same spec, {r['hash']}"
        lines.append(f"root respelled ({said}): {r['old']} → {r['new']}")
    for d in view["downgrades"]:
        said = f"{d['name']} {d['old']} → {d['new']}"
        if d["asked"]:
            lines.append(f"downgrade asked for: {said} (a root of it was added or removed)")
        else:
            why = "its roots kept their specs" if d["rooted"] else "a dependency: no root of it"
            lines.append(f"unexpected downgrade: {said} ({why})")
    return lines
