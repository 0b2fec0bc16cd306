"""The JSON report's `rebuilds` (SPEC section 6): why specs were rebuilt, as plain data."""

from __future__ import annotations

from ..report import Rebuilds
from ..schema import RebuildsJSON

__all__ = ["rebuilds_to_dict"]


def rebuilds_to_dict(rebuilds: Rebuilds) -> RebuildsJSON:
    """SPEC section 6's `rebuilds`, plus each trigger's cascade by package and the count of
    distinct rebuilt specs."""
    return {
        "triggers": [
            {
                "hash": t.hash,
                "name": t.name,
                "predecessor": t.predecessor,
                "changes": list(t.changes),
                "from": {kind: _field(value) for kind, value in t.before},
                "to": {kind: _field(value) for kind, value in t.after},
                "cascade": list(t.cascade),
                "cascade_build_only": list(t.cascade_build_only),
                "stacks": list(t.stacks),
                "packages": [{"name": name, "specs": n} for name, n in t.packages],
            }
            for t in rebuilds.triggers
        ],
        "cascades": [
            {"hash": c.hash, "name": c.name, "predecessor": c.predecessor, "causes": list(c.causes)}
            for c in rebuilds.cascades
        ],
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


def _field(value: str | tuple[str, ...]) -> str | list[str]:
    return value if isinstance(value, str) else list(value)
