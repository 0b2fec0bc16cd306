"""Predecessors (SPEC section 6): related records only, one to one, greedily in the total order
(equal fields, then variants in common, then dependency names in common, then hashes), an
environment's roots first; records equal on every field are paired smallest hashes together,
however the records are ordered in the index."""

from __future__ import annotations

import pytest

from snapdiff.compare.predecessors import pair_predecessors
from snapdiff.model import EdgeKind, Node


def kind(name: str) -> EdgeKind:
    return (name, ("link",), (), True)


def node(
    version: str = "1.0",
    variants: tuple[str, ...] = ("+shared",),
    *,
    target: str = "x86_64",
    compiler: str = "gcc@14",
    platform: str = "linux",
    namespace: str = "builtin",
    external: tuple[str, ...] = (),
    deps: tuple[str, ...] = ("zlib",),
    name: str = "x",
) -> Node:
    return Node(
        name, version, platform, "ubuntu24.04", target, compiler, variants, "p", namespace,
        external, True, tuple(map(kind, deps)), tuple(d[0] * 32 for d in deps),
    )  # fmt: skip


def h(letter: str) -> str:
    return letter * 32


@pytest.mark.parametrize("order", [1, -1])
def test_records_equal_on_every_field_pair_smallest_hashes_together(order: int) -> None:
    old = {h(c): node() for c in "dbf"[::order]}
    new = {h(c): node() for c in "eac"[::order]}
    assert pair_predecessors(old, new) == {h("a"): h("b"), h("c"): h("d"), h("e"): h("f")}


def test_a_record_left_over_by_equal_fields_is_paired_by_the_next_best() -> None:
    """Two new records equal to one old record on every field, and one old record of another
    version: the smaller hash takes the equal one, the other the record of another version."""
    old = {h("b"): node(), h("d"): node("0.9")}
    new = {h("c"): node(), h("a"): node()}
    assert pair_predecessors(old, new) == {h("a"): h("b"), h("c"): h("d")}


def test_equal_fields_are_paired_before_the_smallest_hashes() -> None:
    old = {h("a"): node(variants=("~shared",)), h("b"): node()}
    new = {h("c"): node(), h("d"): node(variants=("~shared",))}
    assert pair_predecessors(old, new) == {h("c"): h("b"), h("d"): h("a")}


def test_more_equal_fields_win_over_variants_in_common() -> None:
    """`c` shares the version with `a` but no variant; with `b` it shares every variant but not
    the version: the count of equal fields decides first."""
    old = {h("a"): node("1.0", ("~mpi",)), h("b"): node("0.9", ("+mpi",))}
    new = {h("c"): node("1.0", ("+mpi",))}
    assert pair_predecessors(old, new) == {h("c"): h("a")}


def test_variant_tokens_in_common_are_counted() -> None:
    """Neither old record has all of the new one's variants: the one sharing more wins (an
    all-or-nothing test would leave the choice to the hashes)."""
    new = {h("a"): node(variants=("+mpi", "+shared", "build_type=Release"))}
    old = {
        h("b"): node(variants=("~mpi", "~shared", "build_type=Release")),
        h("c"): node(variants=("+mpi", "+shared", "build_type=Debug")),
    }
    assert pair_predecessors(old, new) == {h("a"): h("c")}


def test_dependency_names_in_common_are_counted() -> None:
    new = {h("a"): node(deps=("m4", "perl", "zlib"))}
    old = {h("b"): node(deps=("m4",)), h("c"): node(deps=("m4", "perl"))}
    assert pair_predecessors(old, new) == {h("a"): h("c")}


def test_a_tie_on_a_superset_of_variants_goes_by_the_hashes() -> None:
    """`b` has the variants of `a` and one more (a variant the recipe added): both old records
    score the same for `a`, so the smallest (new, old) pair is taken first, not the record
    equal in every field."""
    old = {h("c"): node(variants=("+shared",)), h("b"): node(variants=("+shared", "~static"))}
    new = {h("a"): node(variants=("+shared",)), h("d"): node(variants=("+shared",))}
    assert pair_predecessors(old, new) == {h("a"): h("b"), h("d"): h("c")}


