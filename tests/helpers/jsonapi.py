"""A stand-in for a forge's JSON API in tests: the request handler's quiet log and answers."""

from __future__ import annotations

import http.server
import json


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
