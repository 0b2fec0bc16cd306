"""The cause checker: re-derives SPEC section 6 (`rebuilds`) from the raw inputs alone.

Independent of snapdiff's code by design: it reads build-cache `index.json` files and environment
`spack.lock` files with `json`, and derives predecessors (related candidates only, environment
roots first, then greedy over every candidate pair in the SPEC's total order), own changes,
triggers, new builds as causes, cascades (by a plain search from each spec, not a memoised walk),
build-only subsets, hash-scheme, unexplained, missing dependencies, moves and the scheme change
as the SPEC words them. Slow (quadratic at worst) and simple: pairs are enumerated within each
package name (a pair of two names is never a candidate), sorted, and taken.

Run by hand: `python tests/helpers/causes.py OLD NEW [REPORT.json]` prints what a report's
`rebuilds` claims that the inputs do not give (or, with no report, the derived `rebuilds`).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

LANGUAGES = ("c", "cxx", "fortran")
FLAGS = {"cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs", "dev_path"}
NONE = "none"
# SPEC 2a: compilers compared by their Spack 1.0 package name
ALIASES = {
    "oneapi": "intel-oneapi-compilers",
    "clang": "llvm",
    "intel": "intel-oneapi-compilers-classic",
}
FOLDED = {"cray", "linux"}  # Spack folded the `cray` platform into `linux`
MOVE_DIMENSIONS = ("target", "os", "platform", "compiler")
KINDS_OF_REBUILT = ("triggers", "cascades", "hash_scheme", "unexplained")
FIELDS_JSON = (
    "scheme",
    "moves",
    "triggers",
    "new_builds",
    "cascades",
    "hash_scheme",
    "unexplained",
    "missing_dependencies",
)
Record = dict[str, Any]


# -- normalisation and relatedness, written again from SPEC 2a and 6 --------------------------


def normal_compiler(text: str) -> str:
    """`gcc@=12.2.0` → `gcc@12.2.0`, `oneapi@2024` → `intel-oneapi-compilers@2024`, `clang@X` →
    `llvm@X`, `intel@19` → `intel-oneapi-compilers-classic@19`; `none` stays `none`."""
    name, at, version = text.replace("@=", "@").partition("@")
    return ALIASES.get(name, name) + at + version


def compiler_family(text: str) -> str:
    return normal_compiler(text).partition("@")[0]


@cache
def target_family(target: str) -> str:
    """`archspec`'s family of a target (`zen3` → `x86_64`); one it does not know is its own."""
    from archspec.cpu import TARGETS

    known = TARGETS.get(target)
    return known.family.name if known is not None else target


def crossing(a: Record, b: Record) -> list[str]:
    """Why records `a` and `b` are not related (empty: related)."""
    why = []
    if a["name"] != b["name"]:
        why.append(f"name {b['name']} → {a['name']}")
    if a["platform"] != b["platform"] and {a["platform"], b["platform"]} != FOLDED:
        why.append(f"platform {b['platform']} → {a['platform']}")
    if a["target"] != b["target"] and target_family(a["target"]) != target_family(b["target"]):
        why.append(f"target family {b['target']} → {a['target']}")
    families = {compiler_family(a["compiler"]), compiler_family(b["compiler"])}
    if len(families) > 1 and NONE not in families:
        why.append(f"compiler family {b['compiler']} → {a['compiler']}")
    return why


def related(a: Record, b: Record) -> bool:
    return not crossing(a, b)


# -- reading a side ----------------------------------------------------------------------------


@dataclass
class Side:
    """What a side gives: its records by hash, its environments' roots, its formats."""

    records: dict[str, Record] = field(default_factory=dict)
    roots: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # env -> (text, hash)
    lockfiles: set[int] = field(default_factory=set)
    databases: set[str] = field(default_factory=set)
    spack: set[str] = field(default_factory=set)


def _compiler(spec: Record, nodes: dict[str, Record]) -> str:
    compiler = spec.get("compiler")
    if isinstance(compiler, dict) and compiler.get("name"):
        return f"{compiler['name']}@{compiler.get('version', '')}".rstrip("@").replace("@=", "@")
    annotated = (spec.get("annotations") or {}).get("compiler")
    if annotated:
        return str(annotated).replace("@=", "@")
    edges = _dependencies(spec)
    for language in LANGUAGES:
        for edge in edges:
            if language in ((edge.get("parameters") or {}).get("virtuals") or []):
                version = nodes.get(edge["hash"], {}).get("version")
                return f"{edge['name']}@{version}" if version else edge["name"]
    return NONE


