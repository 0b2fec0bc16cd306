"""A build-cache mirror over HTTP(S): bounded in time and size, redirected only to itself.

Each read has a timeout (`TIMEOUT`), and the downloads of one side (every file of its mirrors,
every try) share one deadline (`DEADLINE`, a `Budget`): a server dripping a byte a second, or
answering each of many files just within its time, never ends a side otherwise. A 5xx answer or a
reset connection is tried again (`RETRIES`); a redirect is followed only to the same scheme, host
and port; the body is never read past the size asked for, nor trusted when it is shorter than it
said.
"""

from __future__ import annotations

import contextlib
import http.client  # 13 ms of imports: this module is imported only when an address is read
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from typing import IO, Any

from ...errors import InputError
from .layouts import FIX

__all__ = ["DEADLINE", "RETRIES", "TIMEOUT", "Budget", "Web"]

TIMEOUT = 30.0  # seconds a server may take to answer, or between two parts of an answer
DEADLINE = 900.0  # seconds one side's downloads may take in all: many hundred MiB at 1 MB/s
RETRIES = (1.0, 3.0)  # seconds to wait before each new try, after a 5xx answer or a reset
_REDIRECT_FIX = "give the address it redirects to, if you trust it"


class Budget:
    """The time one side's downloads may take in all (`DEADLINE`), spent while they run (and
    while a try waits for the next): shared by the mirrors of one side."""

    def __init__(self) -> None:
        self.seconds = DEADLINE  # read now: a test may set a smaller one
        self.spent = 0.0  # by the downloads done
        self._since: float | None = None  # when the download under way began

    def left(self) -> float:
        """The time left, the download under way (its tries and waits so far) counted."""
        running = 0.0 if self._since is None else time.monotonic() - self._since
        return self.seconds - self.spent - running

    @contextlib.contextmanager
    def spending(self) -> Iterator[None]:
        """Count the time within as spent (`left` counts it as it goes)."""
        self._since = time.monotonic()
        try:
            yield
        finally:
            self.spent += time.monotonic() - self._since
            self._since = None

    def spent_error(self, url: str) -> InputError:
        """The error of a download that the spent budget ended."""
        what = f"not downloaded within {self.seconds:g} s, the time one side's downloads share"
        return InputError(url, what, "try again later, from a closer mirror, or from a folder")


