"""Spack build-cache indexes as snapshots (real samples from spack/spack's test data)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pagegen import page_text, write_page
from pagegen import spec as page_spec

from snapdiff.cli import main
from snapdiff.model import Spec
from snapdiff.sources import LoadOptions, load_snapshot
from snapdiff.sources.mirror import index as index_module
from snapdiff.sources.mirror.index import load_indexes
from snapdiff.sources.mirror.layouts import Folder, Index
from snapdiff.sources.mirror.records import decode_index
from snapdiff.sources.pages import blob_digest

INDEX = Path(__file__).parents[1] / "data" / "spack-index"
V7, V8 = str(INDEX / "db-v7-index.json"), str(INDEX / "db-v8-index.json")


def specs(path: str, **options: Any) -> dict[str, tuple[str, Spec]]:
    snapshot = load_snapshot(path, LoadOptions(**options))
    found = {}
    for (_, name), page in snapshot.pages.items():
        assert page.entries is not None
        for digest, entry in page.entries.items():
            found[digest] = (name, Spec.from_entry(entry))
    return found


# Read by hand from the two files.
V7_SPECS = {
    "rqh2vuf6fqwkmipzgi2wjx352mq7y7ez": ("libelf", "0.8.13", "gcc@10.2.1", "core2"),
    "sk2gqqz4n5njmvktycnd25wq25jxiqkr": ("libdwarf", "20130729", "gcc@10.2.1", "core2"),
}
V8_SPECS = {
    **V7_SPECS,  # upgraded from spec v4: compiler from annotations.compiler ("gcc@=10.2.1")
    "qeehcxyvluwnihsc2qxstmpomtxo3lrc": ("compiler-wrapper", "1.0", "none", "m1"),
    "izgzpzeljwairalfjm3k6fntbb64nt6n": ("gcc-runtime", "10.2.1", "none", "m1"),
    "jr3yipyxyjulcdvckwwwjrrumis7glpa": ("libelf", "0.8.13", "gcc@10.2.1", "m1"),  # c provider
    "u5uz3dcch5if4eve4sef67o2rf2lbfgh": ("libdwarf", "20130729", "gcc@10.2.1", "m1"),
}


@pytest.mark.parametrize(("path", "expected"), [(V7, V7_SPECS), (V8, V8_SPECS)])
def test_records_become_catalogue_specs(path: str, expected: dict[str, Any]) -> None:
    found = specs(path, stack_name="e4s", index_tag="develop")
    assert set(found) == set(expected)  # the external gcc (in_buildcache: false) is not a spec
    for digest, (name, version, compiler, target) in expected.items():
        package, spec = found[digest]
        assert (package, spec.versions, spec.compiler, spec.target) == (
            name,
            (version,),
            compiler,
            target,
        )
        assert (spec.os, spec.platform, spec.stacks) == ("debian6", "test", ("e4s",))
        assert spec.variants == ("build_system=generic",)  # flags are not variants


def test_two_lone_indexes_in_two_stacks_are_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `old/build_cache/index.json` against `new/build_cache/index.json`: their places name
    # stacks `old` and `new`, one said removed and the other added; the way out is said
    sides = []
    for side, data in (("old", V7), ("new", V8)):
        index = tmp_path / side / "build_cache" / "index.json"
        index.parent.mkdir(parents=True)
        shutil.copy(data, index)
        sides.append(str(index))
    assert main([*sides, "--format", "json"]) == 0
    captured = capsys.readouterr()
    stacks = {s["name"]: s["status"] for s in json.loads(captured.out)["stacks"]}
    assert stacks == {"old": "removed", "new": "added"}
    assert (
        f"snapdiff: warning: {sides[0]} and {sides[1]} are read as the stacks old and new (from"
        " their places, <mirror>/<stack>/build_cache/index.json), so the report says one"
        " removed and the other added: give --stack-name NAME to read both as one stack\n"
    ) in captured.err
    assert main([*sides, "--stack-name", "e4s", "--format", "json"]) == 0
    assert "are read as the stacks" not in capsys.readouterr().err
    same = []  # two snapshots of one stack, each in its place
    for side, data in (("a", V7), ("b", V8)):
        index = tmp_path / side / "e4s" / "build_cache" / "index.json"
        index.parent.mkdir(parents=True)
        shutil.copy(data, index)
        same.append(str(index))
    assert main([*same, "--format", "json"]) == 0
    assert "are read as the stacks" not in capsys.readouterr().err


def test_two_indexes_of_one_stack(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([V7, V8, "--stack-name", "e4s", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    status = {
        p["name"]: (p["status"], len(p["specs_added"]), len(p["specs_removed"]))
        for p in data["packages"]
    }
    assert status == {
        "compiler-wrapper": ("added", 1, 0),
        "gcc-runtime": ("added", 1, 0),
        "libdwarf": ("changed", 1, 0),
        "libelf": ("changed", 1, 0),
    }
    assert data["summary"]["specs_changed"] == 0  # the same hashes, the same records
    libelf = next(p for p in data["packages"] if p["name"] == "libelf")
    assert [c["class"] for c in libelf["changes"]] == ["new-configuration"]
    assert libelf["changes"][0]["configurations_new"][0]["target"] == "m1"


def test_a_mirror_folder_names_stacks_by_their_folders(tmp_path: Path) -> None:
    for stack, source in (("", V7), ("e4s", V8), ("ml-cpu", V8)):
        target = tmp_path / "mirror" / stack / "build_cache" / "index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    found = specs(str(tmp_path / "mirror"))
    assert found["rqh2vuf6fqwkmipzgi2wjx352mq7y7ez"][1].stacks == ("e4s", "ml-cpu", "root")
    assert found["jr3yipyxyjulcdvckwwwjrrumis7glpa"][1].stacks == ("e4s", "ml-cpu")
    assert load_snapshot(str(tmp_path / "mirror"), LoadOptions(index_tag="v0.23")).tags == (
        "v0.23",
    )


def test_an_index_against_catalogue_pages_of_the_same_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pages written from the index's own records: nothing differs."""
    pages: dict[str, list[dict[str, Any]]] = {}
    for name, spec in specs(V8, stack_name="e4s").values():
        entry = spec.as_entry()
        pages.setdefault(name, []).append(entry)
    for name, entries in pages.items():
        path = tmp_path / "pages" / "_cache" / "develop" / name / "specs.md"
        path.parent.mkdir(parents=True)
        path.write_text(page_text(name, "develop", entries))
    assert main([V8, str(tmp_path / "pages"), "--stack-name", "e4s", "--exit-code"]) == 0
    assert "No changes" in capsys.readouterr().out


