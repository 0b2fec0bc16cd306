"""Issue 29, item 4: hostile graphs (a cycle, a self-edge, an edge listed twice, an edge naming
another package's record, a very deep chain) give a warning, never a hang or a traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from causes import expand

from snapdiff.cli import main
from snapdiff.compare.diff import diff_snapshots
from snapdiff.render.jsonreport import report_to_dict
from snapdiff.report import Report
from snapdiff.sources import load_pair

Record = tuple[str, str, str, list[tuple[str, str]]]  # hash, name, version, edges (name, hash)


def h(label: str) -> str:
    """A 32-character hash naming a test record."""
    return (label * 32)[:32]


def write(path: Path, records: list[Record], twice: bool = False) -> Path:
    installs: dict[str, Any] = {}
    for digest, name, version, edges in records:
        deps = [
            {"name": n, "hash": d, "parameters": {"deptypes": ["build", "link"], "virtuals": []}}
            for n, d in edges
        ]
        spec = {"name": name, "version": version, "dependencies": deps + (deps if twice else [])}
        installs[digest] = {"spec": spec, "in_buildcache": True}
    path.write_text(json.dumps({"database": {"version": "8", "installs": installs}}))
    return path


def diff(tmp_path: Path, old: list[Record], new: list[Record], twice: bool = False) -> Report:
    pair = write(tmp_path / "old.json", old), write(tmp_path / "new.json", new, twice)
    return diff_snapshots(*load_pair(str(pair[0]), str(pair[1])))


def every_rebuilt_once(report: Report) -> list[str]:
    r = report.rebuilds
    assert r is not None
    found = [t.hash for t in r.triggers] + [c.hash for c in r.cascades]
    found += [*r.hash_scheme, *r.unexplained]
    assert len(found) == len(set(found))
    return sorted(found)


OLD = [(h("a"), "zlib", "1", []), (h("b"), "hdf5", "1", [("zlib", h("a"))])]
OLD += [(h("c"), "netcdf", "1", [("hdf5", h("b"))])]


# a cycle in both files (no real hash can make one): hdf5 and netcdf depend on each other
CYCLIC = [(h("a"), "zlib", "1", []), (h("c"), "netcdf", "1", [("hdf5", h("b"))])]
CYCLIC += [(h("b"), "hdf5", "1", [("zlib", h("a")), ("netcdf", h("c"))])]
CYCLIC_NEW = [(h("A"), "zlib", "2", []), (h("C"), "netcdf", "1", [("hdf5", h("B"))])]
CYCLIC_NEW += [(h("B"), "hdf5", "1", [("zlib", h("A")), ("netcdf", h("C"))])]


def test_a_cycle_is_a_warning_and_every_spec_is_told_once(tmp_path: Path) -> None:
    report = diff(tmp_path, CYCLIC, CYCLIC_NEW)
    assert every_rebuilt_once(report) == sorted([h("A"), h("B"), h("C")])
    assert report.rebuilds is not None
    (trigger,) = report.rebuilds.triggers
    assert trigger.hash == h("A") and h("B") in trigger.cascade
    assert any("close a cycle" in w for w in report.warnings)


def test_the_evidence_of_a_cycle_leaves_out_the_edge_the_walk_left_out(tmp_path: Path) -> None:
    """hdf5 and netcdf depend on each other, netcdf also on a bumped szip: the walk, from hdf5,
    leaves out netcdf -> hdf5 (it closes the cycle), so netcdf's causes are szip alone. The
    JSON's evidence names no `through` for that edge, so followed back it gives the walk's
    causes, not zlib as well."""
    old = [*CYCLIC, (h("d"), "szip", "1", [])]
    old[1] = (h("c"), "netcdf", "1", [("hdf5", h("b")), ("szip", h("d"))])
    new = [*CYCLIC_NEW, (h("D"), "szip", "2", [])]
    new[1] = (h("C"), "netcdf", "1", [("hdf5", h("B")), ("szip", h("D"))])
    report = diff(tmp_path, old, new)
    assert report.rebuilds is not None
    rebuilds = report_to_dict(report)["rebuilds"]
    assert rebuilds is not None
    said = {c["name"]: (c["direct_causes"], c["through"]) for c in rebuilds["cascades"]}
    assert said == {"hdf5": ([h("A")], [h("C")]), "netcdf": ([h("D")], [])}
    whole = expand(dict(rebuilds))
    assert {c["hash"]: c["causes"] for c in whole["cascades"]} == {
        c.hash: list(c.causes) for c in report.rebuilds.cascades
    }


def test_a_self_edge_is_a_warning(tmp_path: Path) -> None:
    new = [(h("A"), "zlib", "1", [("zlib", h("A"))]), (h("B"), "hdf5", "1", [("zlib", h("A"))])]
    new += [(h("c"), "netcdf", "1", [("hdf5", h("b"))])]
    report = diff(tmp_path, OLD, new)
    # zlib gained a dependency (on itself): its own change; hdf5 is its cascade
    assert report.rebuilds is not None
    (trigger,) = report.rebuilds.triggers
    assert trigger.changes == ("dependencies",) and trigger.cascade == (h("B"),)
    assert every_rebuilt_once(report) == [h("A"), h("B")]


def test_an_edge_listed_twice_is_read_once_with_a_warning(tmp_path: Path) -> None:
    new = [(h("A"), "zlib", "2", []), (h("B"), "hdf5", "1", [("zlib", h("A"))])]
    new += [(h("C"), "netcdf", "1", [("hdf5", h("B"))])]
    report = diff(tmp_path, OLD, new, twice=True)
    assert report.rebuilds is not None
    assert report.rebuilds.triggers[0].cascade == (h("B"), h("C"))
    assert any("listed twice" in w for w in report.warnings)


def test_an_edge_naming_another_packages_record_is_a_warning(tmp_path: Path) -> None:
    new = [(h("a"), "zlib", "1", []), (h("b"), "hdf5", "1", [("zlib", h("a"))])]
    new += [(h("c"), "netcdf", "1", [("zstd", h("b"))])]
    report = diff(tmp_path, OLD, new)
    assert any("record of another package" in w and "`zstd`" in w for w in report.warnings)


def test_a_very_deep_chain_is_walked_without_recursion(tmp_path: Path) -> None:
    depth = 5 * sys.getrecursionlimit()  # a recursive walk fails long before the end
    old = [
        (f"{i:032d}", f"p{i}", "1", [(f"p{i - 1}", f"{i - 1:032d}")] if i else [])
        for i in range(depth)
    ]
    new = [
        (
            f"{i:031d}n",
            f"p{i}",
            "2" if i == 0 else "1",
            [(f"p{i - 1}", f"{i - 1:031d}n")] if i else [],
        )
        for i in range(depth)
    ]
    report = diff(tmp_path, old, new)
    assert report.rebuilds is not None
    (trigger,) = report.rebuilds.triggers
    assert len(trigger.cascade) == depth - 1 and not trigger.cascade_build_only


def test_a_cycle_on_the_command_line_is_a_warning_and_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old_file = write(tmp_path / "old.json", CYCLIC)
    new_file = write(tmp_path / "new.json", CYCLIC_NEW)
    assert main([str(old_file), str(new_file), "--format", "json"]) == 0
    err = capsys.readouterr().err
    assert "close a cycle" in err and "Traceback" not in err
