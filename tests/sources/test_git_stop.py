"""Issue 47 item 1: stopping `git cat-file --batch` while a thread is blocked writing requests
to it (git's output full, nobody reading) returns at once: a signal during a git read used to
hang snapdiff for good."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from snapdiff.sources.git import process as gitproc


def test_stop_returns_while_a_request_writer_is_blocked(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    blob = repo / "big"
    blob.write_bytes(b"x" * 2**20)
    sha = (
        subprocess.run(
            ["git", "-C", str(repo), "hash-object", "-w", "big"], check=True, capture_output=True
        )
        .stdout.decode()
        .strip()
    )
    proc = gitproc.start(["--git-dir", str(repo / ".git"), "cat-file", "--batch"])
    stdin, _ = gitproc.pipes(proc)
    # far more than the pipes hold both ways: git blocks on its output, then the writer on input
    writer = threading.Thread(target=gitproc.send, args=(stdin, [sha] * 20000), daemon=True)
    writer.start()
    writer.join(0.5)
    assert writer.is_alive()  # blocked, holding the input's lock
    stopping = threading.Thread(target=gitproc.stop, args=(proc,), daemon=True)
    stopping.start()
    stopping.join(10)
    assert not stopping.is_alive(), "stop() hung behind the blocked writer"
    assert proc.returncode is not None
