#!/usr/bin/env python3
"""The Python floor of a semantic git diff (a benchmark helper, not a test): issue 20's yardstick.

Usage: python bench/semfloor.py OLD NEW, inside the repository.

One process runs the tree diff (`git diff-tree -r --no-renames -z`), reads the changed blobs of
both sides through one `git cat-file --batch`, and `json.loads` each changed page's
`spec_details` line: nothing else. Standard library only.
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


def main(argv: list[str]) -> int:
    old, new = argv
    wanted = changed_blobs(old, new)
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
