"""Partial clones (`git clone --filter=blob:none`): the blobs a read needs, fetched at once.

In a partial clone, git fetches a missing blob on its own when a command meets it: one round
trip per blob. So no listing asks for a blob's size there (`promisors`), and the blobs a read
needs that the clone lacks are fetched first, all in one `git fetch` (`fetch_missing`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from ...errors import InputError
from . import process as gitproc

__all__ = ["PartialClone"]


class PartialClone:
    """What a repository lacks of its objects, and the remotes it fetches them from."""

    def __init__(self, git_dir: str, progress: Callable[[str], None] | None = None) -> None:
        self._dir = git_dir
        self._progress = progress

    @functools.cached_property
    def promisors(self) -> list[str]:
        """The remotes a partial clone fetches missing objects from, in the order git tries
        them: those of `remote.<name>.promisor` or `.partialclonefilter`, then the one of
        `extensions.partialClone`. Empty: not a partial clone."""
        found = gitproc.run(
            [
                *("--git-dir", self._dir, "config", "--get-regexp"),
                r"^(remote\..*\.(promisor|partialclonefilter)|extensions\.partialclone)$",
            ],
            check=False,
        )
        remotes, last = [], []
        for line in found.stdout.decode("utf-8", "surrogateescape").splitlines():
            key, _, value = line.partition(" ")
            if key == "extensions.partialclone":
                last = [value]
                continue
            name, _, setting = key[len("remote.") :].rpartition(".")
            if setting == "partialclonefilter" or value.lower() in ("true", "yes", "on", "1"):
                remotes.append(name)
        return list(dict.fromkeys(remotes + last))

    def fetch_missing(self, ids: Iterable[str], where: str | Callable[[str], str]) -> None:
        """Fetch, in one batch, the blobs among `ids` that a partial clone lacks: the command
        git's own lazy fetch runs for one blob, with every id at once (from the first promisor
        remote that has them all, as git tries them); nothing in a full clone. `where` names
        the revision (or the revision of a blob id) when no remote gives them. Only objects
        are written: no ref, no FETCH_HEAD, no automatic repacking."""
        if not self.promisors:
            return
        wanted = list(dict.fromkeys(ids))  # in the order asked: the first names the revision
        # --missing=print: rev-list never fetches; --ignore-missing: a blob it lacks is left
        # out, so what it prints is what is there
        out = gitproc.run(
            [
                *("--git-dir", self._dir, "rev-list", "--objects", "--no-walk"),
                *("--missing=print", "--ignore-missing", "--stdin"),
            ],
            "".join(f"{sha}\n" for sha in wanted).encode(),
        ).stdout
        present = {line.split(b" ", 1)[0].decode() for line in out.splitlines()}
        missing = [sha for sha in wanted if sha not in present]
        if not missing:
            return
        what = f"{len(missing):,} blobs this partial clone lacks"
        failed = []
        for remote in self.promisors:
            if self._progress is not None:
                self._progress(f"fetching {what}, from {remote}")
            done = gitproc.run(
                [
                    *("--git-dir", self._dir, "-c", "fetch.negotiationAlgorithm=noop", "fetch"),
                    *("--no-tags", "--no-write-fetch-head", "--recurse-submodules=no"),
                    *("--filter=blob:none", "--no-auto-maintenance", "--quiet", "--stdin"),
                    remote,
                ],
                "".join(f"{sha}\n" for sha in missing).encode(),
                check=False,
            )
            if done.returncode == 0:
                return
            said = done.stderr.decode("utf-8", "replace").splitlines()
            why = next((line for line in said if line.startswith(("fatal: ", "error: "))), "")
            failed.append(f"{remote}: {why.partition(': ')[2] or 'git fetch failed'}")
        raise InputError(
            where(missing[0]) if callable(where) else where,
            f"cannot fetch {what} ({'; '.join(failed)})",
            "check that the clone's remote can be reached, or clone without --filter",
        )
