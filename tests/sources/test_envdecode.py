"""Spack lockfiles and install databases decoded into build-cache records with their roots
(SPEC section 7); expected values recounted from the fixtures' JSON (tests/data/environments)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from snapdiff.errors import InputError
from snapdiff.model import Root
from snapdiff.sources.mirror.database import decode_database
from snapdiff.sources.mirror.environment import (
    Decoded,
    decode_lockfile,
    is_lockfile,
)
from snapdiff.sources.mirror.index import Read
from snapdiff.sources.mirror.nodes import Interned
from snapdiff.sources.mirror.records import Spec

DATA = Path(__file__).parents[1] / "data" / "environments"
INDEX = Path(__file__).parents[1] / "data" / "spack-index"
REAL = ("casper-v5", "acts-misrooted-v5", "all-pythons-v6")
CONSTRUCTED = (
    "lockfile-v1",
    "lockfile-v2",
    "lockfile-v3",
    "lockfile-v7-groups",
    "lockfile-v8",
    "lockfile-include-concrete",
)


def lockfile(name: str) -> Decoded:
    path = DATA / f"{name}.spack.lock"
    return decode_lockfile(path.read_bytes(), str(path))


def raw(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / f"{name}.spack.lock").read_bytes())
    return data


def dag_hashes(specs: dict[str, Any], version: int) -> set[str]:
    """Each node's DAG hash: its `hash`, else its key (v1: inside `{name: {...}}`)."""
    bodies = {k: next(iter(v.values())) if version <= 2 else v for k, v in specs.items()}
    return {body.get("hash", key) for key, body in bodies.items()}


def flattened(data: dict[str, Any], environment: str = ".") -> list[tuple[str, dict[str, Any]]]:
    found = [(environment, data)]
    for path, included in data.get("include_concrete", {}).items():
        found += flattened(included, path)
    return found


def spec_of(env: Decoded, digest: str) -> Spec:
    spec = env.installs[digest].spec
    assert spec is not None
    return spec


@pytest.mark.parametrize("name", REAL + CONSTRUCTED)
def test_installs_are_every_dag_hash_and_roots_are_in_file_order(name: str) -> None:
    data, env = raw(name), lockfile(name)
    version = data["_meta"]["lockfile-version"]
    parts = flattened(data)
    hashes = set().union(*(dag_hashes(part["concrete_specs"], version) for _, part in parts))
    assert set(env.installs) == hashes
    assert all(install.in_buildcache for install in env.installs.values())
    listed = [(r["spec"], r.get("group"), where) for where, part in parts for r in part["roots"]]
    assert [(r.spec, r.group, r.environment) for r in env.roots] == listed
    assert env.lockfile_version == version and env.database_version is None
    assert all(root.hash in env.installs for root in env.roots)
    assert is_lockfile((DATA / f"{name}.spack.lock").read_bytes())


@pytest.mark.parametrize("name", REAL + CONSTRUCTED)
def test_the_spack_that_wrote_it(name: str) -> None:
    spack = raw(name).get("spack", {})
    env = lockfile(name)
    assert (env.spack_version, env.spack_commit) == (spack.get("version"), spack.get("commit"))


def test_real_v5_and_v6_roots_and_versions() -> None:
    casper = lockfile("casper-v5")
    assert (casper.spack_version, casper.spack_commit) == (
        "0.22.0.dev0",
        "ae88edc67ec9d86b72f2cc5cfc52f6e129b42fdf",
    )
    assert casper.roots[1] == Root(
        "fftw@3.3.10%gcc@13.2.0~mpi", "bus3jk6gykrfaslxiynnnyj3kziacpaz", None, "."
    )
    assert len(casper.installs) == 9 and casper.warnings == ()
    pythons = lockfile("all-pythons-v6")
    assert [r.hash for r in pythons.roots] == [
        "2myq44he5nkui3zyqnb2lgkfgessxwfs",
        "quqhd5enybgh7z6gqf33nvz3r4la66tv",
    ]
    assert len(pythons.installs) == 32 and pythons.spack_version == "1.1.0.dev0"


