"""The JSON reports, of a diff (SPEC section 4; its `rebuilds`, section 6, in `jsonrebuilds`) and of
`snapdiff log` (docs/json.md): records as plain data."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import orjson

from ..compare.classes import CLASSES
from ..model import Configuration
from ..report import (
    BuiltOnlyIn,
    Change,
    EnvironmentChange,
    FieldChange,
    GateOutcome,
    PackageChange,
    Rebuilds,
    Report,
    RootCount,
    RootSpec,
    Side,
    SpackRun,
    SpecChange,
    StackChange,
    StackMove,
    Summary,
)
from ..schema import (
    BuiltOnlyInJSON,
    BumpJSON,
    ChangeJSON,
    ClassCountJSON,
    ConfigurationJSON,
    EnvironmentJSON,
    FieldJSON,
    GateJSON,
    HistoryJSON,
    PackageJSON,
    RebuildsJSON,
    ReportJSON,
    RootJSON,
    RootSpecJSON,
    SideJSON,
    SpackJSON,
    SpecChangeJSON,
    StackJSON,
    StackMoveJSON,
    StepBumpJSON,
    StepJSON,
    SummaryJSON,
)
from ..versions import Bump
from .jsonrebuilds import rebuilds_to_dict

if TYPE_CHECKING:
    from ..history import History

__all__ = [
    "history_to_dict",
    "render_history_json",
    "render_json",
    "report_to_dict",
    "specs_by_class",
]


def _side(side: Side) -> SideJSON:
    return {
        "source": side.source,
        "tags": list(side.tags),
        "packages": side.packages,
        "specs": side.specs,
        "stacks": side.stacks,
        "commit": side.commit,
        "date": side.date,
    }


def _json_value(value: object) -> object:
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    return value


def _field(change: FieldChange) -> FieldJSON:
    """A field's values; `missing` names a side without it (its value `null` there), only then."""
    found: FieldJSON = {"old": _json_value(change.old), "new": _json_value(change.new)}
    if change.missing:
        found["missing"] = change.missing
    return found


def _spec_change(change: SpecChange) -> SpecChangeJSON:
    return {
        "hash": change.hash,
        "stacks_added": list(change.stacks_added),
        "stacks_removed": list(change.stacks_removed),
        "fields": {f.name: _field(f) for f in change.fields},
        "details": [line.plain() for line in change.details],
    }


_Configurations = dict[Configuration, ConfigurationJSON]


def _configuration(config: Configuration, built: _Configurations) -> ConfigurationJSON:
    found = built.get(config)
    if found is None:
        found = built[config] = {
            "os": config.os,
            "platform": config.platform,
            "target": config.target,
            "compiler": config.compiler,
            "variants": list(config.variants),
        }
    return found


def _change(change: Change, built: _Configurations) -> ChangeJSON:
    record: ChangeJSON = {
        "class": change.kind,
        "configurations_old": [_configuration(c, built) for c in change.configurations_old],
        "configurations_new": [_configuration(c, built) for c in change.configurations_new],
        "versions_old": list(change.versions_old),
        "versions_new": list(change.versions_new),
        "specs_old": list(change.specs_old),
        "specs_new": list(change.specs_new),
    }
    if change.kind == "migration":
        record["dimensions"] = list(change.dimensions)
    return record | {"text": change.sentence.plain()}


def _stack_move(move: StackMove) -> StackMoveJSON:
    return {
        "tag": move.tag,
        "stack": move.stack,
        "dimension": move.dimension,
        "from": list(move.old),
        "to": list(move.new),
        "specs_old": move.specs_old,
        "specs_new": move.specs_new,
        "specs_no_compiler_old": move.no_compiler_old,
        "specs_no_compiler_new": move.no_compiler_new,
    }


def _root(count: RootCount) -> RootJSON:
    return {
        "tag": count.tag,
        "specs_old": count.specs_old,
        "specs_new": count.specs_new,
        "tag_specs_old": count.total_old,
        "tag_specs_new": count.total_new,
    }


