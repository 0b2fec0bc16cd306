"""Rebuilt specs and their predecessors, and what each changed itself (SPEC section 6)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import combinations, compress
from operator import attrgetter, ne, not_

from ..model import Node, normal_compiler
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


_NAME, _PLATFORM = attrgetter("name"), attrgetter("platform")
_VERSION, _OS, _TARGET = attrgetter("version"), attrgetter("os"), attrgetter("target")
_COMPILER, _VARIANTS, _KINDS = attrgetter("compiler"), attrgetter("variants"), attrgetter("kinds")
# a record's name and platform (its bucket), then the fields a predecessor is chosen by
Key = tuple[object, ...]
Sides = tuple[list[str], list[str]]  # the hashes only `new` has, and those only `old` has


class _Known:
    """Each distinct compiler normalised once; each distinct tuple of variants, and of edge kinds
    reduced to its dependency names, numbered once (those tuples are objects shared by the
    records alike): keys of strings and numbers hash fast."""

    def __init__(self) -> None:
        self.compilers: dict[str, str] = {}
        self.numbers: dict[tuple[str, ...], int] = {}  # a tuple of variants or of names
        self.variants: dict[int, int] = {}  # by id: the records hold every tuple alive
        self.names: dict[int, int] = {}

    def _number(self, found: dict[int, int], values: list[tuple[str, ...]], names: bool) -> None:
        for value in dict(zip(map(id, values), values, strict=True)).values():
            if id(value) not in found:
                key = tuple(dict.fromkeys(k[0] for k in value)) if names else value
                found[id(value)] = self.numbers.setdefault(key, len(self.numbers))

    def keys(self, nodes: list[Node]) -> Iterator[Key]:
        """Per record: name, platform, version, os, target, compiler, variants and dependency
        names (built in C: one `map` per field)."""
        kinds, variants = list(map(_KINDS, nodes)), list(map(_VARIANTS, nodes))
        self._number(self.names, kinds, True)
        self._number(self.variants, variants, False)
        for compiler in set(map(_COMPILER, nodes)) - self.compilers.keys():
            self.compilers[compiler] = normal_compiler(compiler)
        fields = (_NAME, _PLATFORM, _VERSION, _OS, _TARGET)
        return zip(
            *(map(field, nodes) for field in fields),
            map(self.compilers.__getitem__, map(_COMPILER, nodes)),
            map(self.variants.__getitem__, map(id, variants)),
            map(self.names.__getitem__, map(id, kinds)),
            strict=True,
        )

    def by_key(self, nodes: Nodes, other: Nodes) -> dict[Key, list[str]]:
        """The hashes only `nodes` holds, by key (each list sorted). Records are read in the
        order held (in memory order: far faster than in hash order), and keys are all distinct
        in the usual case: then the dictionary is built in C."""
        only = list(map(not_, map(other.__contains__, nodes)))
        hashes = list(compress(nodes, only))
        keys = list(self.keys(list(compress(nodes.values(), only))))
        found = dict(zip(keys, map(list, zip(hashes)), strict=True))  # the last hash of each
        if len(found) < len(keys):
            several = {key for key, n in Counter(keys).items() if n > 1}
            for key in several:
                found[key] = []
            for key, digest in compress(
                zip(keys, hashes, strict=True), map(several.__contains__, keys)
            ):
                found[key].append(digest)
            for key in several:
                found[key].sort()
        return found


def _pair_bucket(
    new: list[str], old: list[str], values: dict[str, Key]
) -> Iterator[tuple[str, str]]:
    """Specs of one name and platform (more than one on a side) paired one to one: at each
    level, the specs equal on its fields, smallest hashes together (both lists sorted)."""
    for fields, deps in _LEVELS:
        chosen = fields + ((len(_FIELDS),) if deps else ())
        groups: dict[Key, Sides] = {}
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


def _leave(
    key: Key, news: list[str], olds: list[str], buckets: dict[Key, Sides], values: dict[str, Key]
) -> None:
    """Specs left unpaired by the first level: to their bucket, with the values they are paired
    by at the next levels."""
    bucket = buckets.setdefault(key[:2], ([], []))
    for side, left in enumerate((news, olds)):
        bucket[side].extend(left)
        values.update(dict.fromkeys(left, key[2:]))


def pair_predecessors(old: Nodes, new: Nodes) -> dict[str, str]:
    """Every rebuilt spec (a hash only `new` has) with its predecessor (a hash only `old` has) of
    the same name and platform, one to one: the most equal fields among version, os, target,
    compiler and variants, then the same dependency names, then the smallest hashes."""
    known = _Known()
    added, gone = known.by_key(new, old), known.by_key(old, new)
    pairs: dict[str, str] = {}
    buckets: dict[Key, Sides] = {}  # by name and platform: the specs left unpaired
    values: dict[str, Key] = {}
    # every field equal (the first level, for all buckets at once): the smallest hashes together
    for key, news in added.items():
        olds = gone.pop(key, [])
        pairs.update(zip(news, olds, strict=False))
        if len(news) != len(olds):
            _leave(key, news[len(olds) :], olds[len(news) :], buckets, values)
    for key, olds in gone.items():
        _leave(key, [], olds, buckets, values)
    for key in sorted(buckets):
        news, olds = sorted(buckets[key][0]), sorted(buckets[key][1])
        if len(news) == 1 and len(olds) == 1:
            pairs[news[0]] = olds[0]  # nothing to choose between
        elif news and olds:
            pairs.update(_pair_bucket(news, olds, values))
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
    if new.kinds == old.kinds and in_old.keys().isdisjoint(
        compress(new.deps, map(ne, new.deps, old.deps))
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
# the fields an own change is said of, and the edges' kinds: equal tuples are compared in C
_OWN = attrgetter("version", "package_hash", "variants", "target", "os", "compiler", "kinds")


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
