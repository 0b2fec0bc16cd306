"""Classification of every change (SPEC section 2) on small synthetic snapshots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pagegen import as_json, page_text, spec, write_page

from snapdiff.compare.diff import diff_snapshots
from snapdiff.report import Report
from snapdiff.sources import load_pair

Pages = dict[str, list[dict[str, Any]]]


def run(
    tmp_path: Path, old: Pages, new: Pages, old_tag: str = "develop", new_tag: str = "develop"
) -> Report:
    for side, pages, tag in (("old", old, old_tag), ("new", new, new_tag)):
        for name, specs in pages.items():
            write_page(tmp_path / side, name, specs, tag=tag)
    return diff_snapshots(*load_pair(str(tmp_path / "old"), str(tmp_path / "new")))


def package(report: Report, name: str) -> dict[str, Any]:
    found = [p for p in as_json(report)["packages"] if p["name"] == name]
    assert len(found) == 1, found
    entry: dict[str, Any] = found[0]
    return entry


BASE: Pages = {
    "zlib": [spec("z1", "1.3", ("e4s", "root")), spec("z2", "1.3", ("ml-cpu", "root"))],
    "cmake": [spec("c1", "3.27.9", ("e4s", "root"))],
}


def test_identical_snapshots_have_no_changes(tmp_path: Path) -> None:
    report = run(tmp_path, BASE, BASE)
    assert report.summary.total == 0
    assert report.packages == () and report.stacks == ()


def test_reordering_noise_is_not_a_change(tmp_path: Path) -> None:
    """Stack order, `@=` vs `@`, key order and `tarball` are normalised away."""
    noisy = {
        name: [
            dict(reversed(list(s.items())))
            | {
                "stacks": s["stacks"][::-1],
                "compiler": s["compiler"].replace("@", "@="),
                "tarball": f"https://example.invalid/{s['hash']}.spack",
            }
            for s in specs
        ]
        for name, specs in BASE.items()
    }
    report = run(tmp_path, BASE, noisy)
    old_bytes = (tmp_path / "old/_cache/develop/zlib/specs.md").read_bytes()
    assert old_bytes != (tmp_path / "new/_cache/develop/zlib/specs.md").read_bytes()
    assert report.summary.total == 0


def test_spec_joining_and_leaving_stacks_is_a_changed_spec(tmp_path: Path) -> None:
    new = dict(BASE, zlib=[spec("z1", "1.3", ("e4s", "hep", "root")), spec("z2", "1.3", ("root",))])
    report = run(tmp_path, BASE, new)
    zlib = package(report, "zlib")
    assert zlib["status"] == "changed"
    assert zlib["specs_added"] == zlib["specs_removed"] == []
    assert [
        (c["hash"][:2], c["stacks_added"], c["stacks_removed"], c["fields"])
        for c in zlib["specs_changed"]
    ] == [("z1", ["hep"], [], {}), ("z2", [], ["ml-cpu"], {})]
    assert (zlib["stacks_added"], zlib["stacks_removed"]) == (["hep"], ["ml-cpu"])
    assert zlib["bump"] is None
    stacks = {s["name"]: s for s in as_json(report)["stacks"]}
    assert stacks["hep"] == {
        "tag": "develop",
        "name": "hep",
        "status": "added",
        "specs_old": 0,
        "specs_new": 1,
        "packages_gained": ["zlib"],
        "packages_lost": [],
    }
    assert stacks["ml-cpu"]["status"] == "removed"
    assert "root" not in stacks and "e4s" not in stacks
    s = report.summary
    assert (s.packages_changed, s.specs_changed, s.specs_added, s.specs_removed) == (1, 2, 0, 0)
    assert (s.stacks_added, s.stacks_removed, s.stacks_changed) == (1, 1, 0)


def test_other_fields_of_a_same_hash_spec_are_reported(tmp_path: Path) -> None:
    new = dict(
        BASE,
        cmake=[spec("c1", "3.27.9", ("e4s", "root"), variants=("build_system=cmake", "+ownlibs"))],
    )
    change = package(run(tmp_path, BASE, new), "cmake")["specs_changed"][0]
    assert change["fields"] == {
        "variants": {"old": ["build_system=cmake"], "new": ["+ownlibs", "build_system=cmake"]}
    }


def test_version_bump_with_versions_added_and_removed(tmp_path: Path) -> None:
    new = dict(
        BASE, zlib=[spec("z3", "1.3.1", ("e4s", "root")), spec("z2", "1.3", ("ml-cpu", "root"))]
    )
    zlib = package(run(tmp_path, BASE, new), "zlib")
    assert zlib["bump"] == {"from": "1.3", "to": "1.3.1", "kind": "upgrade", "size": "patch"}
    assert (zlib["versions_old"], zlib["versions_new"]) == (["1.3"], ["1.3", "1.3.1"])
    assert (zlib["versions_added"], zlib["versions_removed"]) == (["1.3.1"], [])
    assert (zlib["specs_added"], zlib["specs_removed"]) == (
        ["z3".ljust(32, "a")],
        ["z1".ljust(32, "a")],
    )


def test_downgrade_uses_spack_order_not_string_order(tmp_path: Path) -> None:
    old = {"py-x": [spec("p1", "1.10")]}
    new = {"py-x": [spec("p2", "1.9")]}
    report = run(tmp_path, old, new)
    assert package(report, "py-x")["bump"] == {
        "from": "1.10",
        "to": "1.9",
        "kind": "downgrade",
        "size": "minor",
        "cause": None,  # e4s built 1.10 and still builds py-x
    }
    assert (report.summary.version_bumps, report.summary.version_downgrades) == (0, 1)


def test_highest_version_moving_between_spellings_of_one_version_is_no_bump(tmp_path: Path) -> None:
    report = run(tmp_path, {"x": [spec("a1", "2024.06")]}, {"x": [spec("a2", "2024.6")]})
    x = package(report, "x")
    assert x["bump"] is None
    assert (x["versions_added"], x["versions_removed"]) == (["2024.6"], ["2024.06"])


def test_packages_and_stacks_appear_and_disappear(tmp_path: Path) -> None:
    new = {"zlib": BASE["zlib"], "ninja": [spec("n1", "1.11", ("tools", "root"))]}
    report = run(tmp_path, BASE, new)
    data = as_json(report)
    assert [(p["name"], p["status"]) for p in data["packages"]] == [
        ("cmake", "removed"),
        ("ninja", "added"),
    ]
    ninja = package(report, "ninja")
    assert (ninja["versions_new"], ninja["specs_added"], ninja["bump"]) == (
        ["1.11"],
        ["n1".ljust(32, "a")],
        None,
    )
    assert ninja["stacks_added"] == ["root", "tools"]
    stacks = {
        s["name"]: (
            s["status"],
            s["specs_old"],
            s["specs_new"],
            s["packages_gained"],
            s["packages_lost"],
        )
        for s in data["stacks"]
    }
    assert stacks == {
        "e4s": ("changed", 2, 1, [], ["cmake"]),
        "tools": ("added", 0, 1, ["ninja"], []),
    }
    assert data["summary"]["packages_added"] == data["summary"]["packages_removed"] == 1


def test_release_to_release_compares_across_tags(tmp_path: Path) -> None:
    old = {"py-ml-dtypes": [spec("m1", "0.3.1")]}
    new = {"py-ml-dtypes": [spec("m2", "0.4.0")]}
    report = run(tmp_path, old, new, old_tag="v0.21.2", new_tag="v0.22.0")
    dtypes = package(report, "py-ml-dtypes")
    assert (dtypes["tag"], dtypes["status"]) == ("v0.22.0", "changed")
    assert dtypes["bump"]["from"] == "0.3.1" and dtypes["bump"]["to"] == "0.4.0"
    assert (report.old.tags, report.new.tags) == (("v0.21.2",), ("v0.22.0",))
    assert {s.tag for s in report.stacks} <= {"v0.22.0"}


def test_several_tags_keep_tag_in_identity(tmp_path: Path) -> None:
    old = tmp_path / "old"
    new = tmp_path / "new"
    for root in (old, new):
        write_page(root, "zlib", [spec("a1", "1.3")], tag="develop")
    write_page(old, "zlib", [spec("a1", "1.3")], tag="v0.22.0")
    write_page(new, "zlib", [spec("a1", "1.3")], tag="v0.23.0")
    data = as_json(diff_snapshots(*load_pair(str(old), str(new))))
    assert [(p["tag"], p["status"]) for p in data["packages"]] == [
        ("v0.22.0", "removed"),
        ("v0.23.0", "added"),
    ]


CASES = [
    (
        BASE,
        {
            "zlib": [*BASE["zlib"][:1], spec("z9", "1.2", ("hep", "root"))],
            "ninja": [spec("n1", "1.11")],
        },
    ),
    (
        {"a": [spec("a1", "2.0", ("x", "root"))]},
        {"a": [spec("a1", "2.0", ("y", "root")), spec("a2", "1.0")]},
    ),
]


@pytest.mark.parametrize(("old", "new"), CASES)
def test_swapping_sides_swaps_every_direction(tmp_path: Path, old: Pages, new: Pages) -> None:
    forward = as_json(run(tmp_path / "f", old, new))
    backward = as_json(run(tmp_path / "b", new, old))
    flip = {"added": "removed", "removed": "added", "changed": "changed"}
    pairs = [
        ("specs_added", "specs_removed"),
        ("versions_added", "versions_removed"),
        ("stacks_added", "stacks_removed"),
        ("versions_old", "versions_new"),
    ]
    back_packages = {p["name"]: p for p in backward["packages"]}
    assert forward["packages"], "the case must change something"
    for p in forward["packages"]:
        q = back_packages[p["name"]]
        assert q["status"] == flip[p["status"]]
        for a, b in pairs:
            assert p[a] == q[b]
        if p["bump"]:
            assert (q["bump"]["from"], q["bump"]["to"]) == (p["bump"]["to"], p["bump"]["from"])
            assert {p["bump"]["kind"], q["bump"]["kind"]} == {"upgrade", "downgrade"}
    back_stacks = {s["name"]: s for s in backward["stacks"]}
    for s in forward["stacks"]:
        t = back_stacks[s["name"]]
        assert (t["status"], t["specs_old"], t["specs_new"]) == (
            flip[s["status"]],
            s["specs_new"],
            s["specs_old"],
        )
        assert (t["packages_gained"], t["packages_lost"]) == (
            s["packages_lost"],
            s["packages_gained"],
        )
    summary, back = forward["summary"], backward["summary"]
    assert (summary["specs_added"], summary["version_bumps"]) == (
        back["specs_removed"],
        back["version_downgrades"],
    )


def test_content_both_sides_hold_is_read_once_for_its_counts(tmp_path: Path) -> None:
    """Pages equal on both sides are never compared, so only their counts are read."""
    for side in ("old", "new"):
        write_page(tmp_path / side, "zlib", BASE["zlib"])
    write_page(tmp_path / "new", "cmake", BASE["cmake"])
    old, new = load_pair(str(tmp_path / "old"), str(tmp_path / "new"))
    a, b = old.pages[("develop", "zlib")], new.pages[("develop", "zlib")]
    assert a.entries is None and b.entries is None
    assert a.stack_counts == b.stack_counts == (("e4s", 1), ("ml-cpu", 1), ("root", 2))
    assert new.pages[("develop", "cmake")].entries is not None
    assert "old" in a.source and "new" in b.source
    assert (
        json.loads(json.dumps(as_json(diff_snapshots(old, new))))["summary"]["packages_changed"]
        == 0
    )


def test_page_text_is_the_generator_format() -> None:
    """The synthetic pages used here have the real pages' exact shape."""
    lines = page_text("zlib", "develop", BASE["zlib"]).split("\n")
    assert [line.split(":")[0] for line in lines] == [
        "---",
        "title",
        "layout",
        "categories",
        "meta",
        "spec_details",
        "---",
    ]


