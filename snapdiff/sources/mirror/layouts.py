"""Spack build-cache mirrors, in a folder or over HTTP(S) (`web.py`): where each stack's index is.

Layout 2 (Spack ≤ 0.23): `<mirror>/build_cache/index.json`. Layout 3 (Spack 1.0): the index is a
content-addressed blob named by `<mirror>/v3/manifests/index/index.manifest.json`, stored at
`<mirror>/blobs/<algorithm>/<checksum[:2]>/<checksum>`, perhaps gzip-compressed; its length and
checksum are checked before it is used. A folder may hold one mirror (the `root` stack) or one
per stack (`<root>/<stack>/…`), in either layout.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import zlib
from typing import Any, BinaryIO, NamedTuple, Protocol

import orjson

from ...errors import InputError
from ..directory import open_regular

__all__ = [
    "DB_VERSIONS",
    "FIX",
    "MAX_INDEX_BYTES",
    "MAX_RATIO",
    "Folder",
    "Index",
    "find_mirrors",
    "index_of",
    "inflate_bound",
    "is_url",
]

FIX = "give a Spack build-cache mirror (layout 2 or 3), or its index.json"
MAX_INDEX_BYTES = 2 * 2**30  # a whole develop index is a few hundred MiB
# A Spack index gzip-compresses about 5x (the real samples in tests/data/spack-index) to 25x (a
# synthetic one repeating every field but the hashes, which do not compress); 49x even indented
# by 4 spaces. A blob inflating more than 100x is no index: a gzip bomb (1,000x) stops there.
MAX_RATIO = 100
_RATIO_ALLOWANCE = 2**20  # bytes any blob may inflate to, whatever its size
_INFLATE_CHUNK = 2**20  # bytes inflated at a time
_FEED_CHUNK = 2**16  # compressed bytes given at a time
_BOMB_FIX = "not a real index: the mirror is damaged or hostile"
DB_VERSIONS = (6, 7, 8, 9)  # Spack database versions snapdiff reads (9: Spack 1.3)
_DB_MEDIA = re.compile(r"application/vnd\.spack\.db\.v([0-9]+)\+json")
_CHECKSUM = re.compile(r"[0-9a-f]{32,128}")
_MANIFEST = "v3/manifests/index/index.manifest.json"
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0)
_NOT_REGULAR_FIX = "snapdiff reads only regular files inside a mirror: replace it with the file"


class Index(NamedTuple):
    """One stack's build-cache index: where it came from, its stack, and its JSON bytes (as
    read, or inflated in place: one copy either way)."""

    where: str
    stack: str
    data: bytes | bytearray


class Location(Protocol):
    """A mirror's root: a folder, or an address over HTTP(S)."""

    def name(self, rel: str) -> str: ...
    def exists(self, rel: str) -> bool: ...
    def read(self, rel: str, limit: int) -> bytes: ...


class Folder:
    """A mirror in a folder."""

    def __init__(self, root: str) -> None:
        self.root = root

    def name(self, rel: str) -> str:
        return os.path.join(self.root, rel)

    def exists(self, rel: str) -> bool:
        return os.path.isfile(self.name(rel))

    def read(self, rel: str, limit: int) -> bytes:
        """A file of the mirror: a regular file inside it only, never through a link (of a
        folder or of the file), never past the limit."""
        path = self.name(rel)
        *folders, name = rel.split("/")
        try:
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise InputError(self.root, f"cannot read: {exc.strerror}", "check the mirror") from exc
        try:
            for folder in folders:  # each folder opened without following a link
                inner = _open_folder(folder, fd, path)
                os.close(fd)
                fd = inner
            with open_regular(name, _NOT_REGULAR_FIX, dir_fd=fd, where=path) as handle:
                data = _read_up_to(handle, limit + 1)
        finally:
            os.close(fd)
        if len(data) > limit:
            raise InputError(path, f"larger than {limit // 2**20} MiB", FIX)
        return data


_CHUNK = 64 * 2**20  # what a file that grows while read is read on by


def _read_up_to(handle: BinaryIO, most: int) -> bytes:
    """At most `most` bytes of a regular file, in a buffer of its size (a read of `most` bytes
    reserves them all: 2 GiB of address space for every index, which a memory limit refuses),
    then on by chunks if it grew meanwhile."""
    size = os.fstat(handle.fileno()).st_size
    data = handle.read(min(size + 1, most))
    if len(data) <= size or len(data) >= most:
        return data
    parts, total = [data], len(data)
    while total < most and (part := handle.read(min(_CHUNK, most - total))):
        parts.append(part)
        total += len(part)
    return b"".join(parts)