@pytest.mark.parametrize(
    ("was", "now"),
    [
        ({"compiler": "nvhpc@23.7"}, {"compiler": "oneapi@2023.2.1"}),  # compiler families
        ({"target": "neoverse_v2"}, {"target": "x86_64_v3"}),  # target families
        ({"platform": "darwin"}, {"platform": "linux"}),
        ({"name": "x"}, {"name": "y"}),
    ],
)
def test_unrelated_records_are_never_paired(was: dict[str, str], now: dict[str, str]) -> None:
    """However alike otherwise: the new one is a new build, the old one a dropped build."""
    assert pair_predecessors({h("a"): node(**was)}, {h("b"): node(**now)}) == {}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("was", "now"),
    [
        ({"compiler": "gcc@7.5.0"}, {"compiler": "gcc@10.4.0"}),
        ({"compiler": "gcc@12"}, {"compiler": "none"}),
        ({"compiler": "oneapi@2023.2.1"}, {"compiler": "intel-oneapi-compilers@2024.0.2"}),
        ({"target": "zen3"}, {"target": "x86_64_v3"}),
        ({"platform": "cray"}, {"platform": "linux"}),
        ({"namespace": "future"}, {"namespace": "builtin"}),
        ({"external": ()}, {"external": ("/usr", "")}),  # an external may pair with a build
    ],
)
def test_related_records_are_paired(was: dict[str, object], now: dict[str, object]) -> None:
    assert pair_predecessors({h("a"): node(**was)}, {h("b"): node(**now)}) == {h("b"): h("a")}  # type: ignore[arg-type]


def test_a_related_record_is_preferred_to_a_closer_unrelated_one() -> None:
    """The `%nvhpc` build would be equal on every other field; it is not a candidate."""
    old = {h("a"): node(compiler="nvhpc@23.7"), h("b"): node("0.9", compiler="oneapi@2023")}
    new = {h("c"): node(compiler="oneapi@2024")}
    assert pair_predecessors(old, new) == {h("c"): h("b")}


def test_an_environment_s_roots_are_paired_first() -> None:
    """A root's old and new hash pair before the order would pair them otherwise; a root pair
    of two packages, or unrelated, or of a hash both sides hold, is not taken."""
    old = {h("a"): node("1.0"), h("b"): node("2.0"), h("z"): node(name="y")}
    new = {h("c"): node("2.0"), h("d"): node("1.0")}
    assert pair_predecessors(old, new) == {h("c"): h("b"), h("d"): h("a")}
    roots = [(h("c"), h("a")), (h("d"), h("z"))]
    assert pair_predecessors(old, new, roots) == {h("c"): h("a"), h("d"): h("b")}


@pytest.mark.parametrize("order", [1, -1])
def test_a_package_past_the_bound_is_paired_within_related_classes(order: int) -> None:
    """More candidate pairs than `PAIRS_WEIGHED` in one package (a hostile index): paired in
    sorted order within classes of related records, never across families, whatever the order
    the index holds them in."""
    from snapdiff.compare.predecessors import PAIRS_WEIGHED

    def digest(side: str, i: int) -> str:
        return f"{side}{i:031d}"

    compilers = ("gcc@12", "nvhpc@23.7")
    old = {digest("a", i): node(f"1.{i}", compiler=compilers[i % 2]) for i in range(1100)}
    new = {digest("b", i): node(f"2.{i}", compiler=compilers[i % 3 == 0]) for i in range(1000)}
    assert len(old) * len(new) > PAIRS_WEIGHED
    pairs = pair_predecessors(dict(list(old.items())[::order]), dict(list(new.items())[::order]))
    assert pairs == pair_predecessors(old, new)
    assert all(new[n].compiler == old[o].compiler for n, o in pairs.items())
    wanted = {c: sum(n.compiler == c for n in new.values()) for c in compilers}
    assert len(pairs) == sum(min(wanted[c], 550) for c in compilers)