def test_roots_naming_another_package_are_warned_about() -> None:
    env = lockfile("acts-misrooted-v5")
    said = "its version and compiler are not said"
    assert env.warnings == (
        f"root `git-lfs@3.5.1` names the hash of the node of `intel-tbb` (poxwjx6): {said}",
        f"root `intel-tbb@2021.12.0` names the hash of the node of `root` (bd4wbgu): {said}",
        f"root `nlohmann-json@3.11.3` names the hash of the node of `cmake` (xxbpk2z): {said}",
        f"root `cmake@3.30.1` names the hash of the node of `eigen` (5hopovi): {said}",
        f"root `eigen@3.4.0` names the hash of the node of `nlohmann-json` (wgu6fsc): {said}",
    )
    assert [r.trusted for r in env.roots].count(False) == 5
    specs = raw("acts-misrooted-v5")["concrete_specs"]
    named = [r.spec.split("@")[0] == specs[r.hash]["name"] for r in env.roots]
    assert named.count(False) == len(env.warnings) == 5


def test_v1_nodes_are_keyed_by_name_and_their_key_is_the_hash() -> None:
    env, data = lockfile("lockfile-v1"), raw("lockfile-v1")
    assert set(env.installs) == set(data["concrete_specs"])
    for key, node in data["concrete_specs"].items():
        ((name, body),) = node.items()
        spec = spec_of(env, key)
        assert spec.name == name and spec.version == body["version"]
        listed = {(n, d["hash"], tuple(d["type"])) for n, d in body.get("dependencies", {}).items()}
        assert {(e.name, e.hash, e.type) for e in spec.dependencies} == listed


@pytest.mark.parametrize("name", ["lockfile-v2", "lockfile-v3"])
def test_v2_v3_keep_one_spec_per_dag_hash_first_reached_from_the_roots(name: str) -> None:
    data, env = raw(name), lockfile(name)
    version = data["_meta"]["lockfile-version"]
    specs = data["concrete_specs"]
    named = {k: next(iter(v.items())) if version == 2 else (v["name"], v) for k, v in specs.items()}
    dag = {key: node["hash"] for key, (_, node) in named.items()}
    assert len(specs) == 5 and len(env.installs) == len(set(dag.values())) == 4
    zlib = [key for key, (name, _) in named.items() if name == "zlib"]
    assert len(zlib) == 2 and dag[zlib[0]] == dag[zlib[1]]  # two build hashes, one DAG hash
    kept = spec_of(env, dag[zlib[0]])
    assert kept.dependencies == ()  # the one `hdf5`, the first root, reaches: no `cmake`
    assert [r.hash for r in env.roots] == [dag[r["hash"]] for r in data["roots"]]
    for spec in (install.spec for install in env.installs.values()):
        assert spec is not None
        assert all(edge.hash in env.installs for edge in spec.dependencies)  # DAG hashes
    netcdf = spec_of(env, env.roots[1].hash)
    assert [(e.name, e.hash) for e in netcdf.dependencies] == [("zlib", dag[zlib[0]])]


def test_v7_groups_and_v8_provided_virtuals() -> None:
    groups = lockfile("lockfile-v7-groups")
    assert [(r.spec, r.group) for r in groups.roots] == [("hdf5~mpi", "io"), ("zlib-ng", "default")]
    v8 = lockfile("lockfile-v8")
    assert [r.group for r in v8.roots] == [None, None]
    provided = [n["name"] for n in raw("lockfile-v8")["concrete_specs"].values()]
    assert sorted(spec_of(v8, d).name or "" for d in v8.installs) == sorted(provided)


def test_included_environments_are_flattened_and_named_by_path() -> None:
    env = lockfile("lockfile-include-concrete")
    assert [(r.spec, r.environment) for r in env.roots] == [
        ("netcdf-c", "."),
        ("curl", "/envs/base"),
        ("zlib", "/envs/core"),
        ("cmake", "/envs/core"),
    ]
    assert sorted(spec_of(env, d).name or "" for d in env.installs) == [
        "cmake",
        "curl",
        "netcdf-c",
        "zlib",
    ]
    assert env.warnings == ()


