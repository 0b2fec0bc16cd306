"""Explaining added and removed specs: pairing, migrations, merged lines, filters (issue 4)."""

from __future__ import annotations

import json
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest
from checker import check_report
from pagegen import HISTORY, SEEDS, as_json, load_real, spec, write_page

from snapdiff.cli import main
from snapdiff.compare.diff import diff_snapshots
from snapdiff.model import Entry, Filters, Spec
from snapdiff.render.jsonreport import render_json
from snapdiff.render.markdown import render_markdown
from snapdiff.render.text import render_text
from snapdiff.report import Report
from snapdiff.sources import load_pair
from snapdiff.versions import sort_versions

ROOT = Path(__file__).parents[2]
V1, V2 = str(ROOT / "snapshots" / "v1"), str(ROOT / "snapshots" / "v2")


def real_report(old: str = V1, new: str = V2) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(render_json(diff_snapshots(*load_pair(old, new))))
    return data


def texts(name: str, data: dict[str, Any] | None = None) -> list[str]:
    package = next(p for p in (data or real_report())["packages"] if p["name"] == name)
    return [c["text"] for c in package["changes"]]


@pytest.mark.parametrize(("old", "new"), [(V1, V2), (V2, V1)], ids=["v1-v2", "v2-v1"])
def test_every_claim_on_the_real_sample_is_true(old: str, new: str) -> None:
    data = real_report(old, new)
    assert check_report(data, Path(old), Path(new)) == []
    s, by_class = data["summary"], data["specs_by_class"]
    assert sum(c["added"] for c in by_class.values()) == s["specs_added"]
    assert sum(c["removed"] for c in by_class.values()) == s["specs_removed"]
    assert (s["specs_added"], s["specs_removed"]) == ((470, 325) if old == V1 else (325, 470))


@pytest.mark.parametrize("name", [p.parent.name for p in HISTORY])
def test_every_claim_on_each_real_page_pair_is_true(tmp_path: Path, name: str) -> None:
    """Each package's older page against its newest, one pair at a time, both ways."""
    (older,) = [p for p in HISTORY if p.parent.name == name]
    newest = next(p for p in SEEDS if load_real(p)[0] == name)
    for side, path in (("a", older), ("b", newest)):
        target = tmp_path / side / "_cache" / "develop" / name / "specs.md"
        target.parent.mkdir(parents=True)
        target.write_bytes(path.read_bytes())
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    for old, new in ((a, b), (b, a)):
        data = real_report(old, new)
        assert data["packages"] and check_report(data, Path(old), Path(new)) == []


@pytest.mark.parametrize("name", [p.parent.name for p in HISTORY])
def test_every_claim_release_to_release_is_true(tmp_path: Path, name: str) -> None:
    """The same real page pairs as two releases: only the tag of each page is changed (so
    labelled), `develop` to `v0.22.0` and `v0.23.0`, compared release to release."""
    (older,) = [p for p in HISTORY if p.parent.name == name]
    newest = next(p for p in SEEDS if load_real(p)[0] == name)
    for side, path, tag in (("a", older, "v0.22.0"), ("b", newest, "v0.23.0")):
        target = tmp_path / side / "_cache" / tag / name / "specs.md"
        target.parent.mkdir(parents=True)
        text = path.read_bytes().replace(
            b"categories: [package, develop]", f"categories: [package, {tag}]".encode()
        )
        target.write_bytes(text)
    data = real_report(str(tmp_path / "a"), str(tmp_path / "b"))
    assert (data["old"]["tags"], data["new"]["tags"]) == (["v0.22.0"], ["v0.23.0"])
    assert data["packages"] and check_report(data, tmp_path / "a", tmp_path / "b") == []


def independent_rebuilds(old_dir: str, new_dir: str) -> int:
    """Removed and added specs with identical configuration and version, counted naively."""
    total = 0
    sides = []
    for root in (old_dir, new_dir):
        specs = {}
        for path in Path(root).glob("_cache/*/*/specs.md"):
            title, tag, _, details = load_real(path)
            for d in details:
                s = Spec.from_entry(Entry.from_mapping(d))
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


