#!/usr/bin/env python3
"""The Python floors of snapdiff's git workloads (a benchmark helper, not a test).

Usage, inside the repository:
  python bench/semfloor.py OLD NEW           the semantic floor (issue 20's yardstick)
  python bench/semfloor.py --every OLD NEW   the release floor (issue 28)
  python bench/semfloor.py --log A..B        the log floor (issue 28)

One process lists the blobs to read, reads them through one `git cat-file --batch`, and
`json.loads` each page's `spec_details` line: nothing else. The semantic floor lists the changed
blobs of both sides (`git diff-tree -r --no-renames -z`); the release floor every page of both
sides (`git ls-tree -r`); the log floor the distinct blobs, old and new, that one
`git log --raw` over the range names. Standard library only.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading

_NULL = "0" * 40


def changed_blobs(old: str, new: str) -> list[str]:
    """The blob ids, old and new, of every file the tree diff says changed."""
    out = subprocess.run(
        ["git", "diff-tree", "-r", "--no-renames", "-z", old, new],
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    found = []
    for info in out[0::2]:  # ":mode mode sha sha status", then the path
        fields = info.split()
        if len(fields) >= 4:
            found += [sha.decode() for sha in fields[2:4] if sha.decode() != _NULL]
    return found


def every_blob(*revisions: str) -> list[str]:
    """The blob id of every file of each revision."""
    found = []
    for revision in revisions:
        out = subprocess.run(
            ["git", "ls-tree", "-r", "-z", revision], capture_output=True, check=True
        ).stdout.split(b"\0")
        found += [entry.split()[2].decode() for entry in out if entry]
    return found


def logged_blobs(span: str) -> list[str]:
    """The distinct blob ids, old and new, of every change `git log --raw` lists over span."""
    out = subprocess.run(
        ["git", "log", "--raw", "--no-renames", "--no-abbrev", "--first-parent", "--format=", span],
        capture_output=True,
        check=True,
    ).stdout
    found = dict.fromkeys(
        sha.decode()
        for line in out.splitlines()
        if line.startswith(b":")
        for sha in line.split(b"\t", 1)[0].split()[2:4]
        if sha.decode() != _NULL
    )
    return list(found)


def main(argv: list[str]) -> int:
    if argv[0] == "--every":
        wanted = every_blob(*argv[1:3])
    elif argv[0] == "--log":
        wanted = logged_blobs(argv[1])
    else:
        wanted = changed_blobs(*argv[:2])
    proc = subprocess.Popen(
        ["git", "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    request = "".join(f"{sha}\n" for sha in wanted).encode()

    def send() -> None:
        assert proc.stdin is not None
        proc.stdin.write(request)
        proc.stdin.close()

    threading.Thread(target=send, daemon=True).start()
    parsed = 0
    for _ in wanted:
        size = int(proc.stdout.readline().split()[2])
        data = proc.stdout.read(size + 1)[:-1]
        start = data.find(b"\nspec_details: ")
        if start >= 0:
            end = data.find(b"\n", start + 1)
            json.loads(data[start + 15 : end if end > 0 else len(data)])
            parsed += 1
    proc.wait()
    print(f"{len(wanted)} blobs read, {parsed} spec_details parsed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
