"""Migrations pair related configurations only (SPEC section 2a, issue 45): a stack in common
other than `root`, the target's family kept, the compiler's family kept or `none` on a side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from checker import check_report
from pagegen import as_json, spec, write_page

from snapdiff.compare.diff import diff_snapshots
from snapdiff.sources import load_pair


def _package(tmp_path: Path, old: list[dict[str, Any]], new: list[dict[str, Any]]) -> Any:
    """The JSON report of one package's two pages, every claim in it checked."""
    for side, specs in (("old", old), ("new", new)):
        write_page(tmp_path / side, "x", specs)
    data = as_json(diff_snapshots(*load_pair(str(tmp_path / "old"), str(tmp_path / "new"))))
    assert check_report(data, tmp_path / "old", tmp_path / "new") == []
    return data


def _said(data: dict[str, Any]) -> list[tuple[str, str]]:
    (package,) = data["packages"]
    return [(change["class"], change["text"]) for change in package["changes"]]


def test_an_arm_gcc_build_never_migrates_to_an_x86_oneapi_build_of_another_stack(
    tmp_path: Path,
) -> None:
    """The defect: a dropped `gcc` `neoverse_v2` configuration of stack `e4s-neoverse-v2` and a
    new `oneapi` `x86_64_v3` one of `e4s-oneapi`, nothing else, were said to be one migration
    along compiler and target."""
    old = [
        spec("a", stacks=("e4s-neoverse-v2", "root"), compiler="gcc@12.3.0", target="neoverse_v2")
    ]
    new = [spec("b", stacks=("e4s-oneapi", "root"), compiler="oneapi@2025.1.0")]
    data = _package(tmp_path, old, new)
    assert _said(data) == [
        ("new-configuration", "1 spec in 1 new configuration (1.0)"),
        ("dropped-configuration", "1 spec in 1 dropped configuration (1.0)"),
    ]
    # the record once made of them is caught by the checker
    (package,) = data["packages"]
    came, gone = package["changes"]
    package["changes"] = [
        {
            **gone,
            "class": "migration",
            "configurations_new": came["configurations_new"],
            "versions_new": came["versions_new"],
            "specs_new": came["specs_new"],
            "dimensions": ["compiler", "target"],
            "text": "linux compiler gcc@12.3.0 → oneapi@2025.1.0 and target neoverse_v2 → "
            "x86_64_v3: 1 configuration, 1 → 1 spec",
        }
    ]
    assert check_report(data, tmp_path / "old", tmp_path / "new") == [
        "x: unrelated configurations migrate: "
        "('ubuntu22.04', 'linux', 'neoverse_v2', 'gcc@12.3.0', ('build_system=cmake',)) → "
        "('ubuntu22.04', 'linux', 'x86_64_v3', 'intel-oneapi-compilers@2025.1.0', "
        "('build_system=cmake',))"
    ]


E4S = ("e4s", "root")


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            {"compiler": "gcc@11.4.0"},
            {"compiler": "gcc@13.2.0"},
            "linux compiler gcc@11.4.0 → gcc@13.2.0: 1 configuration, 1 → 1 spec",
        ),
        (
            {"stacks": ("e4s-a", "root")},
            {"stacks": ("e4s-b", "root"), "compiler": "gcc@13.2.0"},
            None,
        ),
        (  # a side with no stack but `root`: the stack test is skipped
            {"stacks": ("root",)},
            {"stacks": ("e4s-b", "root"), "compiler": "gcc@13.2.0"},
            "linux compiler gcc@11.4.0 → gcc@13.2.0: 1 configuration, 1 → 1 spec",
        ),
        (
            {"target": "x86_64_v3"},
            {"target": "zen4"},
            "linux target x86_64_v3 → zen4: 1 configuration, 1 → 1 spec",
        ),
        ({"target": "neoverse_v2"}, {"target": "x86_64_v3"}, None),
        ({"compiler": "gcc@11.4.0"}, {"compiler": "oneapi@2025.1.0"}, None),
        (
            {"compiler": "gcc@11.4.0"},
            {"compiler": "none"},
            "linux compiler gcc@11.4.0 → no compiler (none): 1 configuration, 1 → 1 spec",
        ),
        (
            {"compiler": "oneapi@2024.2.0"},
            {"compiler": "intel-oneapi-compilers@2025.1.0"},
            "linux compiler oneapi@2024.2.0 → intel-oneapi-compilers@2025.1.0: "
            "1 configuration, 1 → 1 spec",
        ),
    ],
    ids=[
        "gcc-11-to-13-in-one-stack",
        "no-stack-in-common",
        "only-root-on-a-side",
        "target-family-kept",
        "target-family-changed",
        "gcc-to-oneapi",
        "gcc-to-none",
        "oneapi-to-its-spack-1-name",
    ],
)
def test_each_rule_decides(
    tmp_path: Path, old: dict[str, Any], new: dict[str, Any], said: str | None
) -> None:
    """One dropped and one new configuration of a package, otherwise alike: a migration when
    related, else a dropped configuration and a new one, said as such."""
    before = [spec("a", **{"stacks": E4S, **old})]
    after = [spec("b", **{"stacks": E4S, **new})]
    found = _said(_package(tmp_path, before, after))
    if said is None:
        assert [kind for kind, _ in found] == ["new-configuration", "dropped-configuration"]
    else:
        assert found == [("migration", said)]


def test_a_many_to_one_migration_keeps_only_the_related_configurations(tmp_path: Path) -> None:
    """`gcc@11.4.0` (stack `e4s`) and `oneapi@2024.2.0` (stack `e4s-oneapi`) dropped, no compiler
    (stack `e4s`) new: the pair is tested one by one, and only `gcc@11.4.0` migrates."""
    old = [spec("a", compiler="gcc@11.4.0"), spec("b", compiler="gcc@11.4.0")]
    old += [spec("c", stacks=("e4s-oneapi", "root"), compiler="oneapi@2024.2.0")]
    new = [spec("d", compiler="none")]
    assert _said(_package(tmp_path, old, new)) == [
        (
            "migration",
            "linux compiler gcc@11.4.0 → no compiler (none): 1 configuration, 2 → 1 spec",
        ),
        ("dropped-configuration", "1 spec in 1 dropped configuration (1.0)"),
    ]


def test_a_many_to_one_migration_of_related_configurations_stays_one(tmp_path: Path) -> None:
    old = [spec("a", compiler="gcc@11.4.0")]
    old += [spec("c", stacks=("e4s", "e4s-oneapi", "root"), compiler="oneapi@2024.2.0")]
    new = [spec("d", compiler="none")]
    assert _said(_package(tmp_path, old, new)) == [
        (
            "migration",
            "linux compiler gcc@11.4.0, oneapi@2024.2.0 → no compiler (none): "
            "2 configurations → 1, 2 → 1 spec",
        ),
    ]


def test_related_configurations_pair_among_themselves(tmp_path: Path) -> None:
    """Two compilers dropped and two new in one stack, each family kept: two migrations, where
    two to two along one dimension would be no migration at all."""
    old = [spec("a", compiler="gcc@11.4.0"), spec("b", compiler="oneapi@2024.2.0")]
    new = [spec("c", compiler="gcc@13.2.0"), spec("d", compiler="oneapi@2025.1.0")]
    assert _said(_package(tmp_path, old, new)) == [
        ("migration", "linux compiler gcc@11.4.0 → gcc@13.2.0: 1 configuration, 1 → 1 spec"),
        (
            "migration",
            "linux compiler oneapi@2024.2.0 → oneapi@2025.1.0: 1 configuration, 1 → 1 spec",
        ),
    ]
