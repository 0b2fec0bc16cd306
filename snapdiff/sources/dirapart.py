"""A directory NEW read in a forked child, which also counts the content both sides hold,
while this process reads OLD and parses the pages that differ.

The child lists and reads NEW (system calls and Python per file, about 0.15 s a side at develop
size) and sends its pages' places and digests. This process, having read OLD, answers with the
digests both sides hold (none when every entry is read), and parses OLD's own pages while the
child reads those for their counts only (as `PageCache` does: most of a daily pair's pages)
and sends the counts back, with the bytes of NEW's other pages, which are parsed here. Parsing
them there instead would gain nothing: sending a parsed page back and rebuilding it here costs
as much as parsing its bytes. A page the child could not count (a bad page) comes back as its
bytes too, so that its error or warning is said here, in order. Without a child, or when it
fails, NEW is read and parsed here as a directory always is.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

import msgspec

from ..errors import InputError
from ..forked import Forked, Told, as_bytes, as_text
from ..model import Page, Snapshot
from .directory import read_directory
from .kinds import DirectorySource, LoadOptions, Source, pages_snapshot
from .pages import ParsedPage
from .snapshot import PageBytes, PageCache, Problems

if TYPE_CHECKING:
    from .mirror.nodes import Interned

__all__ = ["DirectoryApart"]

Listing = list[tuple[bytes, str]]  # NEW's pages: place (`forked.as_bytes`) and digest, in order


class _Counted(msgspec.Struct, array_like=True):
    """A page read for its counts only, as sent (its place and warnings as bytes: a file
    name's bytes can be any; a page's own text cannot hold a lone surrogate, which its
    parsers refuse)."""

    digest: str
    source: bytes
    tag: str
    name: str
    count: int
    counts: tuple[tuple[str, int], ...]
    compiled: tuple[tuple[str, int], ...]
    hashes: tuple[str, ...]
    warnings: list[bytes]

    @classmethod
    def of(cls, parsed: ParsedPage) -> _Counted:
        page = parsed.page
        return cls(
            page.digest,
            as_bytes(page.source),
            page.tag,
            page.name,
            page.spec_count,
            page.stack_counts,
            page.compiled_counts,
            parsed.hashes,
            list(map(as_bytes, parsed.warnings)),
        )

    def parsed(self) -> ParsedPage:
        counts, compiled, source = self.counts, self.compiled, as_text(self.source)
        page = Page(self.tag, self.name, source, self.digest, None, self.count, counts, compiled)
        return ParsedPage(page, self.hashes, list(map(as_text, self.warnings)))


class _Read(msgspec.Struct, array_like=True):
    """NEW as read: its pages (`Listing`), what was left out of it, the pages counted there
    and the bytes of those to parse here (by digest)."""

    pages: Listing
    skipped: list[bytes]
    keys: list[tuple[bytes, bytes]]
    counted: list[_Counted]
    here: dict[str, bytes]


def _read(arg: str, keep_going: bool) -> tuple[list[PageBytes], Problems]:
    problems = Problems(keep_going)
    return read_directory(arg, problems), problems


def _listing(pages: list[PageBytes]) -> Listing:
    return [(as_bytes(p.source), p.digest) for p in pages]


def _message(pages: list[PageBytes], problems: Problems, counted: list[_Counted]) -> _Read:
    """NEW as read and counted: every page not counted is to be parsed here."""
    done = {c.digest for c in counted}
    here = {p.digest: p.data for p in pages if p.digest not in done}
    keys = [(as_bytes(tag), as_bytes(name)) for tag, name in sorted(problems.keys)]
    return _Read(_listing(pages), list(map(as_bytes, problems.skipped)), keys, counted, here)


def _here(arg: str, keep_going: bool) -> _Read:
    """NEW read here, nothing counted yet."""
    return _message(*_read(arg, keep_going), [])


def _there(arg: str, keep_going: bool, listed: int, answered: int) -> _Read:
    """In the child: NEW read, its listing sent, the digests both sides hold heard back, and
    those counted (as `PageCache` counts them)."""
    pages, problems = _read(arg, keep_going)
    with os.fdopen(listed, "wb") as pipe:
        pipe.write(msgspec.msgpack.encode(_listing(pages)))
    with os.fdopen(answered, "rb") as pipe:
        cache = PageCache(frozenset(msgspec.msgpack.decode(pipe.read(), type=list[str])))
    counted: list[_Counted] = []
    for raw in pages:
        if raw.digest in cache.shared and raw.digest not in cache:  # once, as first placed
            with contextlib.suppress(InputError):  # a bad page: parsed here, to say so
                counted.append(_Counted.of(cache.parse(raw)))
    return _message(pages, problems, counted)


def _heard(fd: int) -> Listing | None:
    """The child's listing; None when it sent none whole (it failed: it says why when joined)."""
    with os.fdopen(fd, "rb") as pipe:
        heard = pipe.read()
    try:
        return msgspec.msgpack.decode(heard, type=Listing) if heard else None
    except msgspec.DecodeError:
        return None


