"""The cause checker itself (tests/helpers/causes.py) on small hand-made lockfile and index pairs:
SPEC section 6's predecessors (related candidates only, roots first, the total order), own
changes, new builds as causes, unexplained and hash-scheme specs, moves, the scheme change and
the invariants `check` adds. Nothing here needs snapdiff."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import laddergen
import pytest
from causes import (
    check,
    comparable,
    derive,
    expand,
    normal_compiler,
    predecessors_of,
    read_side,
    root_package,
)

from snapdiff.compare.diff import diff_snapshots
from snapdiff.model import Filters
from snapdiff.render.jsonreport import render_json
from snapdiff.sources import load_pair

HELPERS = Path(__file__).parents[1] / "helpers"
Node = dict[str, Any]


def node(
    name: str,
    version: str = "1.0",
    *,
    target: str = "x86_64_v3",
    compiler: str | None = "gcc@12.2.0",
    platform: str = "linux",
    os: str = "ubuntu22.04",
    namespace: str = "builtin",
    parameters: dict[str, Any] | None = None,
    recipe: str = "r0",
    external: dict[str, Any] | None = None,
    deps: tuple[tuple[str, str, tuple[str, ...]], ...] = (),
) -> Node:
    """A spec v4 node (the `compiler` field), or none when `compiler` is None."""
    spec: Node = {
        "name": name,
        "version": version,
        "arch": {"platform": platform, "platform_os": os, "target": target},
        "namespace": namespace,
        "parameters": parameters if parameters is not None else {"shared": True},
        "package_hash": recipe,
        "dependencies": [
            {"name": n, "hash": h, "parameters": {"deptypes": list(t), "virtuals": []}}
            for n, h, t in deps
        ],
    }
    if compiler is not None:
        name_, _, ver = compiler.partition("@")
        spec["compiler"] = {"name": name_, "version": ver}
    if external is not None:
        spec["external"] = external
    return spec


def lock(
    path: Path,
    nodes: dict[str, Node],
    roots: list[tuple[str, str]] | None = None,
    version: int = 5,
    spack: str = "0.21.0",
) -> Path:
    path.write_text(
        json.dumps(
            {
                "_meta": {"file-type": "spack-lockfile", "lockfile-version": version},
                "spack": {"version": spack, "type": "git", "commit": "c0"},
                "roots": [{"hash": h, "spec": s} for s, h in roots or []],
                "concrete_specs": {h: {**n, "hash": h} for h, n in nodes.items()},
            }
        )
    )
    return path


def pair(
    tmp: Path,
    old: dict[str, Node],
    new: dict[str, Node],
    roots: tuple[list[tuple[str, str]], list[tuple[str, str]]] = ([], []),
    versions: tuple[int, int] = (5, 5),
) -> tuple[Path, Path]:
    return (
        lock(tmp / "old.lock", old, roots[0], versions[0]),
        lock(tmp / "new.lock", new, roots[1], versions[1]),
    )


def pairs_of(rebuilds: dict[str, Any]) -> dict[str, str]:
    found = {t["hash"]: t["predecessor"] for t in rebuilds["triggers"]}
    return found | {c["hash"]: c["predecessor"] for c in rebuilds["cascades"]}


def rebuilt(rebuilds: dict[str, Any]) -> set[str]:
    return set(pairs_of(rebuilds)) | set(rebuilds["hash_scheme"]) | set(rebuilds["unexplained"])


# -- reading --------------------------------------------------------------------------------


def test_a_lockfile_side_is_every_node_in_stack_root_and_binary(tmp_path: Path) -> None:
    path = lock(tmp_path / "spack.lock", {"z1": node("zlib"), "c1": node("cmake")})
    records = read_side(path)
    assert set(records) == {"z1", "c1"}
    assert all(r["stacks"] == {"root"} and r["binary"] for r in records.values())
    assert read_side(tmp_path) == records  # a folder holding it reads the same


def test_a_spec_v5_compiler_is_the_provider_of_c_and_a_pure_package_has_none(
    tmp_path: Path,
) -> None:
    gcc = node("gcc", "13.2.0", compiler=None)
    lib = node("zlib", compiler=None)
    lib["dependencies"] = [
        {"name": "gcc", "hash": "g1", "parameters": {"deptypes": ["build"], "virtuals": ["c"]}}
    ]
    records = read_side(lock(tmp_path / "x.lock", {"g1": gcc, "z1": lib}, version=6))
    assert records["z1"]["compiler"] == "gcc@13.2.0"
    assert records["g1"]["compiler"] == "none"


@pytest.mark.parametrize(
    ("spelled", "normal"),
    [
        ("gcc@=12.2.0", "gcc@12.2.0"),
        ("oneapi@2024.2.0", "intel-oneapi-compilers@2024.2.0"),
        ("clang@17", "llvm@17"),
        ("intel@19.1", "intel-oneapi-compilers-classic@19.1"),
        ("none", "none"),
    ],
)
def test_compilers_are_normalised_as_spec_2a_says(spelled: str, normal: str) -> None:
    assert normal_compiler(spelled) == normal


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("hdf5", "hdf5"),
        ("py-numpy@1.26 +blas", "py-numpy"),
        ("netcdf-c%gcc@12", "netcdf-c"),
        ("ncl~x ^hdf5", "ncl"),
        ("builtin.zlib", "zlib"),
        ("%gcc", ""),
        ("zlib/abc", "zlib"),
    ],
)
def test_a_root_text_names_its_leading_package(text: str, name: str) -> None:
    assert root_package(text) == name


# -- predecessors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({"target": "neoverse_v2"}, {"target": "x86_64_v3"}),  # aarch64 → x86_64
        ({"compiler": "nvhpc@24.1"}, {"compiler": "oneapi@2024.2.0"}),
        ({"compiler": "intel@19.1"}, {"compiler": "oneapi@2024.2.0"}),  # classic is its own
        ({"platform": "darwin"}, {"platform": "linux"}),
    ],
)
def test_a_candidate_of_another_family_is_never_paired(
    tmp_path: Path, before: dict[str, Any], after: dict[str, Any]
) -> None:
    """The only candidate crosses a family: the new spec is a new build, not rebuilt."""
    old, new = pair(tmp_path, {"o1": node("zlib", **before)}, {"n1": node("zlib", **after)})
    found = derive(old, new)
    assert rebuilt(found) == set()
    assert found["triggers"] == []


@pytest.mark.parametrize(
    ("before", "after", "changes"),
    [
        ({"target": "zen3"}, {"target": "x86_64_v3"}, ["target"]),
        ({"compiler": "gcc@7.5.0"}, {"compiler": "gcc@12.2.0"}, ["compiler"]),
        ({"compiler": "gcc@12.2.0"}, {"compiler": None}, ["compiler"]),
        ({"compiler": "oneapi@2024.2.0"}, {"compiler": "intel-oneapi-compilers@2024.2.0"}, []),
        ({"platform": "cray"}, {"platform": "linux"}, ["platform"]),
        ({"target": "unknown_a"}, {"target": "unknown_a"}, []),
    ],
)
def test_related_candidates_pair(
    tmp_path: Path, before: dict[str, Any], after: dict[str, Any], changes: list[str]
) -> None:
    old, new = pair(tmp_path, {"o1": node("zlib", **before)}, {"n1": node("zlib", **after)})
    found = derive(old, new)
    assert rebuilt(found) == {"n1"}
    assert [t["changes"] for t in found["triggers"]] == ([changes] if changes else [])
    assert (found["hash_scheme"] == ["n1"]) == (not changes)


def test_the_total_order_ranks_equal_fields_before_variants(tmp_path: Path) -> None:
    """`a` shares the version (one more equal field) but no variant; `b` shares every variant
    but not the version: the equal fields decide."""
    a = node("hdf5", "1.0", parameters={"mpi": False, "shared": False})
    b = node("hdf5", "0.9", parameters={"mpi": True, "shared": True})
    new = node("hdf5", "1.0", parameters={"mpi": True, "shared": True})
    old, new_ = pair(tmp_path, {"oa": a, "ob": b}, {"n1": new})
    assert pairs_of(derive(old, new_)) == {"n1": "oa"}


def test_the_total_order_ranks_variants_then_dependency_names_then_hashes(
    tmp_path: Path,
) -> None:
    """Equal fields tie: most variant tokens in common wins; then most dependency names in
    common; then the smallest (new hash, old hash)."""

    def one(parameters: dict[str, Any], deps: tuple[str, ...] = ()) -> Node:
        return node(
            "hdf5", parameters=parameters, deps=tuple((d, d + "1", ("link",)) for d in deps)
        )

    leaves = {d + "1": node(d) for d in ("zlib", "mpi", "szip")}
    shared = {"mpi": True, "shared": True, "fortran": False}
    old = {"oa": one({"mpi": True, "shared": False}), "ob": one(shared), **leaves}
    new = {"n1": one(shared), **leaves}
    assert predecessors_of(*pair(tmp_path, old, new)) == {"n1": "ob"}

    old = {"oa": one(shared, ("zlib",)), "ob": one(shared, ("zlib", "mpi")), **leaves}
    new = {"n1": one(shared, ("zlib", "mpi", "szip")), **leaves}
    assert predecessors_of(*pair(tmp_path, old, new)) == {"n1": "ob"}

    old = {"ob": one(shared), "oa": one(shared), **leaves}
    new = {"n2": one(shared), "n1": one(shared), **leaves}
    assert predecessors_of(*pair(tmp_path, old, new)) == {"n1": "oa", "n2": "ob"}


def test_greedy_takes_the_best_pair_first_not_the_first_new_spec(tmp_path: Path) -> None:
    """`n1` (smallest hash) would take `o2` if walked spec by spec; the best pair overall is
    `n2` ← `o2` (every field equal), so `n1` gets `o1`."""
    old = {"o1": node("x", "1.0", os="rhel8"), "o2": node("x", "2.0", os="rhel9")}
    new = {"n1": node("x", "2.0", os="rhel8"), "n2": node("x", "2.0", os="rhel9")}
    assert predecessors_of(*pair(tmp_path, old, new)) == {"n1": "o1", "n2": "o2"}


def test_an_environment_root_pairs_its_hashes_first(tmp_path: Path) -> None:
    """Root `hdf5` was `o1` (1.0) and is `n1` (2.0): paired although `o2` (2.0) is closer."""
    old = {"o1": node("hdf5", "1.0"), "o2": node("hdf5", "2.0", os="rhel8")}
    new = {"n1": node("hdf5", "2.0", os="rhel8"), "n2": node("hdf5", "1.0", os="rhel8")}
    roots = ([("hdf5", "o1")], [("hdf5", "n1")])
    assert predecessors_of(*pair(tmp_path, old, new, roots)) == {"n1": "o1", "n2": "o2"}
    # a root text naming another package is not trusted: the total order pairs
    roots = ([("zlib", "o1")], [("zlib", "n1")])
    assert predecessors_of(*pair(tmp_path, old, new, roots)) == {"n1": "o2", "n2": "o1"}


# -- own changes and causes -------------------------------------------------------------------


def test_a_namespace_move_is_an_own_change_and_cascades(tmp_path: Path) -> None:
    old = {"z0": node("zlib"), "a0": node("app", deps=(("zlib", "z0", ("link",)),))}
    new = {
        "z1": node("zlib", namespace="site"),
        "a1": node("app", deps=(("zlib", "z1", ("link",)),)),
    }
    old_path, new_path = pair(tmp_path, old, new)
    found = derive(old_path, new_path)
    assert [(t["hash"], t["changes"], t["cascade"]) for t in found["triggers"]] == [
        ("z1", ["namespace"], ["a1"])
    ]
    assert found["hash_scheme"] == []
    assert check(found, old_path, new_path) == []
    said = {**found, "triggers": [], "cascades": [], "hash_scheme": ["a1", "z1"]}
    assert "hash_scheme z1 differs from z0 in namespace" in check(said, old_path, new_path)


@pytest.mark.parametrize(
    ("before", "after", "change"),
    [
        (None, {"path": "/usr", "module": None}, "external"),
        ({"path": "/usr", "module": None}, {"path": "/opt", "module": None}, "external"),
        ({"path": None, "module": ["zlib/1"]}, {"path": None, "module": ["zlib/2"]}, "external"),
    ],
)
def test_an_external_change_is_an_own_change(
    tmp_path: Path, before: dict[str, Any] | None, after: dict[str, Any], change: str
) -> None:
    old, new = pair(
        tmp_path, {"o1": node("zlib", external=before)}, {"n1": node("zlib", external=after)}
    )
    assert [t["changes"] for t in derive(old, new)["triggers"]] == [[change]]


def test_a_dependency_resolved_to_another_old_build_is_an_own_change(tmp_path: Path) -> None:
    old = {
        "z0": node("zlib", "1.0"),
        "z9": node("zlib", "1.1"),
        "a0": node("app", deps=(("zlib", "z0", ("link",)),)),
    }
    new = {
        "z0": node("zlib", "1.0"),
        "z9": node("zlib", "1.1"),
        "a1": node("app", deps=(("zlib", "z9", ("link",)),)),
    }
    assert [t["changes"] for t in derive(*pair(tmp_path, old, new))["triggers"]] == [
        ["dependencies"]
    ]


def test_a_new_build_reached_through_a_new_edge_is_a_cause(tmp_path: Path) -> None:
    """`app` now builds with a new `mpich` (no predecessor: the old one was `openmpi`) at link
    time and a new `ninja` at build time; `lib` in between has no change of its own."""
    old = {
        "m0": node("openmpi"),
        "l0": node("lib", deps=(("openmpi", "m0", ("link",)),)),
        "a0": node("app", deps=(("lib", "l0", ("link",)),)),
    }
    new = {
        "m1": node("mpich"),
        "k1": node("ninja"),
        "l1": node("lib", deps=(("mpich", "m1", ("link",)), ("ninja", "k1", ("build",)))),
        "a1": node("app", deps=(("lib", "l1", ("link",)),)),
    }
    # the dependency names of `lib` changed (openmpi → mpich, ninja): `lib` is a trigger
    old_path, new_path = pair(tmp_path, old, new)
    found = derive(old_path, new_path)
    assert [(t["hash"], t["changes"]) for t in found["triggers"]] == [("l1", ["dependencies"])]
    # the same names on both sides: `lib` has no change, the new builds are the causes
    old["m0"] = node("mpich", compiler="nvhpc@24.1")  # another family: no predecessor of m1
    old["k0"] = node("ninja", target="neoverse_v2")
    old["l0"] = node("lib", deps=(("mpich", "m0", ("link",)), ("ninja", "k0", ("build",))))
    old_path, new_path = pair(tmp_path, old, new)
    found = derive(old_path, new_path)
    assert found["triggers"] == []
    assert found["new_builds"] == [
        {
            "hash": "k1",
            "name": "ninja",
            "cascade": ["a1", "l1"],
            "cascade_build_only": ["a1", "l1"],
        },
        {"hash": "m1", "name": "mpich", "cascade": ["a1", "l1"], "cascade_build_only": []},
    ]
    assert [(c["hash"], c["causes"]) for c in found["cascades"]] == [
        ("a1", ["k1", "m1"]),
        ("l1", ["k1", "m1"]),
    ]
    assert check(found, old_path, new_path) == []


def test_a_new_build_that_causes_nothing_is_not_listed(tmp_path: Path) -> None:
    old_path, new_path = pair(
        tmp_path, {"z0": node("zlib")}, {"z0": node("zlib"), "c1": node("cmake")}
    )
    assert derive(old_path, new_path)["new_builds"] == []


def test_a_path_to_a_hash_with_no_record_is_unexplained(tmp_path: Path) -> None:
    old = {"z0": node("zlib"), "a0": node("app", deps=(("zlib", "z0", ("link",)),))}
    new = {"a1": node("app", deps=(("zlib", "gone", ("link",)),))}
    old_path, new_path = pair(tmp_path, old, new)
    found = derive(old_path, new_path)
    assert found["unexplained"] == ["a1"]
    assert found["missing_dependencies"] == [
        {"hash": "a1", "name": "app", "dependency": "gone", "dependency_name": "zlib", "new": True}
    ]
    assert check(found, old_path, new_path) == []


def test_a_rehash_of_everything_is_a_scheme_change_and_hash_scheme_throughout(
    tmp_path: Path,
) -> None:
    old = {"z0": node("zlib"), "a0": node("app", deps=(("zlib", "z0", ("link",)),))}
    new = {"z1": node("zlib"), "a1": node("app", deps=(("zlib", "z1", ("link",)),))}
    found = derive(*pair(tmp_path, old, new))
    assert found["scheme"] == {"from": "0.21.0", "to": "0.21.0"}  # leaves equal, rehashed
    assert found["hash_scheme"] == ["a1", "z1"]
    assert found["triggers"] == found["cascades"] == found["unexplained"] == []
    found = derive(*pair(tmp_path, old, {**new, "z0": node("zlib")}, versions=(4, 5)))
    assert found["scheme"] is not None  # the lockfile versions differ
    found = derive(*pair(tmp_path, old, {**new, "z0": node("zlib")}))
    assert found["scheme"] is None  # a hash kept, the same format


def test_a_target_move_made_by_half_the_rebuilt_specs_is_a_move(tmp_path: Path) -> None:
    old = {"a0": node("a", target="zen3"), "b0": node("b", target="zen3"), "c0": node("c")}
    new = {"a1": node("a"), "b1": node("b"), "c1": node("c", "2.0")}
    found = derive(*pair(tmp_path, old, new))
    assert found["moves"] == [
        {"dimension": "target", "from": ["zen3"], "to": ["x86_64_v3"], "specs": 2}
    ]
    new["c1"] = node("c", "2.0", target="zen4")
    new["d1"], old["d0"] = node("d", "2.0"), node("d")
    assert derive(*pair(tmp_path, old, new))["moves"] == [
        {"dimension": "target", "from": ["zen3"], "to": ["x86_64_v3"], "specs": 2}
    ]


def test_an_index_pair_reads_as_before(tmp_path: Path) -> None:
    """Build-cache indexes (DB v8, one stack each) still derive the same way."""

    def index(path: Path, nodes: dict[str, Node]) -> None:
        path.mkdir(parents=True)
        installs = {h: {"spec": n, "in_buildcache": True} for h, n in nodes.items()}
        database = {"database": {"version": "8", "installs": installs}}
        (path / "index.json").write_text(json.dumps(database))

    index(tmp_path / "old" / "e4s" / "build_cache", {"z0": node("zlib")})
    index(tmp_path / "new" / "e4s" / "build_cache", {"z1": node("zlib", "1.1")})
    found = derive(tmp_path / "old", tmp_path / "new")
    assert [(t["hash"], t["changes"], t["stacks"]) for t in found["triggers"]] == [
        ("z1", ["version"], ["e4s"])
    ]
    assert found["scheme"] is None


# -- check: comparing and the invariants ------------------------------------------------------


@pytest.fixture
def cascade_pair(tmp_path: Path) -> tuple[Path, Path]:
    old = {"z0": node("zlib"), "a0": node("app", deps=(("zlib", "z0", ("link",)),))}
    new = {"z1": node("zlib", "1.1"), "a1": node("app", deps=(("zlib", "z1", ("link",)),))}
    return pair(tmp_path, old, new)


def test_check_accepts_what_it_derives(cascade_pair: tuple[Path, Path]) -> None:
    found = derive(*cascade_pair)
    assert check(found, *cascade_pair) == []
    assert comparable(found)["scheme"] is False


def test_check_says_what_a_wrong_report_claims(cascade_pair: tuple[Path, Path]) -> None:
    found = derive(*cascade_pair)
    wrong = {**found, "cascades": [], "hash_scheme": ["a1"], "new_builds": []}
    problems = check(wrong, *cascade_pair)
    assert any(p.startswith("cascades:") for p in problems)
    assert any(p.startswith("hash_scheme:") for p in problems)
    twice = {**found, "hash_scheme": ["a1"]}
    assert any("in two of" in p for p in check(twice, *cascade_pair))
    lacking = {k: v for k, v in found.items() if k != "moves"}
    assert check(lacking, *cascade_pair) == ["rebuilds lacks moves"]


def test_check_finds_a_pair_across_families_and_an_unexplained_with_no_gap(
    tmp_path: Path,
) -> None:
    old = {"z0": node("zlib", compiler="nvhpc@24.1"), "y0": node("zlib", "0.9")}
    new = {"z1": node("zlib", compiler="oneapi@2024.2.0")}
    old_path, new_path = pair(tmp_path, old, new)
    found = derive(old_path, new_path)
    assert found["triggers"] == [] and rebuilt(found) == set()
    crossing = {
        **found,
        "triggers": [
            {
                "hash": "z1",
                "name": "zlib",
                "predecessor": "z0",
                "changes": ["compiler"],
                "cascade": [],
                "cascade_build_only": [],
                "stacks": ["root"],
            }
        ],
    }
    problems = check(crossing, old_path, new_path)
    assert any("not related: compiler family nvhpc@24.1 → oneapi@2024.2.0" in p for p in problems)
    unexplained = {**found, "unexplained": ["z1"]}
    assert any(
        "has no path to a hash with no record" in p for p in check(unexplained, old_path, new_path)
    )


def test_the_command_line_prints_the_problems(
    cascade_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"rebuilds": derive(*cascade_pair)}))
    script = [sys.executable, str(HELPERS / "causes.py"), *map(str, cascade_pair)]
    done = subprocess.run([*script, str(report)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("ok: 2 rebuilt")
    report.write_text(json.dumps({"rebuilds": {**derive(*cascade_pair), "unexplained": ["a1"]}}))
    done = subprocess.run([*script, str(report)], capture_output=True, text=True)
    assert done.returncode == 1 and "unexplained" in done.stdout
    done = subprocess.run(script, capture_output=True, text=True)
    assert json.loads(done.stdout)["triggers"][0]["hash"] == "z1"


def _evidence_pair(tmp_path: Path) -> tuple[Path, Path]:
    """`app` links `mid`, which links `zlib` (bumped), and builds with `cmake` (bumped): `app`
    reaches `zlib` through `mid` by link edges and `cmake` directly by a build edge."""
    old = {
        "z0": node("zlib"),
        "c0": node("cmake"),
        "m0": node("mid", deps=(("zlib", "z0", ("link",)),)),
        "a0": node("app", deps=(("mid", "m0", ("link",)), ("cmake", "c0", ("build",)))),
    }
    new = {
        "z1": node("zlib", "1.1"),
        "c1": node("cmake", "1.1"),
        "m1": node("mid", deps=(("zlib", "z1", ("link",)),)),
        "a1": node("app", deps=(("mid", "m1", ("link",)), ("cmake", "c1", ("build",)))),
    }
    return pair(tmp_path, old, new)


def _schema_2(found: dict[str, Any]) -> dict[str, Any]:
    """The checker's own `rebuilds` of `_evidence_pair` as a report of schema 2 writes it."""
    cascades = {
        "a1": {"direct_causes": ["c1"], "through": ["m1"], "build_only": ["c1"]},
        "m1": {"direct_causes": ["z1"], "through": [], "build_only": []},
    }
    counts = {"c1": (1, 1), "z1": (2, 0)}
    return {
        **found,
        "triggers": [
            {k: v for k, v in t.items() if k not in ("cascade", "cascade_build_only")}
            | dict(
                zip(("cascade_specs", "cascade_build_only_specs"), counts[t["hash"]], strict=True)
            )
            for t in found["triggers"]
        ],
        "cascades": [
            {k: c[k] for k in ("hash", "name", "predecessor")} | cascades[c["hash"]]
            for c in found["cascades"]
        ],
        "cascades_filtered_out": [],
    }


