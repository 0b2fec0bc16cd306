"""Build-cache mirrors in layout 2 and layout 3 (Spack 1.0), in folders and over HTTP.

The indexes are real (tests/data/spack-index, from spack/spack's test data); the mirrors around
them are built here in the two layouts Spack writes, and served by a real HTTP server on the
loopback interface, started and stopped by the tests.
"""

from __future__ import annotations

import gzip
import http.server
import os
import random
import re
import shutil
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from clirun import run
from jsonapi import serving
from mirrors import INDEX, V7, V8, layout2, layout3, report

from snapdiff.errors import InputError
from snapdiff.sources.mirror import layouts as mirror
from snapdiff.sources.mirror import web


def test_a_v3_mirror_reports_what_the_same_index_in_layout_2_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = str(layout2(tmp_path / "old", V7))
    two = str(layout2(tmp_path / "two", V8))
    three = str(layout3(tmp_path / "three", V8, older=V7))  # gzip; two database versions
    assert report([old, three], capsys) == report([old, two], capsys)
    assert report([two, three], capsys)["packages"] == []
    assert report([old, two], capsys)["packages"], "the comparison must hold changes"


def test_a_folder_of_stacks_mixes_the_layouts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout2(tmp_path / "mixed", V8)
    layout3(tmp_path / "mixed" / "e4s", V8)
    data = report([str(INDEX / "db-v8-index.json"), str(tmp_path / "mixed")], capsys)
    assert [(s["name"], s["status"]) for s in data["stacks"]] == [("e4s", "added")]


def test_the_same_index_under_two_names_is_no_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("index-2024-06.json", "index-2024-07.json"):
        shutil.copyfile(V8, tmp_path / name)
    a, b = str(tmp_path / "index-2024-06.json"), str(tmp_path / "index-2024-07.json")
    data = report([a, b], capsys)
    assert data["packages"] == [] and data["stacks"] == []
    assert {s["name"] for s in report([str(V7), a, "--stack-name", "e4s"], capsys)["stacks"]} == {
        "e4s"
    }


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the mirrors' folder; `/broken/…` answers 500, `/flaky/…` 503 once then as without
    `/flaky`, `/unhurried/…` as without it, 30 ms late, `/failing/…` 503, 120 ms late,
    `/slow/…` too late, `/cut/…` a body shorter than it says."""

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    failed: ClassVar[set[str]] = set()  # `/flaky/…`: the addresses that answered 500 once

    def do_GET(self) -> None:
        if self.path.startswith("/broken/"):
            self.send_error(500, "Internal Server Error")
        elif self.path.startswith("/flaky/") and self.path not in self.failed:
            self.failed.add(self.path)
            self.send_error(503, "Service Unavailable")
        elif self.path.startswith("/flaky/"):
            self.path = self.path[len("/flaky") :]
            super().do_GET()
        elif self.path.startswith("/unhurried/"):  # each file well within every timeout
            time.sleep(0.03)
            self.path = self.path[len("/unhurried") :]
            super().do_GET()
        elif self.path.startswith("/failing/"):  # a 5xx answer, each 120 ms late
            time.sleep(0.12)
            self.send_error(503, "Service Unavailable")
        elif self.path.startswith("/slow/"):
            time.sleep(1.0)
            self.send_error(404)
        elif self.path.startswith("/cut/") and self.path.endswith("layout.json"):
            self.send_error(404)
        elif self.path.startswith(("/redirect-", "/moved/")):
            self._redirect()
        elif self.path.startswith("/drip/"):
            self._drip()
        elif self.path.startswith("/length-"):
            self.send_response(200)
            self.send_header("Content-Length", "abc" if "abc" in self.path else "-5")
            self.end_headers()
            self.wfile.write(b"{}")
        elif self.path.startswith("/cut/"):
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"database": ')
        else:
            super().do_GET()

    def _redirect(self) -> None:
        """`/redirect-KIND/rest` to rest elsewhere (`host`, `port`, `ftp`); `/moved/rest` to
        /rest on this server."""
        kind, rest = self.path[1:].split("/", 1)
        port = self.headers["Host"].rsplit(":", 1)[1]
        there = {
            "moved": f"/{rest}",
            "redirect-host": f"http://localhost:{port}/{rest}",
            "redirect-port": f"http://127.0.0.1:1/{rest}",
            "redirect-ftp": f"ftp://127.0.0.1/{rest}",
        }[kind]
        self.send_response(302)
        self.send_header("Location", there)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _drip(self) -> None:
        """A byte at a time, each well within the timeout of a read, never all of them."""
        self.send_response(200)
        self.send_header("Content-Length", "1000")
        self.end_headers()
        try:
            for _ in range(200):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.05)
        except OSError:  # snapdiff gave up
            pass

    def do_HEAD(self) -> None:  # as some object stores do: snapdiff never asks HEAD
        self.send_error(405)


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An HTTP server on the loopback interface serving tmp_path/www; its address."""
    www = tmp_path / "www"
    www.mkdir()
    monkeypatch.setattr(web, "TIMEOUT", 0.3)
    monkeypatch.setattr(web, "RETRIES", (0.0, 0.0))

    def handler(*args: Any) -> _Handler:
        return _Handler(*args, directory=str(www))

    with serving(handler) as url:
        yield url


