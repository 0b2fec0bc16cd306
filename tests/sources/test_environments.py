"""Environments as snapshots (SPEC section 7, issue 44): a lockfile, its folder, an install
database, `REV:path/spack.lock` and the lockfiles of a git revision all read, their counts
recounted from `concrete_specs` with `json`; environments matched by name, roots said first."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from clirun import run
from gitrepo import commit, git, new_repo

TESTS = Path(__file__).parents[1]
DATA = TESTS / "data" / "environments"
CASE = TESTS / "cases" / "environment-casper"
V8_INDEX = TESTS / "data" / "spack-index" / "db-v8-index.json"

# Every format a fixture shows, read to a snapshot (lockfile v1-v8 and an install database v9).
READABLE = [
    "lockfile-v1.spack.lock",
    "lockfile-v2.spack.lock",
    "lockfile-v3.spack.lock",
    "lockfile-v4.spack.lock",
    "casper-v5.spack.lock",
    "all-pythons-v6.spack.lock",
    "lockfile-v7-groups.spack.lock",
    "lockfile-v8.spack.lock",
    "lockfile-include-concrete.spack.lock",
]


def report(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run([*argv, "--format", "json"], capsys)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def recount(lockfile: Path) -> tuple[int, int]:
    """(packages, specs) of a lockfile (v4 and later: keyed by DAG hash), with `json` alone."""
    nodes = json.loads(lockfile.read_text())["concrete_specs"]
    return len({node["name"] for node in nodes.values()}), len(nodes)


@pytest.mark.parametrize("name", READABLE)
def test_every_lockfile_format_reads_against_itself_as_no_change(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(DATA / name)
    data = report([path, path], capsys)
    assert data["summary"]["specs_added"] == data["summary"]["specs_removed"] == 0
    assert data["new"]["specs"] > 0 and data["new"]["tags"] == []
    assert [e["status"] for e in data["environments"]] == ["unchanged"]


def test_a_lockfile_a_folder_and_rev_path_give_the_counts_of_concrete_specs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = CASE / "old" / "spack.lock", CASE / "new" / "spack.lock"
    (packages_old, specs_old), (packages_new, specs_new) = recount(old), recount(new)
    by_file = report([str(old), str(new)], capsys)
    assert (by_file["old"]["packages"], by_file["old"]["specs"]) == (packages_old, specs_old)
    assert (by_file["new"]["packages"], by_file["new"]["specs"]) == (packages_new, specs_new)
    by_folder = report([str(CASE / "old"), str(CASE / "new")], capsys)
    repo = new_repo(tmp_path / "repo")
    for day, side in enumerate((old, new), start=1):
        (repo / "envs" / "casper").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(side, repo / "envs" / "casper" / "spack.lock")
        commit(repo, f"day {day}", day)
    sides = ["HEAD~1:envs/casper/spack.lock", "HEAD:envs/casper/spack.lock"]
    by_path = report([*sides, "--repo", str(repo)], capsys)
    by_revision = report(["HEAD~1", "HEAD", "--repo", str(repo)], capsys)
    untagged = [{**p, "tag": ""} for p in by_file["packages"]]
    for found in (by_folder, by_path, by_revision):
        assert found["summary"] == by_file["summary"]
        assert [{**p, "tag": ""} for p in found["packages"]] == untagged
    assert by_revision["environments"][0]["name"] == "envs/casper"
    assert by_path["environments"][0]["name"] == "envs/casper"
    assert [e["roots_added"] for e in by_revision["environments"]] == [
        e["roots_added"] for e in by_file["environments"]
    ]


def test_roots_added_removed_and_reconcretized_are_a_recount_of_roots(
    capsys: pytest.CaptureFixture[str],
) -> None:
    old, new = (json.loads((CASE / s / "spack.lock").read_text()) for s in ("old", "new"))
    before = {r["spec"]: r["hash"] for r in old["roots"]}
    after = {r["spec"]: r["hash"] for r in new["roots"]}
    (env,) = report([str(CASE / "old"), str(CASE / "new")], capsys)["environments"]
    assert {r["spec"] for r in env["roots_added"]} == after.keys() - before.keys()
    assert {r["spec"] for r in env["roots_removed"]} == before.keys() - after.keys()
    moved = {k for k in before.keys() & after.keys() if before[k] != after[k]}
    assert {r["spec"] for r in env["roots_reconcretized"]} == moved
    for root in env["roots_added"]:
        node = new["concrete_specs"][root["hash"]]
        assert (root["name"], root["version"]) == (node["name"], node["version"])
        assert root["compiler"] == f"{node['compiler']['name']}@{node['compiler']['version']}"
    for side, said in ((old, env["spack_old"]), (new, env["spack_new"])):
        assert said == {"version": side["spack"]["version"], "commit": side["spack"]["commit"]}
    assert (env["lockfile_old"], env["lockfile_new"]) == (5, 5)


def test_new_duplicates_and_compilers_are_a_recount(capsys: pytest.CaptureFixture[str]) -> None:
    sides = [
        json.loads((CASE / s / "spack.lock").read_text())["concrete_specs"] for s in ("old", "new")
    ]

    def counts(nodes: dict[str, Any]) -> dict[str, int]:
        found: dict[str, int] = {}
        for node in nodes.values():
            found[node["name"]] = found.get(node["name"], 0) + 1
        return found

    def compilers(nodes: dict[str, Any]) -> set[str]:
        return {f"{n['compiler']['name']}@{n['compiler']['version']}" for n in nodes.values()}

    before, after = counts(sides[0]), counts(sides[1])
    (env,) = report([str(CASE / "old"), str(CASE / "new")], capsys)["environments"]
    assert env["duplicates_new"] == sorted(
        n for n, k in after.items() if k > 1 and before.get(n, 0) <= 1
    )
    assert env["compilers_added"] == sorted(compilers(sides[1]) - compilers(sides[0]))
    assert env["compilers_removed"] == sorted(compilers(sides[0]) - compilers(sides[1]))


def test_the_first_screen_names_the_environment_its_roots_and_the_spack_commit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run([str(CASE / "old"), str(CASE / "new")], capsys)
    first = out.split("\n### ")[0]
    assert code == 0 and "## Environment changes: " in first and "| Stacks |" not in first
    assert "- **Spack** `0.21.0.dev0` (`7cf939f`) → `0.21.0.dev0` (`10b786f`)" in first
    assert "**+1 root added:** `visit@3.3.3%gcc@12.2.0 ^openmpi@4.1.5%gcc@12.2.0`" in first
    assert "**1 root re-concretized:** `ncl` (`6.6.2` `%gcc@7.5.0`, `a6skz5v` → `fk3ls7g`)" in first


def test_a_duplicates_gate_fails_on_a_new_duplicate_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    old, new = str(CASE / "old"), str(CASE / "new")
    code, _, err = run([old, new, "--fail-on", "duplicates", "-o", "/dev/null"], capsys)
    assert code == 1 and "gate failed: duplicates (1 package newly has more than one" in err
    assert "netcdf-c" in err
    code, _, err = run([new, new, "--fail-on", "duplicates", "-o", "/dev/null"], capsys)
    assert code == 0 and "gate" not in err  # netcdf-c is a duplicate on both sides: not new


def test_a_root_naming_another_packages_node_is_a_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(DATA / "acts-misrooted-v5.spack.lock")
    code, _, err = run([path, path, "-o", "/dev/null"], capsys)
    warned = [line for line in err.splitlines() if "its version and compiler are not said" in line]
    assert code == 0 and len(warned) == 5, err
    tbb = "root `intel-tbb@2021.12.0` names the hash of the node of `root`"
    assert any(tbb in w for w in warned)


def test_an_unknown_lockfile_version_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(DATA / "lockfile-v99.spack.lock")
    code, out, err = run([path, path], capsys)
    assert code == 2 and not out and err.count("\n") == 1
    assert err.startswith(f"snapdiff: error: OLD: {path}: lockfile version 99") and "(1-8)" in err


def test_an_install_database_reads_its_explicit_records_as_roots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prefix = tmp_path / "opt" / "spack" / ".spack-db"
    prefix.mkdir(parents=True)
    shutil.copyfile(DATA / "database-v9.json", prefix / "index.json")
    installs = json.loads((DATA / "database-v9.json").read_text())["database"]["installs"]
    data = report([str(prefix / "index.json"), str(tmp_path)], capsys)
    assert data["new"]["specs"] == len(installs) and data["summary"]["specs_added"] == 0
    (env,) = data["environments"]
    assert env["status"] == "unchanged" and env["lockfile_new"] is None


def test_a_lockfile_against_an_index_of_the_same_specs_is_no_spec_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes = json.loads((CASE / "new" / "spack.lock").read_text())["concrete_specs"]
    installs = {h: {"spec": n, "in_buildcache": True} for h, n in nodes.items()}
    index = tmp_path / "build_cache" / "index.json"
    index.parent.mkdir()
    index.write_text(json.dumps({"database": {"version": "7", "installs": installs}}))
    data = report([str(CASE / "new" / "spack.lock"), str(index), "--stack-name", "root"], capsys)
    summary = data["summary"]
    assert summary["specs_added"] == summary["specs_removed"] == summary["specs_changed"] == 0


def test_two_environments_of_a_repository_are_matched_by_name_and_log_walks_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = new_repo(tmp_path / "repo")
    steady = json.loads((DATA / "all-pythons-v6.spack.lock").read_text())
    for day, side in enumerate(("old", "new"), start=1):
        for name, text in (("casper", (CASE / side / "spack.lock").read_text()),):
            (repo / "envs" / name).mkdir(parents=True, exist_ok=True)
            (repo / "envs" / name / "spack.lock").write_text(text)
        (repo / "spack.lock").write_text(json.dumps(steady))
        commit(repo, f"day {day}", day)
    data = report(["HEAD~1", "HEAD", "--repo", str(repo)], capsys)
    assert [(e["name"], e["status"]) for e in data["environments"]] == [
        (".", "unchanged"),
        ("envs/casper", "changed"),
    ]
    assert {p["tag"] for p in data["packages"]} == {"envs/casper"}
    head = git(repo, "rev-parse", "HEAD").strip()
    code, out, err = run(["log", "HEAD~1..HEAD", "--repo", str(repo), "--format", "json"], capsys)
    assert code == 0, err
    (step,) = json.loads(out)["steps"]
    assert (step["commit"], step["subject"]) == (head, "day 2")
    assert step["summary"] == data["summary"]


def test_log_says_each_steps_environment_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = new_repo(tmp_path / "repo")
    for day, side in enumerate(("old", "new"), start=1):
        shutil.copyfile(CASE / side / "spack.lock", repo / "spack.lock")
        commit(repo, f"day {day}", day)
    code, out, err = run(["log", "HEAD~1..HEAD", "--repo", str(repo)], capsys)
    assert code == 0, err
    assert out.splitlines()[1].startswith("## Environment history: ")
    assert "1 commit changed an environment." in out
    assert "- **+1 root added:** `visit@3.3.3%gcc@12.2.0 ^openmpi@4.1.5%gcc@12.2.0`" in out
    assert "- **1 root re-concretized:** `ncl`" in out


def test_log_between_branches_that_share_no_history_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """NCAR keeps each release as a branch of its own history (casper's 23.09 and 23.10 share no
    commit): `log 23.09..23.10` is then every commit of 23.10, down to one before its lockfile.
    The error says why and what to run instead; a range that shares history says what it said."""
    repo = new_repo(tmp_path / "repo")
    (repo / "README").write_text("an environment to come\n")
    commit(repo, "start", 1)
    shutil.copyfile(CASE / "old" / "spack.lock", repo / "spack.lock")
    commit(repo, "23.09", 2)
    git(repo, "rm", "-q", "spack.lock")
    commit(repo, "lockfile gone a day", 3)
    shutil.copyfile(CASE / "old" / "spack.lock", repo / "spack.lock")
    commit(repo, "lockfile back", 4)
    git(repo, "branch", "r23.09")
    git(repo, "checkout", "-q", "--orphan", "r23.10")
    git(repo, "rm", "-q", "-r", "--cached", ".")
    (repo / "spack.lock").unlink()
    commit(repo, "start again", 5)
    shutil.copyfile(CASE / "new" / "spack.lock", repo / "spack.lock")
    commit(repo, "23.10", 6)
    code, _, err = run(["log", "r23.09..r23.10", "--repo", str(repo)], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "holds no spack.lock (r23.09 and r23.10 share no history, so r23.09..r23.10 is" in err
    assert "compare the two with snapdiff r23.09 r23.10)" in err
    code, _, err = run(["log", "r23.09~2..r23.09", "--repo", str(repo)], capsys)
    assert code == 2 and "share no history" not in err, err
    assert "give a range whose every commit holds the environments" in err
    code, _, err = run(["r23.09", "r23.10", "--repo", str(repo)], capsys)
    assert code == 0, err


def _edited(tmp_path: Path, side: str, edit: Any) -> str:
    """The new casper lockfile with its roots edited, as `side/spack.lock` under tmp_path."""
    data = json.loads((CASE / "new" / "spack.lock").read_text())
    data["roots"] = edit(data["roots"])
    (tmp_path / side).mkdir()
    (tmp_path / side / "spack.lock").write_text(json.dumps(data, separators=(",", ":")))
    return str(tmp_path / side)


def test_a_root_added_with_no_spec_change_is_a_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dependency made a root (real: casper a2df620 -> 0345338, `autoconf-archive`)."""
    old = _edited(tmp_path, "old", lambda roots: roots[1:])
    code, out, _ = run([old, str(CASE / "new"), "--exit-code"], capsys)
    assert code == 1 and "No changes" not in out
    first = json.loads((CASE / "new" / "spack.lock").read_text())["roots"][0]["spec"]
    assert f"**+1 root added:** `{first}`" in out
    code, out, _ = run([old, str(CASE / "new"), "-f", "text"], capsys)
    assert "no changes" not in out and "+1 root added: " in out


