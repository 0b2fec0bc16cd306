"""Issue 47, item 3: one package whose configurations nearly all changed (SYNTHETIC, made by
tests/helpers/migrationgen.py) is explained without weighing every dropped configuration
against every new one, every claim still true (SPEC section 2a).

Speed is counted in operations here, never timed: the benchmark is in docs/performance.md.
"""

from __future__ import annotations

import random
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from checker import check_report
from migrationgen import write_indexes, write_pages, write_versions
from pagegen import as_json

from snapdiff.compare import migrations
from snapdiff.compare.builtas import Built
from snapdiff.compare.claims import describe
from snapdiff.compare.classify import classify
from snapdiff.compare.diff import diff_snapshots
from snapdiff.model import Configuration, related
from snapdiff.sources import load_pair

Writer = Callable[[Path, int, int], tuple[Path, Path]]


def _report(tmp_path: Path, write: Writer, n: int) -> dict[str, Any]:
    """The JSON report of a SYNTHETIC pair of n configurations a side, every claim checked."""
    old, new = write(tmp_path, n, 5)
    data = as_json(diff_snapshots(*load_pair(str(old), str(new))))
    assert check_report(data, old, new) == []
    return data


@pytest.mark.parametrize(("write", "n"), [(write_pages, 150), (write_indexes, 100)])
def test_every_claim_about_a_package_whose_configurations_all_changed_is_true(
    tmp_path: Path, write: Writer, n: int
) -> None:
    data = _report(tmp_path, write, n)
    (package,) = data["packages"]
    said = {change["class"] for change in package["changes"]}
    # the generator's moves are all there: along one and two dimensions, and unrelated ones
    assert {"migration", "new-configuration", "dropped-configuration", "rebuilt"} <= said
    dimensions = {tuple(c["dimensions"]) for c in package["changes"] if c["class"] == "migration"}
    assert {("os",), ("compiler",), ("target",), ("variants",), ("os", "compiler")} <= dimensions


def _calls(files: tuple[str, ...], run: Callable[[], object]) -> int:
    """The Python calls (a generator's resumptions included) into these source files made by
    `run`: operations, counted, so no test depends on the machine's speed."""
    count = 0

    def profile(frame: Any, event: str, arg: object) -> None:
        nonlocal count
        if event == "call" and frame.f_code.co_filename.endswith(files):
            count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def test_migrations_weigh_no_dropped_configuration_against_every_new_one(
    tmp_path: Path,
) -> None:
    """400 configurations a side: about 90 calls a configuration into the migrations and the
    relatedness of builds; weighing every pair made 3,000 a configuration here (1.2 million),
    and 6,000 at twice the size."""
    n = 400
    old, new = write_pages(tmp_path, n, 5)
    pair = load_pair(str(old), str(new))
    files = (str(Path("compare", "migrations.py")), str(Path("model", "related.py")))
    assert _calls(files, lambda: diff_snapshots(*pair)) <= 200 * n


class _Counted(dict[Configuration, set[str]]):
    """A package's configurations that count the times they are gone through."""

    walks = 0

    def __iter__(self) -> Iterator[Configuration]:
        _Counted.walks += 1
        return super().__iter__()

    def keys(self) -> Any:
        _Counted.walks += 1
        return super().keys()


def test_sentences_go_through_a_packages_configurations_once_not_once_a_record() -> None:
    """3,000 configurations kept, each with an upgrade of its own: 3,000 records, whose words
    ("in its only `linux` configuration", "in all 9 ...") were each worked out by going through
    every configuration of the package."""
    configs = [
        Configuration("ubuntu22.04", "linux", "zen3", "gcc@13.0.0", (f"+v{i}",))
        for i in range(3000)
    ]
    removed: list[tuple[str, Built]] = [(f"old{i}", (c, f"1.{i}")) for i, c in enumerate(configs)]
    added: list[tuple[str, Built]] = [(f"new{i}", (c, f"2.{i}")) for i, c in enumerate(configs)]
    old = _Counted({c: {f"1.{i}"} for i, c in enumerate(configs)})
    new = _Counted({c: {f"2.{i}"} for i, c in enumerate(configs)})
    facts = classify(removed, added, old, new)
    _Counted.walks = 0
    changes = describe(facts, old, new, {})
    assert len(changes) == 3000 and _Counted.walks <= 10
    assert changes[0].sentence.plain().endswith("in 1 linux configuration: 1 → 1 spec")


def test_a_package_of_kept_configurations_each_with_its_own_version_is_explained(
    tmp_path: Path,
) -> None:
    data = _report(tmp_path, write_versions, 200)
    (package,) = data["packages"]
    assert len(package["changes"]) == 200
    assert {change["class"] for change in package["changes"]} == {"upgrade"}


# the values relatedness looks at, and others: a configuration made of them at random
_PLATFORMS = ("linux", "cray", "darwin")
_TARGETS = ("zen3", "x86_64_v3", "neoverse_v2", "m1", "not-a-target")
_COMPILERS: tuple[str, ...] = ("gcc@11.4.0", "gcc@13.2.0", "none", "oneapi@2024.2.0")
_COMPILERS += ("clang@17.0.6", "intel-oneapi-compilers@2025.1.0", "llvm@18.1.0", "intel@19.1.2")
_STACKS: tuple[str, ...] = ("root", "e4s", "ml", "hep")
# names the data may hold that once spelled the keys' own markers (a false relation)
_COMPILERS += ("none on the old side@1", "none on the new side@1")
_STACKS += ("no stack, old side", "no stack, new side")


def _weighed(
    olds: list[Configuration],
    news: list[Configuration],
    stacks: dict[Configuration, frozenset[str]],
) -> list[tuple[list[Configuration], list[Configuration]]]:
    """The sets relatedness joins, found by weighing every pair (what `migrations` did)."""
    links: dict[Configuration, set[Configuration]] = defaultdict(set)
    for a in olds:
        for b in news:
            here, there = stacks[a] - {"root"}, stacks[b] - {"root"}
            if here and there and not here & there:
                continue
            if related((a.platform, b.platform), (a.target, b.target), (a.compiler, b.compiler)):
                links[a].add(b)
                links[b].add(a)
    found, seen = [], set()
    for start in olds:
        if start in seen or not links[start]:
            continue
        joined, frontier = {start}, [start]
        while frontier:
            for other in links[frontier.pop()] - joined:
                joined.add(other)
                frontier.append(other)
        seen |= joined
        found.append(([c for c in olds if c in joined], [c for c in news if c in joined]))
    return found


def test_configurations_joined_by_shared_keys_are_those_weighing_every_pair_joins() -> None:
    rng = random.Random(47)
    for _ in range(300):
        configs = {
            Configuration(
                f"os{rng.randrange(3)}",
                rng.choice(_PLATFORMS),
                rng.choice(_TARGETS),
                rng.choice(_COMPILERS),
                (),
            )
            for _ in range(rng.randrange(2, 16))
        }
        ordered = sorted(configs)
        rng.shuffle(ordered)
        cut = rng.randrange(1, len(ordered))
        olds, news = sorted(ordered[:cut]), sorted(ordered[cut:])
        stacks = {c: frozenset(rng.sample(_STACKS, rng.randrange(0, 3))) for c in ordered}
        kin = migrations._kin(olds, stacks, True) | migrations._kin(news, stacks, False)
        assert migrations._components(olds, news, kin) == _weighed(olds, news, stacks)