def graph_nodes(env: Decoded) -> Read:
    read = Read(Interned())
    read.add(env.installs, "env", "root")
    return read


def test_records_read_as_an_index_v5_compiler_field() -> None:
    env = lockfile("casper-v5")
    nodes = graph_nodes(env).nodes
    specs = raw("casper-v5")["concrete_specs"]
    assert set(nodes) == set(specs)
    for digest, node in specs.items():
        compiler = f"{node['compiler']['name']}@{node['compiler']['version']}"
        assert (nodes[digest].name, nodes[digest].version, nodes[digest].compiler) == (
            node["name"],
            node["version"],
            compiler,
        )
    assert nodes["pwbumffjhr2yoirwy64a3j2uflz7ot4q"].external  # cuda
    assert {nodes[r.hash].compiler for r in env.roots[1:4]} == {
        "gcc@13.2.0",
        "nvhpc@24.1",
        "oneapi@2024.0.2",
    }


def test_records_read_as_an_index_v6_compiler_from_the_build_dependency() -> None:
    env = lockfile("all-pythons-v6")
    read = graph_nodes(env)
    specs = raw("all-pythons-v6")["concrete_specs"]
    for digest, node in specs.items():
        assert (read.nodes[digest].name, read.nodes[digest].version) == (
            node["name"],
            node["version"],
        )
        providers = [
            specs[e["hash"]]
            for e in node.get("dependencies", [])
            if {"c", "cxx", "fortran"} & set(e["parameters"]["virtuals"])
        ]
        expected = f"{providers[0]['name']}@{providers[0]['version']}" if providers else "none"
        assert read.nodes[digest].compiler == expected
    assert read.nodes[env.roots[0].hash].compiler == "gcc@13.2.0"
    assert set(read.records) == set(specs)  # every spec an entry of the `root` stack
    assert {"compiler-wrapper", "gcc-runtime"} <= {n.name for n in read.nodes.values()}


def test_an_install_database_roots_are_its_explicit_records() -> None:
    path = DATA / "database-v9.json"
    env = decode_database(path.read_bytes(), str(path))
    installs = json.loads(path.read_bytes())["database"]["installs"]
    assert set(env.installs) == set(installs)  # installed or not
    explicit = [h for h, record in installs.items() if record["explicit"]]
    assert env.roots == tuple(Root("", h, None, ".") for h in explicit) and len(explicit) == 2
    assert (env.database_version, env.lockfile_version, env.spack_version) == (9, None, None)
    assert not is_lockfile(path.read_bytes())


@pytest.mark.parametrize(("name", "version"), [("db-v7-index.json", 7), ("db-v8-index.json", 8)])
def test_a_build_cache_index_reads_as_a_database_without_roots(name: str, version: int) -> None:
    path = INDEX / name
    env = decode_database(path.read_bytes(), str(path))
    assert set(env.installs) == set(json.loads(path.read_bytes())["database"]["installs"])
    assert env.roots == () and env.database_version == version


def refused(raw: bytes, database: bool = False) -> InputError:
    with pytest.raises(InputError) as caught:
        (decode_database if database else decode_lockfile)(raw, "spack.lock")
    assert "\n" not in caught.value.message
    return caught.value


def test_an_unknown_lockfile_version_is_one_line_naming_it() -> None:
    error = refused((DATA / "lockfile-v99.spack.lock").read_bytes())
    assert error.what == "lockfile version 99, not one snapdiff reads (1-8)"
    assert "Spack 0.12 to 1.3" in error.fix
    meta = {"file-type": "spack-lockfile", "lockfile-version": 8, "specfile-version": 7}
    error = refused(json.dumps({"_meta": meta}).encode())
    assert "spec file version 7" in error.what


