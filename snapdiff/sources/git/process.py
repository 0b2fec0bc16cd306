"""git as a subprocess: one-off commands, and long-running ones fed on their standard input."""

from __future__ import annotations

import contextlib
import subprocess
from typing import IO

from ...errors import InputError

__all__ = ["GitError", "pipes", "run", "send", "start", "stop", "widen"]


class GitError(Exception):
    """A git command that failed (its words are in the message)."""


def run(
    args: list[str], data: bytes | None = None, check: bool = True
) -> subprocess.CompletedProcess[bytes]:
    """Run git and wait for it; GitError when `check` and it fails."""
    try:
        done = subprocess.run(["git", *args], input=data, capture_output=True, check=False)
    except OSError as exc:
        raise InputError("git", f"cannot run git: {exc.strerror}", "install git") from exc
    if check and done.returncode != 0:
        what = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(what[-1] if what else f"git {args[2] if len(args) > 2 else ''} failed")
    return done


def stop(proc: subprocess.Popen[bytes], kill: bool = False) -> None:
    """End a long-running git process (at once with `kill`) and close its pipes.

    Its output first: a thread may be blocked writing requests to its input (git, its output
    full, reads no more), holding that pipe's lock, which closing the input would wait for
    forever (issue 47: a signal during a read hung snapdiff). With its output closed, git's next
    write fails, git ends, and the blocked write fails with it."""
    if kill:
        proc.kill()
    for pipe in (proc.stdout, proc.stdin):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    proc.wait()


def start(args: list[str]) -> subprocess.Popen[bytes]:
    """A long-running git process that answers requests on its standard input."""
    try:
        return subprocess.Popen(
            ["git", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    except OSError as exc:
        raise InputError("git", f"cannot run git: {exc.strerror}", "install git") from exc


def pipes(proc: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes]]:
    """The standard input and output of a process `start` began (it always opens both)."""
    if proc.stdin is None or proc.stdout is None:
        raise GitError("a git process started without its pipes")
    return proc.stdin, proc.stdout


def send(stdin: IO[bytes], wanted: list[str]) -> None:
    """Write every request; in a thread, as a long request must not block on a full pipe."""
    try:
        stdin.write("".join(f"{sha}\n" for sha in wanted).encode())
        stdin.flush()
    except OSError:
        pass  # the process was stopped: the reader reports what is missing


def widen(pipe: IO[bytes]) -> None:
    """Give git a 1 MiB pipe to write blobs into (Linux; 64 KiB otherwise).

    While the caller parses a page, git goes on inflating the next ones into the pipe: with
    1 MiB, a few hundred pages ahead instead of a few.
    """
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 2**20)
    except (ImportError, OSError):
        pass
