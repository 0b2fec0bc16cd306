"""Throwaway git repositories of catalogue pages for tests (real git, never mocked)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from pagegen import load_real, write_page

ENV = {
    "GIT_AUTHOR_NAME": "snapdiff tests",
    "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "snapdiff tests",
    "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
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
