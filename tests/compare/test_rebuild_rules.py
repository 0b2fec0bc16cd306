"""SPEC section 6's rules as the real NCAR environments showed them wanting: namespace, external
and platform moves as own changes, new builds as causes, "unexplained" only for a dependency
with no record, dependency switches said with versions, the scheme change and whole-environment
moves first. Each pair is a hand-written lockfile pair (the shapes of casper's spack.lock), and
each report is also read against the independent checker (`tests/helpers/causes.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from causes import check, expand

from snapdiff.compare.diff import diff_snapshots
from snapdiff.model import Filters
from snapdiff.render.jsonreport import render_json
from snapdiff.render.text import render_text
from snapdiff.sources import load_pair

Node = dict[str, Any]


def h(label: str) -> str:
    return (label * 32)[:32]


def node(
    name: str,
    version: str = "1.0",
    deps: tuple[tuple[str, str], ...] = (),
    *,
    compiler: str = "gcc@12.2.0",
    target: str = "zen3",
    platform: str = "linux",
    namespace: str = "builtin",
    external: dict[str, Any] | None = None,
    deptypes: tuple[str, ...] = ("build", "link"),
) -> Node:
    found: Node = {
        "name": name,
        "version": version,
        "arch": {"platform": platform, "platform_os": "opensuse15", "target": target},
        "compiler": dict(zip(("name", "version"), compiler.split("@"), strict=True)),
        "namespace": namespace,
        "parameters": {"build_system": "generic", "cflags": []},
        "package_hash": f"{name}-{version}-recipe",
        "dependencies": [
            {"name": n, "hash": d, "parameters": {"deptypes": list(deptypes), "virtuals": []}}
            for n, d in deps
        ],
    }
    if external is not None:
        found["external"] = external
    return found


def lockfile(path: Path, nodes: dict[str, Node], version: int = 5, spack: str = "0.21.0") -> Path:
    roots = [{"hash": digest, "spec": n["name"]} for digest, n in nodes.items() if n.get("root")]
    concrete = {digest: {k: v for k, v in n.items() if k != "root"} for digest, n in nodes.items()}
    data = {
        "_meta": {
            "file-type": "spack-lockfile",
            "lockfile-version": version,
            "specfile-version": 4,
        },
        "spack": {"version": spack, "type": "git", "commit": "a" * 40},
        "roots": roots,
        "concrete_specs": {d: {**n, "hash": d} for d, n in concrete.items()},
    }
    path.mkdir(parents=True, exist_ok=True)
    (path / "spack.lock").write_text(json.dumps(data))
    return path / "spack.lock"


def run(
    tmp_path: Path,
    old: dict[str, Node],
    new: dict[str, Node],
    sides: tuple[dict[str, Any], dict[str, Any]] = ({}, {}),
) -> dict[str, Any]:
    """The report's `rebuilds` (checked against the independent checker) and its text."""
    a = lockfile(tmp_path / "old", old, **sides[0])
    b = lockfile(tmp_path / "new", new, **sides[1])
    report = diff_snapshots(*load_pair(str(a), str(b)))
    rebuilds = json.loads(render_json(report))["rebuilds"]
    assert check(rebuilds, a, b) == []
    return {**rebuilds, "text": render_text(report)}


def test_a_namespace_move_is_an_own_change_not_a_hash_scheme(tmp_path: Path) -> None:
    old = {
        h("a"): node("py-six", namespace="future"),
        h("b"): node("app", deps=(("py-six", h("a")),)),
    }
    new = {h("c"): node("py-six"), h("d"): node("app", deps=(("py-six", h("c")),))}
    found = run(tmp_path, old, new)
    assert [(t["name"], t["changes"]) for t in found["triggers"]] == [("py-six", ["namespace"])]
    assert found["triggers"][0]["from"] == {"namespace": "future"}
    assert found["hash_scheme"] == [] and [c["name"] for c in found["cascades"]] == ["app"]
    assert "py-six namespace future → builtin: 1 other spec rebuilt" in found["text"]


def test_an_external_moved_is_an_own_change(tmp_path: Path) -> None:
    was = {"path": "/glade/cuda/11.8.0", "module": None}
    old = {h("a"): node("cuda", "11.8.0", external=was)}
    new = {h("b"): node("cuda", "11.8.0", external={"path": "/glade/cuda/11.8.0b", "module": None})}
    found = run(tmp_path, old, new)
    assert found["triggers"][0]["changes"] == ["external"]
    assert found["triggers"][0]["to"] == {"external": "/glade/cuda/11.8.0b"}