class Web:
    """A mirror over HTTP(S), its files read by their path below its address, in the time its
    side's `Budget` leaves."""

    def __init__(self, root: str, progress: Callable[[str], None], budget: Budget) -> None:
        self.root = root.rstrip("/")
        self.progress = progress
        self.budget = budget

    def name(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def exists(self, rel: str) -> bool:
        """Whether the (small) file is there: fetched whole, as not every server answers HEAD
        (a missing object on S3 is a 403)."""
        try:
            self._get(rel, 2**20)
        except InputError as error:
            if "HTTP 404" in error.what or "HTTP 403" in error.what:
                return False
            raise
        return True

    def read(self, rel: str, limit: int) -> bytes:
        return self._get(rel, limit)

    def _get(self, rel: str, limit: int) -> bytes:
        """The body at an address; a 5xx answer or a reset connection is tried again."""
        url = self.name(rel)
        with self.budget.spending():
            for wait in RETRIES:
                try:
                    return self._try(url, limit, last=False)
                except _TryAgain:
                    time.sleep(max(0.0, min(wait, self.budget.left())))
            return self._try(url, limit, last=True)

    def _try(self, url: str, limit: int, last: bool) -> bytes:
        """One try at an address: its body, or InputError; _TryAgain when it may succeed later
        and this is not the `last` try."""
        try:
            return _Download(url, self.progress, self.budget).body(limit)
        except urllib.error.HTTPError as exc:
            if exc.code < 500 or last:
                raise InputError(url, f"HTTP {exc.code} {exc.reason}", _fix(exc.code)) from None
            raise _TryAgain from None
        except TimeoutError:
            raise InputError(url, f"no answer within {TIMEOUT:g} s", "try again later") from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise InputError(url, f"no answer within {TIMEOUT:g} s", "try again") from None
            raise InputError(url, f"cannot fetch: {exc.reason}", "check the address") from None
        except http.client.IncompleteRead as exc:
            what = f"truncated: {len(exc.partial)} bytes, then the connection closed"
            raise InputError(url, what, "try again") from None
        except (ConnectionError, http.client.HTTPException) as exc:
            if last:
                raise InputError(url, f"cannot fetch: {exc}", "try again later") from None
            raise _TryAgain from None


class _TryAgain(Exception):
    """A try that failed in a way a later one may not (a 5xx answer, a reset connection)."""


def _fix(status: int) -> str:
    return "check the address" if status < 500 else "the server failed: try again later"


class _Download:
    """One download: its connections are shut when its side's budget is spent, which ends any
    read."""

    def __init__(self, url: str, progress: Callable[[str], None], budget: Budget) -> None:
        self.url = url
        self.progress = progress
        self.budget = budget
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def body(self, limit: int) -> bytes:
        """The body, or InputError naming the address once the side's budget is spent (the
        time this download takes is counted by its caller)."""
        left = self.budget.left()
        if left <= 0:
            raise self.budget.spent_error(self.url)
        timer = threading.Timer(left, self._expire)
        timer.daemon = True
        timer.start()
        try:
            data = self._read(limit)
        except (OSError, http.client.HTTPException, InputError):
            if not self.expired:
                raise
        finally:
            timer.cancel()
        if self.expired:
            raise self.budget.spent_error(self.url)
        return data

    def _read(self, limit: int) -> bytes:
        opener = urllib.request.build_opener(
            _SameOrigin(self.url), _Http(self._connection), _Https(self._connection)
        )
        request = urllib.request.Request(self.url)  # noqa: S310 - http(s) only
        with opener.open(request, timeout=TIMEOUT) as answer:
            expected = _length(answer.headers.get("Content-Length"), self.url)
            if expected is not None and expected > limit:
                raise InputError(self.url, f"larger than {limit // 2**20} MiB", FIX)
            parts: list[bytes] = []
            size, told = 0, 0
            while part := answer.read1(2**20):
                parts.append(part)
                size += len(part)
                if size > limit:
                    raise InputError(self.url, f"larger than {limit // 2**20} MiB", FIX)
                if size >= told + 2**20:  # a word of progress a MiB
                    told = size
                    self.progress(f"{self.url}: {size / 2**20:,.1f} MiB")
        if expected is not None and size != expected:
            what = f"truncated: {size} of {expected} bytes"
            raise InputError(self.url, what, "try again")
        return b"".join(parts)

    def _connection(self, kind: type[_Plain | _Tls]) -> Callable[..., http.client.HTTPConnection]:
        """A factory of connections of this kind whose sockets this download can shut."""

        def connect(host: str, **options: Any) -> http.client.HTTPConnection:
            made = kind(host, **options)
            made.watch = self._watch
            return made

        return connect

    def _watch(self, sock: socket.socket) -> None:
        """A socket connected: shut now if the deadline has passed, else when it does."""
        with self._lock:
            self._sockets.append(sock)
        if self.expired:
            self._expire()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:  # the plain socket's shutdown, under any TLS: reads end
                with contextlib.suppress(OSError):  # closed already
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)


def _length(header: str | None, url: str) -> int | None:
    """The Content-Length a server sent, if any: a count of bytes, else InputError."""
    if header is None:
        return None
    if not header.strip().isdecimal():
        what = f"a bad Content-Length ({header[:40]!r})"
        raise InputError(url, what, "the server is broken: try another mirror")
    return int(header)


class _SameOrigin(urllib.request.HTTPRedirectHandler):
    """Redirects followed only to the same scheme, host and port as the address asked for."""

    def __init__(self, url: str) -> None:
        self.url = url

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        if _origin(newurl) != _origin(req.full_url):
            what = f"redirected to another scheme, host or port: {newurl[:200]}"
            raise InputError(self.url, what, _REDIRECT_FIX)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of an address, its port the scheme's default when not given."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or {"http": 80, "https": 443}.get(scheme)
    except ValueError:  # a port that is not a number
        port = -1
    return scheme, (parts.hostname or "").lower(), port


class _Plain(http.client.HTTPConnection):
    """An HTTP connection that tells its download of its socket (the response outlives it)."""

    watch: Callable[[socket.socket], None]

    def connect(self) -> None:
        super().connect()
        self.watch(self.sock)


class _Tls(http.client.HTTPSConnection):
    """An HTTPS connection that tells its download of its socket."""

    watch: Callable[[socket.socket], None]

    def connect(self) -> None:
        super().connect()
        self.watch(self.sock)


class _Http(urllib.request.HTTPHandler):
    """HTTP through connections the download can shut."""

    def __init__(self, factory: Callable[[type[_Plain]], Any]) -> None:
        super().__init__()
        self.factory = factory

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self.factory(_Plain), req)


class _Https(urllib.request.HTTPSHandler):
    """HTTPS through connections the download can shut."""

    def __init__(self, factory: Callable[[type[_Tls]], Any]) -> None:
        super().__init__()
        self.factory = factory

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self.factory(_Tls), req)
