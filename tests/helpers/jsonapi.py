"""A stand-in for a forge's JSON API in tests: the request handler's quiet log and answers, and
a server answering whatever a test scripts."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from collections.abc import Iterator
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

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # polled often: shutting down waits for the next poll (half a second by default)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