def test_a_new_build_reached_by_new_edges_is_a_cause(tmp_path: Path) -> None:
    """`cray-mpich` moved from `%nvhpc` to `%gcc`: unrelated compilers, so no predecessor: the
    new build is the cause of `app`'s rebuild, which changed nothing of its own."""
    old = {
        h("m"): node("cray-mpich", "8.1.25", compiler="nvhpc@23.7"),
        h("a"): node("app", deps=(("cray-mpich", h("m")),)),
    }
    new = {
        h("n"): node("cray-mpich", "8.1.27"),
        h("b"): node("app", deps=(("cray-mpich", h("n")),)),
    }
    found = run(tmp_path, old, new)
    assert found["triggers"] == [] and found["unexplained"] == []
    assert found["new_builds"] == [
        {"hash": h("n"), "name": "cray-mpich", "cascade_specs": 1, "cascade_build_only_specs": 0}
    ]
    evidence = {k: found["cascades"][0][k] for k in ("direct_causes", "through", "build_only")}
    assert evidence == {"direct_causes": [h("n")], "through": [], "build_only": []}
    assert "a new build of cray-mpich 8.1.27: 1 other spec rebuilt" in found["text"]


def test_unexplained_only_for_a_dependency_with_no_record(tmp_path: Path) -> None:
    old = {h("z"): node("zlib"), h("a"): node("app", deps=(("zlib", h("z")),))}
    new = {h("b"): node("app", deps=(("zlib", h("y")),))}  # no record of `zlib` `yyy…`
    found = run(tmp_path, old, new)
    assert found["unexplained"] == [h("b")] and found["hash_scheme"] == []
    assert "1 spec rebuilt through a dependency this side has no record of" in found["text"]


def test_a_dependency_switch_is_said_with_versions_and_a_downgrade_as_one(
    tmp_path: Path,
) -> None:
    """Both `py-setuptools` builds are on the old side: `py-cycler` moved to the older one."""
    old = {
        h("s"): node("py-setuptools", "63.4.3"),
        h("t"): node("py-setuptools", "59.4.0"),
        h("a"): node("py-cycler", deps=(("py-setuptools", h("s")),)),
    }
    new = {h("t"): old[h("t")], h("b"): node("py-cycler", deps=(("py-setuptools", h("t")),))}
    found = run(tmp_path, old, new)
    trigger = found["triggers"][0]
    assert (trigger["from"], trigger["to"]) == (
        {"dependencies": ["py-setuptools@63.4.3"]},
        {"dependencies": ["py-setuptools@59.4.0"]},
    )
    assert (
        "dependency py-setuptools@63.4.3 → py-setuptools@59.4.0 (a downgrade) (in py-cycler)"
        in found["text"]
    )
    assert h("s")[:7] not in found["text"] and h("t")[:7] not in found["text"]


def test_two_builds_of_one_version_are_told_apart_by_their_dependencies(tmp_path: Path) -> None:
    """casper's `automake` `1.16.5`: two builds, one with `autoconf` `2.69`, one with `2.71`."""
    old = {
        h("1"): node("autoconf", "2.69"),
        h("2"): node("autoconf", "2.71"),
        h("s"): node("automake", "1.16.5", deps=(("autoconf", h("1")),)),
        h("t"): node("automake", "1.16.5", deps=(("autoconf", h("2")),)),
        h("a"): node("flex", deps=(("automake", h("s")),)),
    }
    new = {k: old[k] for k in (h("1"), h("2"), h("t"))}
    new[h("b")] = node("flex", deps=(("automake", h("t")),))
    found = run(tmp_path, old, new)
    assert found["triggers"][0]["to"] == {"dependencies": ["automake@1.16.5 ^autoconf@2.71"]}


def test_the_scheme_change_comes_first_with_its_versions(tmp_path: Path) -> None:
    old = {h("a"): node("zlib"), h("b"): node("app", deps=(("zlib", h("a")),))}
    new = {h("c"): node("zlib"), h("d"): node("app", deps=(("zlib", h("c")),))}
    sides = ({"version": 4, "spack": "0.20.0"}, {"version": 5, "spack": "0.21.0"})
    found = run(tmp_path, old, new, sides)
    assert found["scheme"] == {
        "from": "Spack 0.20.0, lockfile v4",
        "to": "Spack 0.21.0, lockfile v5",
        "evidence": "formats",
        "kept": 0,
    }
    why = found["text"].split("why specs were rebuilt\n")[1].splitlines()
    assert why[0] == (
        "  Spack's hash scheme changed: Spack 0.20.0 → 0.21.0 (lockfile v4 → v5): every spec has"
        " a new hash; below, what changed besides"
    )


