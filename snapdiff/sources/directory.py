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


def _is_dir(item: os.DirEntry[str]) -> bool:
    """Whether an entry is a folder (or links to one); a link that loops is not (read it later)."""
    try:
        return item.is_dir()
    except OSError:
        return False


def _files(root: str) -> list[str]:
    """Relative paths of the regular files below root, sorted, each folder's files before its
    subfolders; hidden folders are skipped, and linked folders listed but not entered."""
    found: list[str] = []
    folders = [""]  # relative paths still to list, the next one last
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(os.path.join(root, folder)) as listing:
                items = sorted((item.name, _is_dir(item), item.is_symlink()) for item in listing)
        except OSError as exc:
            where = exc.filename or root
            raise InputError(
                where, f"cannot list: {exc.strerror}", "check its permissions"
            ) from exc
        prefix = folder + os.sep if folder else ""
        found.extend(prefix + name for name, is_dir, _ in items if not is_dir)
        below = [prefix + n for n, is_dir, link in items if is_dir and not link and n[0] != "."]
        folders.extend(reversed(below))
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
