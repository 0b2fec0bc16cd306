"""The claim checker itself: it must catch a false claim of every kind (else it proves nothing)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from checker import check_markdown, check_report, read_side
from pagegen import as_json, spec, write_page

from snapdiff.compare.diff import diff_snapshots
from snapdiff.render.markdown import render_markdown
from snapdiff.sources import load_pair

ROOT = Path(__file__).parents[2]
V1, V2 = ROOT / "snapshots" / "v1", ROOT / "snapshots" / "v2"
FOUND = diff_snapshots(*load_pair(str(V1), str(V2)))
REPORT, MARKDOWN = as_json(FOUND), render_markdown(FOUND)


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


def fold_other_configuration(data: dict[str, Any]) -> None:
    """A migration said to fold in a dropped configuration that differs from the new one
    outside the compiler (another target, `neoverse_v1`)."""
    migration = record(data, "py-build", "migration")
    dropped = record(data, "py-build", "dropped-configuration")
    migration["configurations_old"].append(dropped["configurations_old"][0])


def fold_unrelated_configuration(data: dict[str, Any]) -> None:
    """What snapdiff said before issue 45: py-build's dropped `oneapi@2024.2.0` configuration
    (stack `e4s-oneapi`) folded with `gcc@11.4.0` into no compiler (stack `e4s`), its specs
    and every count moved along, so that only relatedness tells the record false."""
    migration = record(data, "py-build", "migration")
    dropped = record(data, "py-build", "dropped-configuration")
    oneapi = dropped["configurations_old"].pop()
    assert oneapi["compiler"] == "intel-oneapi-compilers@2024.2.0"
    page = read_side(V1).packages[("develop", "py-build")]
    moved = [h for h in dropped["specs_old"] if page[h][0][3] == oneapi["compiler"]]
    dropped["specs_old"] = [h for h in dropped["specs_old"] if h not in moved]
    migration["specs_old"] = sorted(migration["specs_old"] + moved)
    migration["configurations_old"].append(oneapi)
    migration["text"] = migration["text"].replace(
        "gcc@11.4.0 → no compiler (none): 1 configuration, 10 → 18",
        "gcc@11.4.0, oneapi@2024.2.0 → no compiler (none): 2 configurations → 1, 11 → 18",
    )
    dropped["text"] = "6 specs in 1 dropped configuration (1.2.1)"


def say_variants(data: dict[str, Any]) -> None:
    next(p for p in data["packages"] if p["name"] == "py-keras")["variants_added"] = [
        "backend=tensorflow"
    ]


MUTATIONS: dict[str, Callable[[dict[str, Any]], None]] = {
    "a migration that hides a version change": retext(
        "; versions 0.4.23, 0.4.31 → 0.4.38", "", "py-jax", "migration"
    ),
    "a migration's versions wrong": retext("→ 0.4.38", "→ 0.4.31", "py-jax", "migration"),
    "a compiler said that did not move": retext(
        "compiler gcc@11.3.0 →", "compiler gcc@11.3.0, gcc@11.4.0 →", "py-mpi4py", "migration"
    ),
    "a many-to-one migration not equal outside its dimension": fold_other_configuration,
    "a migration between unrelated configurations": fold_unrelated_configuration,
    "a variant value said new that is not": say_variants,
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


def test_only_relatedness_catches_the_old_migration() -> None:
    """The record snapdiff made before issue 45 is true in every other respect."""
    data = copy.deepcopy(REPORT)
    fold_unrelated_configuration(data)
    (error,) = check_report(data, V1, V2)
    assert error.startswith("py-build: unrelated configurations migrate: ")
    assert "intel-oneapi-compilers@2024.2.0" in error


NOTE = "From a compiler to no compiler (`none`): 6 configurations of 3 packages"
MARKDOWN_MUTATIONS = {
    "a reason the data does not show": (
        "From a compiler to no compiler (`none`):",
        "Spack 1.0 records no compiler (`none`) for pure-Python packages:",
    ),
    "a claim of absence": ("for a spec;", "for a spec and nothing else;"),
    "a package left out of the note": (
        "of 3 packages (`py-build`, `py-jax`, `py-keras`)",
        "of 1 package (`py-jax`)",
    ),
    "a count of the note": ("131 → 100 specs", "55 → 7 specs"),
    "a platform hidden by a cut list": ("… and 2 more `linux`", "… and 2 more `darwin`"),
    "what a cut list hides miscounted": ("… and 2 more `linux`", "… and 3 more `linux`"),
}


def test_the_real_markdown_is_true() -> None:
    assert NOTE in MARKDOWN
    assert check_markdown(MARKDOWN, REPORT) == []


@pytest.mark.parametrize("name", sorted(MARKDOWN_MUTATIONS))
def test_a_false_markdown_claim_is_caught(name: str) -> None:
    true, false = MARKDOWN_MUTATIONS[name]
    assert true in MARKDOWN
    assert check_markdown(MARKDOWN.replace(true, false), REPORT) != []


def test_a_darwin_configuration_cut_from_a_list_is_caught(tmp_path: Path) -> None:
    """Seven `linux` configurations and one `darwin`: listing five `linux` ones and cutting the
    `darwin` one (as the lists once did, sorted by os) is caught."""
    old = {"x": [spec("z", "1.0", target="zen9")]}
    new = {"x": [spec(f"l{i}", "1.0", target=f"t{i}") for i in range(7)]}
    new["x"] += [spec("d", "1.0", os="sequoia", target="aarch64"), *old["x"]]
    for side, pages in (("old", old), ("new", new)):
        for name, specs in pages.items():
            write_page(tmp_path / side, name, specs)
    found = diff_snapshots(*load_pair(str(tmp_path / "old"), str(tmp_path / "new")))
    data, markdown = as_json(found), render_markdown(found)
    assert check_markdown(markdown, data) == []
    darwin = "  - `sequoia` `aarch64` `gcc@11.4.0` `build_system=cmake` (`darwin`)\n"
    linux = "  - `ubuntu22.04` `t5` `gcc@11.4.0` `build_system=cmake` (`linux`)\n"
    assert darwin in markdown and linux not in markdown
    cut = markdown.replace(darwin, linux).replace("… and 3 more `linux`", "… and 1 more")
    assert check_markdown(cut, data) != []
