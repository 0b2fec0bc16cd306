"""A blobless partial clone (`git clone --filter=blob:none`), as a CI job makes one: the blobs a
diff reads are fetched in one batch per side, never one by one, and the report is the full
clone's. Real git throughout, the clone made from a `file://` remote in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import commit, git, new_repo
from pagegen import spec, write_page

from snapdiff.cli import main
from snapdiff.sources import LoadOptions, load_pair
from snapdiff.sources import pages as page_rules

TAGS = ("develop", "v0.23.1")


def pages(repo: Path, step: int) -> None:
    """Forty packages in two cache tags; each step changes the versions of a few of them."""
    for tag in TAGS:
        for number in range(20):
            changed = number % 7 == 0 and tag == "develop"
            made = step if changed else 0
            found = [spec(f"h{tag}{number}s{made}", f"1.{number}.{made}")]
            write_page(repo, f"pkg-{number:02d}", found, tag)


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """main: v1, then two commits; `pr` forks from main~1 and changes one page."""
    repo = new_repo(tmp_path_factory.mktemp("origin") / "catalogue")
    git(repo, "checkout", "-q", "-b", "main")
    (repo / "README.md").write_text("# cache\n")
    pages(repo, 1)
    commit(repo, "one", 1)
    git(repo, "tag", "v1")
    for step in (2, 3):
        pages(repo, step)
        commit(repo, f"step {step}", step)
    git(repo, "checkout", "-q", "-b", "pr", "main~1")
    write_page(repo, "pkg-05", [spec("pr5", "9.9")])
    commit(repo, "a pull request", 4)
    git(repo, "checkout", "-q", "main")
    git(repo, "config", "uploadpack.allowFilter", "true")
    return repo


def clone(origin: Path, into: Path, *how: str) -> Path:
    git(into.parent, "clone", "-q", "--no-checkout", *how, f"file://{origin}", str(into))
    git(into, "branch", "-q", "pr", "origin/pr")
    return into


def untouched(repo: Path) -> dict[str, object]:
    """What a read must leave alone: refs, HEAD, config, the work tree (no index, no files)."""
    return {
        "refs": git(repo, "show-ref"),
        "head": git(repo, "symbolic-ref", "HEAD"),
        "config": (repo / ".git" / "config").read_text(),
        "fetch_head": (repo / ".git" / "FETCH_HEAD").exists(),
        "index": (repo / ".git" / "index").exists(),
        "files": sorted(p.name for p in repo.iterdir()),
    }


def fetches(trace: Path) -> int:
    """How many `git fetch` processes ran, from git's own trace2 events."""
    if not trace.exists():
        return 0
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return sum(1 for e in events if e.get("event") == "cmd_name" and e.get("name") == "fetch")


@pytest.mark.parametrize(
    ("argv", "most"),
    [
        (["HEAD~1", "HEAD"], 2),  # changed pages of both sides; then the unchanged ones, counted
        (["main...pr"], 2),
        (["HEAD~1", "HEAD", "--package", "pkg-0*"], 2),  # a filter: each side read whole
        (["log", "v1..main"], 3),  # the start, then one per commit
    ],
)
def test_a_blobless_clone_fetches_in_one_batch_per_side(
    origin: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    most: int,
) -> None:
    full = clone(origin, tmp_path / "full")
    partial = clone(origin, tmp_path / "partial", "--filter=blob:none")
    before = untouched(partial)
    missing = git(partial, "rev-list", "--objects", "--missing=print", "--all").count("?")
    assert missing > 40  # every blob of the history is missing: nothing checked out

    def run(repo: Path, cache: str) -> str:
        where = ["--repo", str(repo), "--cache-dir", str(tmp_path / cache)]
        assert main([*argv, *where]) == 0
        out, err = capsys.readouterr()
        assert err == ""  # no progress off a terminal
        return out

    expected = run(full, "cache-full")
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    assert run(partial, "cache-partial") == expected
    assert 1 <= fetches(trace) <= most
    assert untouched(partial) == before


def test_progress_names_the_fetch(origin: Path, tmp_path: Path) -> None:
    partial = clone(origin, tmp_path / "partial", "--filter=blob:none")
    said: list[str] = []
    load_pair("HEAD~1", "HEAD", LoadOptions(repo=str(partial), progress=said.append))
    assert said[0].startswith("fetching ") and said[0].endswith(
        " blobs this partial clone lacks, from origin"
    )


def test_a_clone_with_the_blobs_fetches_nothing(
    origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A partial clone whose blobs are all there (checked out, or fetched before) runs no fetch."""
    partial = clone(origin, tmp_path / "partial", "--filter=blob:none")
    options = LoadOptions(repo=str(partial))
    load_pair("HEAD~1", "HEAD", options)
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    load_pair("HEAD~1", "HEAD", options)
    assert fetches(trace) == 0


@pytest.mark.parametrize(
    ("config", "said"),
    [
        ([("remote.origin.url", "/no/such/repo")], "origin: '/no/such/repo' does not appear"),
        (  # the partial clone's remote named, but gone
            [
                ("--unset", "remote.origin.promisor"),
                ("--unset", "remote.origin.partialclonefilter"),
                ("extensions.partialClone", "gone"),
            ],
            "gone: 'gone' does not appear to be a git repository",
        ),
    ],
)
def test_a_failed_fetch_is_one_line_naming_the_revision(
    origin: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    config: list[tuple[str, str]],
    said: str,
) -> None:
    partial = clone(origin, tmp_path / "partial", "--filter=blob:none")
    for setting in config:
        git(partial, "config", *setting)
    assert main(["HEAD~1", "HEAD", "--repo", str(partial), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(
        f"snapdiff: error: NEW: HEAD: cannot fetch 6 blobs this partial clone lacks ({said}"
    )
    assert err.endswith(
        ") (check that the clone's remote can be reached, or clone without --filter)\n"
    )


@pytest.mark.parametrize("argv", [["HEAD~1", "HEAD"], ["HEAD~1", "HEAD", "--package", "big"]])
def test_a_page_too_large_is_refused_as_in_a_full_clone(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
) -> None:
    """A partial clone knows no size before the blob is there: the page is refused as read."""
    origin = new_repo(tmp_path / "origin")
    write_page(origin, "zlib", [spec("a")])
    write_page(origin, "big", [spec(f"b{n}") for n in range(40)])
    commit(origin, "one", 1)
    write_page(origin, "zlib", [spec("b")])
    commit(origin, "two", 2)
    git(origin, "config", "uploadpack.allowFilter", "true")
    monkeypatch.setattr(page_rules, "MAX_PAGE_BYTES", 4096)  # a 40 MiB page, scaled down
    said = []
    for name, how in (("full", ()), ("partial", ("--filter=blob:none",))):
        repo = tmp_path / name
        git(tmp_path, "clone", "-q", "--no-checkout", *how, f"file://{origin}", str(repo))
        assert main([*argv, "--repo", str(repo), "--no-cache"]) == 2
        said.append(capsys.readouterr().err)
    # the same line, but a full clone lists the size, naming the older side holding the page
    # first, and a partial clone reads it, naming the newer first (both hold it)
    assert said[0].replace("HEAD~1:", "HEAD:") == said[1]
    assert said[1] == (
        "snapdiff: error: HEAD:_cache/develop/big/specs.md: 0.0 MiB, more than a page can be "
        "(0 MiB) (this is not a catalogue page: remove or replace it)\n"
    )