# Sentences the README sample used to print, each false when checked against the pages
# (issue 14; issue 45: migrations between unrelated configurations), and what is said instead.
@pytest.mark.parametrize(
    ("package", "false", "true"),
    [
        (
            "py-mpi4py",
            "58 specs in 6 new configurations",
            "15 specs in 1 new configuration (4.0.1)",
        ),
        ("py-mpi4py", "61 specs in 11 dropped", "37 specs in 7 dropped configurations (3.1.5)"),
        (
            "py-mpi4py",
            "os rhel8 → ubuntu24.04",
            "3.1.5 → 4.0.1 in 2 linux configurations: 28 → 42 specs",
        ),
        (
            "py-mpi4py",
            "ventura → sequoia (4 specs)",
            "darwin os ventura → sequoia and compiler "
            "apple-clang@15.0.0 → apple-clang@16.0.0: 1 configuration, 5 → 4 specs; "
            "versions 3.1.5 → 4.0.1",
        ),
        (
            "py-ml-dtypes",
            "os ubuntu20.04 → ubuntu24.04",
            "30 specs in 1 new configuration (0.4.0)",
        ),
        (
            "py-ml-dtypes",
            "linux compiler gcc@11.3.0 → gcc@13.2.0",  # the os moved too
            "rebuilt at 0.3.1 in 2 linux configurations: 11 specs with new hashes",
        ),
        (
            "py-ml-dtypes",
            "90 specs in 2 new configurations",
            "linux os ubuntu22.04 → ubuntu24.04 and compiler gcc@11.3.0 → gcc@13.2.0: "
            "1 configuration, 4 → 60 specs; versions 0.2.0 → 0.4.0",
        ),
        (
            "py-mpi4py",
            "25 specs in 2 new configurations",
            "linux compiler oneapi@2024.0.0 → intel-oneapi-compilers@2025.1.0: "
            "1 configuration, 8 → 10 specs; versions 3.1.5 → 4.0.1",
        ),
        (  # gcc (stacks ml-linux-x86_64-*) is no family of oneapi (stack e4s-oneapi)
            "py-mpi4py",
            "gcc@11.3.0, oneapi@2024.0.0 →",
            "linux os ubuntu22.04 → ubuntu24.04 and compiler gcc@11.3.0 → gcc@13.2.0: "
            "1 configuration, 7 → 15 specs; versions 3.1.5 → 4.0.1",
        ),
        (  # built by stack e4s-aarch64 before, ml-linux-aarch64-* now: no stack in common
            "py-mpi4py",
            "compiler gcc@11.4.0 → gcc@13.2.0",
            "15 specs in 1 new configuration (4.0.1)",
        ),
        (
            "py-build",
            "52 specs in 3 new configurations",
            "linux compiler gcc@11.4.0 → no compiler (none): 1 configuration, 10 → 18 specs; "
            "new version 1.2.2",
        ),
        (  # oneapi@2024.2.0 was built by stack e4s-oneapi, the new none build by e4s
            "py-build",
            "gcc@11.4.0, oneapi@2024.2.0 →",
            "7 specs in 2 dropped configurations (1.2.1)",
        ),
        (
            "py-jax",
            "nothing else",
            "linux compiler gcc@11.4.0 → no compiler (none): 1 configuration, 55 → 7 specs; "
            "versions 0.4.23, 0.4.31 → 0.4.38",
        ),
        (
            "py-keras",
            "os ubuntu22.04 → ubuntu24.04 and compiler gcc@11.4.0 → no compiler (none): "
            "3 configurations, 57 → 65 specs\n",
            "linux os ubuntu22.04 → ubuntu24.04 and compiler gcc@11.4.0 → no compiler (none): "
            "3 configurations, 57 → 65 specs; versions 3.0.4, 3.0.5, 3.1.0 → 3.9.2",
        ),
        (
            "py-jax",
            "neoverse_v1, ppc64le",
            "61 specs in 2 new configurations (0.4.28, 0.4.31, 0.4.38)",
        ),
    ],
)
def test_sentences_once_false_are_gone(package: str, false: str, true: str) -> None:
    said = texts(package)
    assert not any(false in line for line in said)
    assert true in said


def run(
    tmp_path: Path,
    old: dict[str, list[dict[str, Any]]],
    new: dict[str, list[dict[str, Any]]],
    filters: Filters | None = None,
) -> Report:
    for side, pages in (("old", old), ("new", new)):
        for name, specs in pages.items():
            write_page(tmp_path / side, name, specs)
    sides = load_pair(str(tmp_path / "old"), str(tmp_path / "new"), filters=filters)
    return diff_snapshots(sides.old, sides.new, filters)