def test_a_hash_moving_to_another_page_is_one_changed_spec_of_both(tmp_path: Path) -> None:
    """Found by the property tests: the package a spec left must show the change too."""
    old = {"hdf5": [spec("h0", "1.0"), spec("h1", "1.2")], "py-jax": [spec("j0", "1.0")]}
    new = {"hdf5": [spec("h0", "1.0")], "py-jax": [spec("j0", "1.0"), spec("h1", "1.0")]}
    report = run(tmp_path, old, new)
    for name in ("hdf5", "py-jax"):
        p = package(report, name)
        assert p["specs_added"] == p["specs_removed"] == []
        (change,) = p["specs_changed"]
        assert change["fields"]["package"] == {"old": "hdf5", "new": "py-jax"}
        assert change["fields"]["versions"] == {"old": ["1.2"], "new": ["1.0"]}
    assert package(report, "hdf5")["bump"]["kind"] == "downgrade"
    assert (report.summary.specs_changed, report.summary.packages_changed) == (1, 2)


def test_a_diff_of_snapshots_built_in_memory() -> None:
    """No files: pages built from entries (the loaders' contract, stated by SnapshotPair)."""
    from snapdiff.model import Page, Snapshot
    from snapdiff.sources.entries import Entries, check_entries

    def snapshot(name: str, *entries: dict[str, Any]) -> Snapshot:
        read = Entries.from_read(check_entries(list(entries), name), name)
        page = Page("develop", "zlib", name, name, read, len(read), read.counts, read.compiled)
        return Snapshot(name, {("develop", "zlib"): page})

    old = snapshot("old", spec("a", "1.2"), spec("b", "1.2", target="zen4"))
    new = snapshot("new", spec("a", "1.2"), spec("c", "1.3", target="zen4"))
    data = as_json(diff_snapshots(old, new))
    (package,) = data["packages"]
    assert [c["text"] for c in package["changes"]] == [
        "1.2 → 1.3 in 1 linux configuration: 1 → 1 spec"
    ]
