"""Load every catalogue page below a directory, in sorted order."""

from __future__ import annotations

import os

from ..errors import InputError
from .pages import blob_digest, is_catalogue_path, is_page
from .snapshot import PageBytes

__all__ = ["read_directory"]


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise InputError(
            path, f"cannot read: {exc.strerror}", "check it exists and is readable"
        ) from exc


def _files(root: str) -> list[str]:
    """Relative paths of the regular files below root, sorted; hidden folders are skipped."""
    found: list[str] = []

    def fail(exc: OSError) -> None:
        where = exc.filename or root
        raise InputError(where, f"cannot list: {exc.strerror}", "check its permissions")

    for dirpath, dirnames, filenames in os.walk(root, onerror=fail):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        rel_dir = os.path.relpath(dirpath, root)
        for name in sorted(filenames):
            found.append(name if rel_dir == "." else os.path.join(rel_dir, name))
    return found


def read_directory(root: str) -> list[PageBytes]:
    """The raw bytes of every page below root: catalogue-layout files, and files that are pages."""
    if not os.path.isdir(root):
        what = "not a directory" if os.path.exists(root) else "no such directory or git revision"
        raise InputError(root, what, "give a directory of catalogue pages or a git revision")
    pages: list[PageBytes] = []
    for rel in _files(root):
        path = os.path.join(root, rel)
        data = _read(path)
        if is_catalogue_path(rel.replace(os.sep, "/")) or is_page(data):
            pages.append(PageBytes(path, data, blob_digest(data)))
    return pages
