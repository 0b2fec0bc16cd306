"""Work done in a forked child while this process goes on, its result sent back down a pipe.

A 200k-record index pair is Python work per record on one core while the machine has two: a
side read (`sources.mirror.apart`), or the causes of rebuilds worked out while the pages are
compared (`compare.diff`), runs in a child. Only where `fork` exists and no other thread runs;
a child that fails for any reason but a `SnapdiffError` (said here as this process would say
it), or whose message cannot be read, leaves the work to be done here, as if never forked,
after `told` hears why.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Generic, NoReturn, TypeVar

import msgspec

from . import errors
from .errors import SnapdiffError

__all__ = ["Failed", "Forked", "Told", "as_bytes", "as_text"]

T = TypeVar("T")
Told = Callable[[str], None]  # hears a line: a warning, or why the work was done here


def as_bytes(text: str) -> bytes:
    """Text to send from a child, a file name's undecodable bytes (lone surrogates, which
    msgspec refuses in a string) kept as they were."""
    return text.encode("utf-8", "surrogateescape")


def as_text(raw: bytes) -> str:
    """Text a child sent (`as_bytes`)."""
    return raw.decode("utf-8", "surrogateescape")


class Failed(msgspec.Struct, array_like=True):
    """A `SnapdiffError` of the child, to be raised here as it would have been (its words as
    bytes: a file name that is not UTF-8 keeps its bytes as lone surrogates, which msgspec
    refuses in a string)."""

    kind: str
    where: bytes
    what: bytes
    fix: bytes

    @classmethod
    def of(cls, exc: SnapdiffError) -> Failed:
        return cls(type(exc).__name__, *map(as_bytes, (exc.where, exc.what, exc.fix)))

    def error(self) -> SnapdiffError:
        words = map(as_text, (self.where, self.what, self.fix))
        return _ERRORS.get(self.kind, SnapdiffError)(*words)


_ERRORS: dict[str, type[SnapdiffError]] = {
    kind.__name__: kind
    for kind in (SnapdiffError, errors.InputError, errors.UsageError, errors.TemplateError)
}


class Forked(Generic[T]):
    """`work()` being done in a forked child; `join()` gives its result (`decode` of what
    `encode` made of it there), `cancel()` stops the child. `told` hears why the work was done
    here after all: the child's exit code (`exit code 1`; a signal's number, negative), or a
    message that could not be read (its result's or its error's).

    The child may do `there()` instead (`encode` is then unused), which gives the message to
    send itself and may talk with this process over the descriptors `kept` open in it (every
    other one but the standard ones is closed there); `work()` is what is done here when
    there is no child, or it failed.
    """

    def __init__(
        self,
        work: Callable[[], T],
        encode: Callable[[T], bytes],
        decode: Callable[[memoryview], T],
        told: Told,
        there: Callable[[], bytes] | None = None,
        kept: tuple[int, ...] = (),
    ) -> None:
        self.work, self.decode, self.told = work, decode, told
        self.there = there or (lambda: encode(work()))
        self.kept = kept
        self.pid, self.out = 0, -1  # no child (yet): the work is done here when joined
        if hasattr(os, "fork") and threading.active_count() == 1:
            try:
                self._fork()
            except OSError:  # no pipe or no process to be had: done here
                self.cancel()
            except BaseException:  # an interrupt let through as the child was forked
                self.cancel()
                raise

    def _fork(self) -> None:
        self.out, into = os.pipe()
        parent = os.getpid()
        with _signals_held():  # an interrupt in the child before `_child` would run our code
            try:
                self.pid = os.fork()
            except OSError:
                os.close(into)
                raise
            if self.pid == 0:
                for stop in _STOPS:  # the child ends at once; the parent cleans up
                    signal.signal(stop, signal.SIG_DFL)
                _die_with(parent)
        if self.pid == 0:
            _child(self.there, into, self.kept)
        os.close(into)

    @property
    def apart(self) -> bool:
        """Whether a child is at work (else the work is done here when joined)."""
        return self.pid != 0

    def join(self) -> T:
        """The result; the child's error raised here; done here when the child could not."""
        if not self.pid:
            return self.work()
        out, self.out = self.out, -1  # closed below, whatever happens
        with os.fdopen(out, "rb") as pipe:
            message = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if status or not message:
            self.told(f"exit code {os.waitstatus_to_exitcode(status)}")
            return self.work()
        try:
            said = self._decoded(message)
        except SnapdiffError:
            raise
        except Exception as exc:  # a bug of ours: said, and the work done here
            why = f"its message unreadable: {type(exc).__name__}"
        else:
            return said()
        del message  # not held while the work is done again
        self.told(why)
        return self.work()

    def _decoded(self, message: bytes) -> Callable[[], T]:
        """What the child's message says: its result, or (when called) its error raised here."""
        body = memoryview(message)[1:]
        if message[:1] == b"E":
            error = msgspec.msgpack.decode(body, type=Failed).error()

            def raised() -> T:
                raise error

            return raised
        found = self.decode(body)
        return lambda: found

    def cancel(self) -> None:
        """Stop the child if it is still at work (the caller failed, or an interrupt). Killed at
        once: nothing of the caller's runs in it (a tally it was writing stays a temporary file
        in the cache folder, which counts against the folder's bound and is dropped with it)."""
        if self.pid:
            with contextlib.suppress(ProcessLookupError, ChildProcessError):  # reaped elsewhere
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            self.pid = 0
        if self.out >= 0:
            os.close(self.out)
            self.out = -1


_STOPS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back (where the platform can), then let through."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _die_with(parent: int) -> None:
    """In the child, on Linux: killed when the parent dies, however it dies (a SIGKILL gives it
    no time to cancel its children: issue 47 found a child at work for minutes after)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the parent's cancel() is all there is
        return
    if os.getppid() != parent:  # the parent died before that was set
        os._exit(1)


def _child(done: Callable[[], bytes], into: int, kept: tuple[int, ...]) -> NoReturn:
    """In the child: work, say it down the pipe, and leave; nothing of the caller's runs here
    (whatever is raised, even while saying an error, ends the child: the parent works again;
    SIGINT and SIGTERM end it at once, with no handler of the caller's run).
    Every descriptor but the standard ones, the pipe and `kept` is closed first: a pipe to a
    process the parent waits for (`git cat-file`'s input) must not stay open here."""
    code = 1
    try:
        low = 3
        for fd in sorted({into, *kept}):  # one may be below 3, if a standard one was closed
            os.closerange(low, fd)
            low = max(low, fd + 1)
        os.closerange(low, os.sysconf("SC_OPEN_MAX"))
        try:
            said = (b"R", done())
        except SnapdiffError as exc:
            said = (b"E", msgspec.msgpack.encode(Failed.of(exc)))
        with os.fdopen(into, "wb") as pipe:
            for part in said:
                pipe.write(part)
        code = 0
    finally:
        os._exit(code)
