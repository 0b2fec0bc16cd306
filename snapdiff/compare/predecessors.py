"""Rebuilt specs and their predecessors (SPEC section 6): each spec only `new` has paired with
one only `old` has, of the same package and a related configuration, one to one, greedily over
the candidate pairs in the SPEC's total order.

The order, best first: most equal fields among version, os, target, compiler, namespace and
external; then most variant tokens in common; then most dependency names in common; then the
smallest (new hash, old hash). Two records equal on all of it (the same *profile*) make the best
pair either can be in, unless a third record of that package equal on the six fields has a
superset of the variants and of the dependency names (it would tie): so records of a profile no
other record of their six fields ties with are paired at once, smallest hashes together, in C
where it can be; only the rest is weighed pair by pair. A day's 200k-record index pair is almost
all of the first kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from itertools import compress
from operator import attrgetter, itemgetter, not_
from typing import Any

from ..model import Node, compiler_family, normal_compiler, related, target_family

__all__ = ["pair_predecessors"]

Nodes = Mapping[str, Node]
# A record's profile: name, platform, version, os, target, compiler (normalised), namespace,
# external, and the numbers of its variants and of its dependency names.
Key = tuple[Any, ...]
_SIX = itemgetter(0, 2, 3, 4, 5, 6, 7)  # the name and the six fields counted equal
_FIELDS = slice(2, 8)
_NAME, _PLATFORM = attrgetter("name"), attrgetter("platform")
_VERSION, _OS, _TARGET = attrgetter("version"), attrgetter("os"), attrgetter("target")
_NAMESPACE, _EXTERNAL = attrgetter("namespace"), attrgetter("external")
_COMPILER, _VARIANTS, _KINDS = attrgetter("compiler"), attrgetter("variants"), attrgetter("kinds")


class _Known:
    """Each distinct compiler normalised once; each distinct tuple of variants, and of edge kinds
    reduced to its dependency names, numbered once (those tuples are objects shared by the
    records alike): profiles of strings and numbers hash fast."""

    def __init__(self) -> None:
        self.compilers: dict[str, str] = {}
        self.numbers: dict[tuple[str, ...], int] = {}  # a tuple of variants or of names
        self.tokens: list[frozenset[str]] = []  # by number: its variants, or its names
        self.variants: dict[int, int] = {}  # by id: the records hold every tuple alive
        self.names: dict[int, int] = {}

    def _number(self, found: dict[int, int], values: list[tuple[str, ...]], names: bool) -> None:
        for value in dict(zip(map(id, values), values, strict=True)).values():
            if id(value) not in found:
                key = tuple(dict.fromkeys(k[0] for k in value)) if names else value
                if key not in self.numbers:
                    self.numbers[key] = len(self.tokens)
                    self.tokens.append(frozenset(key))
                found[id(value)] = self.numbers[key]

    def profiles(self, nodes: list[Node]) -> Iterator[Key]:
        """Per record, its profile (built in C: one `map` per field)."""
        kinds, variants = list(map(_KINDS, nodes)), list(map(_VARIANTS, nodes))
        self._number(self.names, kinds, True)
        self._number(self.variants, variants, False)
        for compiler in set(map(_COMPILER, nodes)) - self.compilers.keys():
            self.compilers[compiler] = normal_compiler(compiler)
        fields = (_NAME, _PLATFORM, _VERSION, _OS, _TARGET)
        return zip(
            *(map(field, nodes) for field in fields),
            map(self.compilers.__getitem__, map(_COMPILER, nodes)),
            map(_NAMESPACE, nodes),
            map(_EXTERNAL, nodes),
            map(self.variants.__getitem__, map(id, variants)),
            map(self.names.__getitem__, map(id, kinds)),
            strict=True,
        )

    def by_profile(self, nodes: Nodes, other: Nodes, paired: set[str]) -> dict[Key, list[str]]:
        """The hashes only `nodes` holds and not `paired` already, by profile (each list sorted).
        Records are read in the order held (in memory order: far faster than in hash order),
        and profiles are all distinct in the usual case: then the dictionary is built in C."""
        only = list(map(not_, map(other.__contains__, nodes)))
        hashes = list(compress(nodes, only))
        if paired:
            keep = list(map(not_, map(paired.__contains__, hashes)))
            hashes = list(compress(hashes, keep))
            kept = list(compress(compress(nodes.values(), only), keep))
        else:
            kept = list(compress(nodes.values(), only))
        keys = list(self.profiles(kept))
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

    def score(self, new: Key, old: Key) -> tuple[int, int, int]:
        """How good a pair of these profiles is, the larger the better."""
        fields = sum(a == b for a, b in zip(new[_FIELDS], old[_FIELDS], strict=True))
        variants = len(self.tokens[new[8]] & self.tokens[old[8]])
        names = len(self.tokens[new[9]] & self.tokens[old[9]])
        return fields, variants, names


def _related(new: Key, old: Key) -> bool:
    return related(
        (str(old[1]), str(new[1])), (str(old[4]), str(new[4])), (str(old[5]), str(new[5]))
    )


def _weigh(
    news: list[tuple[Key, str]], olds: list[tuple[Key, str]], known: _Known
) -> Iterator[tuple[str, str]]:
    """One package's records no profile settles, paired greedily over every related candidate
    pair in the total order (a score computed once per pair of profiles). Quadratic in the
    package's records left: those are its configurations that changed, a few in a real day."""
    scores: dict[tuple[Key, Key], tuple[int, int, int] | None] = {}
    candidates = []
    for new_key, new in news:
        for old_key, old in olds:
            if (new_key, old_key) not in scores:
                related_ = _related(new_key, old_key)
                scores[new_key, old_key] = known.score(new_key, old_key) if related_ else None
            found = scores[new_key, old_key]
            if found is not None:
                candidates.append((-found[0], -found[1], -found[2], new, old))
    candidates.sort()
    taken_new: set[str] = set()
    taken_old: set[str] = set()
    for *_, new, old in candidates:
        if new not in taken_new and old not in taken_old:
            taken_new.add(new)
            taken_old.add(old)
            yield new, old