def test_a_whole_environment_target_move_is_said_once_first(tmp_path: Path) -> None:
    names = ["zlib", "bzip2", "xz", "zstd"]
    old = {h(str(i)): node(n, target="zen3") for i, n in enumerate(names)}
    new = {h(chr(97 + i)): node(n, target="x86_64_v3") for i, n in enumerate(names)}
    found = run(tmp_path, old, new)
    assert found["moves"] == [
        {"dimension": "target", "from": ["zen3"], "to": ["x86_64_v3"], "specs": 4}
    ]
    why = found["text"].split("why specs were rebuilt\n")[1].split("\n\n")[0].splitlines()
    assert why == [
        "  target zen3 → x86_64_v3: 4 of 4 rebuilt specs",
        "  4 distinct specs rebuilt in all",
    ]


def test_a_platform_switch_gives_a_rebuild_story(tmp_path: Path) -> None:
    old = {
        h("a"): node("zlib", platform="cray"),
        h("b"): node("app", deps=(("zlib", h("a")),), platform="cray"),
    }
    new = {h("c"): node("zlib"), h("d"): node("app", deps=(("zlib", h("c")),))}
    found = run(tmp_path, old, new)
    assert found["moves"] == [
        {"dimension": "platform", "from": ["cray"], "to": ["linux"], "specs": 2}
    ]
    assert "platform cray → linux: 2 of 2 rebuilt specs" in found["text"]


def test_a_root_written_once_on_each_side_pairs_first_whatever_the_folders(
    tmp_path: Path,
) -> None:
    """casper's `ucx` root: its old and new hash pair before the order would pair the new one
    with the other old `ucx` of the same version (the environments are folders `old`, `new`:
    one environment a side is one)."""
    old = {h("a"): {**node("ucx", "1.0"), "root": True}, h("b"): node("ucx", "2.0")}
    new = {h("c"): {**node("ucx", "2.0"), "root": True}}
    found = run(tmp_path, old, new)
    assert [(t["hash"], t["predecessor"], t["changes"]) for t in found["triggers"]] == [
        (h("c"), h("a"), ["version"])
    ]


REAL = Path(__file__).parents[1] / "data" / "environments"


def test_a_real_casper_release_pair_is_told_as_its_lockfiles_say(tmp_path: Path) -> None:
    """NCAR's casper 23.09 → 23.10, cut to the roots `ucx` and `emacs` (tests/data/environments/
    README.md): every claim holds against the independent checker, and the lines say values."""
    old, new = REAL / "casper-23.09-cut.spack.lock", REAL / "casper-23.10-cut.spack.lock"
    report = diff_snapshots(*load_pair(str(old), str(new)))
    rebuilds = json.loads(render_json(report))["rebuilds"]
    assert check(rebuilds, old, new) == []
    ucx = [c for c in rebuilds["cascades"] if c["name"] == "ucx"]
    assert [c["predecessor"][:7] for c in ucx] == ["xa5ezbp"]  # its root's old hash, first
    text = render_text(report)
    assert (
        "cuda 11.8.0 → 12.2.1 (version), external /glade/u/apps/common/23.08/spack/opt/spack/"
        "cuda/11.8.0 → /glade/u/apps/common/23.08/spack/opt/spack/cuda/12.2.1: 3 other specs"
        " rebuilt" in text
    )
    assert "dependency autoconf@2.69 → autoconf@2.71 (in automake, gmp)" in text


def test_a_link_path_from_a_new_build_is_no_build_only_rebuild_in_the_total(
    tmp_path: Path,
) -> None:
    """`app2` is rebuilt through a link edge to the new `cray-mpich` build, `app1` through a
    build edge to the `cmake` bump: one spec through build dependencies only, not two."""
    old = {
        h("k"): node("cmake", "3.26"),
        h("m"): node("cray-mpich", "8.1.25", compiler="nvhpc@23.7"),
        h("a"): node("app1", deps=(("cmake", h("k")),), deptypes=("build",)),
        h("b"): node("app2", deps=(("cray-mpich", h("m")),), deptypes=("link",)),
    }
    new = {
        h("l"): node("cmake", "3.27"),
        h("n"): node("cray-mpich", "8.1.27"),
        h("c"): node("app1", deps=(("cmake", h("l")),), deptypes=("build",)),
        h("d"): node("app2", deps=(("cray-mpich", h("n")),), deptypes=("link",)),
    }
    found = run(tmp_path, old, new)
    assert (
        "3 distinct specs rebuilt in all, 1 at a new version; 1 through build dependencies only"
        " from every cause" in found["text"]
    )


