"""Stack moves and `root` (SPEC section 2a, issue 26): what is a move, and what is not."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from checker import check_report
from clirun import run
from pagegen import HISTORY, SEEDS, as_json, load_real, spec, write_page

from snapdiff.compare.diff import diff_snapshots
from snapdiff.render.markdown import render_markdown
from snapdiff.render.text import render_text
from snapdiff.sources import load_pair

STACK = "aws-pcluster-x86_64_v4"
# the move of the generated day (synthetic): every compiled spec of STACK, 30 with no compiler aside
STACK_MOVE = {
    "tag": "develop",
    "stack": STACK,
    "dimension": "compiler",
    "from": ["gcc@12.4.0"],
    "to": ["gcc@12.5.0"],
    "specs_old": 60,
    "specs_new": 90,
    "specs_no_compiler_old": 30,
    "specs_no_compiler_new": 30,
}


def _page(pages: list[Path], name: str) -> Path:
    return next(p for p in pages if load_real(p)[0] == name)


def _copy(page: Path, root: Path) -> None:
    title, tag, _, details = load_real(page)
    write_page(root, title, details, tag=tag)


def test_a_stack_whose_packages_were_all_replaced_did_not_move(tmp_path: Path) -> None:
    """Real pages: `e4s-oneapi` holds only py-build (oneapi compilers) before and only py-mpi4py
    (intel-oneapi-compilers@2025.1.0) after: its coverage says so, not a stack move."""
    _copy(_page(HISTORY, "py-build"), tmp_path / "old")
    _copy(_page(SEEDS, "py-mpi4py"), tmp_path / "new")
    report = diff_snapshots(*load_pair(str(tmp_path / "old"), str(tmp_path / "new")))
    data = as_json(report)
    assert check_report(data, tmp_path / "old", tmp_path / "new") == []
    assert "e4s-oneapi" not in {m["stack"] for m in data["stack_moves"]}
    (oneapi,) = [s for s in data["stacks"] if s["name"] == "e4s-oneapi"]
    assert (oneapi["packages_lost"], oneapi["packages_gained"]) == (["py-build"], ["py-mpi4py"])
    assert "Stack moved:** `e4s-oneapi`" not in render_markdown(report)


def _day(root: Path) -> None:
    """Synthetic: a day where every compiled spec of STACK moves gcc@12.4.0 → gcc@12.5.0 and
    `hep` moves os with its compiled specs to gcc@13.2.0, among specs with no compiler that stay;
    and enough other version bumps that the report is larger than a GitHub comment."""
    for i in range(30):
        kept = spec(f"n{i:02d}", "1.0", (STACK, "hep", "root"), compiler="none")
        old = [spec(f"a{i:02d}{k}", "2.0", (STACK, "root"), compiler="gcc@12.4.0") for k in "xy"]
        new = [spec(f"b{i:02d}{k}", "2.0", (STACK, "root"), compiler="gcc@12.5.0") for k in "xyz"]
        hep_old = spec(f"h{i:02d}", "2.0", ("hep", "root"), compiler="gcc@12.4.0")
        hep_new = spec(f"g{i:02d}", "2.0", ("hep", "root"), compiler="gcc@13.2.0")
        hep_new["os"] = "ubuntu24.04"
        write_page(root / "old", f"pkg{i:02d}", [kept, *old, hep_old])
        # `hep` moved os for every spec: its specs with no compiler were rebuilt on the new os
        kept_new = dict(kept, stacks=[STACK, "root"])
        moved_none = spec(f"m{i:02d}", "1.0", ("hep", "root"), compiler="none", os="ubuntu24.04")
        write_page(root / "new", f"pkg{i:02d}", [kept_new, moved_none, *new, hep_new])
    for i in range(400):
        name = f"py-filler-with-a-long-name-{i:03d}"
        write_page(root / "old", name, [spec(f"f{i:03d}", "1.0", ("e4s", "root"))])
        write_page(root / "new", name, [spec(f"e{i:03d}", "1.1", ("e4s", "root"))])


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("day")
    _day(root)
    return root


def test_a_compiler_move_among_specs_with_no_compiler_is_a_stack_move(day: Path) -> None:
    report = diff_snapshots(*load_pair(str(day / "old"), str(day / "new")))
    data = as_json(report)
    assert check_report(data, day / "old", day / "new") == []
    moves = {(m["stack"], m["dimension"]): m for m in data["stack_moves"]}
    assert moves[(STACK, "compiler")] == STACK_MOVE
    assert moves[("hep", "os")]["specs_old"] == moves[("hep", "os")]["specs_new"] == 60
    assert (moves[("hep", "compiler")]["specs_old"], moves[("hep", "compiler")]["to"]) == (
        30,
        ["gcc@13.2.0"],
    )
    assert set(moves) == {(STACK, "compiler"), ("hep", "os"), ("hep", "compiler")}
    text = render_text(report)
    assert (
        f"{STACK}: every compiled spec: compiler gcc@12.4.0 → gcc@12.5.0 "
        "(60 → 90 specs; 30 specs with no compiler)"
    ) in text


@pytest.mark.parametrize("budget", [[], ["--for", "github"]], ids=["whole", "github"])
def test_the_move_is_named_on_the_first_screen(
    day: Path, budget: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, markdown, _ = run([str(day / "old"), str(day / "new"), *budget], capsys)
    assert code == 0
    if budget:
        assert len(markdown) <= 65536 and "left out to fit the size limit" in markdown
    screen = markdown.split("<details>")[0]
    assert (
        f"- **Stack moved:** `{STACK}`, every compiled spec: compiler `gcc@12.4.0` → "
        "`gcc@12.5.0` (60 → 90 specs; 30 specs with no compiler)\n"
    ) in screen
    assert (
        "- **Stack moved:** `hep`, every spec: os `ubuntu22.04` → `ubuntu24.04` (60 → 60 specs); "
        "every compiled spec: compiler `gcc@12.4.0` → `gcc@13.2.0` "
        "(30 → 30 specs; 30 specs with no compiler)\n"
    ) in screen


# ---------------------------------------------------------------- the claim checker learns them


def _report(old: Path, new: Path) -> dict[str, Any]:
    return as_json(diff_snapshots(*load_pair(str(old), str(new))))


def test_the_checker_catches_a_root_move(tmp_path: Path) -> None:
    """Every spec moved os: `e4s` moved, and `root` (holding the same specs) is no stack."""
    write_page(tmp_path / "old", "zlib", [spec("z1", "1.3"), spec("z2", "1.2")])
    write_page(tmp_path / "new", "zlib", [spec("z3", "1.3", os="ubuntu24.04")])
    data = _report(tmp_path / "old", tmp_path / "new")
    assert check_report(data, tmp_path / "old", tmp_path / "new") == []
    assert [(m["stack"], m["dimension"]) for m in data["stack_moves"]] == [("e4s", "os")]
    data["stack_moves"].append(dict(data["stack_moves"][0], stack="root"))
    found = check_report(data, tmp_path / "old", tmp_path / "new")
    assert [e for e in found if "stack move not true" in e and "'root'" in e]


def test_the_checker_catches_a_move_of_a_stack_whose_packages_were_replaced(
    tmp_path: Path,
) -> None:
    _copy(_page(HISTORY, "py-build"), tmp_path / "old")
    _copy(_page(SEEDS, "py-mpi4py"), tmp_path / "new")
    data = _report(tmp_path / "old", tmp_path / "new")
    data["stack_moves"].append(
        {
            "tag": "develop",
            "stack": "e4s-oneapi",
            "dimension": "compiler",
            "from": ["intel-oneapi-compilers@2024.2.0"],
            "to": ["intel-oneapi-compilers@2025.1.0"],
            "specs_old": 1,
            "specs_new": 10,
            "specs_no_compiler_old": 0,
            "specs_no_compiler_new": 0,
        }
    )
    assert any(
        "stack move not true" in e for e in check_report(data, tmp_path / "old", tmp_path / "new")
    )


def test_the_checker_catches_a_missed_move_among_no_compiler_and_its_counts(day: Path) -> None:
    data = _report(day / "old", day / "new")
    moves = data["stack_moves"]
    missing = [m for m in moves if not (m["stack"] == STACK and m["dimension"] == "compiler")]
    assert check_report(dict(data, stack_moves=missing), day / "old", day / "new") != []
    miscounted = copy.deepcopy(moves)
    for m in miscounted:
        if m["stack"] == STACK:
            m["specs_old"], m["specs_no_compiler_old"] = 90, 0  # none not set apart
    assert check_report(dict(data, stack_moves=miscounted), day / "old", day / "new") != []


# ------------------------------------- specs with no compiler on pages that did not change


def _quiet_day(root: Path, stray: bool = False) -> None:
    """Synthetic: every compiled spec of STACK moves gcc@12.4.0 → gcc@12.5.0 on pages that
    change, and `hep`'s compiled specs move os and compiler, while the specs with no compiler of
    both stacks (pure-Python packages) sit on pages byte-identical on both sides; with `stray`,
    one page that did not change also holds a compiled spec of STACK on gcc@12.4.0. Enough other
    version bumps make the report larger than a GitHub comment."""
    for i in range(30):
        old = [spec(f"a{i:02d}{k}", "2.0", (STACK, "root"), compiler="gcc@12.4.0") for k in "xy"]
        new = [spec(f"b{i:02d}{k}", "2.0", (STACK, "root"), compiler="gcc@12.5.0") for k in "xyz"]
        hep_old = spec(f"h{i:02d}", "2.0", ("hep", "root"), compiler="gcc@12.4.0")
        hep_new = spec(f"g{i:02d}", "2.0", ("hep", "root"), compiler="gcc@13.2.0", os="rocky9")
        write_page(root / "old", f"pkg{i:02d}", [*old, hep_old])
        write_page(root / "new", f"pkg{i:02d}", [*new, hep_new])
        pure = [spec(f"n{i:02d}", "1.0", (STACK, "hep", "root"), compiler="none")]
        if stray and i == 0:
            pure.append(spec("s00", "1.0", (STACK, "root"), compiler="gcc@12.4.0"))
        for side in ("old", "new"):
            write_page(root / side, f"py-pure{i:02d}", pure)
    for i in range(400):
        name = f"py-filler-with-a-long-name-{i:03d}"
        write_page(root / "old", name, [spec(f"f{i:03d}", "1.0", ("e4s", "root"))])
        write_page(root / "new", name, [spec(f"e{i:03d}", "1.1", ("e4s", "root"))])


QUIET_MOVE = (
    f"- **Stack moved:** `{STACK}`, every compiled spec: compiler `gcc@12.4.0` → `gcc@12.5.0` "
    "(60 → 90 specs; 30 specs with no compiler)\n"
)
QUIET_HEP = (
    "- **Stack moved:** `hep`, every compiled spec: compiler `gcc@12.4.0` → `gcc@13.2.0` "
    "(30 → 30 specs; 30 specs with no compiler)\n"
)
QUIET_TEXT = (
    f"{STACK}: every compiled spec: compiler gcc@12.4.0 → gcc@12.5.0 "
    "(60 → 90 specs; 30 specs with no compiler)"
)


@pytest.fixture(scope="module")
def quiet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("quiet")
    _quiet_day(root)
    return root


def _first_screen(markdown: str) -> str:
    return markdown.split("<details>")[0]


def test_a_compiler_move_whose_no_compiler_specs_did_not_change_is_a_stack_move(
    quiet: Path,
) -> None:
    """The specs with no compiler are all on unchanged pages: they are set aside on both sides;
    `hep`'s os move is no move (its specs on unchanged pages stay on ubuntu22.04)."""
    data = _report(quiet / "old", quiet / "new")
    assert check_report(data, quiet / "old", quiet / "new") == []
    moves = {(m["stack"], m["dimension"]): m for m in data["stack_moves"]}
    assert set(moves) == {(STACK, "compiler"), ("hep", "compiler")}
    assert moves[(STACK, "compiler")] == STACK_MOVE
    hep = moves[("hep", "compiler")]
    assert (hep["from"], hep["to"], hep["specs_old"], hep["specs_new"]) == (
        ["gcc@12.4.0"],
        ["gcc@13.2.0"],
        30,
        30,
    )
    assert (hep["specs_no_compiler_old"], hep["specs_no_compiler_new"]) == (30, 30)


