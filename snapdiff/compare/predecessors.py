"""Rebuilt specs and their predecessors, and what each changed itself (SPEC section 6)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import combinations

from ..model import EdgeKind, Node, normal_compiler
from ..report.rebuilds import FieldValue, OwnChange

__all__ = ["OwnChanges", "own_changes", "pair_predecessors"]

Nodes = Mapping[str, Node]

# The fields a predecessor is chosen by, most kept first: every subset of them, the largest
# first, each with the dependency names and then without.
_FIELDS = ("version", "os", "target", "compiler", "variants")
_LEVELS = tuple(
    (fields, deps)
    for size in range(len(_FIELDS), -1, -1)
    for fields in combinations(range(len(_FIELDS)), size)
    for deps in (True, False)
)


class _Known:
    """Each distinct compiler normalised once, and each distinct tuple of edge kinds (shared
    by the records of a package alike) reduced to its dependency names once."""

    def __init__(self) -> None:
        self.compilers: dict[str, str] = {}
        self.names: dict[tuple[EdgeKind, ...], tuple[str, ...]] = {}

    def values(self, node: Node) -> tuple[object, ...]:
        """The fields a predecessor is paired by, then the dependency names."""
        compiler = self.compilers.get(node.compiler)
        if compiler is None:
            compiler = self.compilers[node.compiler] = normal_compiler(node.compiler)
        names = self.names.get(node.kinds)
        if names is None:
            names = self.names[node.kinds] = tuple(dict.fromkeys(k[0] for k in node.kinds))
        return (node.version, node.os, node.target, compiler, node.variants, names)


def _pair_bucket(
    new: list[str], old: list[str], values: dict[str, tuple[object, ...]]
) -> Iterator[tuple[str, str]]:
    """Specs of one name and platform (more than one on a side) paired one to one: at each
    level, the specs equal on its fields, smallest hashes together (both lists sorted)."""
    for fields, deps in _LEVELS:
        chosen = fields + ((len(_FIELDS),) if deps else ())
        groups: dict[tuple[object, ...], tuple[list[str], list[str]]] = {}
        for side, hashes in enumerate((new, old)):
            for digest in hashes:
                key = tuple(values[digest][i] for i in chosen)
                groups.setdefault(key, ([], []))[side].append(digest)
        pairs = [pair for a, b in groups.values() for pair in zip(a, b, strict=False)]
        yield from pairs
        paired = {digest for pair in pairs for digest in pair}
        new = [digest for digest in new if digest not in paired]
        old = [digest for digest in old if digest not in paired]
        if not new or not old:
            return


def pair_predecessors(old: Nodes, new: Nodes) -> dict[str, str]:
    """Every rebuilt spec (a hash only `new` has) with its predecessor (a hash only `old` has) of
    the same name and platform, one to one: the most equal fields among version, os, target,
    compiler and variants, then the same dependency names, then the smallest hashes."""
    buckets: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
    for side, (nodes, other) in enumerate(((new, old), (old, new))):
        for digest in sorted(nodes.keys() - other.keys()):
            node = nodes[digest]
            buckets.setdefault((node.name, node.platform), ([], []))[side].append(digest)
    pairs: dict[str, str] = {}
    known = _Known()
    for key in sorted(buckets):
        added, gone = buckets[key]
        if not added or not gone:
            continue
        if len(added) == 1 and len(gone) == 1:
            pairs[added[0]] = gone[0]  # the common case: nothing to choose between
            continue
        values = {digest: known.values(new[digest]) for digest in added}
        values.update((digest, known.values(old[digest])) for digest in gone)
        pairs.update(_pair_bucket(added, gone, values))
    return pairs


@dataclass(frozen=True, slots=True)
class OwnChanges:
    """What a rebuilt spec changed itself against its predecessor, in the order listed."""

    changes: tuple[OwnChange, ...]
    before: tuple[tuple[str, FieldValue], ...]
    after: tuple[tuple[str, FieldValue], ...]


def _dependencies(new: Node, old: Node, in_old: Nodes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The dependency tokens only one side has: a name added or removed, or `name/hash7` of a
    dependency now resolved to another hash that is itself in `OLD`."""
    if new.kinds == old.kinds and all(
        d == o or d not in in_old for d, o in zip(new.deps, old.deps, strict=True)
    ):
        return (), ()  # the same edges, some to new hashes: the usual case, no set built
    was = set(zip(old.kinds, old.deps, strict=True))
    if all(d not in in_old or (k, d) in was for k, d in zip(new.kinds, new.deps, strict=True)) and {
        kind[0] for kind in old.kinds
    } == {kind[0] for kind in new.kinds}:
        return (), ()  # the same names, each the same dependency or a new hash: the usual case
    before_by: dict[str, set[str]] = {}
    after_by: dict[str, set[str]] = {}
    for edges, found in ((old.edges, before_by), (new.edges, after_by)):
        for name, digest, _, _ in edges:
            found.setdefault(name, set()).add(digest)
    before = [name for name in before_by if name not in after_by]
    after = [name for name in after_by if name not in before_by]
    for name in before_by.keys() & after_by.keys():
        moved = sorted(d for d in after_by[name] - before_by[name] if d in in_old)
        if moved:
            before.extend(f"{name}/{d[:7]}" for d in sorted(before_by[name] - after_by[name]))
            after.extend(f"{name}/{d[:7]}" for d in moved)
    return tuple(sorted(before)), tuple(sorted(after))


_NO_CHANGE = OwnChanges((), (), ())


def own_changes(new: Node, old: Node, in_old: Nodes) -> OwnChanges:
    """The own changes of a rebuilt spec (`new`) against its predecessor (`old`)."""
    if (
        new.version == old.version
        and new.package_hash == old.package_hash
        and new.variants == old.variants
        and new.target == old.target
        and new.os == old.os
        and new.compiler == old.compiler
        and _dependencies(new, old, in_old) == ((), ())
    ):
        return _NO_CHANGE  # most rebuilt specs: one test each, no record of their own
    found: list[tuple[OwnChange, FieldValue, FieldValue]] = []
    if new.version != old.version:
        found.append(("version", old.version, new.version))
    if new.variants != old.variants:
        gone = tuple(v for v in old.variants if v not in new.variants)
        came = tuple(v for v in new.variants if v not in old.variants)
        found.append(("variants", gone, came))
    if new.package_hash != old.package_hash and new.version == old.version:
        found.append(("recipe", old.package_hash, new.package_hash))
    for field in ("target", "os"):
        if getattr(new, field) != getattr(old, field):
            found.append((field, getattr(old, field), getattr(new, field)))
    if normal_compiler(new.compiler) != normal_compiler(old.compiler):
        found.append(("compiler", old.compiler, new.compiler))
    before, after = _dependencies(new, old, in_old)
    if before or after:
        found.append(("dependencies", before, after))
    return OwnChanges(
        tuple(kind for kind, _, _ in found),
        tuple((kind, value) for kind, value, _ in found),
        tuple((kind, value) for kind, _, value in found),
    )