def _dependencies(spec: Record) -> list[Record]:
    """`dependencies` as a list of edges (a dict keyed by name in old formats)."""
    deps = spec.get("dependencies") or []
    if isinstance(deps, dict):
        return [{"name": name, **value} for name, value in deps.items()]
    return list(deps)


def _variants(parameters: dict[str, Any]) -> frozenset[str]:
    """Spack's tokens: `+v`, `~v`, `v=x`; a multi-valued variant one token, values sorted;
    `patches` one token of its full checksums; flags left out."""
    tokens = set()
    for name, value in parameters.items():
        if name in FLAGS:
            continue
        if isinstance(value, bool):
            tokens.add(("+" if value else "~") + name)
        elif isinstance(value, list):
            if value or name != "patches":
                tokens.add(f"{name}={','.join(sorted(map(str, value)))}")
        else:
            tokens.add(f"{name}={value}")
    return frozenset(tokens)


def _external(spec: Record) -> tuple[Any, Any] | None:
    """An external as `(path, module)`, or None when built."""
    external = spec.get("external")
    if not external:
        return None
    module = external.get("module")
    return (external.get("path"), tuple(module) if isinstance(module, list) else module)


def _record(spec: Record, nodes: dict[str, Record]) -> Record:
    arch = spec.get("arch") or {}
    target = arch.get("target")
    edges: dict[tuple[str, str], tuple[str, ...]] = {}
    for edge in _dependencies(spec):
        parameters = edge.get("parameters") or {}
        deptypes = parameters.get("deptypes") or edge.get("type") or edge.get("deptypes") or ()
        key = (edge["name"], edge["hash"])
        edges[key] = tuple(sorted(set(edges.get(key, ())) | set(deptypes)))
    return {
        "name": spec["name"],
        "version": str(spec.get("version", "")),
        "platform": arch.get("platform", ""),
        "os": arch.get("platform_os", ""),
        "target": target.get("name", "") if isinstance(target, dict) else target or "",
        "compiler": _compiler(spec, nodes),
        "variants": _variants(spec.get("parameters") or {}),
        "namespace": spec.get("namespace") or "",
        "package_hash": spec.get("package_hash") or "",
        "external": _external(spec),
        "edges": edges,
    }


def _add(side: Side, stack: str, digest: str, record: Record, binary: bool) -> None:
    held = side.records.setdefault(digest, {"stacks": set(), "binary": False})
    held["stacks"].add(stack)
    held["binary"] = held["binary"] or binary
    held.update(record)


def _read_index(side: Side, stack: str, data: dict[str, Any]) -> None:
    database = data["database"]
    side.databases.add(str(database.get("version", "")))
    installs = database.get("installs") or {}
    nodes = {digest: install["spec"] for digest, install in installs.items()}
    for digest, install in installs.items():
        record = _record(install["spec"], nodes)
        _add(side, stack, digest, record, bool(install.get("in_buildcache")))


def _lock_nodes(
    data: dict[str, Any], env: str
) -> tuple[dict[str, Record], dict[str, list[tuple[str, str]]]]:
    """Concrete specs and roots (by environment) of a lockfile, `include_concrete` flattened
    (each included environment named by its path)."""
    nodes = dict(data.get("concrete_specs") or {})
    roots = {env: [(r["spec"], r["hash"]) for r in data.get("roots") or []]}
    for path, included in (data.get("include_concrete") or {}).items():
        more, more_roots = _lock_nodes(included, path)
        for digest, node in more.items():
            nodes.setdefault(digest, node)
        for name, listed in more_roots.items():
            roots.setdefault(name, []).extend(listed)
    return nodes, roots


def _read_lock(side: Side, env: str, data: dict[str, Any]) -> None:
    version = int((data.get("_meta") or {}).get("lockfile-version", 0))
    if version < 4:
        raise ValueError(f"lockfile v{version}: the checker reads lockfiles v4 and later")
    side.lockfiles.add(version)
    if (data.get("spack") or {}).get("version"):
        side.spack.add(str(data["spack"]["version"]))
    nodes, roots = _lock_nodes(data, env)
    for name, listed in roots.items():
        side.roots.setdefault(name, []).extend(listed)
    for digest, node in nodes.items():
        _add(side, "root", digest, _record(node, nodes), True)  # an environment holds them all


