"""The cause checker: re-derives SPEC section 6 (`rebuilds`) from the raw index files alone.

Independent of snapdiff's code by design: it reads `index.json` files with `json`, and derives
predecessors, own changes, triggers, cascades (by a plain search from each spec, not a memoised
walk), build-only subsets, hash-scheme, unexplained and missing dependencies as the SPEC words
them. Slow (quadratic at worst) and simple: for small inputs only.
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any

LANGUAGES = {"c", "cxx", "fortran"}
FLAGS = {"cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs", "dev_path"}
Record = dict[str, Any]


def _indexes(side: Path) -> list[tuple[str, Path]]:
    """(stack, index file) of a side: one file, or a folder of `<stack>/build_cache/index.json`."""
    if side.is_file():
        if side.suffix != ".json":
            return []
        stack = side.parent.parent.name if side.parent.name == "build_cache" else "root"
        return [(stack or "root", side)]
    found = []
    for index in sorted(side.rglob("index.json")):
        rel = index.relative_to(side).parts
        found.append((rel[0] if len(rel) > 2 else "root", index))
    return found


def _compiler(spec: Record, installs: dict[str, Any]) -> str:
    compiler = spec.get("compiler")
    if compiler and compiler.get("name"):
        return f"{compiler['name']}@{compiler.get('version', '')}".rstrip("@")
    annotated = (spec.get("annotations") or {}).get("compiler")
    if annotated:
        return str(annotated).replace("@=", "@")
    for edge in spec.get("dependencies", []):
        if LANGUAGES & set((edge.get("parameters") or {}).get("virtuals", [])):
            provider = installs.get(edge["hash"], {}).get("spec", {})
            version = provider.get("version")
            return f"{edge['name']}@{version}" if version else edge["name"]
    return "none"


def _variants(parameters: dict[str, Any]) -> frozenset[str]:
    tokens = set()
    for name, value in parameters.items():
        if name in FLAGS:
            continue
        if isinstance(value, bool):
            tokens.add(("+" if value else "~") + name)
        elif isinstance(value, list):
            joined = ",".join(sorted(map(str, value)) if name == "patches" else map(str, value))
            if value or name != "patches":
                tokens.add(f"{name}={joined}")
        else:
            tokens.add(f"{name}={value}")
    return frozenset(tokens)


def _installs(side: Path) -> list[tuple[str, dict[str, Any]]]:
    """(stack, install records by hash) of a side's indexes, or of its lockfiles (v4 and later,
    keyed by DAG hash: every concrete spec held, in stack `root`)."""
    found = [(s, json.loads(p.read_text())["database"]["installs"]) for s, p in _indexes(side)]
    locks = (
        [side] if side.is_file() and side.suffix == ".lock" else sorted(side.rglob("spack.lock"))
    )
    for lock in locks:
        nodes = json.loads(lock.read_text())["concrete_specs"]
        found.append(("root", {h: {"spec": n, "in_buildcache": True} for h, n in nodes.items()}))
    return found


def read_side(side: Path) -> dict[str, Record]:
    """Every record of a side by hash: its node fields, edges and stacks."""
    records: dict[str, Record] = {}
    for stack, installs in _installs(side):
        for digest, install in installs.items():
            spec = install["spec"]
            arch = spec.get("arch", {})
            target = arch.get("target")
            record = records.setdefault(digest, {"stacks": set(), "binary": False})
            record["stacks"].add(stack)
            record["binary"] = record["binary"] or bool(install.get("in_buildcache"))
            edges = {
                (e["name"], e["hash"]): tuple((e.get("parameters") or {}).get("deptypes", []))
                or tuple(e.get("type", []))
                for e in spec.get("dependencies", [])
            }
            record.update(
                name=spec["name"],
                version=str(spec.get("version", "")),
                platform=arch.get("platform", ""),
                os=arch.get("platform_os", ""),
                target=target.get("name") if isinstance(target, dict) else target or "",
                compiler=_compiler(spec, installs),
                variants=_variants(spec.get("parameters") or {}),
                package_hash=spec.get("package_hash") or "",
                external=bool(spec.get("external")),
                edges=edges,
            )
    return records


FIELDS = ("version", "os", "target", "compiler", "variants")


def predecessors(old: dict[str, Record], new: dict[str, Record]) -> dict[str, str]:
    """Rebuilt hash -> predecessor: most equal fields (each subset, largest first), then the
    same dependency names, then smallest hashes; searched pair by pair."""
    added = sorted(set(new) - set(old))
    gone = sorted(set(old) - set(new))
    pairs: dict[str, str] = {}
    taken: set[str] = set()
    for size in range(len(FIELDS), -1, -1):
        for fields in combinations(FIELDS, size):
            for deps in (True, False):
                for digest in added:
                    if digest in pairs:
                        continue
                    a = new[digest]
                    for other in gone:
                        b = old[other]
                        if other in taken or (a["name"], a["platform"]) != (
                            b["name"],
                            b["platform"],
                        ):
                            continue
                        if any(a[f] != b[f] for f in fields):
                            continue
                        if deps and {n for n, _ in a["edges"]} != {n for n, _ in b["edges"]}:
                            continue
                        pairs[digest] = other
                        taken.add(other)
                        break
    return pairs


def own_changes(a: Record, b: Record, old: dict[str, Record]) -> list[str]:
    """The own changes of rebuilt `a` against its predecessor `b`, sorted."""
    found = [f for f in ("version", "variants", "target", "os", "compiler") if a[f] != b[f]]
    if a["package_hash"] != b["package_hash"] and a["version"] == b["version"]:
        found.append("recipe")
    names_a = {n for n, _ in a["edges"]}
    names_b = {n for n, _ in b["edges"]}
    moved = any(h in old and (n, h) not in b["edges"] and n in names_b for n, h in a["edges"])
    if names_a != names_b or moved:
        found.append("dependencies")
    return sorted(found)


def derive(old_side: Path, new_side: Path) -> dict[str, Any]:
    """`rebuilds` of SPEC section 6, re-derived (triggers without `from`/`to`/`packages`)."""
    old, new = read_side(old_side), read_side(new_side)
    pairs = predecessors(old, new)
    changes = {d: own_changes(new[d], old[p], old) for d, p in pairs.items()}
    triggers = {d for d, c in changes.items() if c}

    def search(start: str, link_only: bool) -> tuple[set[str], bool]:
        """Triggers reached from `start` by new edges through rebuilt specs with no change."""
        reached, leaves, seen, todo = set(), False, {start}, [start]
        while todo:
            for (_, dep), deptypes in new[todo.pop()]["edges"].items():
                if dep in old or dep in seen:
                    continue
                if link_only and not {"link", "run"} & set(deptypes):
                    continue
                seen.add(dep)
                if dep in triggers:
                    reached.add(dep)
                elif dep in pairs:
                    todo.append(dep)
                else:
                    leaves = True
        return reached, leaves

    cascades: list[dict[str, Any]] = []
    scheme: list[str] = []
    unexplained: list[str] = []
    cascade: dict[str, list[str]] = {t: [] for t in triggers}
    build_only: dict[str, list[str]] = {t: [] for t in triggers}
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
            for t in reached:
                cascade[t].append(digest)
                if t not in linked:
                    build_only[t].append(digest)
        else:
            (unexplained if leaves else scheme).append(digest)
    found = []
    for t in triggers:
        stacks = set(new[t]["stacks"]).union(*(new[c]["stacks"] for c in cascade[t]))
        found.append(
            {
                "hash": t,
                "name": new[t]["name"],
                "predecessor": pairs[t],
                "changes": changes[t],
                "cascade": cascade[t],
                "cascade_build_only": build_only[t],
                "stacks": sorted(stacks),
            }
        )
    found.sort(key=lambda x: (-len(x["cascade"]), x["name"], x["hash"]))
    return {
        "triggers": found,
        "cascades": cascades,
        "hash_scheme": scheme,
        "unexplained": unexplained,
        "missing_dependencies": missing(old, new),
    }


def _gaps(records: dict[str, Record]) -> dict[tuple[str, str], str]:
    gaps = {}
    for digest, record in records.items():
        for (name, dep), deptypes in record["edges"].items():
            held = records.get(dep)
            ok = held is not None and (held["binary"] or held["external"])
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


def comparable(rebuilds: dict[str, Any]) -> dict[str, Any]:
    """A report's `rebuilds` with only what the checker derives (trigger changes sorted)."""
    keys = ("hash", "name", "predecessor", "cascade", "cascade_build_only", "stacks")
    return {
        **{k: rebuilds[k] for k in ("cascades", "hash_scheme", "unexplained")},
        "missing_dependencies": rebuilds["missing_dependencies"],
        "triggers": [
            {**{k: t[k] for k in keys}, "changes": sorted(t["changes"])}
            for t in rebuilds["triggers"]
        ],
    }


def check(rebuilds: dict[str, Any], old_side: Path, new_side: Path) -> list[str]:
    """What a report's `rebuilds` claims that the raw indexes do not give (empty: all true)."""
    got, want = comparable(rebuilds), derive(old_side, new_side)
    problems = [
        f"{key}: report {got[key]!r}, indexes {want[key]!r}"
        for key in want
        if got[key] != want[key]
    ]
    every = [t["hash"] for t in got["triggers"]] + [c["hash"] for c in got["cascades"]]
    every += got["hash_scheme"] + got["unexplained"]
    if len(every) != len(set(every)):
        problems.append("a rebuilt spec is in two of triggers, cascades, hash_scheme, unexplained")
    return problems
