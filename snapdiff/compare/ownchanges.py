"""What a rebuilt spec changed itself against its predecessor (SPEC section 6), said with values:
a dependency now resolved to another existing build is said as the two builds, in Spack's spec
syntax, each naming what tells them apart (`automake@1.16.5 ^autoconf@2.69` →
`automake@1.16.5 ^autoconf@2.71`), never as hashes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter, ne

from ..model import Node, normal_compiler
from ..report.causes import said_variants
from ..report.rebuilds import FieldValue, OwnChange

__all__ = ["OwnChanges", "builds_apart", "own_changes"]

Nodes = Mapping[str, Node]
_DEPTH = 2  # how far down the dependencies two builds alike on their own fields are told apart


@dataclass(frozen=True, slots=True)
class OwnChanges:
    """What a rebuilt spec changed itself against its predecessor, in the order listed."""

    changes: tuple[OwnChange, ...]
    before: tuple[tuple[str, FieldValue], ...]
    after: tuple[tuple[str, FieldValue], ...]


def _patches(token: str) -> bool:
    return token.startswith("patches=")


def _external(value: tuple[str, ...]) -> str:
    """How a record is had: `built`, or an external's path (else `module NAME`)."""
    if not value:
        return "built"
    path, module = (*value, "", "")[:2]
    return path or (f"module {module}" if module else "external")


def _fields(a: Node, b: Node) -> tuple[list[str], list[str]]:
    """What tells two builds of one package apart on their own fields, as spec words."""
    one: list[str] = []
    two: list[str] = []
    if a.namespace != b.namespace:
        one.append(f"namespace={a.namespace or 'none'}")
        two.append(f"namespace={b.namespace or 'none'}")
    if normal_compiler(a.compiler) != normal_compiler(b.compiler):
        one.append(f"%{a.compiler}")
        two.append(f"%{b.compiler}")
    if a.variants != b.variants:  # patches follow the version: said when it is the same
        patches = a.version == b.version
        for mine, theirs, words in ((a, b, one), (b, a, two)):
            only = [v for v in mine.variants if v not in theirs.variants]
            words.extend(said_variants(tuple(v for v in only if patches or not _patches(v))))
    for field in ("platform", "os", "target"):
        if getattr(a, field) != getattr(b, field):
            one.append(f"{field}={getattr(a, field)}")
            two.append(f"{field}={getattr(b, field)}")
    if a.external != b.external and (a.version == b.version or not a.external or not b.external):
        one.append(f"(external {_external(a.external)})" if a.external else "(built)")
        two.append(f"(external {_external(b.external)})" if b.external else "(built)")
    if a.package_hash != b.package_hash and a.version == b.version:
        one.append(f"(recipe {a.package_hash[:7]})")
        two.append(f"(recipe {b.package_hash[:7]})")
    return one, two


def builds_apart(a: Node, b: Node, nodes: Nodes, depth: int = _DEPTH) -> tuple[str, str]:
    """Two builds of one package (`a` before, `b` after; their dependencies looked up in
    `nodes`) as spec texts naming their version and what tells them apart: their own fields,
    else the dependencies that differ (`^autoconf@2.69`), else "another build"."""
    one, two = _fields(a, b)
    if not one and not two and a.version == b.version and depth:
        was = dict(zip((k[0] for k in a.kinds), a.deps, strict=True))
        now = dict(zip((k[0] for k in b.kinds), b.deps, strict=True))
        for name in sorted(was.keys() | now.keys()):
            if was.get(name) == now.get(name):
                continue
            x, y = nodes.get(was.get(name, "")), nodes.get(now.get(name, ""))
            if x is not None and y is not None and x.name == y.name:
                below = builds_apart(x, y, nodes, depth - 1)
                one.append(f"^{below[0]}")
                two.append(f"^{below[1]}")
                continue
            if name in was:
                one.append(f"^{x.name}@{x.version}" if x else f"^{name}")
            if name in now:
                two.append(f"^{y.name}@{y.version}" if y else f"^{name}")
    if not one and not two and a.version == b.version:
        two.append("(another build)")
    said = [
        " ".join(filter(None, (f"{n.name}@{n.version}", *words)))
        for n, words in ((a, one), (b, two))
    ]
    return said[0], said[1]