def load(path: Path) -> Side:
    """A side: one index or lockfile file, or a folder of `<stack>/build_cache/index.json`
    files and `spack.lock` files (each lockfile an environment named by its folder)."""
    side = Side()
    if path.is_file():
        data = json.loads(path.read_text())
        if "concrete_specs" in data:
            _read_lock(side, ".", data)
        elif "database" in data:
            parent = path.parent
            stack = parent.parent.name if parent.name == "build_cache" else "root"
            _read_index(side, stack or "root", data)
        return side
    locks = sorted(path.rglob("spack.lock"))
    for index in sorted(path.rglob("index.json")):
        if index.parent.name == ".spack-db" and (index.parent.parent / "spack.lock") in locks:
            continue  # an environment's install database is not a second side
        rel = index.relative_to(path).parts
        _read_index(side, rel[0] if len(rel) > 2 else "root", json.loads(index.read_text()))
    for lock in locks:
        _read_lock(side, lock.parent.relative_to(path).as_posix(), json.loads(lock.read_text()))
    return side


def read_side(side: Path) -> dict[str, Record]:
    """Every record of a side by hash: its node fields, edges and stacks."""
    return load(side).records


# -- predecessors ------------------------------------------------------------------------------

_ROOT_NAME = re.compile(r"\s*([A-Za-z0-9_][A-Za-z0-9_.-]*)")


def root_package(text: str) -> str:
    """The package an abstract spec text names: its leading name, before the first of
    `@%+~^=/` or a space (`builtin.zlib` names `zlib`); empty when it names none."""
    found = _ROOT_NAME.match(text)
    return found.group(1).rsplit(".", 1)[-1] if found else ""


def _equal_fields(r: Record) -> tuple[Any, ...]:
    return (
        r["version"],
        r["os"],
        r["target"],
        normal_compiler(r["compiler"]),
        r["namespace"],
        r["external"],
    )


def _names(r: Record) -> set[str]:
    return {name for name, _ in r["edges"]}


def order(new_hash: str, a: Record, old_hash: str, b: Record) -> tuple[Any, ...]:
    """A candidate pair's place in SPEC 6's total order (smallest first = best)."""
    equal = sum(x == y for x, y in zip(_equal_fields(a), _equal_fields(b), strict=True))
    return (
        -equal,
        -len(a["variants"] & b["variants"]),
        -len(_names(a) & _names(b)),
        new_hash,
        old_hash,
    )


def root_candidates(old: Side, new: Side) -> list[tuple[str, str]]:
    """(new, old) hashes of the environment roots that pair first: the text once on each side,
    both hashes nodes of the package the text names, the old only in OLD, the new only in NEW,
    related. Environments match by name, or are one when each side holds one."""
    if len(old.roots) == 1 and len(new.roots) == 1:
        envs = [(next(iter(old.roots.values())), next(iter(new.roots.values())))]
    else:
        envs = [(old.roots[name], new.roots[name]) for name in old.roots.keys() & new.roots]
    found = []
    for before, after in envs:
        counted_before = Counter(text for text, _ in before)
        counted_after = Counter(text for text, _ in after)
        hashes_before = dict(before)
        for text, n in after:
            if counted_after[text] != 1 or counted_before[text] != 1:
                continue
            o, package = hashes_before[text], root_package(text)
            if o not in old.records or o in new.records:
                continue
            if n not in new.records or n in old.records:
                continue
            a, b = new.records[n], old.records[o]
            if a["name"] == b["name"] == package and related(a, b):
                found.append((n, o))
    return found


def predecessors(
    old: dict[str, Record], new: dict[str, Record], first: list[tuple[str, str]] | None = None
) -> dict[str, str]:
    """Rebuilt hash -> predecessor: the pairs of `first` (environment roots), then greedy over
    every related candidate pair in the total order (most equal fields, most variant tokens in
    common, most dependency names in common, smallest (new hash, old hash))."""
    pairs: dict[str, str] = {}
    taken: set[str] = set()

    def take(candidates: list[tuple[str, str]]) -> None:
        ranked = sorted(candidates, key=lambda p: order(p[0], new[p[0]], p[1], old[p[1]]))
        for n, o in ranked:
            if n not in pairs and o not in taken:
                pairs[n] = o
                taken.add(o)

    take(first or [])
    added: dict[str, list[str]] = {}
    for digest in set(new) - set(old) - set(pairs):
        added.setdefault(new[digest]["name"], []).append(digest)
    gone: dict[str, list[str]] = {}
    for digest in set(old) - set(new) - taken:
        gone.setdefault(old[digest]["name"], []).append(digest)
    candidates = [
        (n, o)
        for name, hashes in added.items()
        for n in hashes
        for o in gone.get(name, [])
        if related(new[n], old[o])
    ]
    take(candidates)
    return pairs


