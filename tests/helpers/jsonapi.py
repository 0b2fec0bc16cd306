"""A stand-in for a forge's JSON API in tests: the request handler's quiet log and answers, and
a server answering whatever a test scripts."""

from __future__ import annotations

import contextlib
import http.server
import json
import sys
import threading
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit


class JsonHandler(http.server.BaseHTTPRequestHandler):
    """Answers in JSON and logs nothing (the test's output is the test's)."""

    def log_message(self, *args: object) -> None:
        pass

    def _answer(self, status: int, data: object) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


# (status, body as sent, and how many bytes it claims to be: None for its own length)
Answer = tuple[int, bytes, int | None]


@contextlib.contextmanager
def scripted(answers: dict[tuple[str, str], Answer]) -> Iterator[str]:
    """A loopback server answering each (method, path) with what it is given, byte for byte
    (an answer claiming more bytes than it sends is cut short), 404 otherwise; its address."""

    class Handler(JsonHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            path = urlsplit(self.path).path
            found = answers.get((self.command, path))
            if found is None:
                return self._answer(404, {"message": "Not Found"})
            status, body, claimed = found
            self.send_response(status)
            self.send_header("Content-Length", str(len(body) if claimed is None else claimed))
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True
            return None

        do_GET = do_POST = do_PATCH = do_PUT = _handle

    with serving(Handler) as url:
        yield url


class _Server(http.server.ThreadingHTTPServer):
    """A loopback server that says nothing of a client hanging up (the tests' clients give up on
    slow answers on purpose): its traceback on stderr would be read as the command's."""

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextlib.contextmanager
def serving(handler: Callable[..., http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """A server on the loopback interface, in a thread, handling requests with `handler`; its
    address (`http://127.0.0.1:PORT`), shut down on leaving."""
    server = _Server(("127.0.0.1", 0), handler)
    # polled often: shutting down waits for the next poll (half a second by default)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
