"""Load every catalogue page below a directory, in sorted order."""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

from ..errors import InputError
from .pages import (
    MAX_PAGE_BYTES,
    NOT_REGULAR_FIX,
    PAGE_FOLDER,
    PAGE_FOLDER_FIX,
    blob_digest,
    check_size,
    is_catalogue_path,
    is_page_content,
    without_bom,
)
from .snapshot import PageBytes, Problems

__all__ = ["NOT_REGULAR", "SNAPSHOT_FIX", "open_regular", "read_directory"]


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
NOT_REGULAR = "not a regular file (a link, FIFO or device)"
# what a side of a diff can be, said when it is none of them
SNAPSHOT_FIX = "give a directory of catalogue pages, a git revision or a build-cache index.json"


def open_regular(path: str, fix: str, dir_fd: int | None = None, where: str = "") -> BinaryIO:
    """A regular file opened to read: never through a link, never blocking on a FIFO (opened
    non-blocking, and checked once open: a listing may be stale). Anything else is an
    InputError naming `where` (default: the path), with this fix."""
    fd, _ = _open_regular_fd(path, fix, dir_fd, where or path)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _open_regular_fd(
    path: str, fix: str, dir_fd: int | None, where: str
) -> tuple[int, os.stat_result]:
    """The descriptor of a regular file opened to read, as `open_regular` opens it (left
    non-blocking, which a regular file's reads ignore), and its status."""
    try:
        fd = os.open(path, _OPEN_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a link (perhaps one that appeared since the listing)
            raise InputError(where, NOT_REGULAR, fix) from exc
        raise InputError(
            where, f"cannot read: {exc.strerror}", "check it exists and is readable"
        ) from exc
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        os.close(fd)
        raise InputError(where, NOT_REGULAR, fix)
    return fd, status


def _read(path: str, layout: bool) -> bytes | None:
    """A page's bytes; None for a file that cannot be a page (checked from its first bytes).

    Only a regular file is read (opened as `open_regular` opens it), and never past the size a
    page can have, whatever fstat says. The descriptor is read directly, left non-blocking
    (`_read_some`): a buffered file object and two calls to make it blocking took a third of
    this function's time (docs/performance.md, session 12).
    """
    fd, status = _open_regular_fd(path, NOT_REGULAR_FIX, None, path)
    try:
        size = status.st_size
        head = b""
        if not layout:
            head = _read_upto(fd, 6)
            if not without_bom(head).startswith(b"---"):
                return None  # no front matter: an asset, a README, ...
        check_size(size, path)
        data = head + _read_upto(fd, max(size - len(head), 0) + 1)  # a byte more: did it grow?
        if len(data) > size:  # it grew since fstat: read on, never past the cap
            data += _read_upto(fd, MAX_PAGE_BYTES + 1 - len(data))
            check_size(len(data), path)
        return data
    finally:
        os.close(fd)


def _read_upto(fd: int, wanted: int) -> bytes:
    """Up to `wanted` bytes from fd, fewer only at its end (one read, as a rule)."""
    found = _read_some(fd, wanted)
    if len(found) in (0, wanted):
        return found
    parts, got = [found], len(found)
    while got < wanted and (more := _read_some(fd, wanted - got)):
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def _read_some(fd: int, size: int) -> bytes:
    """One read; blocking after all on a file system that honours a regular file's
    non-blocking mode (a local one ignores it)."""
    try:
        return os.read(fd, size)
    except BlockingIOError:
        os.set_blocking(fd, True)
        return os.read(fd, size)


def _is_regular(item: os.DirEntry[str]) -> bool:
    """Whether an entry is a regular file itself (not a link to one, a FIFO or a device)."""
    try:
        return item.is_file(follow_symlinks=False)
    except OSError:
        return False


def _is_dir(item: os.DirEntry[str]) -> bool:
    """Whether an entry is a folder (or links to one); a link that loops is not (read it later)."""
    try:
        return item.is_dir()
    except OSError:
        return False


def _entry(item: os.DirEntry[str]) -> tuple[str, bool, bool, bool]:
    """(name, folder, link, regular) of a listed entry: `_is_dir` and `_is_regular` of it, in
    one call (for all but a link, from the type the listing gives: no system call)."""
    try:
        return item.name, item.is_dir(), item.is_symlink(), item.is_file(follow_symlinks=False)
    except OSError:
        return item.name, _is_dir(item), item.is_symlink(), _is_regular(item)


def _files(root: str) -> list[tuple[str, bool]]:
    """(relative path, regular) of the files below root, sorted, each folder's files before its
    subfolders; `regular` is False for links, FIFOs and devices, which are never read. Hidden
    folders are skipped, and linked folders neither listed nor entered; a folder at a page's
    place (`_cache/<tag>/<package>/specs.md`) is listed as a file that is not regular, and not
    entered."""
    found: list[tuple[str, bool]] = []
    folders = [""]  # relative paths still to list, the next one last
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(os.path.join(root, folder)) as listing:
                items = sorted(map(_entry, listing))
        except OSError as exc:
            where = exc.filename or root
            raise InputError(
                where, f"cannot list: {exc.strerror}", "check its permissions"
            ) from exc
        prefix = folder + os.sep if folder else ""
        at_page = {n for n, is_dir, _, _ in items if is_dir and _at_page(prefix + n)}
        found.extend(
            (prefix + name, regular)
            for name, is_dir, link, regular in items
            if not is_dir or name in at_page
        )
        below = [
            prefix + n
            for n, is_dir, link, _ in items
            if is_dir and not link and n[0] != "." and n not in at_page
        ]
        folders.extend(reversed(below))
    return found


def _at_page(rel: str) -> bool:
    """Whether a folder (a path relative to the snapshot) sits where a page should."""
    return rel.endswith("specs.md") and is_catalogue_path(rel.replace(os.sep, "/"))


def read_directory(root: str, problems: Problems) -> list[PageBytes]:
    """The raw bytes of every page below root: catalogue-layout files, and files that are pages."""
    if not os.path.isdir(root):
        what = "not a directory" if os.path.exists(root) else "no such directory or git revision"
        raise InputError(root, what, SNAPSHOT_FIX)
    pages: list[PageBytes] = []
    for rel, regular in _files(root):
        path = os.path.join(root, rel)
        layout = is_catalogue_path(rel.replace(os.sep, "/"))
        if not regular and not layout:
            continue  # a link, FIFO or device elsewhere cannot be a page to read
        try:
            if not regular and os.path.isdir(path) and not os.path.islink(path):
                raise InputError(path, PAGE_FOLDER, PAGE_FOLDER_FIX)
            if not regular:
                raise InputError(path, NOT_REGULAR, NOT_REGULAR_FIX)
            data = _read(path, layout)
        except InputError as error:
            problems.skip(error)
            continue
        if data is not None and is_page_content(data, layout, path):
            pages.append(PageBytes(path, data, blob_digest(data)))
    return pages