def test_check_follows_the_evidence_one_step_down_and_checks_each_edge(tmp_path: Path) -> None:
    """Schema 2 gives each cascade spec's edges one step down: the checker follows them to the
    whole relation (the same as it derives) and checks each named edge against the records."""
    sides = _evidence_pair(tmp_path)
    found = derive(*sides)
    assert [c["causes"] for c in found["cascades"]] == [["c1", "z1"], ["z1"]]
    said = _schema_2(found)
    assert expand(said)["cascades"] == found["cascades"]
    assert check(said, *sides) == []

    def tampered(spec: str, **evidence: list[str]) -> list[str]:
        cascades = [c | evidence if c["hash"] == spec else c for c in said["cascades"]]
        return check({**said, "cascades": cascades}, *sides)

    assert "cascade a1: z1 is no new edge of its record" in tampered("a1", direct_causes=["z1"])
    assert "cascade a1: build_only [], records ['c1']" in tampered("a1", build_only=[])
    assert any(p.startswith("cascades: a1") for p in tampered("a1", through=[]))
    counted = [t | {"cascade_specs": 1} for t in said["triggers"]]
    assert "z1: cascade_specs 1, evidence 2" in check({**said, "triggers": counted}, *sides)


CASES = Path(__file__).parents[1] / "cases"


