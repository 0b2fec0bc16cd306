"""Load every catalogue page below a directory, in sorted order."""

from __future__ import annotations

import os

from ..errors import InputError
from .pages import blob_digest, check_size, is_catalogue_path, is_page
from .snapshot import PageBytes, Problems

__all__ = ["read_directory"]


def _read(path: str, layout: bool) -> bytes | None:
    """A page's bytes; None for a file that cannot be a page (checked from its first bytes)."""
    try:
        with open(path, "rb") as handle:
            if layout:
                check_size(os.fstat(handle.fileno()).st_size, path)
                return handle.read()
            head = handle.read(3)
            if head != b"---":
                return None  # no front matter: an asset, a README, ...
            return head + handle.read()
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


def read_directory(root: str, problems: Problems) -> list[PageBytes]:
    """The raw bytes of every page below root: catalogue-layout files, and files that are pages."""
    if not os.path.isdir(root):
        what = "not a directory" if os.path.exists(root) else "no such directory or git revision"
        raise InputError(root, what, "give a directory of catalogue pages or a git revision")
    pages: list[PageBytes] = []
    for rel in _files(root):
        path = os.path.join(root, rel)
        layout = is_catalogue_path(rel.replace(os.sep, "/"))
        try:
            data = _read(path, layout)
        except InputError as error:
            problems.skip(error)
            continue
        if data is not None and (layout or is_page(data)):
            pages.append(PageBytes(path, data, blob_digest(data)))
    return pages