def meta(version: object = 6) -> dict[str, Any]:
    return {"file-type": "spack-lockfile", "lockfile-version": version}


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"{not json", "not valid JSON"),
        (b"[]", "not a Spack lockfile"),
        (b'{"_meta": {"file-type": "other"}}', "no _meta.file-type"),
        (json.dumps({"_meta": meta("6")}).encode(), "lockfile version '6'"),
        (json.dumps({"_meta": meta(True)}).encode(), "lockfile version True"),
        (json.dumps({"_meta": meta(), "roots": []}).encode(), "concrete_specs"),
        (json.dumps({"_meta": meta(), "roots": 3, "concrete_specs": {}}).encode(), "roots"),
        (
            json.dumps({"_meta": meta(), "roots": [], "concrete_specs": {"a": {"version": 1}}}),
            "concrete spec a has no name",
        ),
        (
            json.dumps({"_meta": meta(), "roots": [], "concrete_specs": {"a": {"name": 3}}}),
            "concrete spec a, concrete_specs.name",
        ),
        (
            json.dumps(
                {"_meta": meta(1), "roots": [], "concrete_specs": {"a": {"x": {}, "y": {}}}}
            ),
            "2 keys, not one",
        ),
        (
            json.dumps(
                {"_meta": meta(), "roots": [{"hash": "b", "spec": "x"}], "concrete_specs": {}}
            ),
            "root `x` names b, a hash no concrete spec has",
        ),
    ],
)
def test_a_bad_lockfile_is_one_line(data: bytes | str, said: str) -> None:
    error = refused(data.encode() if isinstance(data, str) else data)
    assert said in error.what


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"\x00", "not valid JSON"),
        (b'{"database": {"version": "10", "installs": {}}}', "database version '10'"),
        (b'{"database": {"version": "5", "installs": {}}}', "reads (6-9)"),
        (b'{"nothing": 1}', "no database.installs"),
        (b'{"database": {"version": "9", "installs": {"h": {"explicit": 1}}}}', "install h"),
        (b'{"database": {"version": "9", "installs": {"h": {"spec": {}}}}}', "no spec with a"),
    ],
)
def test_a_bad_database_is_one_line(data: bytes, said: str) -> None:
    assert said in refused(data, database=True).what


def test_old_dependency_shapes_point_at_dag_hashes() -> None:
    """Spec v1's `{name: hash}` and `{name: {build_hash, type}}` (lockfile v2 written by a Spack
    that named both) resolve through the node they name to its DAG hash."""
    nodes = {
        "b1": {"a": {"hash": "dag-a", "dependencies": {"b": "b2", "c": {"build_hash": "b3"}}}},
        "b2": {"b": {"hash": "dag-b"}},
        "b3": {"c": {"hash": "dag-c", "dependencies": {"b": {"hash": "dag-b", "type": ["link"]}}}},
    }
    data = {"_meta": meta(2), "roots": [{"hash": "b1", "spec": "a"}], "concrete_specs": nodes}
    env = decode_lockfile(json.dumps(data).encode(), "spack.lock")
    assert [(e.name, e.hash) for e in spec_of(env, "dag-a").dependencies] == [
        ("b", "dag-b"),
        ("c", "dag-c"),
    ]
    assert [(e.name, e.hash, e.type) for e in spec_of(env, "dag-c").dependencies] == [
        ("b", "dag-b", ("link",))
    ]


@pytest.mark.parametrize(
    "head",
    [
        b'{"_meta":{"file-type":"spack-lockfile","lockfile-version":5}',
        b'{\n  "_meta": {\n    "lockfile-version": 3,\n    "file-type": "spack-lockfile"\n  }',
    ],
)
def test_a_lockfile_is_told_from_its_first_bytes(head: bytes) -> None:
    assert is_lockfile(head + b"x" * 2_000_000)
    assert not is_lockfile(b" " * 600 + head)  # past the bytes looked at
    assert not is_lockfile(b'{"database": {"version": "8"}}')
    assert not is_lockfile(b'{"spack": {"specs": []}, "_meta": {"file-type": "spack-lockfile"}}')