def test_a_root_respelled_with_its_hash_kept_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Spack 0.22 rewrote `cflags="…"` as `cflags='…'` (real: casper a9e8638 -> 6616c1b)."""

    def respelled(roots: list[dict[str, str]]) -> list[dict[str, str]]:
        return [{**roots[0], "spec": roots[0]["spec"] + " cflags='-O2'"}, *roots[1:]]

    old = _edited(tmp_path, "old", lambda roots: roots)
    new = _edited(tmp_path, "new", respelled)
    (env,) = report([old, new], capsys)["environments"]
    (said,) = env["roots_respelled"]
    assert said["new"] == said["old"] + " cflags='-O2'" and env["status"] == "changed"
    # matched by text exactly as written (SPEC section 7): also a root removed and one added
    assert [r["spec"] for r in env["roots_removed"]] == [said["old"]]
    assert [r["spec"] for r in env["roots_added"]] == [said["new"]]
    code, out, _ = run([old, new], capsys)
    assert code == 0
    assert "- **Root respelled** (counted as removed and added; the same spec, `" in out


def test_a_format_change_alone_is_said_with_both_versions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same nine specs written as lockfile v4 (constructed) and v5 (real): no spec changed,
    the lockfile version and the Spack that wrote it did."""
    v4, v5 = str(DATA / "lockfile-v4.spack.lock"), str(DATA / "casper-v5.spack.lock")
    code, out, _ = run([v4, v5, "--exit-code", "-f", "text"], capsys)
    assert code == 1 and "specs    9 → 9 (+0 −0 ~0)" in out
    assert "Spack unknown → 0.22.0.dev0 (ae88edc), lockfile v4 → lockfile v5" in out