@pytest.mark.parametrize(
    "case",
    sorted(
        p.parent.name
        for p in CASES.glob("*/expected.json")
        if json.loads(p.read_text())["rebuilds"] is not None
    ),
)
def test_every_golden_cases_rebuilds_are_what_the_checker_derives(case: str) -> None:
    """A golden JSON is reviewed by this too: its `rebuilds`, the evidence followed down, is
    the relation the checker derives from the case's inputs, and every named edge is real."""
    folder = CASES / case
    rebuilds = json.loads((folder / "expected.json").read_text())["rebuilds"]
    assert check(rebuilds, folder / "old", folder / "new") == []


def _snippet() -> Any:
    text = (CASES.parents[1] / "docs" / "json.md").read_text(encoding="utf-8")
    names: dict[str, Any] = {}
    exec(text.split("```python\n", 1)[1].split("```", 1)[0], names)
    return names["causes_of"]


def _snippet_agrees(causes_of: Any, rebuilds: dict[str, Any]) -> int:
    """What the snippet gives equals `expand`'s lists: each cascade spec's causes, each cause's
    cascade and build-only part; how many cascade specs were compared."""
    found = causes_of(rebuilds)
    whole = expand(rebuilds)
    assert {c["hash"]: sorted(found[c["hash"]][0]) for c in rebuilds["cascades"]} == {
        c["hash"]: c["causes"] for c in whole["cascades"]
    }
    for cause in whole["triggers"] + whole["new_builds"]:
        cascade = [c["hash"] for c in rebuilds["cascades"] if cause["hash"] in found[c["hash"]][0]]
        linked = {d for d in cascade if cause["hash"] in found[d][1]}
        assert cascade == cause["cascade"]
        assert [d for d in cascade if d not in linked] == cause["cascade_build_only"]
    return len(rebuilds["cascades"])


def test_the_snippet_of_docs_json_gives_the_lists_of_schema_1_back(tmp_path: Path) -> None:
    """docs/json.md shows how to follow schema 2's evidence back to the lists of schema 1: on
    every golden case with causes, and on a ladder of triggers whole and filtered, it gives
    what the checker's `expand` gives."""
    causes_of = _snippet()
    compared = 0
    for path in sorted(CASES.glob("*/expected.json")):
        rebuilds = json.loads(path.read_text())["rebuilds"]
        if rebuilds is not None:
            compared += _snippet_agrees(causes_of, rebuilds)
    old, new = laddergen.write(tmp_path / "ladder", 12, 5)
    for narrow in (None, Filters(package=("top*",))):
        report = diff_snapshots(*load_pair(str(old), str(new)), narrow)
        rebuilds = json.loads(render_json(report))["rebuilds"]
        assert bool(rebuilds["cascades_filtered_out"]) == (narrow is not None)
        compared += _snippet_agrees(causes_of, rebuilds)
    assert compared > 30  # 11 golden, 17 of the ladder, 5 filtered