def test_a_compiler_change_is_said_by_spack_1_packages(tmp_path: Path) -> None:
    old = {h("a"): node("parallelio", "2.6.1", compiler="oneapi@2023.2.1")}
    new = {h("b"): node("parallelio", "2.6.2", compiler="oneapi@2024.0.2")}
    found = run(tmp_path, old, new)
    assert found["triggers"][0]["to"]["compiler"] == "oneapi@2024.0.2"  # JSON: as recorded
    assert (
        "compiler intel-oneapi-compilers@2023.2.1 → intel-oneapi-compilers@2024.0.2"
        in found["text"]
    )


def _through_pair(tmp_path: Path) -> tuple[Path, Path]:
    """`app` links `mid`, which links `zlib` (bumped); `app` builds with `cmake` (bumped)."""
    old = {
        h("z"): node("zlib"),
        h("c"): node("cmake"),
        h("m"): node("mid", deps=(("zlib", h("z")),), deptypes=("link",)),
        h("a"): node("app", deps=(("mid", h("m")),), deptypes=("link",)),
    }
    new = {
        h("y"): node("zlib", "1.1"),
        h("d"): node("cmake", "1.1"),
        h("n"): node("mid", deps=(("zlib", h("y")),), deptypes=("link",)),
        h("b"): node("app", deps=(("mid", h("n")),), deptypes=("link",)),
    }
    old[h("a")]["dependencies"].append(
        {"name": "cmake", "hash": h("c"), "parameters": {"deptypes": ["build"], "virtuals": []}}
    )
    new[h("b")]["dependencies"].append(
        {"name": "cmake", "hash": h("d"), "parameters": {"deptypes": ["build"], "virtuals": []}}
    )
    return lockfile(tmp_path / "old", old), lockfile(tmp_path / "new", new)


def test_each_cascade_spec_names_its_edges_one_step_down(tmp_path: Path) -> None:
    """The JSON gives the relation once: `app` names `cmake` (a cause, by a build edge) and
    `mid` (through which it reaches `zlib`); each cause counts its cascade."""
    a, b = _through_pair(tmp_path)
    rebuilds = json.loads(render_json(diff_snapshots(*load_pair(str(a), str(b)))))["rebuilds"]
    assert check(rebuilds, a, b) == []
    said = {
        c["name"]: [c[k] for k in ("direct_causes", "through", "build_only")]
        for c in rebuilds["cascades"]
    }
    assert said == {"app": [[h("d")], [h("n")], [h("d")]], "mid": [[h("y")], [], []]}
    counts = {
        t["name"]: (t["cascade_specs"], t["cascade_build_only_specs"]) for t in rebuilds["triggers"]
    }
    assert counts == {"zlib": (2, 0), "cmake": (1, 1)}
    assert rebuilds["cascades_filtered_out"] == []
    assert rebuilds["schema_version"] == 2  # its own; the report's stays SPEC section 4's 1


def test_with_filters_the_specs_a_kept_one_goes_through_are_given_apart(tmp_path: Path) -> None:
    """`--package app` keeps `app`'s entry; `mid`, which it reaches `zlib` through, is in
    `cascades_filtered_out`, so the evidence can still be followed whole."""
    a, b = _through_pair(tmp_path)
    report = diff_snapshots(*load_pair(str(a), str(b)), Filters(package=("app",)))
    rebuilds = json.loads(render_json(report))["rebuilds"]
    assert [c["name"] for c in rebuilds["cascades"]] == ["app"]
    assert [c["name"] for c in rebuilds["cascades_filtered_out"]] == ["mid"]
    assert expand(rebuilds)["cascades"][0]["causes"] == sorted([h("d"), h("y")])
    assert rebuilds["rebuilt"] == 3  # app, and the two triggers its cascade keeps


@pytest.mark.parametrize("order", [("build", "link"), ("link", "build")])
def test_an_edge_listed_twice_is_a_link_edge_if_either_listing_says_link(
    tmp_path: Path, order: tuple[str, str]
) -> None:
    """`app` lists `zlib` twice, once as a build and once as a link dependency, in either order:
    one edge with both deptypes, so `app` is rebuilt through a link edge (the records say so),
    not through build dependencies only."""

    def app(zlib: str) -> Node:
        found = node("app")
        found["dependencies"] = [
            {"name": "zlib", "hash": zlib, "parameters": {"deptypes": [t], "virtuals": []}}
            for t in order
        ]
        return found

    old = {h("z"): node("zlib"), h("a"): app(h("z"))}
    new = {h("y"): node("zlib", "1.1"), h("b"): app(h("y"))}
    found = run(tmp_path, old, new)
    (trigger,) = found["triggers"]
    assert (trigger["cascade_specs"], trigger["cascade_build_only_specs"]) == (1, 0)
    assert found["cascades"][0]["build_only"] == []
    assert "through build dependencies only" not in found["text"]