def test_two_texts_of_one_hash_pair_with_one_new_text_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each text added is the respelling of at most one text removed."""

    def twice(roots: list[dict[str, str]]) -> list[dict[str, str]]:
        return [{**roots[0], "spec": roots[0]["spec"] + s} for s in (" +a", " +b")]

    old = _edited(tmp_path, "old", twice)
    new = _edited(tmp_path, "new", lambda roots: [{**roots[0], "spec": roots[0]["spec"] + " +c"}])
    (env,) = report([old, new], capsys)["environments"]
    assert [(r["old"][-2:], r["new"][-2:]) for r in env["roots_respelled"]] == [("+a", "+c")]
    assert len(env["roots_removed"]) == 2 and len(env["roots_added"]) == 1


def test_one_hash_of_two_packages_in_two_environments_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 47: the environments of a revision share one graph by hash; a hash one lockfile
    gives as another package than the other does (a DAG hash covers the name: one lockfile is
    wrong) had the later record win silently, with a warning about edges at most."""
    repo = new_repo(tmp_path / "repo")
    lockfile = json.loads((DATA / "casper-23.09-cut.spack.lock").read_text())
    digest, leaf = next(
        (h, s) for h, s in lockfile["concrete_specs"].items() if "dependencies" not in s
    )
    (repo / "a").mkdir()
    (repo / "a" / "spack.lock").write_text(json.dumps(lockfile))
    leaf["name"] = f"renamed-{leaf['name']}"
    (repo / "b").mkdir()
    (repo / "b" / "spack.lock").write_text(json.dumps(lockfile))
    commit(repo, "two environments", 1)
    code, out, err = run(["HEAD", "HEAD", "--repo", str(repo)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err == (
        f"snapdiff: error: HEAD:b/spack.lock: hash {digest} is a spec of {leaf['name']} here"
        f" and of {leaf['name'].removeprefix('renamed-')} in HEAD:a/spack.lock (a hash is one"
        " spec: concretize the wrong environment again, spack concretize -f)\n"
    )