def own_changes(a: Record, b: Record, old: dict[str, Record]) -> list[str]:
    """The own changes of rebuilt `a` against its predecessor `b`, sorted."""
    found = [
        f
        for f in ("version", "variants", "target", "os", "platform", "namespace", "external")
        if a[f] != b[f]
    ]
    if a["package_hash"] != b["package_hash"] and a["version"] == b["version"]:
        found.append("recipe")
    if normal_compiler(a["compiler"]) != normal_compiler(b["compiler"]):
        found.append("compiler")
    names_a, names_b = _names(a), _names(b)
    moved = any(h in old and (n, h) not in b["edges"] and n in names_b for n, h in a["edges"])
    if names_a != names_b or moved:
        found.append("dependencies")
    return sorted(found)


# -- the scheme change -------------------------------------------------------------------------


def _leaf(r: Record) -> tuple[Any, ...]:
    return (
        r["name"],
        r["version"],
        r["platform"],
        r["os"],
        r["target"],
        normal_compiler(r["compiler"]),
        r["variants"],
        r["namespace"],
        r["package_hash"],
        r["external"],
    )


def scheme(old: Side, new: Side) -> dict[str, str] | None:
    """A scheme change: the lockfile (or database) versions of the two sides differ, or no hash
    is kept and a leaf record equal in every node field was rehashed. Spack versions where both
    sides record them, else the formats."""
    lock_moved = old.lockfiles and new.lockfiles and old.lockfiles != new.lockfiles
    db_moved = old.databases and new.databases and old.databases != new.databases
    rehashed = False
    if old.records and new.records and not old.records.keys() & new.records.keys():
        leaves = {_leaf(r) for r in old.records.values() if not r["edges"]}
        rehashed = any(_leaf(r) in leaves for r in new.records.values() if not r["edges"])
    if not (lock_moved or db_moved or rehashed):
        return None

    def said(side: Side) -> str:
        if side.spack:
            return ", ".join(sorted(side.spack))
        formats = [f"lockfile v{v}" for v in sorted(side.lockfiles)]
        return ", ".join(formats + [f"database v{v}" for v in sorted(side.databases)])

    return {"from": said(old), "to": said(new)}


# -- the derivation ----------------------------------------------------------------------------


@dataclass
class Derived:
    """The derived `rebuilds` and what the invariant checks need beside it."""

    rebuilds: dict[str, Any]
    old: dict[str, Record]
    new: dict[str, Record]
    pairs: dict[str, str]