def _open_folder(name: str, dir_fd: int, where: str) -> int:
    """The folder `name` in the folder `dir_fd`, opened; a link to one is refused."""
    try:
        return os.open(name, _FOLDER_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            what = f"{name}/ is a link or not a folder"
            raise InputError(where, what, _NOT_REGULAR_FIX) from exc
        raise InputError(where, f"cannot read: {exc.strerror}", "check the mirror") from exc


def is_url(arg: str) -> bool:
    """An http(s) address, read as a mirror over the network."""
    return arg.startswith(("http://", "https://"))


def _entry(manifest: Any, where: str) -> dict[str, Any]:
    """The manifest's index entry of the highest database version snapdiff reads."""
    if not isinstance(manifest, dict) or manifest.get("version") != 3:
        raise InputError(where, "not a layout 3 manifest (version 3)", FIX)
    data = manifest.get("data")
    if not isinstance(data, list):
        raise InputError(where, "the manifest has no data list", FIX)
    found: dict[int, dict[str, Any]] = {}
    for item in data:
        if not isinstance(item, dict):
            continue
        media = _DB_MEDIA.fullmatch(str(item.get("mediaType", "")))
        if media and int(media[1]) in DB_VERSIONS:
            found[int(media[1])] = item
    if not found:
        listed = ", ".join(str(i.get("mediaType")) for i in data if isinstance(i, dict))
        raise InputError(where, f"no index of a database version snapdiff reads ({listed})", FIX)
    return found[max(found)]


def _v3_index(mirror: Location) -> tuple[str, bytes | bytearray]:
    """(where, JSON) of a layout 3 mirror's index, its blob checked and decompressed."""
    where = mirror.name(_MANIFEST)
    try:
        manifest = orjson.loads(mirror.read(_MANIFEST, 2**20))
    except orjson.JSONDecodeError as exc:
        raise InputError(where, f"not valid JSON ({exc.msg})", FIX) from None
    entry = _entry(manifest, where)
    algorithm, checksum = str(entry.get("checksumAlgorithm")), str(entry.get("checksum"))
    length, compression = entry.get("contentLength"), entry.get("compression")
    if algorithm not in ("sha256", "sha512") or not _CHECKSUM.fullmatch(checksum):
        raise InputError(where, "the index entry has no sha256 or sha512 checksum", FIX)
    if not isinstance(length, int) or compression not in ("gzip", "none"):
        raise InputError(where, "the index entry has no contentLength or compression", FIX)
    blob = f"blobs/{algorithm}/{checksum[:2]}/{checksum}"
    data = mirror.read(blob, MAX_INDEX_BYTES)
    if len(data) != length or hashlib.new(algorithm, data).hexdigest() != checksum:
        what = f"does not match its manifest ({len(data)} bytes, {algorithm} checked)"
        raise InputError(mirror.name(blob), what, "the mirror is damaged: fetch it again")
    if compression == "gzip":
        return mirror.name(blob), _gunzip(data, mirror.name(blob))
    return mirror.name(blob), data


def _gunzip(data: bytes, where: str) -> bytearray:
    """A gzip blob decompressed a chunk at a time into one buffer, stopped as soon as it passes
    what an index of its compressed size can inflate to (`inflate_bound`): a bomb costs at most
    that bound. The buffer grows in place (a large one is remapped, not copied) and is handed on
    as it is: chunks joined at the end held the index twice, 4.1 GiB for a 33 MiB blob; and the
    blob is fed a slice at a time, as zlib copies what a call leaves unread."""
    bound = inflate_bound(len(data))
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out, view, at = bytearray(), memoryview(data), 0
    rest: bytes | memoryview = b""
    try:
        while not inflate.eof:
            if not rest and at < len(view):  # fed a slice at a time: zlib's tail of unused
                rest, at = view[at : at + _FEED_CHUNK], at + _FEED_CHUNK  # input is a copy
            part = inflate.decompress(rest, min(_INFLATE_CHUNK, bound + 1 - len(out)))
            rest = inflate.unconsumed_tail
            if not part and not rest and at >= len(view):
                raise zlib.error("the data ends before the gzip stream does")
            out += part
            if len(out) > bound:
                what = f"inflates past {bound:,} bytes, more than an index of {len(data):,}"
                raise InputError(where, f"{what} compressed bytes can hold", _BOMB_FIX)
    except zlib.error as exc:
        raise InputError(where, f"not gzip data ({exc})", "the mirror is damaged") from None
    return out


def inflate_bound(compressed: int) -> int:
    """The most a gzip index of this many bytes may inflate to: MAX_RATIO times, plus a little
    for a small index (whose headers compress poorly), and never past MAX_INDEX_BYTES."""
    return min(MAX_INDEX_BYTES, MAX_RATIO * compressed + _RATIO_ALLOWANCE)


def index_of(mirror: Location, stack: str) -> Index:
    """A mirror's index: layout 3 where it has `v3/layout.json`, else layout 2."""
    if mirror.exists("v3/layout.json"):
        where, data = _v3_index(mirror)
        return Index(where, stack, data)
    rel = "build_cache/index.json"
    return Index(mirror.name(rel), stack, mirror.read(rel, MAX_INDEX_BYTES))


def find_mirrors(root: str) -> list[tuple[str, Folder]]:
    """(stack, mirror) of every mirror below a folder, sorted: the folder's own is `root`, the
    others are named by their folder (`<root>/<stack>/…`); either layout."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "_cache")
        here = os.path.basename(dirpath)
        if here == "build_cache" and "index.json" in filenames:
            mirror = os.path.dirname(dirpath)
        elif here == "v3" and "layout.json" in filenames:
            mirror = os.path.dirname(dirpath)
            dirnames.clear()
        else:
            continue
        same = os.path.realpath(mirror) == os.path.realpath(root)
        found.append(("root" if same else os.path.basename(mirror), Folder(mirror)))
    return sorted(found, key=lambda item: item[0])