def one(report: Report) -> dict[str, Any]:
    (package,) = as_json(report)["packages"]
    found: dict[str, Any] = package
    return found


def classes(package: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for change in package["changes"]:
        found.setdefault(change["class"], []).append(change["text"])
    return found


def checked(tmp_path: Path, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The one package of a synthetic pair, every claim about it checked."""
    data = as_json(run(tmp_path, old, new))
    assert check_report(data, tmp_path / "old", tmp_path / "new") == []
    (package,) = data["packages"]
    found: dict[str, Any] = package
    return found


def test_each_class_on_a_synthetic_package(tmp_path: Path) -> None:
    linux = [f"x86_64_v{i}" for i in (2, 3, 4)]
    old = [spec(f"r{i}", "1.0", target=t) for i, t in enumerate(linux)]  # to be rebuilt
    old += [spec("u0", "1.0", target="zen3"), spec("d0", "2.0", target="zen4")]
    old += [spec("k0", "1.5", target="zen4"), spec("k1", "1.5", target="zen4")]  # one kept
    old += [spec("t0", "0.9", target="zen3")]  # retired; 1.0 is the upgrade
    old += [spec("g0", "1.0", os="ventura", target="aarch64", compiler="apple-clang@15.0.0")]
    new = [spec(f"R{i}", "1.0", target=t) for i, t in enumerate(linux)]
    new += [spec("R9", "1.0", target="x86_64_v2")]  # a second build of 1.0
    new += [spec("U0", "1.1", target="zen3"), spec("D0", "1.9", target="zen4")]
    new += [spec("k0", "1.5", target="zen4")]
    new += [spec("A0", "1.1", target="neoverse_v2")]
    p = checked(tmp_path, {"x": old}, {"x": new})
    assert classes(p) == {
        "rebuilt": ["rebuilt at 1.0 in 3 linux configurations: 3 specs with new hashes"],
        "upgrade": ["1.0 → 1.1 in 1 linux configuration: 1 → 1 spec"],
        "downgrade": ["2.0 → 1.9 (downgrade) in 1 linux configuration: 1 → 1 spec"],
        "version-retired": ["0.9 retired in 1 linux configuration: 1 spec"],
        "more-builds": ["1 more build of 1.0 in 1 linux configuration"],
        "fewer-builds": ["1 fewer build of 1.5 in 1 linux configuration"],
        "new-configuration": ["1 spec in 1 new configuration (1.1)"],
        "dropped-configuration": ["1 spec in 1 dropped configuration (1.0)"],
    }


def test_a_version_already_built_is_not_an_upgrade(tmp_path: Path) -> None:
    """Issue 14: "1.0.3 → 1.2.1" where 1.2.1 was built before and 1.0.3 was only retired."""
    targets = ("x86_64_v3", "zen4", "aarch64")
    old = [spec(f"a{i}", "1.2.1", target=t) for i, t in enumerate(targets)]
    old += [spec(f"b{i}", "1.0.3", target=t) for i, t in enumerate(targets[:2])]
    new = [spec(f"a{i}", "1.2.1", target=t) for i, t in enumerate(targets)]
    p = checked(tmp_path, {"x": old}, {"x": new})
    assert classes(p) == {"version-retired": ["1.0.3 retired in 2 linux configurations: 2 specs"]}


def test_a_version_still_built_is_neither_rebuilt_nor_upgraded(tmp_path: Path) -> None:
    """Issue 14: "rebuilt at 0.2.0" and "0.2.0 → 0.4.0" for one configuration keeping 0.2.0."""
    old = [spec("a", "0.2.0"), spec("b", "0.2.0"), spec("c", "0.2.0")]
    new = [spec("a", "0.2.0"), spec("d", "0.4.0")]
    p = checked(tmp_path, {"x": old}, {"x": new})
    assert classes(p) == {
        "version-added": ["0.4.0 added in its only linux configuration: 1 spec"],
        "fewer-builds": ["2 fewer builds of 0.2.0 in its only linux configuration"],
    }


def test_a_variant_change_is_a_migration(tmp_path: Path) -> None:
    old = [spec("a", "1.0", variants=("build_system=python_pip",))]
    new = [spec("b", "1.0", variants=("backend=tensorflow", "build_system=python_pip"))]
    p = checked(tmp_path, {"py-keras": old}, {"py-keras": new})
    (change,) = p["changes"]
    assert change["dimensions"] == ["variants"]
    assert change["text"] == "linux variants +backend=tensorflow: 1 configuration, 1 → 1 spec"


def test_unrelated_values_are_never_paired(tmp_path: Path) -> None:
    """ubuntu20.04 dropped in one configuration, ubuntu24.04 new in another (other compiler)."""
    old = [spec("a", "1.0", os="ubuntu20.04", compiler="gcc@11.3.0")]
    old += [spec("k", "1.0", os="ubuntu22.04", compiler="gcc@11.3.0")]
    new = [spec("k", "1.0", os="ubuntu22.04", compiler="gcc@11.3.0")]
    new += [spec("b", "1.0", os="ubuntu24.04", compiler="gcc@13.2.0", target="aarch64")]
    p = checked(tmp_path, {"x": old}, {"x": new})
    assert set(classes(p)) == {"new-configuration", "dropped-configuration"}


def test_two_dimensions_move_together(tmp_path: Path) -> None:
    old = [spec(f"o{i}", "1.0", target=f"t{i}") for i in range(3)]
    new = [
        spec(f"n{i}", "1.0", target=f"t{i}", os="ubuntu24.04", compiler="gcc@13.2.0")
        for i in range(3)
    ]
    p = checked(tmp_path, {"x": old}, {"x": new})
    (change,) = p["changes"]
    assert change["text"] == (
        "linux os ubuntu22.04 → ubuntu24.04 and compiler gcc@11.4.0 → gcc@13.2.0: "
        "3 configurations, 3 → 3 specs"
    )


def test_compiler_aliases_and_colon_variants_are_no_change(tmp_path: Path) -> None:
    old = [spec("a", "1.0", compiler="oneapi@=2024.2.0", variants=("patches=abc",))]
    new = [spec("a", "1.0", compiler="intel-oneapi-compilers@2024.2.0", variants=("patches:=abc",))]
    assert as_json(run(tmp_path, {"x": old}, {"x": new}))["packages"] == []


def test_a_compiler_is_printed_as_the_new_side_spells_it(tmp_path: Path) -> None:
    old = [spec("a", "1.0", compiler="oneapi@=2024.2.0")]
    new = [spec("b", "1.1", compiler="intel-oneapi-compilers@2024.2.0")]
    new += [spec("c", "1.1", compiler="clang@17.0.0", os="ubuntu24.04")]
    p = checked(tmp_path, {"x": old}, {"x": new})
    (upgrade,) = [c for c in p["changes"] if c["class"] == "upgrade"]
    assert upgrade["configurations_new"][0]["compiler"] == "intel-oneapi-compilers@2024.2.0"


def test_markdown_prints_a_renamed_compiler_as_its_pages_write_it(tmp_path: Path) -> None:
    """A stack move and a dropped configuration name `oneapi@2023.2.0`, which a reader finds on
    the old page (`oneapi@=2023.2.0`); the JSON keeps the normalised name as evidence."""
    old = [spec("a", "1.0", ("e4s-oneapi",), compiler="oneapi@=2023.2.0")]
    old += [spec("b", "1.0", ("e4s",), compiler="oneapi@=2023.2.0", os="rhel8")]
    new = [spec("c", "1.1", ("e4s-oneapi",), compiler="intel-oneapi-compilers@2025.1.0")]
    report = run(tmp_path, {"x": old}, {"x": new})
    data = as_json(report)
    assert check_report(data, tmp_path / "old", tmp_path / "new") == []
    (move,) = [m for m in data["stack_moves"] if m["dimension"] == "compiler"]
    assert move["from"] == ["intel-oneapi-compilers@2023.2.0"]
    assert move["to"] == ["intel-oneapi-compilers@2025.1.0"]
    markdown = render_markdown(report)
    said = "`e4s-oneapi`, every spec: compiler `oneapi@2023.2.0` → "
    said += "`intel-oneapi-compilers@2025.1.0`"
    assert said in markdown
    dropped = "  - `rhel8` `x86_64_v3` `oneapi@2023.2.0` `build_system=cmake` (`linux`)"
    assert dropped in markdown.splitlines()
    assert "intel-oneapi-compilers@2023.2.0" not in markdown
    text = render_text(report)
    assert "e4s-oneapi: compiler oneapi@2023.2.0 → intel-oneapi-compilers@2025.1.0" in text


def test_a_spack_1_variant_is_printed_as_its_page_writes_it(tmp_path: Path) -> None:
    """Spack 1.0 pages write a multi-valued variant `name:=value`; a sentence and a
    configuration line say it so (the new side's spelling, as for compilers: the new page writes
    `patches:=abc` too), where the JSON's configurations say `name=value`."""
    old = [spec("a", "1.0", variants=("patches=abc",), target="zen3")]
    old += [spec("b", "1.0", variants=("patches=abc",), target="zen4")]
    new = [spec("c", "1.0", variants=("patches:=def",), target="zen3")]
    new += [spec("d", "1.0", variants=("patches:=abc",), target="zen4")]
    new += [spec("e", "1.0", variants=("amdgpu_target:=gfx90a",), os="rhel8")]
    report = run(tmp_path, {"x": old}, {"x": new})
    data = as_json(report)
    assert check_report(data, tmp_path / "old", tmp_path / "new") == []
    (package,) = data["packages"]
    said = [c["text"] for c in package["changes"]]
    assert "linux variants −patches:=abc, +patches:=def: 1 configuration, 1 → 1 spec" in said
    (added,) = [c for c in package["changes"] if c["class"] == "new-configuration"]
    assert added["configurations_new"][0]["variants"] == ["amdgpu_target=gfx90a"]
    markdown = render_markdown(report).splitlines()
    assert "  - `rhel8` `x86_64_v3` `gcc@11.4.0` `amdgpu_target:=gfx90a` (`linux`)" in markdown


def test_identical_changes_merge_into_one_line(tmp_path: Path) -> None:
    targets = [f"t{i}" for i in range(9)]
    old = [spec(f"o{i}", "0.4.31", target=t) for i, t in enumerate(targets)]
    new = [spec(f"n{i}", "0.4.38", target=t) for i, t in enumerate(targets)]
    p = checked(tmp_path, {"py-jax": old}, {"py-jax": new})
    assert [c["text"] for c in p["changes"]] == [
        "0.4.31 → 0.4.38 in all 9 linux configurations: 9 → 9 specs"
    ]
    assert len(p["changes"][0]["configurations_old"]) == 9


def test_os_migration_is_one_line(tmp_path: Path) -> None:
    old = [spec(f"o{i}", "1.0", variants=(f"v={i}",)) for i in range(40)]
    new = [spec(f"n{i}", "1.0", os="ubuntu24.04", variants=(f"v={i}",)) for i in range(40)]
    p = checked(tmp_path, {"x": old}, {"x": new})
    (change,) = p["changes"]
    assert change["text"] == "linux os ubuntu22.04 → ubuntu24.04: 40 configurations, 40 → 40 specs"
    assert (change["class"], change["dimensions"]) == ("migration", ["os"])
    assert len(change["specs_old"]) == len(change["specs_new"]) == 40


def test_same_hash_field_changes_are_described(tmp_path: Path) -> None:
    old = [spec("s1", "1.0", variants=("+shared", "~doc"), size="-")]
    new = [spec("s1", "1.0", variants=("+shared", "+doc"), size=1024)]
    p = one(run(tmp_path, {"x": old}, {"x": new}))
    (change,) = p["specs_changed"]
    assert change["details"] == ["size: - → 1024", "variants: added +doc", "variants: removed ~doc"]
    assert set(change["fields"]) == {"size", "variants"}


def prefiltered(source: Path, target: Path, keep: Any, stacks: str | None) -> None:
    """The pages with only the specs kept; with `stacks` (--stack), each spec listing only the
    stacks asked about: the others are outside the question (issue 18)."""
    for path in source.glob("_cache/*/*/specs.md"):
        title, tag, _, details = load_real(path)
        kept = [d for d in details if keep(title, d)]
        if stacks:
            kept = [dict(d, stacks=[s for s in d["stacks"] if fnmatch(s, stacks)]) for d in kept]
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
    stacks = argv[1] if argv[0] == "--stack" else None
    prefiltered(Path(V1), tmp_path / "a", keep, stacks)
    prefiltered(Path(V2), tmp_path / "b", keep, stacks)
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


def test_a_stack_whose_specs_all_move_to_a_new_os_is_a_stack_move(tmp_path: Path) -> None:
    """A real page edited so that every spec of one stack moves to a new OS."""
    title, tag, _, details = load_real(next(p for p in SEEDS if load_real(p)[0] == "py-jax"))
    stack = "ml-linux-x86_64-cpu"
    moved = [dict(d, os="ubuntu26.04") if stack in d["stacks"] else d for d in details]
    write_page(tmp_path / "old", title, details, tag=tag)
    write_page(tmp_path / "new", title, moved, tag=tag)
    data = as_json(run(tmp_path, {}, {}))
    assert check_report(data, tmp_path / "old", tmp_path / "new") == []
    count = sum(stack in d["stacks"] for d in details)
    assert data["stack_moves"] == [
        {
            "tag": "develop",
            "stack": stack,
            "dimension": "os",
            "from": ["ubuntu24.04"],
            "to": ["ubuntu26.04"],
            "specs_old": count,
            "specs_new": count,
            "specs_no_compiler_old": 0,
            "specs_no_compiler_new": 0,
        }
    ]
    markdown = render_markdown(run(tmp_path, {}, {}))
    first_screen = markdown.split("<details>")[0]
    said = f"- **Stack moved:** `{stack}`, every spec: os `ubuntu24.04` → `ubuntu26.04` "
    said += f"({count} → {count} specs)"
    assert said in first_screen


def test_root_is_the_total_not_a_stack_row(tmp_path: Path) -> None:
    """`root` is never a stack row nor counted as a stack; where it does not hold every spec of
    its tag, one sentence says so with the counts."""
    old = [spec("a", "1.0", ("e4s", "root"))]
    new = [spec("a", "1.0", ("e4s", "root")), spec("b", "1.1", ("e4s", "root"))]
    report = run(tmp_path, {"x": old}, {"x": new})
    markdown = render_markdown(report)
    assert "| `e4s` | 1 → 2 |" in markdown and "| `root` |" not in markdown
    assert (report.summary.stacks_changed, report.old.stacks, report.root) == (1, 1, ())
    assert "does not hold every spec" not in markdown
    partial = [spec("c", "1.2", ("e4s",))]  # root no longer holds every spec
    report = run(tmp_path / "2", {"x": old}, {"x": new + partial})
    markdown = render_markdown(report)
    assert "| `root` |" not in markdown and report.summary.stacks_changed == 1
    said = "`root`, the merged cache, does not hold every spec: 2 of the 3 specs, 1 of 1 before."
    assert said in markdown.split("### ")[0]  # on the first screen
    assert as_json(report)["root"] == [
        {"tag": "develop", "specs_old": 1, "specs_new": 2, "tag_specs_old": 1, "tag_specs_new": 3}
    ]
    assert said.replace("`", "") in render_text(report).splitlines()  # the same words


def test_the_move_to_no_compiler_is_summed_once_and_said_per_package(tmp_path: Path) -> None:
    """The note names every package it is about, gives no reason (`none` says only that the
    page records no compiler), and each package still says its own move."""
    old = {n: [spec(f"{n}1", "1.0", compiler="gcc@11.4.0")] for n in ("alpgen", "py-b")}
    new = {n: [spec(f"{n}2", "1.0", compiler="none")] for n in ("alpgen", "py-b")}
    old["py-c"] = [spec("c1", "1.0", compiler="gcc@11.4.0")]
    new["py-c"] = [spec("c2", "1.1", compiler="none", os="ubuntu24.04")]
    markdown = render_markdown(run(tmp_path, old, new))
    assert (
        "From a compiler to no compiler (`none`): 3 configurations of 3 packages (`alpgen`, "
        "`py-b`, `py-c`), 3 → 3 specs (1 of them moved along another dimension too). "
        "`none` says only that the page records no compiler for a spec"
    ) in markdown
    assert "pure" not in markdown and "nothing else" not in markdown
    per_package = markdown.split("package by package")[1]
    assert per_package.count("compiler `gcc@11.4.0` → no compiler (`none`)") == 3
    assert "os `ubuntu22.04` → `ubuntu24.04` and compiler `gcc@11.4.0` → no compiler" in per_package


def test_a_field_change_prints_the_variant_as_the_page_writes_it(tmp_path: Path) -> None:
    old = [spec("a", "1.0", variants=("build_system=cmake",))]
    new = [spec("a", "1.0", variants=("patches:=abc",))]
    (package,) = as_json(run(tmp_path, {"x": old}, {"x": new}))["packages"]
    (changed,) = package["specs_changed"]
    assert changed["fields"]["variants"]["new"] == ["patches=abc"]  # normalised evidence
    markdown = render_markdown(run(tmp_path / "again", {"x": old}, {"x": new}))
    assert "- spec `aaaaaaa`: `variants`: `build_system=cmake` → `patches:=abc`" in markdown


def test_a_package_s_counts_are_each_signed_or_left_out(tmp_path: Path) -> None:
    """`+2 −0` (never `+2 0`, which reads as neither), and only `1 changed` when no spec came or
    went."""
    old = {"x": [spec("a", "1.0", ("e4s",))], "y": [spec("y1", "1.0"), spec("y2", "1.0", ("e4s",))]}
    new = {"x": [spec("a", "1.0", ("e4s", "hep")), spec("c", "1.0"), spec("d", "1.0")]}
    new["y"] = old["y"][:1]
    markdown = render_markdown(run(tmp_path, old, new))
    assert "<details><summary><code>x</code>: +2 −0, 1 changed</summary>" in markdown
    assert "<details><summary><code>y</code>: +0 −1</summary>" in markdown
    assert "- `x`: +2 −0 specs, 1 changed" in markdown.splitlines()


def test_variant_values_added_and_removed_are_named_per_package(tmp_path: Path) -> None:
    """rocblas gained `~asan` and `amdgpu_target=auto` and lost `patches`: said once for the
    package, as the pages write them (the new side's spelling), and in JSON normalised."""
    old = [spec("a", "6.1", variants=("amdgpu_target:=gfx90a", "patches:=5c7a3c0"))]
    old += [spec("k", "6.1", variants=("amdgpu_target=gfx90a",), os="ubuntu24.04")]
    new = [spec("b", "6.2", variants=("amdgpu_target:=gfx90a", "~asan", "amdgpu_target:=auto"))]
    new += [spec("k", "6.1", variants=("amdgpu_target=gfx90a",), os="ubuntu24.04")]
    report = run(tmp_path, {"rocblas": old}, {"rocblas": new})
    data = as_json(report)
    (package,) = data["packages"]
    assert package["variants_added"] == ["amdgpu_target=auto", "~asan"]
    assert package["variants_removed"] == ["patches=5c7a3c0"]
    assert check_report(data, tmp_path / "old", tmp_path / "new") == []
    said = "- variant values new: `amdgpu_target:=auto`, `~asan`; gone: `patches:=5c7a3c0`"
    assert said in render_markdown(report).splitlines()
    assert "variant values new: amdgpu_target:=auto, ~asan; gone: patches:=5c7a3c0" in render_text(
        report
    )


def test_one_variant_value_is_said_in_the_singular(tmp_path: Path) -> None:
    old = [spec("a", "3.1", variants=("build_system=python_pip",))]
    new = [spec("b", "3.1", variants=("build_system=python_pip", "backend=tensorflow"))]
    markdown = render_markdown(run(tmp_path, {"keras": old}, {"keras": new}))
    assert "- variant value new: `backend=tensorflow`" in markdown.splitlines()


def test_a_cut_list_keeps_every_platform_visible(tmp_path: Path) -> None:
    """Seven new `linux` configurations and one `darwin`: the cut keeps the `darwin` one and says
    what it hides per platform."""
    old = [spec("z", "1.0", target="zen9")]
    new = [spec(f"l{i}", "1.0", target=f"t{i}") for i in range(7)]
    new += [spec("d", "1.0", os="sequoia", target="aarch64"), old[0]]
    markdown = render_markdown(run(tmp_path, {"x": old}, {"x": new}))
    assert "- 8 specs in 8 new configurations (`1.0`)" in markdown
    assert "`sequoia` `aarch64` `gcc@11.4.0` `build_system=cmake` (`darwin`)" in markdown
    assert "  - … and 3 more `linux`" in markdown.splitlines()
