"""Spack build-cache indexes (`<mirror>/<stack>/build_cache/index.json`) as snapshots.

Each install record in the build cache becomes the spec record a catalogue page gives: hash,
name, version, compiler, os, platform, target, variants in Spack's string form, and the stacks
are the indexes the hash appears in (an index at the top of a folder is the `root` cache).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from ...errors import InputError
from ...model import Page, Snapshot
from ..entries import Entries
from ..pages import blob_digest
from .layouts import Index

__all__ = ["is_index_file", "load_indexes", "lone_stack"]


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


def load_indexes(source: str, indexes: Iterable[Index], tag: str) -> Snapshot:
    """One snapshot of every build-cache record in these indexes, grouped into pages."""
    from .records import FIX, decode_index, page_entry  # msgspec: only when an index is read

    records: dict[str, dict[str, Any]] = {}
    names: dict[str, str] = {}
    stacks: dict[str, set[str]] = {}
    for index in indexes:
        where, stack = index.where, index.stack
        installs = decode_index(index.data, where)
        del index  # its bytes: read one index at a time, each dropped once decoded
        for digest, install in installs.items():
            if not install.in_buildcache:
                continue
            if digest not in records:
                spec = install.spec
                if spec is None or spec.name is None:
                    raise InputError(where, f"install {digest} has no spec with a name", FIX)
                records[digest] = page_entry(digest, spec, installs, where)
                names[digest] = spec.name
                stacks[digest] = set()
            stacks[digest].add(stack)
        del installs  # each index dropped once converted
    by_package: dict[str, dict[str, dict[str, Any]]] = {}
    for digest in sorted(records):
        entry = records[digest]
        entry["stacks"] = sorted(stacks[digest])
        by_package.setdefault(names[digest], {})[digest] = entry
    pages = {}
    for name in sorted(by_package):
        entries = by_package[name]
        content = orjson.dumps([tag, name, entries], option=orjson.OPT_SORT_KEYS)
        read = Entries.from_read(entries, f"{source}: {name}")
        pages[(tag, name)] = Page(
            tag,
            name,
            read.source,
            blob_digest(content),
            read,
            len(read),
            read.counts,
            read.compiled,
        )
    if not pages:
        raise InputError(source, "no build-cache records (in_buildcache: true) found", FIX)
    return Snapshot(source, pages)
