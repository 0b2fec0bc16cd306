"""Read catalogue pages at a git revision from the object store (the only GitPython import).

Nothing is checked out: trees are listed with `git ls-tree` and blobs read through one persistent,
pipelined `git cat-file --batch`, both driven through GitPython's command wrapper (much faster
than GitPython's object database, one request at a time: docs/performance.md). The work tree,
index, stash and refs are never touched.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, NamedTuple

from ..errors import InputError

__all__ = ["GitRepo", "Revision", "TreeFile"]

_MISSING_FIX = "a shallow or partial clone? fetch the history: git fetch --unshallow"


def _text(value: bytes | str) -> str:
    """GitPython returns object headers as bytes (typed as str)."""
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True)
class Revision:
    """A revision argument resolved to the tree it names."""

    arg: str  # as the user gave it
    tree: str  # id of the tree holding the snapshot
    commit: str | None  # short commit id, when the argument names a commit
    date: str | None  # committer date, ISO 8601


def _send(stdin: IO[bytes], wanted: list[str]) -> None:
    """Write every request; in a thread, as a long request must not block on a full pipe."""
    try:
        stdin.write("".join(f"{sha}\n" for sha in wanted).encode())
        stdin.flush()
    except OSError:
        pass  # the process was stopped: the reader reports what is missing


def _widen(pipe: IO[bytes]) -> None:
    """Give git a 1 MiB pipe to write blobs into (Linux; 64 KiB otherwise).

    While the caller parses a page, git goes on inflating the next ones into the pipe: with
    1 MiB, a few hundred pages ahead instead of a few.
    """
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 2**20)
    except (ImportError, OSError):
        pass


class TreeFile(NamedTuple):
    """A file in a git tree: its path, blob id, size, and whether it is a symbolic link."""

    path: str
    sha: str
    size: int
    link: bool


class GitRepo:
    """One repository, read-only: resolve revisions, list trees, read blobs."""

    def __init__(self, path: str) -> None:
        import git  # deferred: directory snapshots do not need it

        try:
            self._repo = git.Repo(path, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
            raise InputError(
                path, "not a git repository", "run inside a catalogue repository or pass --repo"
            ) from exc
        self._git = self._repo.git
        self._batch: Any = None

    @property
    def path(self) -> str:
        """The repository's top folder (or git dir for a bare repository)."""
        return str(self._repo.working_tree_dir or self._repo.git_dir)

    def _header(self, name: str) -> tuple[str, str] | None:
        """(id, type) of the object a name resolves to, or None."""
        try:
            sha, kind, _ = self._git.get_object_header(name)
        except ValueError:
            return None
        return _text(sha), _text(kind)

    def resolve(self, arg: str) -> Revision:
        """The tree a revision names: `REV`, or `REV:path` for a folder inside it."""
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
        if found[1] == "blob":
            raise InputError(arg, "names a file, not a folder", "name a tree, e.g. REV:_cache")
        tree = found if found[1] == "tree" else self._header(f"{arg}^{{tree}}")
        if tree is None:
            raise InputError(arg, f"a {found[1]} holds no tree", "name a commit, tag or folder")
        commit, date = self._commit_of(rev)
        return Revision(arg, tree[0], commit, date)

    def _commit_of(self, rev: str) -> tuple[str | None, str | None]:
        found = self._header(f"{rev}^{{commit}}")
        if found is None:
            return None, None
        commit = self._repo.commit(found[0])
        return self._git.rev_parse("--short", found[0]), commit.committed_datetime.isoformat()

    def _unknown_fix(self) -> str:
        if self._git.rev_parse("--is-shallow-repository") == "true":
            return "this clone is shallow: git fetch --unshallow, or name a newer revision"
        return f"check the name with git log, in {self.path}"

    def merge_base(self, one: str, other: str) -> str:
        """The commit id of the best common ancestor of two revisions."""
        for rev in (one, other):
            if rev.startswith("-") or self._header(f"{rev}^{{commit}}") is None:
                raise InputError(rev, "no such commit", self._unknown_fix())
        try:
            return str(self._git.merge_base(one, other)).strip()
        except Exception as exc:  # GitCommandError: no common ancestor
            fix = "compare two revisions that share history, or give OLD and NEW"
            raise InputError(f"{one}...{other}", "no common ancestor", fix) from exc

    def first_parent_commits(self, start: str, end: str) -> list[str]:
        """Commits after `start` up to `end` on the first-parent line, oldest first."""
        for rev in (start, end):
            if self._header(f"{rev}^{{commit}}") is None:
                raise InputError(rev, "no such commit", self._unknown_fix())
        out = self._git.rev_list("--first-parent", "--reverse", f"{start}..{end}", "--")
        return str(out).split()

    def list_files(self, tree: str) -> list[TreeFile]:
        """Every file below a tree, sorted by path: regular files and symbolic links, with each
        blob's size from the tree listing, so that no blob is read to learn how large it is."""
        out = self._git.ls_tree("-r", "-z", "-l", "--full-tree", tree, stdout_as_string=False)
        files = []
        for entry in out.split(b"\0"):
            if not entry:
                continue
            info, _, path = entry.partition(b"\t")
            mode, kind, sha, size = info.split()
            if kind == b"blob" and mode in (b"100644", b"100755", b"120000"):
                name = path.decode("utf-8", "surrogateescape")
                # a missing object's size is not known ("BAD"): reading it says what is wrong
                length = int(size) if size.isdigit() else 0
                files.append(TreeFile(name, sha.decode(), length, mode == b"120000"))
        return sorted(files)

    def read_blobs(self, ids: Iterable[str], where: str) -> Iterator[tuple[str, bytes]]:
        """(id, content) of each blob, in order, through one pipelined `git cat-file --batch`.

        A thread writes the requests while the caller reads the answers, so git inflates blobs
        on the other core while the caller parses the ones already read. (Measured at develop
        size: a second thread draining the answers into a queue cost more in lock hand-offs
        than it saved.)
        """
        wanted = list(ids)
        if not wanted:
            return
        if self._batch is None:
            self._batch = self._git.cat_file("--batch", as_process=True, istream=subprocess.PIPE)
            _widen(self._batch.proc.stdout)
        proc = self._batch.proc
        threading.Thread(target=_send, args=(proc.stdin, wanted), daemon=True).start()
        stdout = proc.stdout
        done = False
        try:
            for sha in wanted:
                header = stdout.readline().split()
                if len(header) != 3:
                    what = f"object {sha} is missing from the repository"
                    raise InputError(where, what, _MISSING_FIX)
                data = stdout.read(int(header[2]))
                stdout.read(1)
                yield sha, data
            done = True
        finally:
            if not done:  # the pipes still hold the rest of the request: start afresh next time
                proc.kill()
                self._batch = None

    def close(self) -> None:
        """Stop the cat-file process and release the repository."""
        if self._batch is not None:
            self._batch.proc.stdin.close()
            self._batch.proc.wait()
            self._batch = None
        self._repo.close()
