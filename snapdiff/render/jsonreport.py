"""The JSON reports, of a diff (SPEC section 4) and of `snapdiff log`: records as plain data."""

from __future__ import annotations

import dataclasses
import json
from typing import cast

import orjson

from ..compare.classes import CLASSES
from ..model import Configuration
from ..report import (
    Change,
    FieldChange,
    GateOutcome,
    PackageChange,
    Report,
    RootCount,
    Side,
    SpecChange,
    StackChange,
    StackMove,
    Summary,
)
from ..schema import (
    BumpJSON,
    ChangeJSON,
    ClassCountJSON,
    ConfigurationJSON,
    FieldJSON,
    GateJSON,
    HistoryJSON,
    PackageJSON,
    ReportJSON,
    RootJSON,
    SideJSON,
    SpecChangeJSON,
    StackJSON,
    StackMoveJSON,
    SummaryJSON,
)
from ..versions import Bump
from .jsoncauses import rebuilds_to_dict

__all__ = [
    "bump_to_dict",
    "dumps_json",
    "render_json",
    "report_to_dict",
    "specs_by_class",
    "stack_move_to_dict",
    "stack_to_dict",
    "summary_to_dict",
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


def stack_move_to_dict(move: StackMove) -> StackMoveJSON:
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
    bump = change.bump
    return {
        "tag": change.tag,
        "name": change.name,
        "status": change.status,
        "versions_old": list(change.versions_old),
        "versions_new": list(change.versions_new),
        "versions_added": list(change.versions_added),
        "versions_removed": list(change.versions_removed),
        "bump": bump_to_dict(bump) if bump else None,
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


def bump_to_dict(bump: Bump) -> BumpJSON:
    return {"from": bump.old, "to": bump.new, "kind": bump.kind, "size": bump.size}


def summary_to_dict(summary: Summary) -> SummaryJSON:
    # the record's fields are the schema's, in its order (the golden JSON files hold it)
    return cast(SummaryJSON, dataclasses.asdict(summary))


def stack_to_dict(change: StackChange) -> StackJSON:
    return {
        "tag": change.tag,
        "name": change.name,
        "status": change.status,
        "specs_old": change.specs_old,
        "specs_new": change.specs_new,
        "packages_gained": list(change.packages_gained),
        "packages_lost": list(change.packages_lost),
    }


def report_to_dict(report: Report) -> ReportJSON:
    """The JSON report of SPEC section 4 (plus a few documented extra keys)."""
    built: _Configurations = {}  # each distinct one built once, shared by records (read-only)
    return {
        "schema_version": report.schema_version,
        "old": _side(report.old),
        "new": _side(report.new),
        "summary": summary_to_dict(report.summary),
        "packages": [_package(p, built) for p in report.packages],
        "stacks": [stack_to_dict(s) for s in report.stacks],
        "stack_moves": [stack_move_to_dict(m) for m in report.stack_moves],
        "root": [_root(r) for r in report.root],
        "specs_by_class": specs_by_class(report),
        "warnings": list(report.warnings),
        "filters": {name: list(globs) for name, globs in report.filters.applied},
        "incomplete": bool(report.skipped),
        "skipped": list(report.skipped),
        "gates": [_gate(g) for g in report.gates],
        "rebuilds": None if report.rebuilds is None else rebuilds_to_dict(report.rebuilds),
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