def _derive(old_side: Side, new_side: Side) -> Derived:
    old, new = old_side.records, new_side.records
    pairs = predecessors(old, new, root_candidates(old_side, new_side))
    changes = {d: own_changes(new[d], old[p], old) for d, p in pairs.items()}
    triggers = {d for d, c in changes.items() if c}
    new_builds = set(new) - set(old) - set(pairs)
    causes = triggers | new_builds

    def search(start: str, link_only: bool) -> tuple[set[str], set[str]]:
        """Causes reached from `start` by new edges through rebuilt specs with no own change,
        and the hashes reached that have no record in NEW."""
        reached, leaves, seen, todo = set(), set(), {start}, [start]
        while todo:
            for (_, dep), deptypes in new[todo.pop()]["edges"].items():
                if dep in old or dep in seen:
                    continue
                if link_only and not {"link", "run"} & set(deptypes):
                    continue
                seen.add(dep)
                if dep in causes:
                    reached.add(dep)
                elif dep in new:
                    todo.append(dep)  # a rebuilt spec with no own change
                else:
                    leaves.add(dep)
        return reached, leaves

    cascades: list[dict[str, Any]] = []
    hash_scheme: list[str] = []
    unexplained: list[str] = []
    cascade: dict[str, list[str]] = {c: [] for c in causes}
    build_only: dict[str, list[str]] = {c: [] for c in causes}
    for digest in sorted(set(pairs) - triggers):
        reached, leaves = search(digest, False)
        linked, _ = search(digest, True)
        if reached:
            cascades.append(
                {
                    "hash": digest,
                    "name": new[digest]["name"],
                    "predecessor": pairs[digest],
                    "causes": sorted(reached),
                }
            )
            for c in reached:
                cascade[c].append(digest)
                if c not in linked:
                    build_only[c].append(digest)
        else:
            (unexplained if leaves else hash_scheme).append(digest)

    found = []
    for t in triggers:
        stacks = set(new[t]["stacks"]).union(*(new[c]["stacks"] for c in cascade[t]))
        b, a = old[pairs[t]], new[t]
        fields = [k for k in changes[t] if k != "dependencies"]
        found.append(
            {
                "hash": t,
                "name": a["name"],
                "predecessor": pairs[t],
                "changes": changes[t],
                "from": {k: _said(b, k) for k in fields},
                "to": {k: _said(a, k) for k in fields},
                "cascade": cascade[t],
                "cascade_build_only": build_only[t],
                "stacks": sorted(stacks),
            }
        )
    found.sort(key=lambda x: (-len(x["cascade"]), x["name"], x["hash"]))
    built = [
        {
            "hash": n,
            "name": new[n]["name"],
            "cascade": cascade[n],
            "cascade_build_only": build_only[n],
        }
        for n in sorted(new_builds)
        if cascade[n]
    ]
    rebuilds = {
        "scheme": scheme(old_side, new_side),
        "moves": moves(pairs, changes, old, new),
        "triggers": found,
        "new_builds": built,
        "cascades": cascades,
        "hash_scheme": hash_scheme,
        "unexplained": unexplained,
        "missing_dependencies": missing(old, new),
        "rebuilt": len(pairs),
    }
    return Derived(rebuilds, old, new, pairs)


def _said(r: Record, kind: str) -> Any:
    """A changed field's value, as evidence (not compared)."""
    if kind == "recipe":
        return r["package_hash"]
    if kind == "variants":
        return sorted(r["variants"])
    if kind == "compiler":
        return normal_compiler(r["compiler"])
    if kind == "external":
        return list(r["external"]) if r["external"] else None
    return r[kind]


def _move_value(r: Record, dimension: str) -> str:
    return normal_compiler(r["compiler"]) if dimension == "compiler" else r[dimension]


def moves(
    pairs: dict[str, str],
    changes: dict[str, list[str]],
    old: dict[str, Record],
    new: dict[str, Record],
) -> list[dict[str, Any]]:
    """Each (dimension, from, to) of target, os, platform or compiler that at least half of the
    rebuilt specs make as an own change; most specs first."""
    counted: Counter[tuple[str, str, str]] = Counter()
    for digest, kinds in changes.items():
        for dimension in MOVE_DIMENSIONS:
            if dimension in kinds:
                before = _move_value(old[pairs[digest]], dimension)
                counted[dimension, before, _move_value(new[digest], dimension)] += 1
    found = [
        {"dimension": d, "from": [f], "to": [t], "specs": n}
        for (d, f, t), n in counted.items()
        if 2 * n >= len(pairs)
    ]
    return sorted(found, key=lambda m: (-m["specs"], m["dimension"], m["from"], m["to"]))


def derive(old_side: Path, new_side: Path) -> dict[str, Any]:
    """`rebuilds` of SPEC section 6, re-derived (triggers without `packages`)."""
    return _derive(load(old_side), load(new_side)).rebuilds


def predecessors_of(old_side: Path, new_side: Path) -> dict[str, str]:
    """Every rebuilt hash of two sides -> its predecessor (environment roots first)."""
    old, new = load(old_side), load(new_side)
    return predecessors(old.records, new.records, root_candidates(old, new))


def _gaps(records: dict[str, Record]) -> dict[tuple[str, str], str]:
    gaps = {}
    for digest, record in records.items():
        for (name, dep), deptypes in record["edges"].items():
            held = records.get(dep)
            ok = held is not None and (held["binary"] or held["external"] is not None)
            if record["binary"] and {"link", "run"} & set(deptypes) and not ok:
                gaps[digest, dep] = name
    return gaps


def missing(old: dict[str, Record], new: dict[str, Record]) -> list[dict[str, Any]]:
    before = _gaps(old)
    found = [
        {
            "hash": d,
            "name": new[d]["name"],
            "dependency": dep,
            "dependency_name": name,
            "new": (d, dep) not in before,
        }
        for (d, dep), name in _gaps(new).items()
    ]
    return sorted(found, key=lambda m: (not m["new"], m["hash"], m["dependency"]))


