"""Read catalogue pages at a git revision from the object store, with git's plumbing commands.

Nothing is checked out: trees are listed with `git ls-tree`, compared with `git diff-tree`, and
blobs read through one persistent, pipelined `git cat-file --batch` (much faster than reading
objects one request at a time: docs/performance.md). git runs as a subprocess: GitPython, which
only wrapped these commands here, cost 56 ms to import on every run. The work tree, index, stash
and refs are never touched. A partial clone fetches the blobs a read needs first (`partial`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import subprocess
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from ...errors import InputError
from . import process as gitproc
from .partial import PartialClone
from .process import GitError

__all__ = ["MISSING_FIX", "Changed", "GitError", "GitRepo", "Revision", "TreeEntry", "TreeFile"]

MISSING_FIX = "a shallow or partial clone? fetch the history: git fetch --unshallow"
_UNSHALLOW = "git fetch --unshallow, or fetch-depth: 0 in actions/checkout"


@dataclass(frozen=True)
class Revision:
    """A revision argument resolved to the tree it names."""

    arg: str  # as the user gave it
    tree: str  # id of the tree holding the snapshot
    commit: str | None  # full commit id, when the argument names a commit
    date: str | None  # committer date, ISO 8601
    file: str | None = None  # `REV:path` naming a file: its name (`tree` is its folder's)
    subject: str | None = None  # the commit's subject line


class TreeFile(NamedTuple):
    """A file in a git tree: its path, blob id, size, and whether it is a symbolic link."""

    path: str
    sha: str
    size: int
    link: bool


class TreeEntry(NamedTuple):
    """One entry of a tree, not recursed into: its name, kind (`tree`, `blob`, ...) and id."""

    name: str
    kind: str
    sha: str
    mode: str


class Changed(NamedTuple):
    """A file whose blob or mode differs between two trees; None on the side that lacks it."""

    path: str
    old: TreeFile | None
    new: TreeFile | None


_NULL_SHA = "0" * 40
_FILE_MODES = ("100644", "100755", "120000")


def _side_of(path: str, mode: str, sha: str) -> TreeFile | None:
    """A side of a tree diff line as a file (size unknown: -1), or None when it has none."""
    if sha == _NULL_SHA or mode not in _FILE_MODES:
        return None
    return TreeFile(path, sha, -1, mode == "120000")


class GitRepo:
    """One repository, read-only: resolve revisions, list trees, read blobs."""

    def __init__(self, path: str, progress: Callable[[str], None] | None = None) -> None:
        found = gitproc.run(["-C", path, "rev-parse", "--absolute-git-dir"], check=False)
        if found.returncode != 0:
            raise InputError(
                path, "not a git repository", "run inside a catalogue repository or pass --repo"
            )
        self._dir = os.fsdecode(found.stdout.rstrip(b"\n"))
        self._asked = path
        self.partial = PartialClone(self._dir, progress)
        self._headers: subprocess.Popen[bytes] | None = None
        self._batch: subprocess.Popen[bytes] | None = None
        self._listed: tuple[str, list[TreeFile]] | None = None  # the last tree's files

    def _run(self, *args: str, data: bytes | None = None) -> bytes:
        """A git command's output; GitError when it fails."""
        done = gitproc.run(["--git-dir", self._dir, *args], data)
        return done.stdout

    def _listing(self, *args: str) -> bytes:
        """The output of a command listing trees, whose objects may be missing from a clone."""
        try:
            return self._run(*args)
        except GitError as exc:
            raise InputError(f"{args[0]} {args[-1]}", str(exc), MISSING_FIX) from exc

    @functools.cached_property
    def path(self) -> str:
        """The repository's top folder (or git dir for a bare repository)."""
        found = gitproc.run(["-C", self._asked, "rev-parse", "--show-toplevel"], check=False)
        return os.fsdecode(found.stdout.rstrip(b"\n")) if found.returncode == 0 else self._dir

    def _header(self, name: str) -> tuple[str, str] | None:
        """(id, type) of the object a name resolves to, or None (one persistent
        `git cat-file --batch-check`, asked one name at a time)."""
        if "\n" in name or "\r" in name:
            return None
        if self._headers is None:
            self._headers = gitproc.start(["--git-dir", self._dir, "cat-file", "--batch-check"])
        stdin, stdout = gitproc.pipes(self._headers)
        stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
        stdin.flush()
        answer = stdout.readline().split()
        if len(answer) != 3:
            return None
        return answer[0].decode(), answer[1].decode()

    def resolve(self, arg: str, files: bool = False) -> Revision:
        """The tree a revision names: `REV`, or `REV:path` for a folder inside it; with `files`,
        `REV:path` may name a file (the revision is then its folder's tree and its name)."""
        if arg.startswith("-"):
            raise InputError(arg, "a revision may not start with '-'", "name a branch, tag or id")
        rev, sep, path = arg.partition(":")
        if sep and not rev:
            raise InputError(arg, "no revision before ':'", "write REV:path, e.g. HEAD:_cache")
        if self._header(f"{rev}^{{commit}}") is None and self._header(rev) is None:
            raise InputError(arg, "no such directory or git revision", self._unknown_fix())
        found = self._header(arg)
        if found is None:
            fix = f"list what is there with: git ls-tree {rev}"
            raise InputError(arg, f"path '{path}' does not exist in {rev}", fix)
        if found[1] == "blob" and files:
            folder, _, name = path.rpartition("/")
            return dataclasses.replace(self.resolve(f"{rev}:{folder}"), arg=arg, file=name)
        if found[1] == "blob":
            raise InputError(arg, "names a file, not a folder", "name a tree, e.g. REV:_cache")
        tree = found if found[1] == "tree" else self._header(f"{arg}^{{tree}}")
        if tree is None:
            raise InputError(arg, f"a {found[1]} holds no tree", "name a commit, tag or folder")
        commit, date, subject = self._commit_of(rev)
        return Revision(arg, tree[0], commit, date, subject=subject)

    def holds(self, tree: str, name: str) -> bool:
        """Whether a tree holds an entry of this name (asked of the persistent batch-check)."""
        return self._header(f"{tree}:{name}") is not None

    def _commit_of(self, rev: str) -> tuple[str | None, str | None, str | None]:
        """The full id, committer date (ISO 8601) and subject line of the commit a revision
        names, the two last from one `git log` (`show` took 10x longer)."""
        found = self._header(f"{rev}^{{commit}}")
        if found is None:
            return None, None, None
        out = self._run("log", "-1", "--format=%cI%n%s", found[0], "--")
        date, _, subject = out.decode("utf-8", "replace").rstrip("\n").partition("\n")
        return found[0], date, subject

    def _shallow(self) -> bool:
        """Whether the repository is a shallow clone (its history cut short)."""
        return self._run("rev-parse", "--is-shallow-repository").strip() == b"true"

    def _unknown_fix(self) -> str:
        if self._shallow():
            return f"this clone is shallow: {_UNSHALLOW}, or name a newer revision"
        return f"check the name with git log, in {self.path} (another repository: --repo PATH)"

    def merge_base(self, one: str, other: str) -> str:
        """The commit id of the best common ancestor of two revisions."""
        for rev in (one, other):
            if rev.startswith("-") or self._header(f"{rev}^{{commit}}") is None:
                raise InputError(rev, "no such commit", self._unknown_fix())
        try:
            return self._run("merge-base", one, other).decode().strip()
        except GitError as exc:  # no common ancestor, or none left in a shallow clone
            if self._shallow():
                what = "no common ancestor in this shallow clone"
                fix = f"fetch the history: {_UNSHALLOW}"
            else:
                what = "no common ancestor"
                fix = "compare two revisions that share history, or give OLD and NEW"
            raise InputError(f"{one}...{other}", what, fix) from exc

    def unrelated(self, one: str, other: str) -> bool:
        """Whether two commits share no history (`git merge-base` finds none, exit 1, in a
        clone that is not shallow); False when git cannot tell (a revision it does not know)."""
        done = gitproc.run(["--git-dir", self._dir, "merge-base", one, other], check=False)
        return done.returncode == 1 and not done.stderr and not self._shallow()

    def first_parent_commits(self, start: str, end: str) -> list[str]:
        """Commits after `start` up to `end` on the first-parent line, oldest first."""
        for rev in (start, end):
            if self._header(f"{rev}^{{commit}}") is None:
                raise InputError(rev, "no such commit", self._unknown_fix())
        out = self._run("rev-list", "--first-parent", "--reverse", f"{start}..{end}", "--")
        return out.decode().split()

    def list_files(self, tree: str) -> list[TreeFile]:
        """Every file below a tree, sorted by path: regular files and symbolic links, with each
        blob's size from the tree listing, so that no blob is read to learn how large it is
        (but in a partial clone, where listing a blob's size fetches it: -1, unknown). The last
        tree listed is kept: the kinds of input ask of one revision what it holds, then open it
        (a copy each time: callers may change theirs)."""
        if self._listed is None or self._listed[0] != tree:
            self._listed = tree, self._files(tree)
        return list(self._listed[1])

    def _files(self, tree: str) -> list[TreeFile]:
        sized = not self.partial.promisors
        out = self._listing("ls-tree", "-r", "-z", *(["-l"] if sized else []), "--full-tree", tree)
        files = []
        for entry in out.split(b"\0"):
            if not entry:
                continue
            info, _, path = entry.partition(b"\t")
            mode, kind, sha, *size = info.split()
            if kind == b"blob" and mode in (b"100644", b"100755", b"120000"):
                name = path.decode("utf-8", "surrogateescape")
                # a missing object's size is not known ("BAD"): reading it says what is wrong
                length = (int(size[0]) if size[0].isdigit() else 0) if sized else -1
                files.append(TreeFile(name, sha.decode(), length, mode == b"120000"))
        return sorted(files)

    def list_tree(self, tree: str) -> list[TreeEntry]:
        """The entries of one tree, not recursed into."""
        out = self._listing("ls-tree", "-z", "--full-tree", tree)
        entries = []
        for entry in out.split(b"\0"):
            if entry:
                info, _, name = entry.partition(b"\t")
                mode, kind, sha = info.decode().split()
                entries.append(TreeEntry(name.decode("utf-8", "surrogateescape"), kind, sha, mode))
        return entries

    def changed_files(self, old: str, new: str) -> list[Changed]:
        """Every file whose blob or mode differs between two trees, sorted by path: one
        `git diff-tree -r --no-renames` (renames would cost seconds on a new tag folder, and
        a page moved is a page removed and one added)."""
        out = self._listing("diff-tree", "-r", "-z", "--no-renames", old, new)
        fields = out.split(b"\0")
        found = []
        for info, raw_path in zip(fields[0::2], fields[1::2], strict=False):
            parts = info.decode().lstrip(":").split()
            if len(parts) < 5:
                continue
            path = raw_path.decode("utf-8", "surrogateescape")
            before = _side_of(path, parts[0], parts[2])
            after = _side_of(path, parts[1], parts[3])
            if before is not None or after is not None:
                found.append(Changed(path, before, after))
        return sorted(found)

    def read_blobs(
        self, ids: Iterable[str], where: str | Callable[[str], str], limit: int | None = None
    ) -> Iterator[tuple[str, bytes | int]]:
        """(id, content) of each blob, in order, through one pipelined `git cat-file --batch`;
        for a blob larger than `limit` bytes, its size instead of its content, which is never
        read (that process is stopped, and the rest asked of a new one). `where` names what is
        read (or the revision a blob id belongs to) when an object is missing. A partial
        clone fetches the blobs it lacks first, in one batch (`PartialClone.fetch_missing`).

        A thread writes the requests while the caller reads the answers, so git inflates blobs
        on the other core while the caller parses the ones already read. (Measured at develop
        size: a second thread draining the answers into a queue cost more in lock hand-offs
        than it saved.)
        """
        wanted = list(ids)
        self.partial.fetch_missing(wanted, where)
        start = 0
        while start < len(wanted):
            proc = self._process()
            stdin, stdout = gitproc.pipes(proc)
            rest = wanted[start:]
            threading.Thread(target=gitproc.send, args=(stdin, rest), daemon=True).start()
            finished = False
            try:
                for sha in rest:
                    header = stdout.readline().split()
                    if len(header) != 3:
                        what = f"object {sha} is missing from the repository"
                        raise InputError(
                            where(sha) if callable(where) else where, what, MISSING_FIX
                        )
                    start, size = start + 1, int(header[2])
                    if limit is not None and size > limit:
                        break
                    data = stdout.read(size)
                    stdout.read(1)
                    yield sha, data
                else:
                    finished = True
            finally:
                if not finished:  # the pipes still hold the rest of the request: start afresh
                    gitproc.stop(proc, kill=True)
                    self._batch = None
            if not finished:
                yield sha, size

    def _process(self) -> subprocess.Popen[bytes]:
        """The persistent `git cat-file --batch`, started when first needed."""
        if self._batch is None:
            self._batch = gitproc.start(["--git-dir", self._dir, "cat-file", "--batch"])
            gitproc.widen(gitproc.pipes(self._batch)[1])
        return self._batch

    def close(self) -> None:
        """Stop the cat-file process and release the repository."""
        for proc in (self._batch, self._headers):
            if proc is not None:
                gitproc.stop(proc)
        self._batch = self._headers = None