def test_mirrors_over_http_report_what_folders_do(
    served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    www = tmp_path / "www"
    layout3(www / "develop", V8, older=V7)
    layout2(www / "develop-e4s", V8)
    layout2(www / "yesterday", V7)
    here = report([str(www / "yesterday"), str(www / "develop")], capsys)
    there = report([f"{served}/yesterday", f"{served}/develop"], capsys)
    assert there == here
    stacks = report(
        [str(V7), f"{served}/develop", "--stack-url", f"e4s={served}/develop-e4s"], capsys
    )["stacks"]
    assert {s["name"] for s in stacks} >= {"e4s"}


def test_an_answer_of_503_is_tried_again(
    served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout2(tmp_path / "www" / "develop", V8)
    _Handler.failed.clear()
    steady = report([str(V7), f"{served}/develop"], capsys)
    assert report([str(V7), f"{served}/flaky/develop"], capsys)["packages"] == steady["packages"]
    assert _Handler.failed  # every address failed once, then answered


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("broken/develop", "/broken/develop/v3/layout.json: HTTP 500 Internal Server Error"),
        ("slow/develop", "/slow/develop/v3/layout.json: no answer within 0.3 s"),
        ("cut/develop", "/cut/develop/build_cache/index.json: truncated: 13 of 1000 bytes"),
        ("damaged", "/damaged/blobs/sha256/"),
        ("missing", "/missing/build_cache/index.json: HTTP 404 File not found"),
    ],
)
def test_a_failure_over_http_is_one_line_naming_the_address(
    path: str, said: str, served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout3(tmp_path / "www" / "damaged", V8, lie=True)
    code, _, err = run([str(V7), f"{served}/{path}"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"snapdiff: error: {served}{'/' if not said.startswith('/') else ''}")
    assert said in err
    if path == "damaged":
        assert "does not match its manifest" in err


# Issue 25, item 9: a mirror folder's index opened with plain open(): a FIFO hung forever, a link
# out of the snapshot was read and reported, a link to /dev/zero read 2 GiB first.


def snapdiff_process(*argv: str) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own, so that a hang fails the test instead of hanging."""
    return subprocess.run(
        [sys.executable, "-m", "snapdiff", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "outside"])
def test_a_mirror_index_that_is_not_a_regular_file_is_refused(kind: str, tmp_path: Path) -> None:
    mirror_dir = layout2(tmp_path / "new", V8)
    index = mirror_dir / "build_cache" / "index.json"
    index.unlink()
    if kind == "fifo":
        os.mkfifo(index)
    else:
        index.symlink_to("/dev/zero" if kind == "dev-zero" else V8)
    done = snapdiff_process(str(V7), str(tmp_path / "new"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"{index}: not a regular file (a link, FIFO or device)" in done.stderr


@pytest.mark.parametrize("linked", ["blob", "blobs"])
def test_a_layout_3_blob_is_not_read_through_a_link(
    linked: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mirror_dir = layout3(tmp_path / "new", V8)
    (blob,) = (mirror_dir / "blobs").rglob("*/*/*")
    if linked == "blob":  # the blob itself links out of the mirror
        outside = tmp_path / "outside-blob"
        blob.rename(outside)
        blob.symlink_to(outside)
    else:  # the blobs folder does
        (mirror_dir / "blobs").rename(tmp_path / "outside")
        (mirror_dir / "blobs").symlink_to(tmp_path / "outside")
    code, _, err = run([str(V7), str(mirror_dir)], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"snapdiff: error: {blob}: "), err
    assert "not a regular file" in err or "blobs/ is a link or not a folder" in err


def test_an_index_named_on_the_command_line_may_be_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "latest.json").symlink_to(V8)
    assert report([str(V8), str(tmp_path / "latest.json")], capsys)["packages"] == []


# Issue 25, item 10: a layout-3 blob whose checksum and length match inflated to just under the
# 2 GiB cap (and the JSON parse needed a second copy): 4.1 GiB of memory for a 2 MiB blob.

BOMB = b'{"database": {"version": "8", "installs": {}}}' + b" " * 16 * 2**20  # valid JSON


def test_a_gzip_bomb_in_a_v3_mirror_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bomb.json").write_bytes(BOMB)
    mirror_dir = layout3(tmp_path / "new", tmp_path / "bomb.json")
    (blob,) = (mirror_dir / "blobs").rglob("*/*/*")
    assert blob.stat().st_size * 100 < len(BOMB)
    code, _, err = run([str(V7), str(mirror_dir)], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"snapdiff: error: {blob}: inflates past "), err
    assert "compressed bytes can hold (not a real index" in err


def test_a_gzip_bomb_stops_inflating_at_the_bound() -> None:
    data = gzip.compress(bytes(64 * 2**20), compresslevel=9, mtime=0)  # 64 MiB in 64 KiB
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="inflates past"):
            mirror._gunzip(data, "blob")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak  # the bound is 7.4 MiB; before, all 64 MiB were held


def test_a_blob_within_the_bound_is_held_once_while_inflating() -> None:
    """Issue 47: inflated chunks were joined at the end, the index held twice at the peak (a 33
    MiB blob inflating to 2 GiB cost 4.1 GiB); inflated in place, once and a growth margin."""
    text = random.Random(0).randbytes(2 * 2**20).hex().encode()  # 4 MiB, about 2x in gzip
    data = gzip.compress(text, compresslevel=1, mtime=0)
    tracemalloc.start()
    try:
        assert mirror._gunzip(data, "blob") == text
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * len(text), (peak, len(text))  # 1.23 here; joined, 2.01


def test_real_indexes_inflate_well_within_the_bound() -> None:
    for index in (V7, V8):
        raw = index.read_bytes()
        data = gzip.compress(raw, compresslevel=9, mtime=0)
        assert mirror._gunzip(data, str(index)) == raw
        assert len(raw) < 10 * len(data) < mirror.inflate_bound(len(data))


# Issue 25, items 11 and 13: redirects were followed to other hosts and schemes (ftp://, https →
# http); a server dripping a byte within each read's timeout was never stopped; a Content-Length
# that is not a count of bytes was an internal error, or a wrong "truncated" line.


@pytest.mark.parametrize("kind", ["host", "port", "ftp"])
def test_a_redirect_elsewhere_is_refused_naming_the_address(
    kind: str, served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout2(tmp_path / "www" / "develop", V8)
    code, _, err = run([str(V7), f"{served}/redirect-{kind}/develop"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    address = f"{served}/redirect-{kind}/develop/v3/layout.json"
    assert err.startswith(f"snapdiff: error: {address}: redirected to another scheme, host or ")
    assert err.rstrip().endswith("(give the address it redirects to, if you trust it)"), err


def test_a_redirect_on_the_same_server_is_followed(
    served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout3(tmp_path / "www" / "develop", V8)
    moved = report([str(V7), f"{served}/moved/develop"], capsys)
    assert moved == report([str(V7), f"{served}/develop"], capsys)


def test_a_server_dripping_bytes_is_stopped_at_the_deadline(
    served: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(web, "DEADLINE", 0.5)
    code, _, err = run([str(V7), f"{served}/drip/develop"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    address = f"{served}/drip/develop/v3/layout.json"
    assert err.startswith(f"snapdiff: error: {address}: not downloaded within 0.5 s"), err


def test_the_deadline_is_one_sides_not_each_downloads(
    served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 47: each download had the whole deadline, so a server answering each of many files
    just within it kept a side open for downloads × deadline. Here 12 mirrors of one side, two
    files each at 30 ms: 0.72 s of downloads, each well within a deadline of 0.25 s."""
    for n in range(12):
        layout2(tmp_path / "www" / f"s{n}", V8)
    monkeypatch.setattr(web, "DEADLINE", 0.25)
    more = [w for n in range(1, 12) for w in ("--stack-url", f"s{n}={served}/unhurried/s{n}")]
    code, _, err = run([str(V7), f"{served}/unhurried/s0", *more], capsys)
    assert code == 2 and err.count("\n") == 1, err
    said = re.fullmatch(r"snapdiff: error: (\S+): not downloaded within 0.25 s, (.*)\n", err)
    assert said, err
    assert said[1].startswith(f"{served}/unhurried/s") and said[1].endswith(".json"), err
    assert said[2] == (
        "the time one side's downloads share (try again later, from a closer mirror, or from a "
        "folder)"
    )


def test_the_deadline_counts_the_tries_of_a_download_as_they_go(
    served: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server failing slowly (503 after 120 ms): three tries of one download take 0.36 s,
    past a side's 0.3 s. Each try was given the time left before the download began, so the
    third ran to its 503; the time its tries took is counted as they go."""
    monkeypatch.setattr(web, "DEADLINE", 0.3)
    code, _, err = run([str(V7), f"{served}/failing/develop"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert re.match(r"snapdiff: error: \S+: not downloaded within 0.3 s, ", err), err


@pytest.mark.parametrize("length", ["abc", "neg"])
def test_a_bad_content_length_is_one_line_naming_the_address(
    length: str, served: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run([str(V7), f"{served}/length-{length}/develop"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    address = f"{served}/length-{length}/develop/v3/layout.json"
    assert err.startswith(f"snapdiff: error: {address}: a bad Content-Length"), err


def _address_space() -> int:
    """This process's address space in bytes (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise LookupError("VmSize")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="Linux's /proc")
def test_an_index_is_read_in_a_buffer_of_its_size_under_a_memory_limit(tmp_path: Path) -> None:
    """Issue 47 item 4: an index was read with a buffer of the whole limit (2 GiB), which a
    process allowed 1 GiB more address space refused (an internal error); now its own size."""
    import resource

    layout2(tmp_path / "m", V8)
    was = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (_address_space() + 2**30, was[1]))
    try:
        data = mirror.Folder(str(tmp_path / "m")).read(
            "build_cache/index.json", mirror.MAX_INDEX_BYTES
        )
    finally:
        resource.setrlimit(resource.RLIMIT_AS, was)
    assert data == V8.read_bytes()


def test_a_file_that_grows_while_read_is_read_on_to_the_limit() -> None:
    """A pipe's size is 0: what comes after that is read on by chunks, never past `most`."""
    read, write = os.pipe()
    os.write(write, b"x" * 1000)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        assert mirror._read_up_to(handle, 600) == b"x" * 600