# -- comparing a report ------------------------------------------------------------------------


def _reaches(start: str, by_hash: dict[str, Record], memo: dict[str, Any]) -> None:
    """The causes a cascade spec of a report reaches (all, and by link/run edges only), from
    the evidence one step down (`direct_causes`, `through`, `build_only`), into `memo`: a
    plain depth-first search, iterative (a chain may be deeper than Python's recursion)."""
    todo, on_path = [start], set()
    while todo:
        digest = todo[-1]
        if digest in memo:
            todo.pop()
            continue
        c = by_hash[digest]
        below = [t for t in c["through"] if t not in memo and t in by_hash and t not in on_path]
        if below and digest not in on_path:
            on_path.add(digest)
            todo.extend(below)
            continue
        todo.pop()
        on_path.discard(digest)
        build = set(c["build_only"])
        every, linked = set(c["direct_causes"]), set(c["direct_causes"]) - build
        for t in c["through"]:
            found, found_linked = memo.get(t, (set(), set()))
            every |= found
            if t not in build:
                linked |= found_linked
        memo[digest] = (every, linked)


def _whole(rebuilds: dict[str, Any]) -> bool:
    """Whether `rebuilds` lists the whole relation (schema 1, or the checker's own)."""
    causing = [*(rebuilds.get("triggers") or []), *(rebuilds.get("new_builds") or [])]
    return any("causes" in c for c in rebuilds.get("cascades") or []) or any(
        "cascade" in c for c in causing
    )


def expand(rebuilds: dict[str, Any]) -> dict[str, Any]:
    """A report's `rebuilds` of schema 2, which gives each cause->spec fact once (each cascade
    spec names its causes and cascade specs one step down; each cause counts its cascade),
    written out as the whole relation the checker derives: each cascade's `causes`, each
    cause's `cascade` and `cascade_build_only`. Schema 1 (or the checker's own) as it is."""
    cascades = rebuilds.get("cascades") or []
    if _whole(rebuilds):
        return rebuilds
    by_hash = {c["hash"]: c for c in [*cascades, *(rebuilds.get("cascades_filtered_out") or [])]}
    memo: dict[str, Any] = {}
    cascade: dict[str, list[str]] = {}
    build_only: dict[str, list[str]] = {}
    for c in cascades:
        _reaches(c["hash"], by_hash, memo)
        every, linked = memo[c["hash"]]
        for cause in every:
            cascade.setdefault(cause, []).append(c["hash"])
            if cause not in linked:
                build_only.setdefault(cause, []).append(c["hash"])

    def whole(cause: Record) -> Record:
        return {
            **cause,
            "cascade": sorted(cascade.get(cause["hash"], [])),
            "cascade_build_only": sorted(build_only.get(cause["hash"], [])),
        }

    return {
        **rebuilds,
        "triggers": [whole(t) for t in rebuilds.get("triggers") or []],
        "new_builds": [whole(b) for b in rebuilds.get("new_builds") or []],
        "cascades": [
            {k: c[k] for k in ("hash", "name", "predecessor")}
            | {"causes": sorted(memo[c["hash"]][0])}
            for c in cascades
        ],
    }


def evidence(rebuilds: dict[str, Any], derived: Derived) -> list[str]:
    """What a report of schema 2 gives as evidence one step down, checked on the raw records:
    each cascade spec's `direct_causes` and `through` are hashes its record names by a new edge
    (one `OLD` lacks), `through` names cascade specs the report lists, `build_only` are exactly
    those of them named by no `link` or `run` edge, each list sorted; each cause's counts are
    those of its cascade."""
    cascades = rebuilds.get("cascades") or []
    if _whole(rebuilds):
        return []
    old, new, problems = derived.old, derived.new, []
    listed = {c["hash"] for c in [*cascades, *(rebuilds.get("cascades_filtered_out") or [])]}
    for c in [*cascades, *(rebuilds.get("cascades_filtered_out") or [])]:
        digest = c["hash"]
        for key in ("direct_causes", "through", "build_only"):
            if c[key] != sorted(set(c[key])):
                problems.append(f"cascade {digest}: {key} not sorted, or named twice")
        edges: dict[str, set[str]] = {}
        for (_, dep), deptypes in new.get(digest, {}).get("edges", {}).items():
            edges.setdefault(dep, set()).update(deptypes)
        named = [*c["direct_causes"], *c["through"]]
        for dep in named:
            if dep not in edges or dep in old:
                problems.append(f"cascade {digest}: {dep} is no new edge of its record")
        if stray := sorted(set(c["through"]) - listed):
            problems.append(f"cascade {digest}: through {_cut(stray)}, no cascade listed")
        build = sorted(d for d in named if d in edges and not {"link", "run"} & edges[d])
        if sorted(c["build_only"]) != build:
            problems.append(f"cascade {digest}: build_only {c['build_only']}, records {build}")
    whole = expand(rebuilds)
    for said, full in zip(
        [*(rebuilds.get("triggers") or []), *(rebuilds.get("new_builds") or [])],
        [*whole["triggers"], *whole["new_builds"]],
        strict=True,
    ):
        for count, key in (
            ("cascade_specs", "cascade"),
            ("cascade_build_only_specs", "cascade_build_only"),
        ):
            if said.get(count) != len(full[key]):
                problems.append(
                    f"{said['hash']}: {count} {said.get(count)}, evidence {len(full[key])}"
                )
    return problems


