"""Explaining added and removed specs: pairing, migrations, merged lines, filters (issue 4)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pagegen import HISTORY, SEEDS, load_real, spec, write_page

from snapdiff.cli import main
from snapdiff.diff import diff_snapshots
from snapdiff.model import Filters, Spec
from snapdiff.report import Report
from snapdiff.report_json import report_to_dict
from snapdiff.sources import Options, load_snapshots
from snapdiff.versions import sort_versions

ROOT = Path(__file__).parent.parent
V1, V2 = str(ROOT / "snapshots" / "v1"), str(ROOT / "snapshots" / "v2")


def real_report() -> dict[str, Any]:
    return report_to_dict(diff_snapshots(*load_snapshots(V1, V2)))


def test_every_added_and_removed_spec_lands_in_exactly_one_class() -> None:
    data = real_report()
    for p in data["packages"]:
        paired = p["rebuilt"] + p["pairs"]
        added = [x["new"] for x in paired] + p["appeared"]
        removed = [x["old"] for x in paired] + p["disappeared"]
        assert sorted(added) == sorted(p["specs_added"]), p["name"]
        assert sorted(removed) == sorted(p["specs_removed"]), p["name"]
        assert len(set(added)) == len(added) and len(set(removed)) == len(removed)
    s = data["summary"]
    pairs = s["specs_rebuilt"] + s["specs_upgraded"] + s["specs_downgraded"]
    assert s["specs_added"] == pairs + s["specs_appeared"] == 470
    assert s["specs_removed"] == pairs + s["specs_disappeared"] == 325
    assert (s["specs_rebuilt"], s["specs_upgraded"], s["specs_downgraded"]) == (11, 50, 0)


def independent_rebuilds(old_dir: str, new_dir: str) -> int:
    """Removed and added specs with identical configuration and version, counted naively."""
    total = 0
    sides = []
    for root in (old_dir, new_dir):
        specs = {}
        for path in Path(root).glob("_cache/*/*/specs.md"):
            title, tag, _, details = load_real(path)
            for d in details:
                s = Spec.from_entry(d)
                specs[(tag, s.hash)] = (title, s.configuration(), sort_versions(s.versions)[-1])
        sides.append(specs)
    old, new = sides
    removed = Counter(v for k, v in old.items() if k not in new)
    added = Counter(v for k, v in new.items() if k not in old)
    for key, count in removed.items():
        total += min(count, added[key])
    return total


def test_rebuild_count_matches_a_naive_count_on_real_pages() -> None:
    assert real_report()["summary"]["specs_rebuilt"] == independent_rebuilds(V1, V2) == 11


def explanation(name: str) -> list[str]:
    return next(p["explanation"] for p in real_report()["packages"] if p["name"] == name)


@pytest.mark.parametrize(
    ("package", "line"),
    [
        ("py-keras", "darwin os ventura → sequoia (10 specs)"),
        ("py-keras", "darwin compiler apple-clang@15.0.0 → none (10 specs)"),
        ("py-keras", "linux compiler gcc@11.4.0 → none (120 specs)"),
        ("py-keras", "linux target: new aarch64 (55 specs)"),
        ("py-keras", "linux os ubuntu22.04 → ubuntu24.04 (120 specs)"),
        ("py-ml-dtypes", "rebuilt at 0.3.1 on 2 of 4 linux configurations (11 specs)"),
        ("py-ml-dtypes", "0.2.0 → 0.4.0 on 2 of 4 linux configurations (16 specs)"),
        ("py-mpi4py", "3.1.5 → 4.0.1 on 2 of 6 linux configurations (28 specs)"),
    ],
)
def test_real_migrations_are_each_one_line(package: str, line: str) -> None:
    assert line in explanation(package)


def run(
    tmp_path: Path,
    old: dict[str, list[dict[str, Any]]],
    new: dict[str, list[dict[str, Any]]],
    filters: Filters | None = None,
) -> Report:
    for side, pages in (("old", old), ("new", new)):
        for name, specs in pages.items():
            write_page(tmp_path / side, name, specs)
    full = bool(filters and filters.per_spec)
    sides = load_snapshots(str(tmp_path / "old"), str(tmp_path / "new"), Options(full=full))
    return diff_snapshots(*sides, filters)


def one(report: Report) -> dict[str, Any]:
    (package,) = report_to_dict(report)["packages"]
    found: dict[str, Any] = package
    return found


def test_each_class_on_a_synthetic_package(tmp_path: Path) -> None:
    linux = [f"x86_64_v{i}" for i in (2, 3, 4)]
    old = [spec(f"r{i}", "1.0", target=t) for i, t in enumerate(linux)]  # to be rebuilt
    old += [spec("u0", "1.0", target="zen3"), spec("d0", "2.0", target="zen4")]
    old += [spec("g0", "1.0", os="ventura", target="aarch64", compiler="apple-clang@15.0.0")]
    new = [spec(f"R{i}", "1.0", target=t) for i, t in enumerate(linux)]
    new += [spec("U0", "1.1", target="zen3"), spec("D0", "1.9", target="zen4")]
    new += [spec("A0", "1.1", target="neoverse_v2")]
    p = one(run(tmp_path, {"x": old}, {"x": new}))
    assert len(p["rebuilt"]) == 3 and {r["version"] for r in p["rebuilt"]} == {"1.0"}
    kinds = {(x["from"], x["to"], x["kind"]) for x in p["pairs"]}
    assert kinds == {("1.0", "1.1", "upgrade"), ("2.0", "1.9", "downgrade")}
    assert (p["appeared"], p["disappeared"]) == (["A0".ljust(32, "a")], ["g0".ljust(32, "a")])
    assert "rebuilt at 1.0 on 3 of 6 linux configurations" in p["explanation"]
    assert "2.0 → 1.9 on 1 of 6 linux configurations (downgrade)" in p["explanation"]
    assert "darwin os: dropped ventura (1 spec)" in p["explanation"]
    assert "linux target: new neoverse_v2 (1 spec)" in p["explanation"]


def test_identical_changes_merge_into_one_line(tmp_path: Path) -> None:
    targets = [f"t{i}" for i in range(9)]
    old = [spec(f"o{i}", "0.4.31", target=t) for i, t in enumerate(targets)]
    new = [spec(f"n{i}", "0.4.38", target=t) for i, t in enumerate(targets)]
    p = one(run(tmp_path, {"py-jax": old}, {"py-jax": new}))
    assert p["explanation"] == ["0.4.31 → 0.4.38 on all 9 linux configurations"]
    assert len(p["pairs"]) == 9


def test_os_migration_is_one_line(tmp_path: Path) -> None:
    old = [spec(f"o{i}", "1.0", variants=(f"v={i}",)) for i in range(40)]
    new = [spec(f"n{i}", "1.0", os="ubuntu24.04", variants=(f"v={i}",)) for i in range(40)]
    p = one(run(tmp_path, {"x": old}, {"x": new}))
    assert "linux os ubuntu22.04 → ubuntu24.04 (40 specs)" in p["explanation"]
    assert p["migrations"] == [
        {
            "platform": "linux",
            "dimension": "os",
            "old": ["ubuntu22.04"],
            "new": ["ubuntu24.04"],
            "specs_old": 40,
            "specs_new": 40,
        }
    ]


def test_same_hash_field_changes_are_described(tmp_path: Path) -> None:
    old = [spec("s1", "1.0", variants=("+shared", "~doc"), size="-")]
    new = [spec("s1", "1.0", variants=("+shared", "+doc"), size=1024)]
    p = one(run(tmp_path, {"x": old}, {"x": new}))
    (change,) = p["specs_changed"]
    assert change["details"] == ["size: - → 1024", "variants: added +doc", "variants: removed ~doc"]
    assert set(change["fields"]) == {"size", "variants"}


def prefiltered(source: Path, target: Path, keep: Any) -> None:
    for path in source.glob("_cache/*/*/specs.md"):
        title, tag, _, details = load_real(path)
        kept = [d for d in details if keep(title, d)]
        if kept:
            write_page(target, title, kept, tag=tag)


@pytest.mark.parametrize(
    ("argv", "keep"),
    [
        (["--package", "py-j*", "--package", "py-k*"], lambda n, d: n[:4] in ("py-j", "py-k")),
        (["--os", "ubuntu22.04"], lambda n, d: d["os"] == "ubuntu22.04"),
        (["--stack", "ml-*-cuda"], lambda n, d: any(s.endswith("-cuda") for s in d["stacks"])),
        (
            ["--target", "x86_64_v3", "--compiler", "gcc*"],
            lambda n, d: d["target"] == "x86_64_v3" and d["compiler"].startswith("gcc"),
        ),
        (["--compiler", "gcc@11*"], lambda n, d: d["compiler"].replace("@=", "@")[:6] == "gcc@11"),
        (["--tag", "develop", "--package", "py-build"], lambda n, d: n == "py-build"),
    ],
)
def test_filters_equal_prefiltered_inputs(
    tmp_path: Path, argv: list[str], keep: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    prefiltered(Path(V1), tmp_path / "a", keep)
    prefiltered(Path(V2), tmp_path / "b", keep)
    assert main([V1, V2, "--format", "json", *argv]) == 0
    filtered = json.loads(capsys.readouterr().out)
    assert main([str(tmp_path / "a"), str(tmp_path / "b"), "--format", "json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert filtered["filters"] and not expected["filters"]
    for data in (filtered, expected):
        for side in ("old", "new"):
            data[side].pop("source")
        data.pop("filters")
    assert filtered == expected
    assert filtered["packages"], "the filter must leave something to compare"


def test_filters_are_named_in_the_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([V1, V2, "--package", "py-jax", "--os", "ubuntu*"]) == 0
    out = capsys.readouterr().out
    assert "\n\nOnly specs matching: package `py-jax`; os `ubuntu*`.\n\n" in out


def test_page_sets_used_by_these_tests_are_real() -> None:
    assert len(HISTORY) == len(SEEDS) == 5
