"""Bad and hostile input: one line naming the file, exit 2, no traceback, nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from pagegen import page_text, spec, write_page

from snapdiff.cli import main

ROOT = Path(__file__).parents[2]
V1 = str(ROOT / "snapshots" / "v1")
BAD = Path(__file__).parents[1] / "bad"
CASES = sorted(p.name for p in BAD.iterdir() if (p / "expected").exists())


def refused(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Run, check the refusal's form, and return the message after `snapdiff: error: `."""
    out = tmp_path / "report.md"
    assert main([*argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("snapdiff: error: "), err
    assert "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob(".snapdiff-*"))
    return err[len("snapdiff: error: ") :].rstrip("\n")


def test_the_corpus_is_there() -> None:
    assert len(CASES) >= 16


@pytest.mark.parametrize("case", CASES)
def test_each_bad_input_is_refused_in_one_line(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # a YAML tag that ran a command would leave a file here
    snapshot = BAD / case / "snapshot"
    expected = (BAD / case / "expected").read_text().rstrip("\n").format(dir=snapshot)
    assert refused([V1, str(snapshot)], tmp_path, capsys).startswith(expected)
    assert not (tmp_path / "pwned-by-yaml").exists()


@pytest.mark.parametrize("case", [c for c in CASES if c != "no-pages"])
def test_keep_going_leaves_bad_pages_out_and_says_so(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = BAD / case / "snapshot"
    expected = (BAD / case / "expected").read_text().rstrip("\n").format(dir=snapshot)
    code = main([V1, str(snapshot), "--keep-going", "--format", "json"])
    captured = capsys.readouterr()
    if case == "hash-two-names-in-two-stacks":  # indexes, not pages: none can be left out
        assert code == 2 and captured.err == f"snapdiff: error: {expected}\n"
        return
    if case in ("hash-twice-across-pages", "two-pages-one-package"):
        assert code == 0  # the first of the two pages is kept
    else:
        assert code == 2 and "no catalogue pages found" in captured.err  # its only page was bad
        return
    data = json.loads(captured.out)
    assert data["incomplete"] is True and data["skipped"][0].startswith(expected)
    assert f"snapdiff: warning: skipped {expected}" in captured.err


def test_keep_going_report_is_complete_for_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad page beside good ones: the rest is compared, the bad package is not called gone."""
    new = tmp_path / "new"
    write_page(new, "py-jax", [spec("j1")])
    write_page(new, "py-build", [spec("b1")])
    (new / "_cache" / "develop" / "py-jax" / "specs.md").write_text("---\nbroken")
    assert main([V1, str(new), "--keep-going", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["incomplete"] and len(data["skipped"]) == 1
    assert "py-jax" not in {p["name"] for p in data["packages"]}
    assert {p["name"]: p["status"] for p in data["packages"]}["py-build"] == "changed"
    assert main([V1, str(new), "--keep-going"]) == 0
    assert "**⚠️ Incomplete:** 1 page could not be read" in capsys.readouterr().out


def test_a_50_mb_page_is_refused_before_it_is_parsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "big" / "_cache" / "develop" / "zlib" / "specs.md"
    page.parent.mkdir(parents=True)
    text = page_text("zlib", "develop", [spec("a1")])
    with page.open("w") as handle:
        handle.write(text.replace("spec_details: ", "spec_details: " + " " * (50 * 2**20)))
    message = refused([V1, str(tmp_path / "big")], tmp_path, capsys)
    assert message.startswith(f"{page}: 50.0 MiB, more than a page can be (32 MiB)")


def test_large_files_that_are_not_pages_are_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "flat"
    folder.mkdir()
    (folder / "zlib.md").write_text(page_text("zlib", "develop", [spec("a1")]))
    (folder / "video.bin").write_bytes(b"\x00" * (40 * 2**20))
    (folder / "notes.md").write_bytes(b"---\nlayout: post\n---\n\xff\xfe binary")
    assert main([V1, str(folder), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["new"]["packages"] == 1


def test_a_symlink_loop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "loop"
    write_page(root, "zstd", [spec("b1")])
    looping = root / "_cache" / "develop" / "zlib" / "specs.md"
    looping.parent.mkdir(parents=True)
    looping.symlink_to(looping)
    (root / "_cache" / "again").symlink_to(root, target_is_directory=True)  # never followed
    message = refused([V1, str(root)], tmp_path, capsys)
    assert message.startswith(f"{looping}: not a regular file (a link, FIFO or device)")


def test_an_unreadable_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = write_page(tmp_path / "locked", "zlib", [spec("a1")])
    page.chmod(0)
    real_open = os.open

    def denied(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file) == str(page):  # as root, permissions alone would not stop the read
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    if os.geteuid() == 0:
        monkeypatch.setattr(os, "open", denied)
    message = refused([V1, str(tmp_path / "locked")], tmp_path, capsys)
    assert message.startswith(f"{page}: cannot read: Permission denied")


def test_a_file_given_as_a_snapshot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    single = tmp_path / "page.md"
    single.write_text("hello")
    assert refused([V1, str(single)], tmp_path, capsys) == (
        f"NEW: {single}: not a directory (give a directory of catalogue pages, a git revision or a"
        " build-cache index.json)"
    )


def test_a_page_read_as_it_grows_or_in_short_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page is read whole however the system hands out its bytes: fstat's size may be stale
    (the file grew since), a read may return fewer bytes than asked before the end, and a file
    system may honour the non-blocking mode a page is opened in."""
    from snapdiff.sources import directory
    from snapdiff.sources.snapshot import Problems

    page = write_page(tmp_path / "side", "zlib", [spec("a1"), spec("b2")])
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "zstd.md").write_text(page_text("zstd", "develop", [spec("c3")]))
    wanted = {str(page): page.read_bytes(), str(flat / "zstd.md"): (flat / "zstd.md").read_bytes()}
    real_fstat, real_read = os.fstat, os.read

    def stale(fd: int) -> Any:  # the size as it was 100 bytes ago
        found = real_fstat(fd)
        return os.stat_result((*found[:6], max(found.st_size - 100, 0), *found[7:]))

    def short(fd: int, size: int) -> bytes:
        return real_read(fd, min(size, 7))

    def honoured(fd: int, size: int) -> bytes:  # a file system honouring O_NONBLOCK
        if not os.get_blocking(fd):
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return real_read(fd, size)

    for patch in ((os, "fstat", stale), (os, "read", short), (os, "read", honoured)):
        with monkeypatch.context() as patched:
            patched.setattr(*patch)
            for root in (tmp_path / "side", flat):
                got = directory.read_directory(str(root), Problems())
                assert {raw.source: raw.data for raw in got}.items() <= wanted.items()
                assert len(got) == 1


FOLDER_SAID = "a directory where a page file should be (replace it with the page, or remove it)"


@pytest.mark.parametrize("holds", [[], ["specs.md", "notes.txt"]])
def test_a_directory_named_like_a_page_is_refused_naming_it(
    holds: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Empty or not, a folder at `_cache/<tag>/<package>/specs.md` is an error naming it (its
    files are not read: a page inside is not that package's page); with --keep-going, its
    package is left out, said once."""
    root = tmp_path / "side"
    write_page(root, "zstd", [spec("b1")])
    folder = root / "_cache" / "develop" / "zlib" / "specs.md"
    folder.mkdir(parents=True)
    for name in holds:
        (folder / name).write_text(page_text("zlib", "develop", [spec("a1")]))
    assert refused([V1, str(root)], tmp_path, capsys) == f"{folder}: {FOLDER_SAID}"
    assert main([V1, str(root), "--keep-going", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count(f"skipped {folder}: {FOLDER_SAID}") == 1
    assert json.loads(captured.out)["skipped"] == [f"{folder}: {FOLDER_SAID}"]


def test_a_tree_named_like_a_page_in_a_revision_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """git holds no empty folder: a tree at a page's place holds files, each its fault, said
    once as the tree, whether the revision is read whole or only for what changed."""
    from gitrepo import commit, new_repo

    repo = new_repo(tmp_path / "repo")
    write_page(repo, "zstd", [spec("b1")])
    commit(repo, "a page", 1)
    folder = repo / "_cache" / "develop" / "zlib" / "specs.md"
    folder.mkdir(parents=True)
    for name in ("specs.md", "notes.txt"):
        (folder / name).write_text(page_text("zlib", "develop", [spec("a1")]))
    commit(repo, "a folder for a page", 2)
    said = f"HEAD:_cache/develop/zlib/specs.md: {FOLDER_SAID}"
    assert refused([V1, "HEAD", "--repo", str(repo)], tmp_path, capsys) == said
    assert refused(["HEAD~1", "HEAD", "--repo", str(repo)], tmp_path, capsys) == said
    assert main([V1, "HEAD", "--repo", str(repo), "--keep-going", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count(said) == 1 and json.loads(captured.out)["skipped"] == [said]


def test_a_link_to_a_folder_at_a_page_s_place_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Never followed, and no longer passed over in silence: a link where a page should be."""
    root = tmp_path / "side"
    write_page(root, "zstd", [spec("b1")])
    linked = root / "_cache" / "develop" / "zlib" / "specs.md"
    linked.parent.mkdir(parents=True)
    linked.symlink_to(tmp_path, target_is_directory=True)
    message = refused([V1, str(root)], tmp_path, capsys)
    assert message.startswith(f"{linked}: not a regular file (a link, FIFO or device)")
