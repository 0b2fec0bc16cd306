"""Issue 29: why specs were rebuilt (SPEC section 6), against the generator's ground truth and
the independent cause checker (tests/causes.py), on golden cases and generated DAGs."""

from __future__ import annotations

import base64
import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from causes import check, comparable, expand
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from indexgen import generate

from snapdiff.compare.diff import diff_snapshots
from snapdiff.render.jsonreport import report_to_dict
from snapdiff.sources import load_pair

ROOT = Path(__file__).parents[2]
CASES = Path(__file__).parents[1] / "cases"
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
    triggers = expand(rebuilds_of(tmp_path / "old", tmp_path / "new"))["triggers"]
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
    return sorted(
        p.name
        for p in CASES.iterdir()
        if list((p / "old").rglob("index.json")) or list((p / "old").rglob("spack.lock"))
    )


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


# Property: on small random DAGs and random changes, the engine says what the checker derives.

NAMES = ("zlib", "cmake", "hdf5", "py-x")
DEPTYPES = (("build",), ("link",), ("build", "link"), ("run",), ("build", "link", "run"))


def _dag_hash(payload: object) -> str:
    raw = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).digest()
    return base64.b32encode(raw).decode().lower()[:32]


@st.composite
def dags(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Nodes in dependency order: fields and edges (to earlier nodes, with deptypes)."""
    nodes = []
    for i in range(draw(st.integers(2, 12))):
        deps = draw(st.lists(st.integers(0, i - 1), max_size=3, unique=True)) if i else []
        nodes.append(
            {
                "name": draw(st.sampled_from(NAMES)),
                "version": draw(st.sampled_from(("1.0", "1.1"))),
                "platform": draw(st.sampled_from(("linux", "darwin"))),
                "os": draw(st.sampled_from(("rhel8", "ubuntu24.04"))),
                "shared": draw(st.booleans()),
                "recipe": "r0",
                "deps": [(j, draw(st.sampled_from(DEPTYPES))) for j in deps],
            }
        )
    return nodes


def _index(
    nodes: list[dict[str, Any]], salt: int, drop: set[int]
) -> tuple[dict[str, Any], list[str]]:
    """The DB v8 index of these nodes (hashes bottom-up, `drop` left out) and every node's hash."""
    hashes: list[str] = []
    installs = {}
    for i, node in enumerate(nodes):
        edges = [
            {
                "name": nodes[j]["name"],
                "hash": hashes[j],
                "parameters": {"deptypes": list(t), "virtuals": []},
            }
            for j, t in node["deps"]
        ]
        spec = {
            "name": node["name"],
            "version": node["version"],
            "arch": {
                "platform": node["platform"],
                "platform_os": node["os"],
                "target": {"name": "x"},
            },
            "parameters": {"shared": node["shared"]},
            "package_hash": node["recipe"],
            "dependencies": edges,
        }
        hashes.append(_dag_hash([spec, salt, i]))
        if i not in drop:
            installs[hashes[i]] = {"spec": spec, "in_buildcache": True}
    return {"database": {"version": "8", "installs": installs}}, hashes


@st.composite
def changes(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]], set[int], int]:
    old = draw(dags())
    new = [dict(node) for node in old]
    for node in new:
        what = draw(st.sampled_from(("none", "none", "version", "recipe", "shared", "os")))
        if what == "version":
            node["version"] = "2.0"
        elif what == "recipe":
            node["recipe"] = "r1"
        elif what == "shared":
            node["shared"] = not node["shared"]
        elif what == "os":
            node["os"] = "sles15"
    drop = set(draw(st.lists(st.integers(0, len(new) - 1), max_size=2)))
    return old, new, drop, draw(st.sampled_from((0, 0, 1)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes())
def test_the_engine_says_what_the_checker_derives_on_random_dags(
    case: tuple[list[dict[str, Any]], list[dict[str, Any]], set[int], int],
) -> None:
    old_nodes, new_nodes, drop, salt = case
    with tempfile.TemporaryDirectory() as tmp:
        old, new = Path(tmp) / "old.json", Path(tmp) / "new.json"
        old.write_text(json.dumps(_index(old_nodes, 0, set())[0]))
        new.write_text(json.dumps(_index(new_nodes, salt, drop)[0]))
        if not json.loads(new.read_text())["database"]["installs"]:
            return
        found = rebuilds_of(old, new)
        assert check(found, old, new) == []


def test_filters_keep_the_causes_of_the_specs_they_keep() -> None:
    """The walk runs on the whole graph; with --package libdwarf, the triggers outside the filter
    stay (they cause libdwarf's rebuilds), their cascades narrowed to libdwarf's specs."""
    from snapdiff.model import Filters

    old, new = str(CASES / "causes-real-v8" / "old"), str(CASES / "causes-real-v8" / "new")
    whole = diff_snapshots(*load_pair(old, new)).rebuilds
    asked = Filters(package=("libdwarf",))
    narrowed = diff_snapshots(*load_pair(old, new, filters=asked), asked).rebuilds
    assert whole is not None and narrowed is not None
    assert {t.name for t in narrowed.triggers} == {"compiler-wrapper", "libelf"}
    assert all(t.packages == (("libdwarf", len(t.cascade)),) for t in narrowed.triggers)
    assert {c.name for c in narrowed.cascades} == {"libdwarf"}
    assert len(narrowed.cascades) < len(whole.cascades)
