"""What every kind of input is to the loader: a `Source` and what it `Can` do, and how inputs are
read (`LoadOptions`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

from ..errors import InputError
from ..model import Graph, Snapshot
from .git.reader import Progress, quiet
from .git.repo import GitRepo, Revision
from .snapshot import PageCache, Problems

if TYPE_CHECKING:  # msgspec: only when an index is read
    from .mirror.nodes import Interned

__all__ = ["Can", "LoadOptions", "Source", "no_history"]


@dataclass(frozen=True)
class Can:
    """What a kind of input can do, asked by loading, by work in a child and by `log` alike."""

    changed_only: bool = False  # two revisions of one repository read in O(changed)
    shares_values: bool = False  # its values shared with the other side (`Source.intern`)
    halves: bool = False  # a `log` range of it diffed in two halves side by side (`jobs` 2)
    steps: bool = False  # a `log` range of it read a commit at a time


class Source(Protocol):
    """One input of a diff: which contents it holds (cheaply), then its snapshot."""

    can: ClassVar[Can]
    problems: Problems
    intern: Interned | None  # its values, for the other side to share (`can.shares_values`)
    graph: Graph | None  # the dependency graph, known before the pages are built (or None)
    git: tuple[GitRepo, Revision] | None  # the repository and revision it was read at

    def digests(self) -> set[str]: ...

    def load(self, cache: PageCache) -> Snapshot: ...

    def at(self, revision: Revision, options: LoadOptions) -> Source | None:
        """The same kind at another revision of its repository, None when nothing it reads
        changed (`can.steps`, unless `can.changed_only`: `log` reads those in O(changed))."""
        ...


@dataclass(frozen=True)
class LoadOptions:
    """Where and how inputs are read (beyond their names); how much of each page is read follows
    from the filters a diff is loaded for (`load_pair`)."""

    repo: str | None = None  # the git repository revisions are read from
    keep_going: bool = False  # leave bad pages out instead of stopping
    index_tag: str = "develop"  # the cache tag of build-cache index snapshots
    stack_name: str | None = None  # the stack of a single index.json given as a snapshot
    progress: Progress = quiet  # told what is being read, now and then (the CLI, on a terminal)
    stack_urls: tuple[tuple[str, str], ...] = ()  # (stack, mirror address) beside a URL side
    cache_dir: str | None = None  # where tallies of revisions are kept across runs (None: not)
    warn: Progress = quiet  # told of a cache file ignored or a cache that cannot be written
    jobs: int = 1  # processes at work at once: 2 reads NEW beside OLD where its kind can
    # told both sides' graphs once both are read, before NEW's pages are built (the command
    # starts working out the causes of rebuilds there: `diff_snapshots(started=...)`)
    graphs: Callable[[Graph, Graph], None] | None = None


def no_history(where: str) -> InputError:
    """What `log` says of an input that is no git revision (`Source.at` of such a kind)."""
    return InputError(where, "a history needs git revisions", "run snapdiff log A..B")