def test_a_bad_index_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "index.json"
    bad.write_text('{"database": {"version": "7"}}')
    assert main([V7, str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"snapdiff: error: NEW: {bad}: not a Spack database: no database.installs "
        "(give a Spack build-cache index.json (database version 6 or later))\n"
    )
    bad.write_text("{oops")
    assert main([V7, str(bad)]) == 2
    assert f"{bad}: not valid JSON" in capsys.readouterr().err


# Issue 28, item 1: index.json decoded in one call into typed records (msgspec); what the schema
# refuses is one line naming the file and the record, by its hash.


def test_records_carry_package_hash_and_edges_for_causes() -> None:
    installs = decode_index(Path(V8).read_bytes(), V8)
    spec = installs["jr3yipyxyjulcdvckwwwjrrumis7glpa"].spec
    assert spec is not None
    assert spec.package_hash == "ejr32l7tkp6uhdrlunqv4adkuxqwyac7vbqcjvg6dh72mll4cpiq===="
    graph = load_snapshot(V8).graph
    assert graph is not None
    assert graph.nodes["jr3yipyxyjulcdvckwwwjrrumis7glpa"].edges == (
        ("compiler-wrapper", "qeehcxyvluwnihsc2qxstmpomtxo3lrc", ("build",), ()),
        ("gcc", "vd7v4ssgnoqdplgxyig3orum67n4vmhq", ("build",), ("c",)),
        ("gcc-runtime", "izgzpzeljwairalfjm3k6fntbb64nt6n", ("link",), ()),
    )


def test_edges_alike_written_otherwise_share_one_kind(tmp_path: Path) -> None:
    """An edge's `parameters` is read once per way it is written (records share a few
    thousand): written otherwise, the same kind is still one object; missing or null, the
    edge's `type` gives it."""
    link: dict[str, Any] = {"name": "zlib", "hash": "z" * 32}
    types = ["build", "link"]
    edges: list[dict[str, Any]] = [
        {**link, "parameters": {"deptypes": types, "virtuals": []}},
        {**link, "parameters": {"virtuals": [], "deptypes": types}},
        {**link, "parameters": {"deptypes": types}},
        {**link, "parameters": None, "type": types},
        {**link, "type": types},
    ]
    installs = {
        str(at) * 32: {
            "spec": {"name": f"p{at}", "version": "1", "dependencies": [edge]},
            "in_buildcache": True,
        }
        for at, edge in enumerate(edges)
    }
    path = tmp_path / "index.json"
    path.write_text(json.dumps({"database": {"version": "8", "installs": installs}}))
    graph = load_snapshot(str(path)).graph
    assert graph is not None
    kinds = [graph.nodes[str(at) * 32].kinds[0] for at in range(len(edges))]
    assert kinds[0] == ("zlib", ("build", "link"), (), True)
    assert all(kind is kinds[0] for kind in kinds)


def test_a_spec_v2_edge_gives_its_deptypes_from_type(tmp_path: Path) -> None:
    """DB 6 (spec v2) writes `type`, not `parameters.deptypes`."""
    edge = {"name": "zlib", "hash": "b" * 32, "type": ["build", "link"]}
    spec = {"name": "x", "version": "1", "dependencies": [edge]}
    path = tmp_path / "index.json"
    path.write_text(
        json.dumps(
            {
                "database": {
                    "version": "6",
                    "installs": {"a" * 32: {"spec": spec, "in_buildcache": True}},
                }
            }
        )
    )
    graph = load_snapshot(str(path)).graph
    assert graph is not None
    assert graph.nodes["a" * 32].edges == (("zlib", "b" * 32, ("build", "link"), ()),)


def database(version: object, installs: dict[str, Any]) -> str:
    return json.dumps({"database": {"version": version, "installs": installs}})


GOOD = {"spec": {"name": "zlib", "version": "1.3"}, "in_buildcache": True}
BAD_RECORDS = {
    "version-a-bool": (
        {"spec": {"name": "zlib", "version": True}, "in_buildcache": True},
        "install " + "b" * 32 + ", spec.version: expected `int | float | str | null`, got `bool`",
    ),
    "target-a-list": (
        {"spec": {"name": "zlib", "arch": {"target": ["x86_64"]}}, "in_buildcache": True},
        "install " + "b" * 32 + ", spec.arch.target: expected `str | object | null`, got `array`",
    ),
    "edge-virtuals-a-string": (
        {
            "spec": {
                "name": "zlib",
                "dependencies": [{"name": "gcc", "parameters": {"virtuals": "c"}}],
            }
        },
        "install "
        + "b" * 32
        + ", spec.dependencies[0].parameters.virtuals: expected `array`, got `str`",
    ),
    "edge-parameters-a-string": (
        {"spec": {"name": "zlib", "dependencies": [{"name": "gcc", "parameters": "c"}]}},
        "install "
        + "b" * 32
        + ", spec.dependencies[0].parameters: expected `object | null`, got `str`",
    ),
    "record-a-list": ([], "install " + "b" * 32 + ": expected `object`, got `array`"),
}


@pytest.mark.parametrize("case", sorted(BAD_RECORDS))
def test_a_record_of_the_wrong_shape_is_one_line_naming_its_hash(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, message = BAD_RECORDS[case]
    bad = tmp_path / "index.json"
    bad.write_text(database("8", {"a" * 32: GOOD, "b" * 32: record}))
    assert main([V7, str(bad)]) == 2
    assert capsys.readouterr().err == (
        f"snapdiff: error: NEW: {bad}: {message} "
        "(give a Spack build-cache index.json (database version 6 or later))\n"
    )


@pytest.mark.parametrize("version", ["5", "10", 10, None, ["7"]])
def test_a_database_version_snapdiff_does_not_read_is_refused(
    version: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "index.json"
    bad.write_text(database(version, {"a" * 32: GOOD}))
    assert main([V7, str(bad)]) == 2
    assert capsys.readouterr().err == (
        f"snapdiff: error: NEW: {bad}: database version {version!r}, not one snapdiff reads"
        " (6, 7, 8, 9) (give a Spack build-cache index.json (database version 6 or later))\n"
    )


def test_a_compiler_dependency_without_a_name_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edge = {"hash": "c" * 32, "parameters": {"deptypes": ["build"], "virtuals": ["c"]}}
    record = {"spec": {"name": "zlib", "dependencies": [edge]}, "in_buildcache": True}
    bad = tmp_path / "index.json"
    bad.write_text(database("8", {"b" * 32: record}))
    assert main([V7, str(bad)]) == 2
    assert capsys.readouterr().err == (
        f"snapdiff: error: NEW: {bad}: install {'b' * 32}: a compiler dependency has no name "
        "(give a Spack build-cache index.json (database version 6 or later))\n"
    )


@pytest.mark.parametrize("text", ["[]", '{"database": []}', '{"database": {"installs": 3}}'])
def test_json_that_is_no_database_is_one_line(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "index.json"
    bad.write_text(text)
    assert main([V7, str(bad)]) == 2
    assert capsys.readouterr().err == (
        f"snapdiff: error: NEW: {bad}: not a Spack database: no database.installs "
        "(give a Spack build-cache index.json (database version 6 or later))\n"
    )


MODULES = (
    "import sys; from snapdiff.cli import main; main(sys.argv[1:]); print(sorted(sys.modules))"
)


@pytest.mark.parametrize(
    ("argv", "imported"),
    [(["--version"], False), (["PAGES", "PAGES"], True), ([V7, V8], True)],
)
def test_msgspec_is_imported_only_when_something_is_read(
    argv: list[str], imported: bool, tmp_path: Path
) -> None:
    write_page(tmp_path, "zlib", [page_spec("a")])
    argv = [str(tmp_path) if arg == "PAGES" else arg for arg in argv]
    done = subprocess.run(
        [sys.executable, "-c", MODULES, *argv], capture_output=True, text=True, check=False
    )
    modules = done.stdout.splitlines()[-1]
    assert ("'msgspec'" in modules) == imported, done.stderr


def test_each_index_is_dropped_once_converted() -> None:
    """Indexes are read one at a time: the bytes of one are gone before the next is read."""
    freed: list[str] = []
    alive_when_read: list[list[str]] = []

    class Tracked(bytes):
        stack = ""

        def __del__(self) -> None:
            freed.append(self.stack)

    def tracked(stack: str) -> Tracked:
        data = Tracked(Path(V8).read_bytes())
        data.stack = stack
        return data

    def indexes() -> Iterator[Index]:  # as kinds.py reads a mirror folder: one at a time
        for stack in ("e4s", "ml-cpu", "root"):
            alive_when_read.append(list(freed))
            yield Index(V8, stack, tracked(stack))

    snapshot = load_indexes("mirror", indexes(), "develop")
    assert alive_when_read == [[], ["e4s"], ["e4s", "ml-cpu"]]  # freed before the next is read
    libelf = snapshot.pages[("develop", "libelf")].entries
    assert libelf is not None
    assert libelf["jr3yipyxyjulcdvckwwwjrrumis7glpa"].stacks == ("e4s", "ml-cpu", "root")


def test_an_index_file_is_let_go_before_its_pages_are_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An index named on the command line: its bytes are not held while the pages are built."""
    freed: list[bool] = []

    class Tracked(bytes):
        def __del__(self) -> None:
            freed.append(True)

    read = Folder.read

    def tracked(self: Folder, rel: str, limit: int) -> bytes:
        return Tracked(read(self, rel, limit))

    def watched(content: bytes) -> str:
        seen.append(bool(freed))
        return blob_digest(content)

    seen: list[bool] = []
    monkeypatch.setattr(Folder, "read", tracked)
    monkeypatch.setattr(index_module, "blob_digest", watched)
    load_snapshot(V8, LoadOptions(stack_name="e4s"))
    assert seen and all(seen)


# Issue 29, item 1: the graph of every record (binaries and externals), for rebuild causes.


@pytest.mark.parametrize(("path", "expected"), [(V7, V7_SPECS), (V8, V8_SPECS)])
def test_the_graph_keeps_every_records_node_fields(path: str, expected: dict[str, Any]) -> None:
    graph = load_snapshot(path).graph
    assert graph is not None
    for digest, (name, version, compiler, target) in expected.items():
        node = graph.nodes[digest]
        assert (node.name, node.version, node.compiler, node.target) == (
            name,
            version,
            compiler,
            target,
        )
        assert node.binary and not node.external and graph.stacks[digest] == ("root",)
    assert len(graph.nodes) == len(expected) + (path == V8)  # V8's external gcc is a node


def test_an_external_without_its_binary_is_a_node_of_the_graph() -> None:
    graph = load_snapshot(V8).graph
    assert graph is not None
    gcc = graph.nodes["vd7v4ssgnoqdplgxyig3orum67n4vmhq"]
    assert (gcc.name, gcc.external, gcc.binary, gcc.target) == (
        "gcc",
        ("/path", ""),  # its path as recorded, no module
        False,
        "aarch64",
    )
    assert gcc.namespace == "builtin.mock"
    libdwarf = graph.nodes["u5uz3dcch5if4eve4sef67o2rf2lbfgh"]
    assert libdwarf.package_hash == "n7axrpelzl5kjuctt4yoaaf33gvgnik6cx7fjudwhc6hvywdrr4q===="
    assert libdwarf.edges == (
        ("compiler-wrapper", "qeehcxyvluwnihsc2qxstmpomtxo3lrc", ("build",), ()),
        ("gcc", "vd7v4ssgnoqdplgxyig3orum67n4vmhq", ("build",), ("c", "cxx")),
        ("gcc-runtime", "izgzpzeljwairalfjm3k6fntbb64nt6n", ("link",), ()),
        ("libelf", "jr3yipyxyjulcdvckwwwjrrumis7glpa", ("build", "link"), ()),
    )


def test_graph_variants_include_patches_and_leave_out_flags(tmp_path: Path) -> None:
    """DB 6 (spec v2): edges by `type`; variants of the graph keep `patches` (a page's do not)."""
    parameters = {"shared": True, "patches": ["bb", "aa"], "cflags": ["-O3"], "api": ["v1", "v2"]}
    edge = {"name": "zlib", "hash": "b" * 32, "type": ["build", "link"]}
    spec = {"name": "x", "version": "1", "parameters": parameters, "dependencies": [edge]}
    index = tmp_path / "index.json"
    index.write_text(database("6", {"a" * 32: {"spec": spec, "in_buildcache": True}}))
    graph = load_snapshot(str(index)).graph
    assert graph is not None
    node = graph.nodes["a" * 32]
    assert node.variants == ("+shared", "api=v1,v2", "patches=aa,bb")
    assert node.edges == (("zlib", "b" * 32, ("build", "link"), ()),)


def test_a_folder_of_mirrors_gives_each_record_its_stacks(tmp_path: Path) -> None:
    for stack in ("e4s", "ml"):
        (tmp_path / stack / "build_cache").mkdir(parents=True)
        shutil.copyfile(V8, tmp_path / stack / "build_cache" / "index.json")
    graph = load_snapshot(str(tmp_path)).graph
    assert graph is not None
    assert set(graph.stacks.values()) == {("e4s", "ml")}
    assert graph.stacks["vd7v4ssgnoqdplgxyig3orum67n4vmhq"] == ("e4s", "ml")  # no binary: seen in


def test_catalogue_pages_carry_no_graph(tmp_path: Path) -> None:
    write_page(tmp_path, "zlib", [page_spec("a" * 32, "1.3")])
    assert load_snapshot(str(tmp_path)).graph is None


def test_edges_listed_out_of_order_are_sorted_and_the_compiler_is_the_first_listed(
    tmp_path: Path,
) -> None:
    """Spack lists a record's edges sorted by name (read a list at a time); a record that does
    not is read an edge at a time: its edges sorted all the same, its compiler the first c, c++
    or fortran provider it lists."""

    def edge(name: str, digest: str, virtuals: list[str]) -> dict[str, Any]:
        return {
            "name": name,
            "hash": digest,
            "parameters": {"deptypes": ["build"], "virtuals": virtuals},
        }

    def node(digest: str, edges: list[dict[str, Any]]) -> dict[str, Any]:
        spec = {"name": "x", "version": "1", "dependencies": edges}
        return {"spec": spec, "in_buildcache": True}

    llvm = {"spec": {"name": "llvm", "version": "19"}, "in_buildcache": False}
    gcc = {"spec": {"name": "gcc", "version": "14"}, "in_buildcache": False}
    listed = [edge("llvm", "l" * 32, ["cxx"]), edge("gcc", "g" * 32, ["c"])]
    installs = {"a" * 32: node("a", listed), "b" * 32: node("b", listed[::-1])}
    path = tmp_path / "index.json"
    path.write_text(database("8", {**installs, "l" * 32: llvm, "g" * 32: gcc}))
    graph = load_snapshot(str(path)).graph
    assert graph is not None
    a, b = graph.nodes["a" * 32], graph.nodes["b" * 32]
    assert (
        [e[:2] for e in a.edges]
        == [e[:2] for e in b.edges]
        == [("gcc", "g" * 32), ("llvm", "l" * 32)]
    )
    assert (a.compiler, b.compiler) == ("llvm@19", "gcc@14")


def test_parameters_of_the_wrong_shape_name_the_record_and_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = {"name": "zlib", "version": "1", "parameters": {"shared": {"a": 1}}}
    bad = tmp_path / "index.json"
    bad.write_text(database("8", {"b" * 32: {"spec": spec, "in_buildcache": True}}))
    assert main([V7, str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"snapdiff: error: NEW: {bad}: install {'b' * 32}, spec.parameters[...]: expected"
    )
    assert err.count("\n") == 1
