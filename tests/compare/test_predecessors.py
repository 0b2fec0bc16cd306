"""Predecessors paired one to one (SPEC section 6): records equal on every field are paired
smallest hashes together, however the records are ordered in the index."""

from __future__ import annotations

import pytest

from snapdiff.compare.predecessors import pair_predecessors
from snapdiff.model import Node

KIND = ("zlib", ("link",), (), True)


def node(version: str = "1.0", variants: tuple[str, ...] = ("+shared",)) -> Node:
    return Node(
        "x", version, "linux", "ubuntu24.04", "x86_64", "gcc@14", variants, "p", False, True,
        (KIND,), ("z" * 32,),
    )  # fmt: skip


@pytest.mark.parametrize("order", [1, -1])
def test_records_equal_on_every_field_pair_smallest_hashes_together(order: int) -> None:
    old = {h * 32: node() for h in "dbf"[::order]}
    new = {h * 32: node() for h in "eac"[::order]}
    assert pair_predecessors(old, new) == {
        "a" * 32: "b" * 32,
        "c" * 32: "d" * 32,
        "e" * 32: "f" * 32,
    }


def test_a_record_left_over_by_equal_fields_is_paired_by_the_next_level() -> None:
    """Two new records equal to one old record on every field, and one old record of another
    version: the smaller hash takes the equal one, the other the record of another version."""
    old = {"b" * 32: node(), "d" * 32: node("0.9")}
    new = {"c" * 32: node(), "a" * 32: node()}
    assert pair_predecessors(old, new) == {"a" * 32: "b" * 32, "c" * 32: "d" * 32}


def test_equal_fields_are_paired_before_the_smallest_hashes() -> None:
    old = {"a" * 32: node(variants=("~shared",)), "b" * 32: node()}
    new = {"c" * 32: node(), "d" * 32: node(variants=("~shared",))}
    assert pair_predecessors(old, new) == {"c" * 32: "b" * 32, "d" * 32: "a" * 32}