# Candidate pairs weighed one by one in one package, at most (issue 47): past it, a package's
# records left (a hostile index: 50,000 builds of one name) are paired in sorted order within
# each class of related records, in time n·log n: never an unrelated pair, but not the total
# order's choice among them.
PAIRS_WEIGHED = 1 << 20


def _family(key: Key) -> tuple[str, str, str]:
    """A class of records related to each other (`none` a class of its own here)."""
    platform = "linux" if key[1] == "cray" else str(key[1])
    return platform, target_family(str(key[4])), compiler_family(str(key[5]))


def _in_order(
    news: list[tuple[Key, str]], olds: list[tuple[Key, str]], known: _Known
) -> Iterator[tuple[str, str]]:
    """Records paired in sorted order (profile by content, then hash) within each class of
    related records: for packages past `PAIRS_WEIGHED`."""
    classes: dict[tuple[str, str, str], tuple[list[tuple[str, str]], list[tuple[str, str]]]] = {}
    for side, records in enumerate((news, olds)):
        for key, digest in records:
            tokens = [sorted(known.tokens[n]) for n in key[8:10]]  # by content, not number
            said = repr((key[2:8], tokens))
            classes.setdefault(_family(key), ([], []))[side].append((said, digest))
    for family in sorted(classes):
        a, b = classes[family]
        yield from zip((d for _, d in sorted(a)), (d for _, d in sorted(b)), strict=False)


def _ties(keys: Iterable[Key], known: _Known) -> set[Key]:
    """The (name, six fields) of profiles some other profile of theirs could tie with: several
    distinct profiles, one's variants and names a subset of the other's."""
    groups: dict[Key, list[Key]] = {}
    for key, n in Counter(map(_SIX, keys)).items():
        if n > 1:
            groups[key] = []
    if not groups:
        return set()
    for key in keys:
        group = groups.get(_SIX(key))
        if group is not None:
            group.append(key)
    tied = set()
    for six, found in groups.items():
        sets = [(known.tokens[k[8]], known.tokens[k[9]]) for k in found]
        if any(
            a[0] <= b[0] and a[1] <= b[1]
            for i, a in enumerate(sets)
            for j, b in enumerate(sets)
            if i != j
        ):
            tied.add(six)
    return tied


def _roots(old: Nodes, new: Nodes, first: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The (new, old) root pairs given that hold: only on their side, of one package, related,
    each hash once."""
    pairs: dict[str, str] = {}
    olds: set[str] = set()
    for digest, was in sorted(first):
        a, b = new.get(digest), old.get(was)
        if a is None or b is None or digest in old or was in new or digest in pairs or was in olds:
            continue
        if a.name == b.name and related(
            (b.platform, a.platform), (b.target, a.target), (b.compiler, a.compiler)
        ):
            pairs[digest] = was
            olds.add(was)
    return pairs


def pair_predecessors(
    old: Nodes, new: Nodes, first: Iterable[tuple[str, str]] = ()
) -> dict[str, str]:
    """Every rebuilt spec (a hash only `new` has) with its predecessor (a hash only `old` has),
    one to one: `first` (an environment's roots, as (new, old) hashes) when they hold, then
    greedily in the total order of SPEC section 6 among related records."""
    pairs = _roots(old, new, first)
    known = _Known()
    added = known.by_profile(new, old, set(pairs))
    gone = known.by_profile(old, new, set(pairs.values()))
    tied = _ties(added.keys() | gone.keys(), known)
    buckets: dict[object, tuple[list[tuple[Key, str]], list[tuple[Key, str]]]] = {}

    def leave(key: Key, left: list[str], side: int) -> None:
        if left:
            buckets.setdefault(key[0], ([], []))[side].extend((key, d) for d in left)

    for key, news in added.items():
        if tied and _SIX(key) in tied:
            leave(key, news, 0)
            continue
        olds = gone.pop(key, [])
        pairs.update(zip(news, olds, strict=False))
        leave(key, news[len(olds) :], 0)
        leave(key, olds[len(news) :], 1)
    for key, olds in gone.items():
        leave(key, olds, 1)
    for name in sorted(buckets, key=str):
        left_new, left_old = buckets[name]
        if left_new and left_old:
            left_new.sort(key=itemgetter(1))
            left_old.sort(key=itemgetter(1))
            if len(left_new) * len(left_old) <= PAIRS_WEIGHED:
                pairs.update(_weigh(left_new, left_old, known))
            else:
                pairs.update(_in_order(left_new, left_old, known))
    return pairs
