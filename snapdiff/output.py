"""Writing the outputs: a file atomically, or stdout; a failure is one line, never a traceback."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import TextIO

from .errors import UsageError, printable

__all__ = ["TerminalProgress", "outputs_checked", "write", "write_files"]


def _device(path: str) -> bool:
    """Whether a path is there and no regular file (`/dev/null`, a pipe): written directly, as
    renaming over it would replace the device with a file."""
    return os.path.exists(path) and not os.path.isfile(path)


def _name(path: str) -> str:
    """A fresh name for a temporary file beside `path`, to be renamed onto it."""
    import secrets  # deferred, as everything a bare `snapdiff --version` does not need

    directory = os.path.dirname(os.path.abspath(path))
    return os.path.join(directory, f".snapdiff-{secrets.token_hex(8)}")


def _made(temp: str, path: str) -> int:
    """The temporary file `temp` for `path`, made (never an existing file): its descriptor."""
    try:
        return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise UsageError(path, f"cannot write: {exc.strerror}", "check the folder exists") from exc


def _filled(fd: int, path: str, text: str) -> None:
    """The text written into a temporary file `_made` for `path`."""
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            os.fchmod(handle.fileno(), _mode(path))  # mkstemp makes it private (0600)
    except OSError as exc:
        raise UsageError(
            path, f"cannot write: {exc.strerror}", "free space or check the path"
        ) from exc


def _direct(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError(path, f"cannot write: {exc.strerror}", "check the path") from exc


def write_files(*files: tuple[str | None, str | None]) -> None:
    """Each (path, text) that has both, never half-written: every file is written to a
    temporary file beside it first, then all are renamed, so that an error leaves none of them
    written, and no temporary file: any exception, SystemExit included (the command line turns
    SIGTERM into one), removes those not renamed; a device or pipe is written last, directly."""
    wanted = [(path, text) for path, text in files if path and text is not None]
    staged: list[tuple[str, str]] = []  # (temporary file, path) not renamed yet
    try:
        for path, text in wanted:
            if not _device(path):
                temp = _name(path)
                staged.append((temp, path))  # named before it is made: removed below if cut
                _filled(_made(temp, path), path, text)
        while staged:
            temp, path = staged[0]
            try:
                os.replace(temp, path)
            except OSError as exc:
                what = f"cannot write: {exc.strerror}"
                raise UsageError(path, what, "free space or check the path") from exc
            staged.pop(0)
    finally:
        for temp, _ in staged:  # one may be renamed, or not made, already (an interrupt)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
    for path, text in wanted:
        if _device(path):
            _direct(path, text)


def outputs_checked(*outputs: tuple[str, str | None]) -> None:
    """Before any work: outputs given as (option, path) may not name one file twice (the last
    written would replace the others; a device or pipe, `/dev/null` say, may be named by
    several), and each file's folder must be there."""
    seen: dict[str, str] = {}
    for option, path in outputs:
        if not path or _device(path):
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            why = "Not a directory" if os.path.exists(folder) else "No such file or directory"
            raise UsageError(f"{option} {path}", f"cannot write: {why}", "check the folder exists")
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
        write_files((path, text))
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
