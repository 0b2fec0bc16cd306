#!/usr/bin/env python3
"""The least a Python tool does to read a git-mode diff's pages (a benchmark helper, not a test).

Usage: python bench/gitfloor.py OLD NEW [--changed-only], inside the repository.

It starts, imports GitPython, lists both trees with `git ls-tree -r`, and reads blobs through one
pipelined `git cat-file --batch`, as snapdiff does, and parses nothing. By default it reads what
a diff needs: both versions of every changed page and one copy of every page both sides hold
(their spec counts are part of the report). With --changed-only it reads only the blobs that
differ, the model of the git issue ("a tree diff plus reading only the changed blobs").
What snapdiff spends beyond this is its own work: parsing, comparing and rendering.
"""

from __future__ import annotations

import subprocess
import sys
import threading

import git


def blobs(repo: git.Repo, revision: str) -> set[str]:
    """The blob ids of every file below a revision's tree."""
    out = repo.git.ls_tree("-r", "-z", "--full-tree", revision, stdout_as_string=False)
    return {entry.split(b"\t")[0].split(b" ")[2].decode() for entry in out.split(b"\0") if entry}


def read(repo: git.Repo, wanted: list[str]) -> int:
    """Read each blob through one `git cat-file --batch`; the bytes read."""
    batch = repo.git.cat_file("--batch", as_process=True, istream=subprocess.PIPE)
    proc = batch.proc
    request = "".join(f"{sha}\n" for sha in wanted).encode()

    def send() -> None:
        proc.stdin.write(request)
        proc.stdin.close()

    threading.Thread(target=send, daemon=True).start()
    total = 0
    for _ in wanted:
        size = int(proc.stdout.readline().split()[2])
        total += len(proc.stdout.read(size + 1)) - 1
    proc.wait()
    return total


def main(argv: list[str]) -> int:
    old, new, *flags = argv
    repo = git.Repo(".")
    before, after = blobs(repo, old), blobs(repo, new)
    wanted = before ^ after if flags == ["--changed-only"] else before | after
    read(repo, sorted(wanted))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