@pytest.mark.parametrize("budget", [[], ["--for", "github"]], ids=["whole", "github"])
def test_the_quiet_move_is_named_on_the_first_screen_and_in_text(
    quiet: Path, budget: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, markdown, _ = run([str(quiet / "old"), str(quiet / "new"), *budget], capsys)
    assert code == 0
    if budget:
        assert len(markdown) <= 65536 and "left out to fit the size limit" in markdown
    screen = _first_screen(markdown)
    assert QUIET_MOVE in screen and QUIET_HEP in screen
    assert "os `ubuntu22.04` → `rocky9`" not in screen
    code, text, _ = run([str(quiet / "old"), str(quiet / "new"), "--format", "text"], capsys)
    assert code == 0 and QUIET_TEXT in text


def test_a_compiled_spec_on_an_unchanged_page_that_kept_its_compiler_is_no_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _quiet_day(tmp_path, stray=True)
    data = _report(tmp_path / "old", tmp_path / "new")
    assert check_report(data, tmp_path / "old", tmp_path / "new") == []
    assert [(m["stack"], m["dimension"]) for m in data["stack_moves"]] == [("hep", "compiler")]
    code, markdown, _ = run([str(tmp_path / "old"), str(tmp_path / "new")], capsys)
    assert code == 0 and f"`{STACK}`, every" not in markdown


@pytest.mark.parametrize("stray", [False, True], ids=["move", "stray"])
def test_git_mode_cold_and_warm_says_what_directories_say(
    stray: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In git mode the unchanged pages are only counted (cold: from their text; warm: from the
    tally cache): the move, or its absence, is the same, in the same bytes."""
    from gitcases import as_directories, committed, snapdiff

    _quiet_day(tmp_path / "day", stray)
    repo = committed(tmp_path / "day", tmp_path / "repo")
    cache = tmp_path / "cache"
    cold = snapdiff(repo, cache, "--format", "json")
    assert any(cache.rglob("*")), "a cold run stores its tallies"
    assert snapdiff(repo, cache, "--format", "json") == cold, "warm"

    def directories(*extra: str) -> str:
        with monkeypatch.context() as here:  # `old` and `new` as folders, named as the tags
            here.chdir(tmp_path / "day")
            code, out, _ = run(["old", "new", *extra], capsys)
        assert code == 0
        return out

    assert as_directories(cold) == json.loads(directories("--format", "json"))
    for extra in ([], ["--for", "github"], ["--format", "text"]):
        # warm, the same report: the same bytes, but for the commit ids and dates only git
        # revisions have; cut to a size limit, the longer title may leave one row fewer: the
        # first screen is the same
        warm = re.sub(r" \(`?[0-9a-f]{7}`?, [0-9-]{10}\)", "", snapdiff(repo, cache, *extra))
        folders = directories(*extra)
        if extra == ["--for", "github"]:
            warm, folders = (t.split("\n### ")[0].split("\n", 1)[1] for t in (warm, folders))
        assert warm == folders
        said = QUIET_TEXT if extra[-1:] == ["text"] else QUIET_MOVE
        assert (said in warm) is not stray
