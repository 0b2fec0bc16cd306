"""Writing the outputs: a file atomically, or stdout; a failure is one line, never a traceback."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

from .errors import UsageError, printable

__all__ = ["TerminalProgress", "distinct", "write", "write_atomically", "write_files"]


def write_atomically(path: str, text: str) -> None:
    """Write text to path through a temporary file and a rename: never a half-written file.

    A path that exists and is not a regular file (`/dev/null`, a pipe) is written directly:
    renaming over it would replace the device with a file. The temporary file is removed on any
    exception, SystemExit included (the command line turns SIGTERM into one).
    """
    if os.path.exists(path) and not os.path.isfile(path):
        try:
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        except OSError as exc:
            raise UsageError(path, f"cannot write: {exc.strerror}", "check the path") from exc
        return
    import tempfile  # deferred, as everything a bare `snapdiff --version` does not need

    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(prefix=".snapdiff-", dir=directory)
    except OSError as exc:
        raise UsageError(path, f"cannot write: {exc.strerror}", "check the folder exists") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            os.fchmod(handle.fileno(), _mode(path))  # mkstemp makes it private (0600)
        os.replace(temp, path)
    except OSError as exc:
        os.unlink(temp)
        raise UsageError(
            path, f"cannot write: {exc.strerror}", "free space or check the path"
        ) from exc
    except BaseException:
        os.unlink(temp)
        raise


def write_files(*files: tuple[str | None, str | None]) -> None:
    """Each (path, text) that has both, atomically, in order."""
    for path, text in files:
        if path and text is not None:
            write_atomically(path, text)


def distinct(*outputs: tuple[str, str | None]) -> None:
    """Outputs given as (option, path) may not name one file twice: the last written would
    replace the others (a device or pipe, `/dev/null` say, may be named by several)."""
    seen: dict[str, str] = {}
    for option, path in outputs:
        if not path or (os.path.exists(path) and not os.path.isfile(path)):
            continue
        first = seen.setdefault(os.path.realpath(path), option)
        if first != option:
            what = f"names the same file as {first}"
            raise UsageError(option, what, "give each output a file of its own")


def _mode(path: str) -> int:
    """The mode a written file gets: an existing file's own, else what the umask allows."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)  # read it: there is no other way
        os.umask(mask)
        return 0o666 & ~mask


def write(path: str | None, text: str) -> None:
    """To the file (atomically), else to stdout."""
    if path:
        write_atomically(path, text)
        return
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:  # a full disk, /dev/full
        # what could not be written must not be tried again when the interpreter exits
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise UsageError(
            "stdout", f"cannot write: {exc.strerror}", "free space or use -o FILE"
        ) from exc


class TerminalProgress:
    """Progress on one line of stderr, rewritten in place: only on a terminal (never in pipes or
    CI logs), and only for work that has already taken `after` seconds."""

    def __init__(self, stream: TextIO, after: float = 1.0) -> None:
        self.stream = stream
        self.shown = False
        self.wanted = stream.isatty()
        self.start = time.monotonic() + after

    def __call__(self, what: str) -> None:
        if self.wanted and time.monotonic() >= self.start:
            self.stream.write(f"\r\x1b[Ksnapdiff: {printable(what)}")
            self.stream.flush()
            self.shown = True

    def done(self) -> None:
        """Clear the line, if anything was shown."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
