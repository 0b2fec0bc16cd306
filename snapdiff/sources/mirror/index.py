"""Spack build-cache indexes (`<mirror>/<stack>/build_cache/index.json`) as snapshots.

Each install record in the build cache becomes the spec record a catalogue page gives: hash,
name, version, compiler, os, platform, target, variants in Spack's string form, and the stacks
are the indexes the hash appears in (an index at the top of a folder is the `root` cache).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from itertools import chain
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from ...errors import InputError
from ...model import Entry, Graph, Node, Page, Snapshot
from ..entries import Entries
from ..git.reader import Progress, quiet
from ..pages import blob_digest
from .layouts import Index

if TYPE_CHECKING:  # msgspec: only when an index is read
    from .nodes import Interned
    from .records import Install

__all__ = [
    "Read",
    "graph_of",
    "is_index_file",
    "load_indexes",
    "lone_stack",
    "read_indexes",
    "snapshot_of",
]


def is_index_file(path: str) -> bool:
    """A JSON file given as a snapshot is read as a build-cache index."""
    return os.path.isfile(path) and path.endswith(".json")


def lone_stack(path: str, named: str | None) -> str:
    """The stack of an index given alone: `--stack-name`, else its place says it
    (`<mirror>/<stack>/build_cache/index.json`), else `root`: never its file name, so the same
    index saved under two names compares equal."""
    index = Path(path)
    if named:
        return named
    if index.parent.name == "build_cache" and index.parent.parent.name:
        return index.parent.parent.name
    return "root"


class Read:
    """What the indexes of a side gave so far: graph nodes of every record, the page variants
    of the binaries, the stacks holding each."""

    def __init__(self, intern: Interned) -> None:
        self.intern = intern
        self.records: dict[str, tuple[str, ...]] = {}  # binaries: their page entry's variants
        self.nodes: dict[str, Node] = {}
        # sorted and shared (one tuple per distinct set of stacks), by hash:
        self.held: dict[str, tuple[str, ...]] = {}  # the stacks holding a record's binary
        self.seen: dict[str, tuple[str, ...]] = {}  # the stacks listing it without its binary
        self.wheres: dict[str, str] = {}  # each stack's index, to name it on a clash

    def add(self, installs: Mapping[str, Install], where: str, stack: str) -> None:
        """Every record of one index; a hash another index of the side gave as a record of
        another package is an InputError naming both indexes."""
        from .records import FIX

        intern, nodes, keep = self.intern, self.nodes, self.intern.keep
        variant_sets = intern.variant_sets
        alone = intern((stack,))
        self.wheres.setdefault(stack, where)
        with intern.reading(where, installs):
            for digest, install in installs.items():
                spec, binary = install.spec, install.in_buildcache
                if spec is None or spec.name is None:
                    if binary:
                        raise InputError(where, f"install {digest} has no spec with a name", FIX)
                    continue  # a record with no binary and no spec: nothing to read
                node = nodes.get(digest)
                if node is not None and node.name != spec.name:
                    raise self._clash(digest, spec.name, node.name, where)
                if node is None or (binary and not node.binary):
                    digest = keep(digest, digest)
                    found = variant_sets.get(bytes(spec.parameters))
                    page, variants = found or intern.variants(spec, digest)
                    if binary:
                        self.records[digest] = page
                    nodes[digest] = intern.node(spec, install, variants, digest)
                stacks = self.held if binary else self.seen
                was = stacks.get(digest)
                if was is None:
                    stacks[digest] = alone
                elif stack not in was:
                    stacks[digest] = self.intern(tuple(sorted((*was, stack))))

    def _clash(self, digest: str, name: str, first: str, where: str) -> InputError:
        """The error of a hash this index gives as a `name` where an earlier one gave a `first`:
        a hash is one spec, so one of the two indexes is wrong, and neither can be chosen."""
        stacks = self.held.get(digest) or self.seen.get(digest) or ()
        there = next((self.wheres[s] for s in stacks if s in self.wheres), "another index")
        what = f"hash {digest} is a record of {name} here and of {first} in {there}"
        fix = "a hash is one spec: rebuild the wrong index with spack buildcache update-index"
        return InputError(where, what, fix)


def _page(source: str, tag: str, name: str, entries: dict[str, Entry]) -> Page:
    """One package's page of a side; its digest is of its name and entries' JSON (equal entries,
    equal digest, whatever the tag: a side relabelled to the other's tag, an environment against
    another or an index, still matches its equal pages), encoded from the records in one call."""
    content = msgspec.json.encode([name, list(entries.values())])
    read = Entries(entries, f"{source}: {name}")
    return Page(
        tag, name, read.source, blob_digest(content), read, len(read), read.counts, read.compiled
    )


_DEPS = attrgetter("deps")


_KIND_NAME = itemgetter(0)


def _edge_names(node: Node) -> Iterable[str]:
    return map(_KIND_NAME, node.kinds)


def _graph_warnings(source: str, graph: Graph, twice: int) -> tuple[str, ...]:
    """What the graph's shape says is wrong, once per side: edges listed twice, edges whose
    hash names a record of another package."""
    found = []
    if twice:
        found.append(
            f"{source}: {twice} dependency edges listed twice in a record, read once with the"
            " deptypes of both"
        )
    nodes = graph.nodes
    named = list(chain.from_iterable(map(_edge_names, nodes.values())))
    name_of = {digest: node.name for digest, node in nodes.items()}.get
    targets = chain.from_iterable(map(_DEPS, nodes.values()))
    if list(map(name_of, targets, named)) != named:  # every edge in C first (a hash not in
        wrong = sorted(  # the index: its edge's own name)
            (digest, kind[0], nodes[target].name)
            for digest, node in nodes.items()
            for kind, target in zip(node.kinds, node.deps, strict=True)
            if target in nodes and nodes[target].name != kind[0]
        )
        digest, name, other = wrong[0]
        found.append(
            f"{source}: {len(wrong)} dependency edges name a record of another package"
            f" (first: {digest} depends on `{name}` by the hash of a `{other}`)"
        )
    return tuple(found)


def read_indexes(
    indexes: Iterable[Index], progress: Progress = quiet, shared: Interned | None = None
) -> Read:
    """Every build-cache record in these indexes, read one index at a time (`shared`: the
    other side's values, see `Interned`)."""
    from .nodes import Interned  # msgspec: only when an index is read
    from .records import decode_index

    read = Read(Interned(shared))
    for index in indexes:
        where, stack = index.where, index.stack
        progress(f"{where}: decoding {len(index.data) / 1e6:,.0f} MB")
        installs = decode_index(index.data, where)
        del index  # its bytes: read one index at a time, each dropped once decoded
        progress(f"{where}: reading {len(installs):,} records")
        read.add(installs, where, stack)
        del installs  # each index dropped once converted
    return read


def graph_of(read: Read) -> Graph:
    """The graph of every record a side's indexes gave (binaries, externals and the rest), for
    the causes of rebuilds."""
    return Graph(read.nodes, {**read.seen, **read.held})  # a binary wherever it is, else listed


def snapshot_of(source: str, read: Read, tag: str, graph: Graph) -> Snapshot:
    """One snapshot of what a side's indexes gave (`graph`: `graph_of(read)`), grouped into
    pages."""
    from .records import FIX

    intern, stacks = read.intern, graph.stacks
    by_package: dict[str, dict[str, Entry]] = {}
    for digest in sorted(read.records):
        node = read.nodes[digest]
        by_package.setdefault(node.name, {})[digest] = Entry(
            digest,
            stacks[digest],
            read.records[digest],
            intern((node.version,)),
            node.compiler,
            node.os,
            node.platform,
            node.target,
            "-",
        )
    pages = {(tag, name): _page(source, tag, name, by_package[name]) for name in sorted(by_package)}
    if not pages:
        raise InputError(source, "no build-cache records (in_buildcache: true) found", FIX)
    warnings = _graph_warnings(source, graph, intern.twice)
    return Snapshot(source, pages, warnings=warnings, graph=graph)


def load_indexes(
    source: str, indexes: Iterable[Index], tag: str, progress: Progress = quiet
) -> Snapshot:
    """One snapshot of every build-cache record in these indexes (`snapshot_of`)."""
    read = read_indexes(indexes, progress)
    return snapshot_of(source, read, tag, graph_of(read))
