"""Issue 47: no string of a page, an index or a lockfile, a commit subject, a filter or an
`allow:` reason reaches the comment, the job summary, the text view or stderr live.

Every string field of each input kind holds every string of hostile-strings.json (see
hostile.py); the Markdown is parsed by a CommonMark parser with GFM's tables, and no link,
image, raw HTML or text outside a code span may hold a field's marker (text is where GitHub
would autolink a bare address, a mention or an issue reference).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gitrepo import commit, git, new_repo
from hostile import (
    HOSTILE,
    HOSTILE_PATH,
    LONG,
    STRINGS,
    copy_pages,
    indexes,
    lockfiles,
    markdown_leaks,
    markers,
    pages,
    quoted,
    terminal_leaks,
    uncoloured,
)
from markdown_it import MarkdownIt

from snapdiff.cli import main
from snapdiff.render.markup import code, html_code

PAGE_FIELDS = {"title", "versions", "compiler", "os", "platform", "target", "variants", "stacks"}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    found = main(["--no-config", "--no-cache", "--jobs", "1", *argv])
    captured = capsys.readouterr()
    return found, captured.out, captured.err


def _checked(
    old: Path, new: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], colour: bool = True
) -> str:
    """The comment and the job summary of one run, and the text view (with colour too, if
    `colour`), checked; the job summary returned (the whole report: a comment is cut)."""
    comment, summary = tmp_path / "comment.md", tmp_path / "summary.md"
    argv = [str(old), str(new), "--for", "github", "-o", str(comment)]
    found, _, err = _run([*argv, "--job-summary", str(summary)], capsys)
    assert found == 0, err
    assert terminal_leaks(err) == []
    for written in {p.read_text(encoding="utf-8") for p in (comment, summary)}:
        assert markdown_leaks(written) == []
    _, plain, _ = _run([str(old), str(new), "-f", "text", "--color", "never"], capsys)
    assert terminal_leaks(plain) == []
    if colour:
        _, coloured, _ = _run([str(old), str(new), "-f", "text", "--color", "always"], capsys)
        assert uncoloured(coloured) == plain
    return summary.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", STRINGS)
def test_each_hostile_string_is_one_code_span(name: str) -> None:
    value = f"xqvalue{STRINGS[name]}"
    text = (
        f"| a | b |\n|:--|:--|\n| {code(value)} | x |\n\n- {code(value)}\n\n"
        f"<details><summary>{html_code(value)}</summary>\n\n</details>\n"
    )
    assert markdown_leaks(text) == []
    inline = [t for t in MarkdownIt("commonmark").enable("table").parse(text) if t.type == "inline"]
    cell, item = inline[2], inline[4]  # the row's first cell; the list item
    for found in (cell, item):
        assert [c.type for c in found.children or ()] == ["code_inline"], name


def test_every_field_of_a_page_is_inert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = pages("explanations", tmp_path)
    shown = _checked(old, new, tmp_path, capsys)
    assert {f"xq{field}" for field in PAGE_FIELDS} <= markers(shown)


def test_every_field_of_an_index_is_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = indexes("causes-generated", tmp_path)
    shown = _checked(old, new, tmp_path, capsys, colour=False)  # the page's run shows colour
    assert {"xqname", "xqversion", "xqstack", "xqvariantname", "xqplatform"} <= markers(shown)
    assert LONG in shown


def test_every_field_of_a_lockfile_is_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = lockfiles("environment-casper", tmp_path)
    shown = _checked(old, new, tmp_path, capsys, colour=False)
    assert {"xqenvironment", "xqrootspec", "xqname", "xqversion"} <= markers(shown)


def test_a_commit_subject_in_the_log_is_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = new_repo(tmp_path / "repo")
    copy_pages("explanations", "old", repo)
    commit(repo, "start", 1)
    copy_pages("explanations", "new", repo)
    commit(repo, "xqsubject" + HOSTILE.replace("\x00", ""), 2)  # git keeps no NUL
    found, markdown, err = _run_log(repo, capsys, "--for", "github")
    assert found == 0 and terminal_leaks(err) == []
    assert markdown_leaks(markdown) == [] and "xqsubject" in markers(markdown)
    _, text, _ = _run_log(repo, capsys, "-f", "text", "--color", "never")
    assert terminal_leaks(text) == [] and "xqsubject" in markers(text)


def _run_log(repo: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    found = main(["log", "--no-config", "--no-cache", "--repo", str(repo), "HEAD~1..HEAD", *extra])
    captured = capsys.readouterr()
    return found, captured.out, captured.err


def _glob(text: str) -> str:
    """A glob matching names that end in `text` (a NUL, which no argument holds, as `?`)."""
    return "*" + re.sub(r"([*?[])", r"[\1]", text).replace("\x00", "?")


def test_filters_and_allow_reasons_echoed_are_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = pages("downgrade-stack-removed", tmp_path)
    filters = [f"--{field}={_glob(f'xq{field}{HOSTILE}')}" for field in ("os", "target")]
    argv = [str(old), str(new), "--package", _glob(HOSTILE), *filters]
    found, markdown, err = _run(argv, capsys)
    assert found == 0, err
    assert terminal_leaks(err) == [] and markdown_leaks(markdown) == []
    assert "[[]x]" in markdown  # the filters, echoed
    config = tmp_path / "snapdiff.yaml"
    reason = quoted("xqreason" + HOSTILE)
    config.write_text(f'allow: [{{gate: downgrade, package: "*", reason: {reason}}}]\n')
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # stderr carries workflow commands
    argv = ["--no-cache", "--config", str(config), str(old), str(new), "--fail-on", "downgrade"]
    main(argv)
    captured = capsys.readouterr()
    assert "xqreason" in markers(captured.out) and markdown_leaks(captured.out) == []
    assert "xqreason" in captured.err and terminal_leaks(captured.err) == []
    assert all(line.startswith(("snapdiff: ", "::")) for line in captured.err.splitlines())


# As hostile a branch name as git allows (no space, `[`, `\`, `~`, `^`, `:`, `?`, `*` or control
# character; a bidi control and a zero-width space are not ASCII, so allowed).
HOSTILE_REF = "](evil.example)<img_src=x>www.evil.example@mention#123|`_\u202e\u200b!"


def test_revision_names_are_inert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two branches named to attack: the report's heading names both revisions."""
    repo = new_repo(tmp_path / "repo")
    copy_pages("explanations", "old", repo)
    commit(repo, "start", 1)
    git(repo, "branch", f"xqold{HOSTILE_REF}")
    copy_pages("explanations", "new", repo)
    commit(repo, "next", 2)
    git(repo, "branch", f"xqnew{HOSTILE_REF}")
    argv = ["--repo", str(repo), f"xqold{HOSTILE_REF}", f"xqnew{HOSTILE_REF}", "--for", "github"]
    found, markdown, err = _run(argv, capsys)
    assert found == 0, err
    assert markdown_leaks(markdown) == [] and {"xqold", "xqnew"} <= markers(markdown)
    _, text, _ = _run([*argv[:4], "-f", "text", "--color", "never"], capsys)
    assert terminal_leaks(text) == [] and {"xqold", "xqnew"} <= markers(text)


def test_a_bad_page_left_out_by_keep_going_is_said_inertly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--keep-going` says each page it left out, by its path, in the report and on stderr."""
    old, new = pages("explanations", tmp_path)
    tag = next((new / "_cache").iterdir())  # the hostile tag's folder
    bad = tag / ("xqbadpage" + HOSTILE_PATH) / "specs.md"
    bad.parent.mkdir()
    bad.write_text("---\ntitle: [not, a page\n", encoding="utf-8")
    argv = [str(old), str(new), "--keep-going", "--for", "github"]
    found, markdown, err = _run(argv, capsys)
    assert found == 0, err
    assert "xqbadpage" in markers(markdown) and markdown_leaks(markdown) == []
    assert "xqbadpage" in err and terminal_leaks(err) == []