def specs_by_class(report: Report) -> dict[str, ClassCountJSON]:
    """Added and removed specs per class of explanation, in the classes' order."""
    counts: dict[str, ClassCountJSON] = {k: {"removed": 0, "added": 0} for k in CLASSES}
    for package in report.packages:
        for change in package.changes:
            counts[change.kind]["removed"] += len(change.specs_old)
            counts[change.kind]["added"] += len(change.specs_new)
    return counts


def _package(change: PackageChange, built: _Configurations) -> PackageJSON:
    return {
        "tag": change.tag,
        "name": change.name,
        "status": change.status,
        "versions_old": list(change.versions_old),
        "versions_new": list(change.versions_new),
        "versions_added": list(change.versions_added),
        "versions_removed": list(change.versions_removed),
        "bump": _package_bump(change),
        "specs_added": list(change.specs_added),
        "specs_removed": list(change.specs_removed),
        "specs_changed": [_spec_change(c) for c in change.specs_changed],
        "stacks_added": list(change.stacks_added),
        "stacks_removed": list(change.stacks_removed),
        "changes": [_change(c, built) for c in change.changes],
        "kept": [line.plain() for line in change.kept],
        "variants_added": list(change.variants_added),
        "variants_removed": list(change.variants_removed),
    }


def _bump(bump: Bump) -> BumpJSON:
    return {"from": bump.old, "to": bump.new, "kind": bump.kind, "size": bump.size}


def _built_only_in(cause: BuiltOnlyIn) -> BuiltOnlyInJSON:
    return {
        "version": cause.version,
        "specs": list(cause.specs),
        "stacks_removed": list(cause.removed),
        "stacks_left": list(cause.left),
        "text": cause.sentence.plain(),
    }


def _package_bump(change: PackageChange) -> BumpJSON | None:
    """A package's bump; a downgrade's with its `cause` (null when the data shows none)."""
    if change.bump is None:
        return None
    found = _bump(change.bump)
    if change.bump.kind == "downgrade":
        cause = change.built_only_in
        found["cause"] = _built_only_in(cause) if cause else None
    return found


def _summary(summary: Summary) -> SummaryJSON:
    # the record's fields are the schema's, in its order (the golden JSON files hold it)
    return cast(SummaryJSON, dataclasses.asdict(summary))


def _stack(change: StackChange) -> StackJSON:
    return {
        "tag": change.tag,
        "name": change.name,
        "status": change.status,
        "specs_old": change.specs_old,
        "specs_new": change.specs_new,
        "packages_gained": list(change.packages_gained),
        "packages_lost": list(change.packages_lost),
    }


def report_to_dict(
    report: Report, rebuilds_of: Callable[[Rebuilds], RebuildsJSON] | None = None
) -> ReportJSON:
    """The JSON report of SPEC section 4 (plus a few documented extra keys; `environments`,
    section 7, when a side is an environment); its `rebuilds` made by `rebuilds_of`, when
    given, from the report's (a template's data defers them)."""
    rebuilds_of = rebuilds_of or rebuilds_to_dict
    built: _Configurations = {}  # each distinct one built once, shared by records (read-only)
    found: ReportJSON = {
        "schema_version": report.schema_version,
        "old": _side(report.old),
        "new": _side(report.new),
        "summary": _summary(report.summary),
        "packages": [_package(p, built) for p in report.packages],
        "stacks": [_stack(s) for s in report.stacks],
        "stack_moves": [_stack_move(m) for m in report.stack_moves],
        "root": [_root(r) for r in report.root],
        "specs_by_class": specs_by_class(report),
        "warnings": list(report.warnings),
        "filters": {name: list(globs) for name, globs in report.filters.applied},
        "incomplete": bool(report.skipped),
        "skipped": list(report.skipped),
        "gates": [_gate(g) for g in report.gates],
        "rebuilds": None if report.rebuilds is None else rebuilds_of(report.rebuilds),
    }
    if report.environments:
        found["environments"] = [_environment(e) for e in report.environments]
    return found


def _root_spec(root: RootSpec) -> RootSpecJSON:
    return {
        "spec": root.spec,
        "hash": root.hash,
        "name": root.name,
        "version": root.version,
        "compiler": root.compiler,
    }


def _spack(run: SpackRun | None) -> SpackJSON | None:
    return None if run is None else {"version": run.version, "commit": run.commit}