def comparable(rebuilds: dict[str, Any]) -> dict[str, Any]:
    """A report's `rebuilds` with only what the checker derives: scheme presence, moves (compiler
    values normalised; dimensions target, os, platform, compiler), triggers (changes sorted),
    new builds, cascades, hash-scheme, unexplained and missing dependencies; schema 2's evidence
    expanded (`expand`). A field the report lacks reads as empty (`check` says that it lacks
    it)."""
    rebuilds = expand(rebuilds)
    keys = ("hash", "name", "predecessor", "cascade", "cascade_build_only", "stacks")

    def values(move: dict[str, Any], end: str) -> list[str]:
        said = [str(v) for v in move[end]]
        return [normal_compiler(v) for v in said] if move["dimension"] == "compiler" else said

    return {
        "scheme": rebuilds.get("scheme") is not None,
        "moves": sorted(
            (
                {
                    "dimension": m["dimension"],
                    "from": values(m, "from"),
                    "to": values(m, "to"),
                    "specs": m["specs"],
                }
                for m in rebuilds.get("moves") or []
                if m["dimension"] in MOVE_DIMENSIONS
            ),
            key=lambda m: (m["dimension"], m["from"], m["to"]),
        ),
        "triggers": [
            {**{k: t[k] for k in keys}, "changes": sorted(t["changes"])}
            for t in rebuilds.get("triggers") or []
        ],
        "new_builds": [
            {k: b[k] for k in ("hash", "name", "cascade", "cascade_build_only")}
            for b in rebuilds.get("new_builds") or []
            if isinstance(b, dict)  # bench/genindex.py's truth lists every new build's hash
        ],
        "cascades": [
            {k: c[k] for k in ("hash", "name", "predecessor", "causes")}
            for c in rebuilds.get("cascades") or []
        ],
        **{k: rebuilds.get(k) or [] for k in ("hash_scheme", "unexplained")},
        "missing_dependencies": rebuilds.get("missing_dependencies") or [],
    }


def _cut(items: list[Any], most: int = 5) -> str:
    shown = ", ".join(map(str, items[:most]))
    return shown + (f" … and {len(items) - most} more" if len(items) > most else "")


def _differ(key: str, got: Any, want: Any) -> str:
    """One readable line: what the report and the inputs say differently under `key`."""
    if isinstance(got, list) and isinstance(want, list):
        ident = [x.get("hash", repr(x)) if isinstance(x, dict) else repr(x) for x in got]
        wanted = [x.get("hash", repr(x)) if isinstance(x, dict) else repr(x) for x in want]
        extra = [h for h in ident if h not in wanted]
        lacking = [h for h in wanted if h not in ident]
        if extra or lacking:
            return f"{key}: report only [{_cut(extra)}]; inputs only [{_cut(lacking)}]"
        by_hash = dict(zip(wanted, want, strict=True))
        for h, x in zip(ident, got, strict=True):
            if x != by_hash[h]:
                return f"{key}: {h}: report {x!r}, inputs {by_hash[h]!r}"
        return f"{key}: the same entries in another order"
    return f"{key}: report {got!r}, inputs {want!r}"


