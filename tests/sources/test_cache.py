"""Git mode in O(changed) and its tally cache: the same bytes cold, warm and corrupted.

Every golden case is committed to a repository (its `old` and `new` as two tagged commits) and
compared in git mode with an empty cache, a warm one, and one whose every file was damaged; the
JSON must also be the golden one (but for the commit ids and dates only git revisions have).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from clirun import run
from gitcases import as_directories, committed, snapdiff
from gitrepo import commit, git, new_repo
from hypothesis import given
from hypothesis import strategies as st
from pagegen import as_json, spec, write_page
from snapshotgen import snapshots, write

from snapdiff.compare.diff import diff_snapshots
from snapdiff.model import Filters
from snapdiff.sources import LoadOptions, load_history, load_pair
from snapdiff.sources.git import tallycache

CASES = Path(__file__).parents[1] / "cases"
# catalogue pages in git: the build-cache index cases are no repository of pages
# Catalogue cases: indexes and environments have no tallies to cache
CASE_NAMES = sorted(
    p.name
    for p in CASES.iterdir()
    if (p / "old").is_dir()
    and not any((p / "old").rglob("index.json"))
    and not any((p / "old").rglob("spack.lock"))
)


def damage(folder: Path, how: str) -> int:
    """Damage every tally file in the folder one way; how many there were."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    for path in files:
        data = path.read_bytes()
        header, _, body = data.partition(b"\n")
        if how == "truncated":
            path.write_bytes(data[: len(data) // 2])
        elif how == "flipped":
            middle = len(body) // 2
            flipped = body[:middle] + bytes([body[middle] ^ 1]) + body[middle + 1 :]
            path.write_bytes(header + b"\n" + flipped)
        elif how == "foreign":
            path.write_bytes(header.replace(b"snapdiff-tally", b"other-tool") + b"\n" + body)
        elif how == "garbage":
            path.write_bytes(os.urandom(300))
        elif how == "empty":
            path.write_bytes(b"")
        elif how == "fifo":
            path.unlink()
            os.mkfifo(path)
        elif how == "folder":
            path.unlink()
            path.mkdir()
    return len(files)


@pytest.mark.parametrize("case", CASE_NAMES)
def test_golden_cases_in_git_mode_cold_warm_and_corrupted(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cache only changes how pages are read: the JSON report (every count and claim the
    Markdown renders) is the case's, cold, warm, from a damaged cache and from none."""
    repo = committed(CASES / case, tmp_path / "repo")
    cache = tmp_path / "cache"
    cold = snapdiff(repo, cache, "--format", "json")
    assert any(cache.rglob("*")), "a cold run stores its tallies"
    expected = json.loads((CASES / case / "expected.json").read_text(encoding="utf-8"))
    assert as_directories(cold) == expected
    assert snapdiff(repo, cache, "--format", "json") == cold, "warm"
    damage(cache, "flipped")
    capsys.readouterr()
    assert snapdiff(repo, cache, "--format", "json") == cold
    assert "ignoring the cache file" in capsys.readouterr().err
    assert snapdiff(repo, cache, "--format", "json") == cold, "rebuilt"
    assert "ignoring" not in capsys.readouterr().err
    assert snapdiff(repo, cache, "--format", "json", "--no-cache") == cold


@pytest.mark.parametrize(
    "how", ["truncated", "flipped", "foreign", "garbage", "empty", "fifo", "folder"]
)
def test_a_damaged_cache_file_is_ignored_with_a_warning_and_rebuilt(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = committed(CASES / "real-v1-v2", tmp_path / "repo")
    cache = tmp_path / "cache"
    cold = snapdiff(repo, cache)
    assert damage(cache, how) >= 2
    capsys.readouterr()
    assert snapdiff(repo, cache) == cold
    err = capsys.readouterr().err
    assert "ignoring the cache file" in err and "rebuilding it" in err
    assert all(line.startswith("snapdiff: warning: ") for line in err.splitlines())
    if how != "folder":  # a folder in a file's place cannot be replaced by one
        assert snapdiff(repo, cache) == cold
        assert "ignoring" not in capsys.readouterr().err


def daily_repo(path: Path) -> Path:
    """Three daily commits: one spec added, then one page removed and another changed."""
    repo = new_repo(path)
    write_page(repo, "zlib", [spec("a", "1.0")])
    write_page(repo, "cmake", [spec("c", "3.1", ("e4s", "root"))])
    write_page(repo, "hdf5", [spec("h", "1.14")])
    commit(repo, "day 1", 1)
    write_page(repo, "zlib", [spec("a", "1.0"), spec("b", "1.1")])
    commit(repo, "day 2", 2)
    (repo / "_cache" / "develop" / "hdf5" / "specs.md").unlink()
    write_page(repo, "cmake", [spec("c", "3.1", ("root",))])
    commit(repo, "day 3", 3)
    return repo


def blobs_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the blobs git is asked for from now on (the list fills as they are)."""
    from snapdiff.sources.git import repo as git_source

    asked: list[str] = []
    real = git_source.GitRepo.read_blobs

    def read_blobs(self: Any, ids: Any, *args: Any) -> Any:
        wanted = list(ids)
        asked.extend(wanted)
        return real(self, wanted, *args)

    monkeypatch.setattr(git_source.GitRepo, "read_blobs", read_blobs)
    return asked


def test_a_daily_chain_reads_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Day 2 to 3 after day 1 to 2: the stored tally of day 2 counts what day 3 kept, and no
    unchanged page is read; the report is the one of a run with no cache."""
    repo = daily_repo(tmp_path / "repo")
    cache = tmp_path / "cache"
    options = LoadOptions(repo=str(repo), cache_dir=str(cache))
    load_pair("HEAD~2", "HEAD~1", options)
    asked = blobs_read(monkeypatch)
    warm = load_pair("HEAD~1", "HEAD", options)
    changed = {
        git(repo, "rev-parse", f"{rev}:_cache/develop/{name}/specs.md")
        for rev, name in (("HEAD~1", "hdf5"), ("HEAD~1", "cmake"), ("HEAD", "cmake"))
    }
    assert set(asked) == changed
    assert warm.new.rest.pages == {"develop": 1} and warm.new.rest.specs == {"develop": 2}
    cold = load_pair("HEAD~1", "HEAD", LoadOptions(repo=str(repo)))
    assert warm == cold


def test_the_cache_is_bounded_and_written_atomically(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tallycache, "MAX_BYTES", 1)  # any second file is one too many
    repo = daily_repo(tmp_path / "repo")
    cache = tmp_path / "cache"
    for rev in ("HEAD~2", "HEAD~1"):
        load_pair(rev, "HEAD", LoadOptions(repo=str(repo), cache_dir=str(cache)))
    left = [p for p in cache.rglob("*") if p.is_file()]
    assert len(left) == 1, "the least recently used files were dropped"
    assert not [p for p in left if p.name.startswith(".new-")], "no temporary file is left"


def test_a_cache_that_cannot_be_written_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = committed(CASES / "real-v1-v2", tmp_path / "repo")
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would be\n")
    code, out, err = run(["old", "new", "--repo", str(repo), "--cache-dir", str(blocked)], capsys)
    assert code == 0 and "py-ml-dtypes" in out
    assert err.count("cannot write the cache") == 1 and err.startswith("snapdiff: warning: ")


def test_the_default_cache_is_the_users_and_no_cache_writes_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = committed(CASES / "real-v1-v2", tmp_path / "repo")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert run(["old", "new", "--repo", str(repo), "--no-cache"], capsys)[0] == 0
    assert not (tmp_path / "xdg").exists()
    assert run(["old", "new", "--repo", str(repo)], capsys)[0] == 0
    assert any((tmp_path / "xdg" / "snapdiff").rglob("*"))


def test_a_checkout_configuration_may_not_choose_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = committed(CASES / "real-v1-v2", tmp_path / "repo")
    (repo / ".snapdiff.yaml").write_text("cache-dir: /tmp/planted\n")
    monkeypatch.chdir(repo)
    code, _, err = run(["old", "new"], capsys)
    assert code == 2 and "cache-dir is not read from a configuration found in the checkout" in err


@given(snapshots, snapshots, snapshots)
def test_git_mode_warm_and_cold_agree_with_directories(
    first: dict[str, Any], second: dict[str, Any], third: dict[str, Any]
) -> None:
    """A chain of three revisions read warm (each tally derived from the last) gives the
    reports the same snapshots give as folders."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = new_repo(root / "repo")
        folders = []
        for day, pages in enumerate((first, second, third), start=1):
            shutil.rmtree(repo / "_cache", ignore_errors=True)
            write(repo, pages)
            commit(repo, f"day {day}", day)
            folders.append(write(root / f"d{day}", pages))
        options = LoadOptions(repo=str(repo), cache_dir=str(root / "cache"))
        for old, new, a, b in (("HEAD~2", "HEAD~1", 0, 1), ("HEAD~1", "HEAD", 1, 2)):
            got = as_json(diff_snapshots(*load_pair(old, new, options)))
            want = as_json(diff_snapshots(*load_pair(folders[a], folders[b])))
            for data in (got, want):
                for side in ("old", "new"):
                    data[side].update(source=None, commit=None, date=None)
            assert got == want


def test_a_tally_of_real_pages_is_what_this_format_says(tmp_path: Path) -> None:
    """What a tally holds, and how a page is counted, belong to `tallycache.FORMAT`: a change to
    either must bump it (old files are then not found), or a cache would serve counts made by
    other rules. The tally of the real `new` pages is kept per FORMAT and reviewed like a golden
    file (SNAPDIFF_UPDATE_GOLDEN=1 writes it)."""
    repo = committed(CASES / "real-v1-v2", tmp_path / "repo")
    load_pair("old", "new", LoadOptions(repo=str(repo), cache_dir=str(tmp_path / "cache")))
    unit = git(repo, "rev-parse", "new:_cache/develop")
    written = (tmp_path / "cache" / f"tallies-{tallycache.FORMAT}" / unit).read_bytes()
    _, counts, names = written.split(b"\n")  # the header, the counts, the page names
    body = json.loads(counts) | {"names": json.loads(names)}
    expected = Path(__file__).parents[1] / "data" / f"tally-format-{tallycache.FORMAT}.json"
    if os.environ.get("SNAPDIFF_UPDATE_GOLDEN") == "1":
        expected.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n")
    assert body == json.loads(expected.read_text())


def test_a_tally_without_the_specs_with_a_compiler_is_rebuilt_not_misread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """FORMAT 2 tallies lack the specs with a compiler per stack: they sit in another folder,
    and one put under this FORMAT's header, checksum right, is refused and rebuilt."""
    import hashlib

    repo = committed(CASES / "real-v1-v2", tmp_path / "repo")
    cache = tmp_path / "cache"
    cold = snapdiff(repo, cache)
    files = list((cache / f"tallies-{tallycache.FORMAT}").iterdir())
    assert files
    for path in files:
        header, _, body = path.read_bytes().partition(b"\n")
        counts, _, names = body.partition(b"\n")
        data = json.loads(counts)
        del data["compiled"]
        body = json.dumps(data, sort_keys=True).encode() + b"\n" + names
        check = hashlib.sha256(body).hexdigest().encode()
        path.write_bytes(header.rpartition(b" ")[0] + b" " + check + b"\n" + body)
    capsys.readouterr()
    assert snapdiff(repo, cache) == cold
    assert capsys.readouterr().err.count("ignoring the cache file") == len(files)


def test_a_package_twice_in_unchanged_units_is_found_as_without_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page outside `_cache/` claiming a package a tag folder also holds, both unchanged:
    the units' tallies cannot say which page is the second, so both trees are read whole and
    the error (or, keeping going, the page left out) is the one of a run without any cache."""
    from pagegen import page_text

    repo = new_repo(tmp_path / "repo")
    write_page(repo, "zlib", [spec("a", "1.0")])
    (repo / "site").mkdir()
    (repo / "site" / "zlib.md").write_text(page_text("zlib", "develop", [spec("z", "9.0")]))
    write_page(repo, "cmake", [spec("c", "3.1")])
    commit(repo, "one", 1)
    write_page(repo, "cmake", [spec("c", "3.1"), spec("d", "3.2")])
    commit(repo, "two", 2)
    argv = ["HEAD~1", "HEAD", "--repo", str(repo), "--cache-dir", str(tmp_path / "cache")]
    code, _, err = run(argv, capsys)
    assert code == 2 and "second page for zlib under tag develop" in err
    code, _, err = run(["log", "HEAD~1..HEAD", *argv[2:]], capsys)  # a history falls back alike
    assert code == 2 and "second page for zlib under tag develop" in err
    kept = load_pair("HEAD~1", "HEAD", LoadOptions(repo=str(repo), keep_going=True))
    options = LoadOptions(repo=str(repo), keep_going=True)
    assert kept == load_pair("HEAD~1", "HEAD", options, Filters(package=("*",)))
    assert kept.new.spec_count == 3 and kept.new.skipped  # zlib counted once, the second left out


def test_a_library_diff_with_filters_of_a_pair_read_in_o_changed_says_how_to_load_it(
    tmp_path: Path,
) -> None:
    from snapdiff.errors import UsageError

    repo = daily_repo(tmp_path / "repo")
    pair = load_pair("HEAD~1", "HEAD", LoadOptions(repo=str(repo)))
    with pytest.raises(UsageError, match=r"load_pair\(old, new, options, filters\)"):
        diff_snapshots(pair.old, pair.new, Filters(package=("zlib",)))
    cmake = Filters(package=("cmake",))
    whole = load_pair("HEAD~1", "HEAD", LoadOptions(repo=str(repo)), cmake)
    report = diff_snapshots(whole.old, whole.new, cmake)
    assert [p.name for p in report.packages] == ["cmake"]


def test_two_runs_sharing_a_cache_at_once_agree(tmp_path: Path) -> None:
    """Two processes filling one empty cache folder at the same time: each writes through a
    temporary file and a rename, so each gives the report of a run alone and every file left
    is a whole tally."""
    import subprocess
    import sys

    repo = committed(CASES / "real-v1-v2", tmp_path / "repo")
    alone = snapdiff(repo, tmp_path / "alone", "--format", "json")
    cache = tmp_path / "shared"
    argv = [sys.executable, "-m", "snapdiff", "old", "new", "--repo", str(repo)]
    argv += ["--cache-dir", str(cache), "--format", "json"]
    for _ in range(3):
        shutil.rmtree(cache, ignore_errors=True)
        runs = [
            subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in "ab"
        ]
        outputs = [run.communicate() for run in runs]
        assert [out.decode() for out, _ in outputs] == [alone, alone]
        assert [err for _, err in outputs] == [b"", b""]
    files = sorted(p for p in cache.rglob("*") if p.is_file())
    assert files and not [p for p in files if p.name.startswith(".new-")]
    cache_of = tallycache.TallyCache(str(cache), pytest.fail)  # a damaged file would fail here
    assert all(cache_of.get(p.name) is not None for p in files)


def test_a_history_reads_only_the_blobs_each_step_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = daily_repo(tmp_path / "repo")
    options = LoadOptions(repo=str(repo), cache_dir=str(tmp_path / "cache"))
    load_pair("HEAD~2", "HEAD~1", options)  # the start's tallies, as a daily run leaves them
    asked = blobs_read(monkeypatch)
    steps = list(load_history("HEAD~2", "HEAD", options))
    changed = set()
    for old, new in (("HEAD~2", "HEAD~1"), ("HEAD~1", "HEAD")):
        out = git(repo, "diff-tree", "-r", "--no-renames", old, new).splitlines()
        changed |= {sha for line in out for sha in line.split()[2:4] if set(sha) != {"0"}}
    assert len(steps) == 2 and asked and set(asked) <= changed
    assert len(asked) == len(set(asked)), "a blob read twice"


def test_keeping_going_past_bad_pages_agrees_with_a_whole_reading(tmp_path: Path) -> None:
    """A bad page both revisions hold, and one only the newer holds: left out alike whether the
    pair is read in O(changed), warm or cold, or whole; no tally of a side with a bad page is
    kept."""
    repo = new_repo(tmp_path / "repo")
    write_page(repo, "zlib", [spec("a", "1.0")])
    write_page(repo, "cmake", [spec("c", "3.1")])
    (repo / "_cache" / "develop" / "broken").mkdir()
    (repo / "_cache" / "develop" / "broken" / "specs.md").write_text("---\ntitle: [\n---\n")
    commit(repo, "one", 1)
    write_page(repo, "cmake", [spec("c", "3.1"), spec("d", "3.2")])
    write_page(repo, "hdf5", [spec("h", "1.14")])
    (repo / "_cache" / "develop" / "hdf5" / "specs.md").write_text("---\nlayout: cache\n---\n")
    commit(repo, "two", 2)
    cache = tmp_path / "cache"
    options = LoadOptions(repo=str(repo), keep_going=True, cache_dir=str(cache))
    every = Filters(package=("*",))
    whole = load_pair("HEAD~1", "HEAD", LoadOptions(repo=str(repo), keep_going=True), every)
    for _ in ("cold", "warm"):
        pair = load_pair("HEAD~1", "HEAD", options)
        assert as_json(diff_snapshots(*pair)) == as_json(diff_snapshots(*whole))
        assert sorted(pair.new.skipped) == sorted(whole.new.skipped)
        assert len(pair.new.skipped) == 2
    assert not any(cache.rglob("*")), "every tally had a bad page in it"


# One file of a revision, for the property below: a kind, and what it holds.
FILES = st.sampled_from(
    [
        ("page", "zlib", ("a", "b")),
        ("page", "zlib", ("a",)),
        ("page", "cmake", ("c",)),
        ("page", "cmake", ("c", "d")),
        ("page", "hdf5", ("h",)),
        ("bad", "broken", ()),
        ("link", "linked", ()),
        ("outside", "site/extra.md", ("x",)),
        ("outside", "site/zlib.md", ("z",)),  # zlib a second time, from outside `_cache/`
        ("text", "README.md", ()),
        ("mode", "cmake", ("c",)),  # the same page, executable
        ("release", "zlib", ("r",)),  # in another tag folder: another unit
        ("release", "cmake", ("q", "c")),  # c: the same hash under another tag
    ]
)


def _write(repo: Path, files: frozenset[tuple[str, str, tuple[str, ...]]]) -> None:
    from pagegen import page_text

    for item in list(repo.iterdir()):
        if item.name != ".git":
            shutil.rmtree(item) if item.is_dir() and not item.is_symlink() else item.unlink()
    for kind, name, hashes in sorted(files):
        specs = [spec(h, "1.0") for h in hashes]
        page = repo / "_cache" / "develop" / name / "specs.md"
        if kind == "release":
            write_page(repo, name, specs, tag="v1")
        elif kind in ("page", "mode"):
            if not page.exists():
                write_page(repo, name, specs)
            if kind == "mode":
                page.chmod(0o755)
        elif kind in ("bad", "link"):
            page.parent.mkdir(parents=True, exist_ok=True)
            if kind == "bad":
                page.write_text("---\ntitle: [\n---\n")
            else:
                page.symlink_to("/etc/hostname")
        elif kind == "outside":
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(page_text(Path(name).stem, "develop", specs))
        else:
            (repo / name).write_text("not a page\n")


def _outcome(old: str, new: str, options: LoadOptions, filters: Filters | None = None) -> object:
    """What a diff of two revisions says (JSON and the pages left out), or its error."""
    from snapdiff.errors import SnapdiffError

    try:
        pair = load_pair(old, new, options, filters)
    except SnapdiffError as error:
        return error.message
    return as_json(diff_snapshots(*pair)), sorted(pair.old.skipped), sorted(pair.new.skipped)


@given(st.lists(st.frozensets(FILES, min_size=1, max_size=5), min_size=2, max_size=3))
def test_o_changed_cold_and_warm_agree_with_a_whole_reading(
    revisions: list[frozenset[tuple[str, str, tuple[str, ...]]]],
) -> None:
    """Random revisions of good, bad, linked, outside and executable pages and other files:
    each step read in O(changed) (the cache cold, then warm from the step before) says what
    the same step read whole says, keeping going (every bad page left out, the same report);
    not keeping going, it stops where a whole reading stops (with several bad pages, the one
    it names first may differ)."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = new_repo(Path(tmp) / "repo")
        for day, files in enumerate(revisions, start=1):
            _write(repo, files)
            commit(repo, f"day {day}", day)
        for keep_going in (True, False):
            cache = Path(tmp) / f"cache-{keep_going}"
            for step in range(len(revisions) - 1, 0, -1):
                old, new = f"HEAD~{step}", f"HEAD~{step - 1}"
                base = LoadOptions(repo=str(repo), keep_going=keep_going)
                whole = _outcome(old, new, base, Filters(package=("*",)))
                for _ in ("cold or derived", "warm"):
                    got = _outcome(old, new, dataclasses.replace(base, cache_dir=str(cache)))
                    if keep_going or not isinstance(whole, str):
                        assert got == whole
                    else:  # stopped: at a bad page too (with several, maybe another one)
                        assert isinstance(got, str) and got.startswith(("HEAD~", "HEAD:"))


@given(st.lists(st.frozensets(FILES, min_size=1, max_size=5), min_size=2, max_size=4))
def test_a_history_in_o_changed_agrees_with_a_whole_reading(
    revisions: list[frozenset[tuple[str, str, tuple[str, ...]]]],
) -> None:
    """The same random revisions as a history, keeping going: each step read in O(changed),
    reusing what the steps before parsed and counted, says what a whole reading of the range
    says."""
    _history_agrees(revisions)


def _history_agrees(revisions: list[frozenset[tuple[str, str, tuple[str, ...]]]]) -> None:
    from snapdiff.errors import SnapdiffError
    from snapdiff.history import history
    from snapdiff.render.jsonreport import render_history_json

    def walked(options: LoadOptions, filters: Filters | None = None) -> str:
        start = f"HEAD~{len(revisions) - 1}"
        try:
            pairs = load_history(start, "HEAD", options, filters)
            return render_history_json(history(pairs, start, "HEAD"))
        except SnapdiffError as error:
            return error.message

    with tempfile.TemporaryDirectory() as tmp:
        repo = new_repo(Path(tmp) / "repo")
        for day, files in enumerate(revisions, start=1):
            _write(repo, files)
            commit(repo, f"day {day}", day)
        base = LoadOptions(repo=str(repo), keep_going=True)
        whole = walked(base, Filters(package=("*",)))
        for _ in ("cold", "warm"):
            assert walked(dataclasses.replace(base, cache_dir=str(Path(tmp) / "c"))) == whole


_LINK, _ZLIB = ("link", "linked", ()), ("page", "zlib", ("a", "b"))


@pytest.mark.parametrize(
    "revisions",
    [[{_ZLIB}, {_ZLIB, _LINK}], [{_ZLIB, _LINK}, {_ZLIB}]],
    ids=["link added", "link removed"],
)
def test_a_commit_changing_only_a_page_left_out_is_a_step_read_whole_too(
    revisions: list[set[tuple[str, str, tuple[str, ...]]]],
) -> None:
    """Found by the property test above: read whole (with a filter), a commit that added or
    removed only a page left out (a link) was passed over, so `log --keep-going --package '*'`
    said complete where the same log without the filter listed the link."""
    _history_agrees([frozenset(files) for files in revisions])


def test_load_pair_reads_what_the_filters_need(tmp_path: Path) -> None:
    """No filter: two revisions in O(changed), what both hold alike only counted (`rest`). A
    filter by package: every page held, by name. A per-spec filter: every entry read too."""
    repo = daily_repo(tmp_path / "repo")
    options = LoadOptions(repo=str(repo))
    changed = load_pair("HEAD~1", "HEAD", options)
    assert set(changed.new.pages) == {("develop", "cmake")} and changed.new.rest.page_count == 1
    held = load_pair("HEAD~1", "HEAD", options, Filters(package=("zlib",)))
    assert not held.new.rest.page_count and len(held.new.pages) == 2
    assert held.new.pages["develop", "zlib"].entries is None  # the same on both sides: counted
    every = load_pair("HEAD~1", "HEAD", options, Filters(os=("ubuntu*",)))
    assert all(page.entries is not None for page in every.new.pages.values())
    report = diff_snapshots(*every, Filters(os=("ubuntu*",)))
    assert [p.name for p in report.packages] == ["cmake", "hdf5"]


def test_a_pair_is_made_only_of_sides_whose_counted_content_agrees(tmp_path: Path) -> None:
    """Content read only for its counts must be on both sides alike; any other pair is refused
    (one line, not an assertion), however it is made."""
    from snapdiff.errors import SnapdiffError
    from snapdiff.sources import SnapshotPair

    repo = daily_repo(tmp_path / "repo")
    pair = load_pair("HEAD~1", "HEAD", LoadOptions(repo=str(repo)))
    other = load_pair("HEAD~2", "HEAD~1", LoadOptions(repo=str(repo)))
    with pytest.raises(SnapdiffError, match="not a pair: content read only for its counts"):
        SnapshotPair(pair.old, other.old)
    with pytest.raises(SnapdiffError, match="load both sides together with load_pair"):
        pair._replace(new=other.old)
    held = load_pair("HEAD~1", "HEAD", LoadOptions(repo=str(repo)), Filters(package=("*",)))
    with pytest.raises(SnapdiffError, match="not a pair"):
        SnapshotPair(held.old, dataclasses.replace(held.new, pages={}))


def test_a_long_run_holds_only_the_most_recently_used_tallies_in_memory(tmp_path: Path) -> None:
    """A history puts a tally per unit and step: memory keeps the latest, the folder keeps all."""
    from snapdiff.sources.git.tallies import UnitTally

    def tally(number: int) -> UnitTally:
        made = UnitTally({})
        made.pages["develop"] = number
        return made

    units = [f"{number:040x}" for number in range(tallycache.MEMORY_UNITS + 5)]
    in_memory = tallycache.TallyCache(None, print)
    on_disk = tallycache.TallyCache(str(tmp_path), print)
    for number, unit in enumerate(units):
        in_memory.put(unit, tally(number))
        on_disk.put(unit, tally(number))
        assert in_memory.get(units[0]) is not None  # used again: kept longest
    assert in_memory.get(units[1]) is None  # the least recently used, forgotten
    kept = [in_memory.get(unit) for unit in (units[0], units[-1])]
    assert [t.pages["develop"] if t else None for t in kept] == [0, len(units) - 1]
    found = on_disk.get(units[1])  # forgotten in memory, read again from the folder
    assert found is not None and found.pages["develop"] == 1


def test_a_history_holds_in_memory_only_the_tallies_its_next_step_starts_from(
    tmp_path: Path,
) -> None:
    """Each step stores the newer side's tallies; those of the revisions before it are dropped
    from memory (a long `snapdiff log` would otherwise grow by a tally per unit and step)."""
    from snapdiff.sources.git.changed import Revisions
    from snapdiff.sources.git.repo import GitRepo
    from snapdiff.sources.snapshot import PageCache

    repo = new_repo(tmp_path / "repo")
    for day in range(1, 5):
        write_page(repo, "zlib", [spec(f"h{day}", f"1.{day}")])
        write_page(repo, "curl", [spec("c", "8.0")])
        commit(repo, f"day {day}", day)
    git_repo = GitRepo(str(repo))
    revs = [git_repo.resolve(f"HEAD~{back}") for back in (3, 2, 1, 0)]
    tallies = tallycache.TallyCache(None, print)
    revisions = Revisions(git_repo, tallies, PageCache())
    try:
        for older, newer in itertools.pairwise(revs):
            new = revisions.load(older, newer)[1]
            assert [p.name for p in new.pages.values()] == ["zlib"]  # curl: counted, not read
            assert new.rest.page_count == 1
        units = [git_repo.list_tree(git_repo.list_tree(r.tree)[0].sha)[0].sha for r in revs]
    finally:
        git_repo.close()
    assert len(set(units)) == 4  # the develop folder of each revision
    assert tallies.get(units[-1]) is not None
    assert [tallies.get(unit) for unit in units[:-1]] == [None, None, None]