def _environment(change: EnvironmentChange) -> EnvironmentJSON:
    """SPEC section 7's record of one environment."""
    return {
        "name": change.name,
        "status": change.status,
        "spack_old": _spack(change.spack_old),
        "spack_new": _spack(change.spack_new),
        "lockfile_old": change.lockfile_old,
        "lockfile_new": change.lockfile_new,
        "roots_added": [_root_spec(r) for r in change.roots_added],
        "roots_removed": [_root_spec(r) for r in change.roots_removed],
        "roots_reconcretized": [
            {"spec": r.spec, "old": r.old, "new": r.new, "name": r.name, "versions": [*r.versions]}
            for r in change.roots_reconcretized
        ],
        "compilers_added": list(change.compilers_added),
        "compilers_removed": list(change.compilers_removed),
        "duplicates_new": list(change.duplicates_new),
        "downgrades": [
            {"name": d.name, "from": d.before, "to": d.after, "asked": d.asked}
            for d in change.downgrades
        ],
        "warnings": list(change.warnings),
        "roots_respelled": [
            {"old": r.old, "new": r.new, "hash": r.hash} for r in change.roots_respelled
        ],
    }


def _gate(outcome: GateOutcome) -> GateJSON:
    return {
        "gate": outcome.gate,
        "level": outcome.level,
        "tripped": outcome.tripped,
        "count": outcome.count,
        "above": outcome.above,
        "text": outcome.plain(),
        "allowed": [
            {"package": e.package, "stack": e.stack, "reason": e.reason} for e in outcome.exemptions
        ],
    }


def dumps_json(data: ReportJSON | HistoryJSON) -> str:
    """Indented JSON, keys in insertion order, ending with a newline (the bytes of
    json.dumps(indent=2, ensure_ascii=False))."""
    try:
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE).decode()
    except orjson.JSONEncodeError as exc:  # a page's integer over 64 bits: orjson holds no more
        if "64-bit" not in str(exc):
            raise
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render_json(report: Report) -> str:
    """The JSON report, indented, keys in schema order, ending with a newline."""
    return dumps_json(report_to_dict(report))


def _step_bump(tag: str, name: str, bump: Bump) -> StepBumpJSON:
    return {"tag": tag, "name": name, **_bump(bump)}


def history_to_dict(history: History) -> HistoryJSON:
    """The JSON of `snapdiff log`: steps newest first, then the range summarised."""
    steps: list[StepJSON] = []
    for step in history.steps:
        said: StepJSON = {
            "commit": step.commit,
            "date": step.date,
            "subject": step.commit_subject,
            "summary": _summary(step.summary),
            "bumps": [_step_bump(p.tag, p.name, p.bump) for p in step.bumps],
            "stacks": [_stack(s) for s in step.stacks],
            "stack_moves": [_stack_move(m) for m in step.moves],
            "rebuilds": None
            if step.rebuilt is None
            else {
                "rebuilt": step.rebuilt,
                "said": [s.plain() for s in (*step.causes, *filter(None, [step.missing]))],
            },
        }
        if step.environments:
            said["environments"] = [_environment(e) for e in step.environments]
        steps.append(said)
    base = history.merge_base_of
    return {
        "schema_version": 1,
        "range": {
            "start": history.start,
            "end": history.end,
            "commits": len(history.steps),
            "unit": history.unit,
            "start_commit": history.start_commit,
            "end_commit": history.end_commit,
            "merge_base_of": list(base) if base else None,
        },
        "steps": steps,
        "packages": [
            {
                "tag": p.tag,
                "name": p.name,
                "versions": list(p.versions),
                "first_seen": p.first_seen,
                "last_seen": p.last_seen,
            }
            for p in history.packages
        ],
        "flapping": [
            {
                "tag": f.tag,
                "hash": f.hash,
                "package": f.package,
                "left": list(f.left),
                "returned": list(f.returned),
                "returns": len(f.returned),
            }
            for f in history.flapping
        ],
        "incomplete": bool(history.skipped),
        "skipped": list(history.skipped),
    }


def render_history_json(history: History) -> str:
    """`snapdiff log --format json`."""
    return dumps_json(history_to_dict(history))
