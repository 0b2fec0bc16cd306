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
    blob_digest,
    check_size,
    is_catalogue_path,
    is_page_content,
    without_bom,
)
from .snapshot import PageBytes, Problems

__all__ = ["NOT_REGULAR", "open_regular", "read_directory"]


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
NOT_REGULAR = "not a regular file (a link, FIFO or device)"


def open_regular(path: str, fix: str, dir_fd: int | None = None, where: str = "") -> BinaryIO:
    """A regular file opened to read: never through a link, never blocking on a FIFO (opened
    non-blocking, and checked once open: a listing may be stale). Anything else is an
    InputError naming `where` (default: the path), with this fix."""
    where = where or path
    try:
        fd = os.open(path, _OPEN_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a link (perhaps one that appeared since the listing)
            raise InputError(where, NOT_REGULAR, fix) from exc
        raise InputError(
            where, f"cannot read: {exc.strerror}", "check it exists and is readable"
        ) from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError(where, NOT_REGULAR, fix)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _read(path: str, layout: bool) -> bytes | None:
    """A page's bytes; None for a file that cannot be a page (checked from its first bytes).

    Only a regular file is read (`open_regular`), and never past the size a page can have,
    whatever fstat says.
    """
    with open_regular(path, NOT_REGULAR_FIX) as handle:
        head = handle.read(6)
        if not layout and not without_bom(head).startswith(b"---"):
            return None  # no front matter: an asset, a README, ...
        size = os.fstat(handle.fileno()).st_size
        check_size(size, path)
        data = head + handle.read(max(size - len(head), 0) + 1)  # a byte more: did it grow?
        if len(data) > size:  # it grew since fstat: read on, never past the cap
            data += handle.read(MAX_PAGE_BYTES + 1 - len(data))
            check_size(len(data), path)
        return data


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


def _files(root: str) -> list[tuple[str, bool]]:
    """(relative path, regular) of the files below root, sorted, each folder's files before its
    subfolders; `regular` is False for links, FIFOs and devices, which are never read. Hidden
    folders are skipped, and linked folders neither listed nor entered."""
    found: list[tuple[str, bool]] = []
    folders = [""]  # relative paths still to list, the next one last
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(os.path.join(root, folder)) as listing:
                items = sorted(
                    (item.name, _is_dir(item), item.is_symlink(), _is_regular(item))
                    for item in listing
                )
        except OSError as exc:
            where = exc.filename or root
            raise InputError(
                where, f"cannot list: {exc.strerror}", "check its permissions"
            ) from exc
        prefix = folder + os.sep if folder else ""
        found.extend(
            (prefix + name, regular) for name, is_dir, link, regular in items if not is_dir
        )
        below = [prefix + n for n, is_dir, link, _ in items if is_dir and not link and n[0] != "."]
        folders.extend(reversed(below))
    return found


def read_directory(root: str, problems: Problems) -> list[PageBytes]:
    """The raw bytes of every page below root: catalogue-layout files, and files that are pages."""
    if not os.path.isdir(root):
        what = "not a directory" if os.path.exists(root) else "no such directory or git revision"
        raise InputError(root, what, "give a directory of catalogue pages or a git revision")
    pages: list[PageBytes] = []
    for rel, regular in _files(root):
        path = os.path.join(root, rel)
        layout = is_catalogue_path(rel.replace(os.sep, "/"))
        if not regular and not layout:
            continue  # a link, FIFO or device elsewhere cannot be a page to read
        try:
            if not regular:
                raise InputError(path, NOT_REGULAR, NOT_REGULAR_FIX)
            data = _read(path, layout)
        except InputError as error:
            problems.skip(error)
            continue
        if data is not None and is_page_content(data, layout, path):
            pages.append(PageBytes(path, data, blob_digest(data)))
    return pages
