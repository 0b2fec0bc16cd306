"""Golden cases committed to a throwaway repository, and snapdiff run on them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from gitrepo import commit, git, new_repo

from snapdiff.cli import main


def committed(case: Path, repo: Path) -> Path:
    """A repository holding a case's `old` and `new` as the commits tagged so."""
    new_repo(repo)
    for day, side in enumerate(("old", "new"), start=1):
        for item in repo.iterdir():
            if item.name != ".git":
                shutil.rmtree(item) if item.is_dir() else item.unlink()
        shutil.copytree(case / side, repo, dirs_exist_ok=True, copy_function=shutil.copy)
        commit(repo, side, day)
        git(repo, "tag", side)
    return repo


def snapdiff(repo: Path, cache: Path, *extra: str) -> str:
    """The output of `snapdiff old new` in git mode with this cache folder."""
    out = repo.parent / "out"
    argv = ["old", "new", "--repo", str(repo), "--cache-dir", str(cache), "-o", str(out)]
    assert main([*argv, *extra]) == 0
    return out.read_text(encoding="utf-8")


def as_directories(text: str) -> dict[str, Any]:
    """A git-mode JSON report as the same report of the two folders: no commit ids or dates,
    and sources named `old/path`, not `old:path`."""
    data: dict[str, Any] = json.loads(re.sub(r'"(old|new):', r'"\1/', text))
    for side in ("old", "new"):
        data[side]["commit"] = data[side]["date"] = None
    return data
