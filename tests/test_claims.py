"""The claim checker itself: it must catch a false claim of every kind (else it proves nothing)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from claims import check_report
from pagegen import as_json

from snapdiff.diff import diff_snapshots
from snapdiff.sources import load_pair

ROOT = Path(__file__).parent.parent
V1, V2 = ROOT / "snapshots" / "v1", ROOT / "snapshots" / "v2"
REPORT = as_json(diff_snapshots(*load_pair(str(V1), str(V2))))


def record(data: dict[str, Any], package: str, kind: str) -> dict[str, Any]:
    found: dict[str, Any] = next(
        c
        for p in data["packages"]
        if p["name"] == package
        for c in p["changes"]
        if c["class"] == kind
    )
    return found


def retext(old: str, new: str, package: str, kind: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        found = record(data, package, kind)
        assert old in found["text"]
        found["text"] = found["text"].replace(old, new)

    return edit


def move_hash(data: dict[str, Any]) -> None:
    """A hash of one record said in another record of the package."""
    rebuilt = record(data, "py-ml-dtypes", "rebuilt")
    fewer = record(data, "py-ml-dtypes", "fewer-builds")
    fewer["specs_old"].append(rebuilt["specs_old"].pop())


def set_class(kind: str, package: str, to: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        record(data, package, kind)["class"] = to

    return edit


def drop_stack_move(data: dict[str, Any]) -> None:
    data["stack_moves"].pop()


def miscount_stack_move(data: dict[str, Any]) -> None:
    data["stack_moves"][0]["specs_new"] = 1


def say_existing_configuration_new(data: dict[str, Any]) -> None:
    existing = record(data, "py-mpi4py", "upgrade")["configurations_new"][0]
    record(data, "py-mpi4py", "new-configuration")["configurations_new"].append(existing)


MUTATIONS: dict[str, Callable[[dict[str, Any]], None]] = {
    "a count of configurations": retext("in 2 ", "in 3 ", "py-ml-dtypes", "rebuilt"),
    "all where the package has others": retext("in 2", "in all 2", "py-ml-dtypes", "upgrade"),
    "a spec count": retext("16 → 17", "16 → 16", "py-ml-dtypes", "upgrade"),
    "a version": retext("3.1.5 → 4.0.1", "3.1.5 → 4.0.2", "py-mpi4py", "upgrade"),
    "the wrong class": set_class("upgrade", "py-ml-dtypes", "downgrade"),
    "fewer builds said more": set_class("fewer-builds", "py-ml-dtypes", "more-builds"),
    "a hash in the wrong record": move_hash,
    "a migration said new": set_class("migration", "py-keras", "new-configuration"),
    "a stack move left out": lambda data: data["stack_moves"].pop(),
    "a stack move's count": lambda data: data["stack_moves"][0].update(specs_new=1),
    "a new configuration that existed": lambda data: record(data, "py-mpi4py", "new-configuration")[
        "configurations_new"
    ].append(record(data, "py-mpi4py", "upgrade")["configurations_new"][0]),
}


def test_the_real_report_is_true() -> None:
    assert check_report(REPORT, V1, V2) == []


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_a_false_claim_is_caught(name: str) -> None:
    data = copy.deepcopy(REPORT)
    MUTATIONS[name](data)
    assert check_report(data, V1, V2) != []
