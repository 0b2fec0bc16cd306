"""The JSON of why specs were rebuilt (SPEC section 6, the report's `rebuilds`, its own
`schema_version` 2; docs/json.md): each cause->spec fact given once, as each cascade spec's new
edges one step down, so that it grows with the input."""

from __future__ import annotations

from ..report import Cascade, Rebuilds
from ..schema import (
    CAUSE_LISTS,
    REBUILDS_SCHEMA_VERSION,
    CascadeJSON,
    CausePackagesJSON,
    CauseStacksJSON,
    RebuildsJSON,
)

__all__ = ["rebuilds_to_dict"]


def rebuilds_to_dict(rebuilds: Rebuilds) -> RebuildsJSON:
    """SPEC section 6's `rebuilds`, with the cause->spec relation given once and in proportion
    to the input: each cascade spec names what its new edges reach one step down (the rest of
    its causes is theirs), each cause counts its cascade; plus each cause's first packages and
    the count of distinct rebuilt specs."""
    scheme = rebuilds.scheme
    return {
        "schema_version": REBUILDS_SCHEMA_VERSION,
        "scheme": None
        if scheme is None
        else {
            "from": scheme.before,
            "to": scheme.after,
            "evidence": scheme.evidence,
            "kept": scheme.kept,
        },
        "moves": [
            {"dimension": m.dimension, "from": [m.before], "to": [m.after], "specs": m.specs}
            for m in rebuilds.moves
        ],
        "triggers": [
            {
                "hash": t.hash,
                "name": t.name,
                "predecessor": t.predecessor,
                "changes": list(t.changes),
                "from": {kind: _cause_field(value) for kind, value in t.before},
                "to": {kind: _cause_field(value) for kind, value in t.after},
                "cascade_specs": len(t.cascade),
                "cascade_build_only_specs": len(t.cascade_build_only),
                **_stacks(t.stacks),
                **_packages(t.packages),
            }
            for t in rebuilds.triggers
        ],
        "new_builds": [
            {
                "hash": b.hash,
                "name": b.name,
                "cascade_specs": len(b.cascade),
                "cascade_build_only_specs": len(b.cascade_build_only),
            }
            for b in rebuilds.new_builds
        ],
        "cascades": list(map(_cascade, rebuilds.cascades)),
        "cascades_filtered_out": list(map(_cascade, rebuilds.filtered_out)),
        "hash_scheme": list(rebuilds.hash_scheme),
        "unexplained": list(rebuilds.unexplained),
        "missing_dependencies": [
            {
                "hash": m.hash,
                "name": m.name,
                "dependency": m.dependency,
                "dependency_name": m.dependency_name,
                "new": m.new,
            }
            for m in rebuilds.missing_dependencies
        ],
        "rebuilt": rebuilds.rebuilt,
    }


def _cascade(cascade: Cascade) -> CascadeJSON:
    return {
        "hash": cascade.hash,
        "name": cascade.name,
        "predecessor": cascade.predecessor,
        "direct_causes": list(cascade.direct_causes),
        "through": list(cascade.through),
        "build_only": list(cascade.build_only),
    }


def _packages(packages: tuple[tuple[str, int], ...]) -> CausePackagesJSON:
    """A cause's cascade by package: the first CAUSE_LISTS and how many more (a ladder of
    triggers gives each cause a package per spec)."""
    shown = packages[:CAUSE_LISTS]
    return {
        "packages": [{"name": name, "specs": n} for name, n in shown],
        "packages_more": len(packages) - len(shown),
    }


def _stacks(stacks: tuple[str, ...]) -> CauseStacksJSON:
    """The stacks of a cause and its cascade: the first CAUSE_LISTS and how many more (a
    ladder whose every step is built in a stack of its own gives each cause a stack per spec)."""
    return {"stacks": list(stacks[:CAUSE_LISTS]), "stacks_more": max(0, len(stacks) - CAUSE_LISTS)}


def _cause_field(value: str | tuple[str, ...]) -> str | list[str]:
    return value if isinstance(value, str) else list(value)