def invariants(rebuilds: dict[str, Any], derived: Derived) -> list[str]:
    """SPEC 6's invariants of a report's `rebuilds`, checked on the raw records."""
    old, new, problems = derived.old, derived.new, []
    claimed = [(t["hash"], t["predecessor"]) for t in rebuilds.get("triggers") or []]
    claimed += [(c["hash"], c["predecessor"]) for c in rebuilds.get("cascades") or []]
    for digest, before in claimed:
        if digest not in new or before not in old:
            problems.append(f"pair {digest} ← {before}: a hash with no record on its side")
        elif why := crossing(new[digest], old[before]):
            problems.append(f"pair {digest} ← {before} is not related: {'; '.join(why)}")
    for digest in rebuilds.get("hash_scheme") or []:
        before = derived.pairs.get(digest)
        if digest in new and before is not None:
            for f in ("namespace", "external"):
                if new[digest][f] != old[before][f]:
                    problems.append(f"hash_scheme {digest} differs from {before} in {f}")
    quiet = {c["hash"] for c in rebuilds.get("cascades") or []}
    quiet |= set(rebuilds.get("hash_scheme") or []) | set(rebuilds.get("unexplained") or [])
    for digest in rebuilds.get("unexplained") or []:
        if not _reaches_no_record(digest, quiet, old, new):
            problems.append(f"unexplained {digest} has no path to a hash with no record")
    every = [t["hash"] for t in rebuilds.get("triggers") or []]
    every += [c["hash"] for c in rebuilds.get("cascades") or []]
    every += list(rebuilds.get("hash_scheme") or []) + list(rebuilds.get("unexplained") or [])
    twice = sorted(h for h, n in Counter(every).items() if n > 1)
    if twice:
        problems.append(f"in two of {', '.join(KINDS_OF_REBUILT)}: {_cut(twice)}")
    if set(every) != set(derived.pairs):
        extra, lacking = (
            sorted(set(every) - set(derived.pairs)),
            sorted(set(derived.pairs) - set(every)),
        )
        problems.append(
            f"rebuilt specs: listed but not rebuilt [{_cut(extra)}]; rebuilt but not listed "
            f"[{_cut(lacking)}]"
        )
    if "rebuilt" in rebuilds and rebuilds["rebuilt"] != len(derived.pairs):
        problems.append(f"rebuilt: report {rebuilds['rebuilt']}, inputs {len(derived.pairs)}")
    return problems


def _reaches_no_record(
    start: str, quiet: set[str], old: dict[str, Record], new: dict[str, Record]
) -> bool:
    """Whether new edges from `start`, through specs the report calls rebuilt with no cause of
    their own, reach a hash with no record in NEW."""
    seen, todo = {start}, [start]
    while todo:
        for _, dep in new[todo.pop()]["edges"]:
            if dep in old or dep in seen:
                continue
            seen.add(dep)
            if dep not in new:
                return True
            if dep in quiet:
                todo.append(dep)
    return False


def check(rebuilds: dict[str, Any], old_side: Path, new_side: Path) -> list[str]:
    """What a report's `rebuilds` claims that the raw inputs do not give (empty: all true)."""
    derived = _derive(load(old_side), load(new_side))
    lacking = [k for k in FIELDS_JSON if k not in rebuilds]
    problems = [f"rebuilds lacks {', '.join(lacking)}"] if lacking else []
    got, want = comparable(rebuilds), comparable(derived.rebuilds)
    problems += [_differ(key, got[key], want[key]) for key in want if got[key] != want[key]]
    return problems + invariants(rebuilds, derived) + evidence(rebuilds, derived)


def main(argv: list[str]) -> int:
    """`causes.py OLD NEW [REPORT.json]`: the problems of a report (a whole JSON report or its
    `rebuilds`), or with no report the derived `rebuilds` as JSON."""
    if len(argv) not in (2, 3):
        print("usage: causes.py OLD NEW [REPORT.json]", file=sys.stderr)
        return 2
    old, new = Path(argv[0]), Path(argv[1])
    if len(argv) == 2:
        print(json.dumps(derive(old, new), indent=1))
        return 0
    report = json.loads(Path(argv[2]).read_text())
    rebuilds = report.get("rebuilds", report)
    if rebuilds is None:
        print("the report says nothing about causes (`rebuilds` is null)")
        return 1
    problems = check(rebuilds, old, new)
    for problem in problems:
        print(problem)
    if not problems:
        listed = sum(len(rebuilds.get(k) or []) for k in KINDS_OF_REBUILT)
        print(f"ok: {listed} rebuilt specs, every claim true")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
