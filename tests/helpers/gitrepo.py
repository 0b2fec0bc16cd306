"""Throwaway git repositories of catalogue pages for tests (real git, never mocked)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from pagegen import load_real, spec, write_page

ENV = {
    "GIT_AUTHOR_NAME": "snapdiff tests",
    "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "snapdiff tests",
    "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    # no `git maintenance run --auto` started after each commit: a process per commit
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "maintenance.auto",
    "GIT_CONFIG_VALUE_0": "false",
}


def git(repo: Path, *args: str, date: str | None = None) -> str:
    env = dict(os.environ, **ENV)
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "commit.gpgSign=false", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def place(root: Path, pages: list[Path]) -> None:
    """Put real pages at their catalogue paths."""
    for page in pages:
        title, tag, _, _ = load_real(page)
        target = root / "_cache" / tag / title / "specs.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page, target)


def reorder_stacks(root: Path) -> None:
    """Rewrite every page with each stacks list reversed: bytes change, meaning does not."""
    for path in sorted(root.glob("_cache/*/*/specs.md")):
        title, tag, _, details = load_real(path)
        write_page(root, title, [dict(d, stacks=d["stacks"][::-1]) for d in details], tag=tag)


def new_repo(path: Path) -> Path:
    """An empty repository at path."""
    path.mkdir()
    git(path, "init", "-q")
    return path


def commit(repo: Path, message: str, day: int) -> str:
    git(repo, "add", "-A")
    git(
        repo,
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        message,
        date=f"2025-04-{day:02d}T04:00:00+0000",
    )
    return git(repo, "rev-parse", "HEAD")


def forked_repo(path: Path) -> Path:
    """A repository whose `branch` forked from `main` and adds one spec, while `main` moved on
    three commits (each a new spec of a newer version) after the fork."""
    repo = new_repo(path)
    write_page(repo, "zlib", [spec("a", "1.0")])
    commit(repo, "fork point", 1)
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-q", "-b", "branch")
    write_page(repo, "zlib", [spec("a", "1.0"), spec("b", "1.0", target="zen4")])
    commit(repo, "one spec more", 2)
    git(repo, "checkout", "-q", "main")
    for day, version in ((3, "1.1"), (4, "1.2"), (5, "1.3")):
        write_page(repo, "zlib", [spec("a", "1.0"), spec(f"m{day}", version, target="x")])
        commit(repo, f"main moves on {day}", day)
    return repo
