"""Issue 29: why specs were rebuilt (SPEC section 6), against the generator's ground truth and
the independent cause checker (tests/causes.py), on golden cases and generated DAGs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from causes import check, comparable

from snapdiff.compare.diff import diff_snapshots
from snapdiff.render.jsonreport import report_to_dict
from snapdiff.sources import load_pair

ROOT = Path(__file__).parent.parent
CASES = Path(__file__).parent / "cases"
KINDS = [
    "version",
    "build-tool",
    "recipe",
    "variant",
    "target",
    "compiler",
    "new",
    "removed",
    "missing",
    "hash-scheme",
]


def genindex(*args: str) -> None:
    """bench/genindex.py, seeded: small synthetic indexes in a fraction of a second."""
    script = str(ROOT / "bench" / "genindex.py")
    subprocess.run([sys.executable, script, *args], check=True, capture_output=True)


def generate(tmp_path: Path, events: str, seed: int = 3, *extra: str) -> dict[str, Any]:
    """A small synthetic pair (`old`, `new` under tmp_path) and the generator's truth."""
    old, new, truth = tmp_path / "old", tmp_path / "new", tmp_path / "truth.json"
    genindex(str(old), "--records", "400", "--stacks", "3", "--seed", str(seed), *extra)
    genindex(
        str(new),
        "--evolve-from",
        str(old),
        "--seed",
        str(seed + 1),
        "--truth",
        str(truth),
        "--events",
        events,
    )
    data: dict[str, Any] = json.loads(truth.read_text())
    return data


def rebuilds_of(old: Path, new: Path) -> dict[str, Any]:
    report = report_to_dict(diff_snapshots(*load_pair(str(old), str(new))))
    assert report["rebuilds"] is not None
    return dict(report["rebuilds"])


@pytest.mark.parametrize("kind", KINDS)
def test_causes_equal_the_generators_truth(kind: str, tmp_path: Path) -> None:
    """Triggers, cascade sets, build-only subsets, hash-scheme, unexplained and missing
    dependencies of a generated pair, each event kind alone, equal the generator's truth."""
    events = f"{kind}=2" if kind != "hash-scheme" else "hash-scheme=1,version=1"
    truth = generate(tmp_path, events)
    found = rebuilds_of(tmp_path / "old", tmp_path / "new")
    assert comparable(found) == comparable(truth)
    assert found["rebuilt"] == truth["rebuilt"]
    assert check(found, tmp_path / "old", tmp_path / "new") == []


def test_every_event_at_once_in_one_merged_index(tmp_path: Path) -> None:
    events = (
        "version=1,build-tool=1,recipe=2,variant=1,target=1,compiler=1,new=2,removed=1,missing=2"
    )
    truth = generate(tmp_path, events, 11, "--single")
    found = rebuilds_of(tmp_path / "old", tmp_path / "new")
    assert comparable(found) == comparable(truth)
    assert truth["triggers"] and truth["cascades"] and truth["missing_dependencies"]


def test_a_build_tool_bump_cascades_through_build_edges_only(tmp_path: Path) -> None:
    generate(tmp_path, "build-tool=1")
    triggers = rebuilds_of(tmp_path / "old", tmp_path / "new")["triggers"]
    assert len({t["name"] for t in triggers}) == 1  # the tool, in each configuration
    assert all(t["changes"] == ["version"] for t in triggers)
    assert all(t["cascade"] == t["cascade_build_only"] for t in triggers)
    assert sum(len(t["cascade"]) for t in triggers) > 10


def test_a_hash_scheme_change_alone_is_hash_scheme_throughout(tmp_path: Path) -> None:
    generate(tmp_path, "hash-scheme=1")
    found = rebuilds_of(tmp_path / "old", tmp_path / "new")
    assert found["triggers"] == found["cascades"] == found["unexplained"] == []
    assert len(found["hash_scheme"]) == found["rebuilt"] > 100


def index_cases() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if list((p / "old").rglob("index.json")))


@pytest.mark.parametrize("case", index_cases())
def test_the_cause_checker_agrees_with_every_index_golden_case(case: str) -> None:
    expected = json.loads((CASES / case / "expected.json").read_text())
    assert expected["rebuilds"] is not None
    assert check(expected["rebuilds"], CASES / case / "old", CASES / case / "new") == []


def test_index_golden_cases_exist() -> None:
    assert len(index_cases()) >= 3


def test_pages_say_nothing_about_causes() -> None:
    expected = json.loads((CASES / "real-v1-v2" / "expected.json").read_text())
    assert expected["rebuilds"] is None