def _answer(fd: int, message: bytes) -> None:
    """All of the message down the pipe, unbuffered, and the pipe closed; nothing if the
    child is gone (it says why when joined)."""
    try:
        view = memoryview(message)
        while view:
            view = view[os.write(fd, view) :]
    except BrokenPipeError:
        pass
    finally:
        os.close(fd)


def _pipes() -> tuple[int, int, int, int] | None:
    """The ends of two pipes (read, write, read, write), or None when the system gives none."""
    made: list[int] = []
    try:
        made.extend(os.pipe())
        made.extend(os.pipe())
    except OSError:
        for fd in made:
            os.close(fd)
        return None
    return made[0], made[1], made[2], made[3]


class DirectoryApart:
    """NEW, a directory, read in a forked child; `source()` (once OLD is read) tells it what
    both sides hold, `cancel()` stops it. Without two pipes, the child reads NEW and sends
    all of it back (`_here`)."""

    def __init__(self, arg: str, options: LoadOptions, told: Told) -> None:
        self.arg, self.options = arg, options
        keep_going = options.keep_going
        pipes = _pipes()
        # NEW's listing, to this process; the digests both sides hold, to the child
        self.listed, listed, answered, self.answer = pipes or (-1, -1, -1, -1)
        theirs = (listed, answered) if pipes else ()
        try:
            self.child = Forked(
                lambda: _here(arg, keep_going),
                msgspec.msgpack.encode,
                lambda message: msgspec.msgpack.decode(message, type=_Read),
                told,
                (lambda: msgspec.msgpack.encode(_there(arg, keep_going, listed, answered)))
                if pipes
                else None,
                theirs,
            )
        except BaseException:  # an interrupt as the child was forked
            self._close()
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        if not self.child.apart:
            self._close()

    def source(self, other: Source, shared: Interned | None, counted: bool) -> Source:
        """NEW beside OLD (`other`), content both hold read only for its counts if `counted`
        (as `pair.whole_pair` reads it; `shared` is for indexes)."""
        ours, both = None, None
        if self.listed >= 0:
            listed, answer, self.listed, self.answer = self.listed, self.answer, -1, -1
            listing = _heard(listed)
            if listing is None:
                os.close(answer)
            else:
                ours = {d for _, d in listing}
                both = frozenset(other.digests() & ours if counted else ())
                _answer(answer, msgspec.msgpack.encode(sorted(both)))
        self.options.progress(f"{self.arg}: reading its pages beside the other side's")
        return _ReadApart(self.arg, self.child, other, ours, both, self.options)

    def cancel(self) -> None:
        self.child.cancel()
        self._close()

    def _close(self) -> None:
        for fd in (self.listed, self.answer):
            if fd >= 0:
                os.close(fd)
        self.listed = self.answer = -1


class _ReadApart:
    """NEW as its child reads it (a `Source`); while it counts, this process parses OLD's own
    pages (when a directory's), as OLD's load will parse them (their errors said then)."""

    def __init__(
        self,
        arg: str,
        child: Forked[_Read],
        other: Source,
        ours: set[str] | None,  # NEW's digests, as the child listed them (None: read when joined)
        both: frozenset[str] | None,  # the digests it was told to count (None: none told)
        options: LoadOptions,
    ) -> None:
        self.arg, self.child, self.other, self.ours, self.both = arg, child, other, ours, both
        self.problems = Problems(options.keep_going)
        self.progress = options.progress
        self._found: _Read | None = None

    def _joined(self) -> _Read:
        if self._found is None:
            self._found = self.child.join()
            self.problems.skipped.extend(map(as_text, self._found.skipped))
            self.problems.keys.update((as_text(t), as_text(n)) for t, n in self._found.keys)
        return self._found

    def digests(self) -> set[str]:
        """NEW's pages' digests: as listed by the child, or once read."""
        if self.ours is None:
            self.ours = {digest for _, digest in self._joined().pages}
        return self.ours

    def load(self, cache: PageCache) -> Snapshot:
        """NEW's snapshot, its pages counted there taken from the child."""
        if self.both is not None and self.both != cache.shared:  # as `whole_pair` reads a pair
            raise RuntimeError(f"{self.arg}: its child counted other content than the pair's")
        if self.both is not None and isinstance(self.other, DirectorySource):  # a child listed
            ours = self.digests()
            for raw in self.other.raws:
                if raw.digest not in ours and raw.digest not in cache:
                    with contextlib.suppress(InputError):
                        cache.parse(raw)
        found = self._joined()
        for page in found.counted:
            cache.add(page.parsed())
        raws = [  # the bytes of a page counted there are not sent: the cache holds it
            PageBytes(as_text(where), found.here.get(digest, b""), digest)
            for where, digest in found.pages
        ]
        return pages_snapshot(self.arg, raws, cache, self.problems, self.progress)