def _dependencies(new: Node, old: Node, in_old: Nodes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The dependencies only one side has: a name added or removed (said by name), or a
    dependency now resolved to another build that is itself in `OLD` (the two builds, said
    apart)."""
    if new.kinds == old.kinds and in_old.keys().isdisjoint(
        compress(new.deps, map(ne, new.deps, old.deps))
    ):
        return (), ()  # the same edges, some to new hashes: the usual case, no set built
    edges = set(zip(old.kinds, old.deps, strict=True))
    if all(
        d not in in_old or (k, d) in edges for k, d in zip(new.kinds, new.deps, strict=True)
    ) and {kind[0] for kind in old.kinds} == {kind[0] for kind in new.kinds}:
        return (), ()  # the same names, each the same dependency or a new hash: the usual case
    before_by: dict[str, set[str]] = {}
    after_by: dict[str, set[str]] = {}
    for node, found in ((old, before_by), (new, after_by)):
        for kind, digest in zip(node.kinds, node.deps, strict=True):
            found.setdefault(kind[0], set()).add(digest)
    before = [name for name in before_by if name not in after_by]
    after = [name for name in after_by if name not in before_by]
    for name in sorted(before_by.keys() & after_by.keys()):
        moved = sorted(d for d in after_by[name] - before_by[name] if d in in_old)
        if not moved:
            continue  # only new hashes: a rebuilt dependency, no change of this spec's own
        now, gone = in_old[moved[0]], sorted(before_by[name] - after_by[name])
        was = in_old.get(gone[0]) if gone else None
        if was is not None:
            said = builds_apart(was, now, in_old)
            before.append(said[0])
            after.append(said[1])
        else:  # another edge of that name, or one to a record `OLD` lacks
            before.extend(f"{name} (no record)" for _ in gone[:1])
            after.append(f"{now.name}@{now.version}")
    return tuple(sorted(before)), tuple(sorted(after))


_NO_CHANGE = OwnChanges((), (), ())
# the fields an own change is said of, and the edges' kinds: equal tuples are compared in C
_OWN = attrgetter(
    "version", "package_hash", "variants", "target", "os", "platform", "compiler", "namespace",
    "external", "kinds",
)  # fmt: skip


def own_changes(new: Node, old: Node, in_old: Nodes) -> OwnChanges:
    """The own changes of a rebuilt spec (`new`) against its predecessor (`old`)."""
    if _OWN(new) == _OWN(old) and in_old.keys().isdisjoint(
        compress(new.deps, map(ne, new.deps, old.deps))
    ):
        return _NO_CHANGE  # most rebuilt specs: the same fields and edges, some to new hashes
    found: list[tuple[OwnChange, FieldValue, FieldValue]] = []
    if new.version != old.version:
        found.append(("version", old.version, new.version))
    if new.variants != old.variants:
        gone = tuple(v for v in old.variants if v not in new.variants)
        came = tuple(v for v in new.variants if v not in old.variants)
        found.append(("variants", gone, came))
    if new.package_hash != old.package_hash and new.version == old.version:
        found.append(("recipe", old.package_hash, new.package_hash))
    for field in ("target", "os", "platform"):
        if getattr(new, field) != getattr(old, field):
            found.append((field, getattr(old, field), getattr(new, field)))
    if normal_compiler(new.compiler) != normal_compiler(old.compiler):
        found.append(("compiler", old.compiler, new.compiler))
    if new.namespace != old.namespace:
        found.append(("namespace", old.namespace, new.namespace))
    if new.external != old.external:
        found.append(("external", _external(old.external), _external(new.external)))
    before, after = _dependencies(new, old, in_old)
    if before or after:
        found.append(("dependencies", before, after))
    return OwnChanges(
        tuple(kind for kind, _, _ in found),
        tuple((kind, value) for kind, value, _ in found),
        tuple((kind, value) for kind, _, value in found),
    )
