"""Spack build-cache indexes (`<mirror>/<stack>/build_cache/index.json`) as snapshots.

Each install record in the build cache becomes the spec record a catalogue page gives: hash,
name, version, compiler, os, platform, target, variants in Spack's string form, and the stacks
are the indexes the hash appears in (an index at the top of a folder is the `root` cache).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson

from ...errors import InputError
from ...model import Page, Snapshot
from ..entries import Entries
from ..pages import blob_digest
from .layouts import Index

__all__ = ["is_index_file", "load_indexes", "lone_stack"]

_FIX = "give a Spack build-cache index.json (database version 6 or later)"
_FLAGS = frozenset(("cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs"))
_NOT_VARIANTS = _FLAGS | {"patches", "dev_path"}
_COMPILER_LANGUAGES = frozenset(("c", "cxx", "fortran"))


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


def _installs(raw: bytes, path: str) -> Mapping[str, Any]:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON ({exc.msg}, line {exc.lineno})", _FIX) from None
    database = data.get("database") if isinstance(data, dict) else None
    installs = database.get("installs") if isinstance(database, dict) else None
    if not isinstance(installs, dict):
        raise InputError(path, "not a Spack database: no database.installs", _FIX)
    return installs


class _Shape:
    """Reads one install record, refusing (with its hash named) any field of the wrong shape."""

    def __init__(self, path: str, digest: str) -> None:
        self.path, self.digest = path, digest

    def wrong(self, what: str) -> InputError:
        return InputError(self.path, f"install {self.digest}: {what}", _FIX)

    def mapping(self, value: object, what: str) -> Mapping[str, Any]:
        """A JSON object (missing or null: empty)."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.wrong(f"{what} is not a mapping")
        return value

    def text(self, value: object, what: str) -> str:
        """A string or number (missing or null: empty)."""
        if value is None:
            return ""
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.wrong(f"{what} is not a string")
        return str(value)

    def items(self, value: object, what: str) -> list[Any]:
        """A JSON array (missing or null: empty)."""
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.wrong(f"{what} is not a list")
        return value


def _variants(parameters: Mapping[str, Any], shape: _Shape) -> list[str]:
    """Spack's string form: `+shared`, `~doc`, `build_system=cmake`, `a=x,y`; no flags, patches."""
    found = []
    for name, value in parameters.items():
        if name in _NOT_VARIANTS:
            continue
        if isinstance(value, bool):
            found.append(("+" if value else "~") + name)
        elif isinstance(value, list):
            found.append(f"{name}={','.join(shape.text(v, f'variant {name}') for v in value)}")
        else:
            found.append(f"{name}={shape.text(value, f'variant {name}')}")
    return sorted(found)


def _compiler(spec: Mapping[str, Any], installs: Mapping[str, Any], shape: _Shape) -> str:
    """DB ≤ 7: `spec.compiler`; 8+: `annotations.compiler`, else the c/cxx/fortran provider."""
    compiler = spec.get("compiler")
    if isinstance(compiler, dict) and compiler.get("name"):
        name = shape.text(compiler["name"], "compiler.name")
        return f"{name}@{shape.text(compiler.get('version'), 'compiler.version')}".rstrip("@")
    annotated = shape.mapping(spec.get("annotations"), "annotations").get("compiler")
    if isinstance(annotated, str) and annotated:
        return annotated.replace("@=", "@")
    for dependency in shape.items(spec.get("dependencies"), "dependencies"):
        dependency = shape.mapping(dependency, "a dependency")
        parameters = shape.mapping(dependency.get("parameters"), "a dependency's parameters")
        virtuals = {
            shape.text(v, "virtuals") for v in shape.items(parameters.get("virtuals"), "virtuals")
        }
        if virtuals & _COMPILER_LANGUAGES:
            name = shape.text(dependency.get("name"), "a dependency's name")
            if not name:
                raise shape.wrong("a compiler dependency has no name")
            provider = installs.get(shape.text(dependency.get("hash"), "a dependency's hash"))
            found = shape.mapping(shape.mapping(provider, "a dependency").get("spec"), "spec")
            version = shape.text(found.get("version"), "a dependency's version")
            return f"{name}@{version}" if version else name
    return "none"


def _record(digest: str, install: Any, installs: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The catalogue-page entry of one install record."""
    shape = _Shape(path, digest)
    spec = install.get("spec") if isinstance(install, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
        raise InputError(path, f"install {digest} has no spec with a name", _FIX)
    arch = shape.mapping(spec.get("arch"), "arch")
    target = arch.get("target")
    if isinstance(target, dict):
        target = target.get("name")
    return {
        "hash": digest,
        "name": spec["name"],
        "versions": [shape.text(spec.get("version"), "version")],
        "compiler": _compiler(spec, installs, shape),
        "os": shape.text(arch.get("platform_os"), "arch.platform_os"),
        "platform": shape.text(arch.get("platform"), "arch.platform"),
        "target": shape.text(target, "arch.target"),
        "variants": _variants(shape.mapping(spec.get("parameters"), "parameters"), shape),
        "size": "-",
    }


def load_indexes(source: str, indexes: Iterable[Index], tag: str) -> Snapshot:
    """One snapshot of every build-cache record in these indexes, grouped into pages."""
    records: dict[str, dict[str, Any]] = {}
    for index in indexes:
        path, name = index.where, index.stack
        installs = _installs(index.data, path)
        for digest, install in installs.items():
            if not (isinstance(install, dict) and install.get("in_buildcache")):
                continue
            record = records.get(digest)
            if record is None:
                record = records[digest] = _record(digest, install, installs, path) | {"stacks": []}
            record["stacks"].append(name)
    by_package: dict[str, dict[str, dict[str, Any]]] = {}
    for digest in sorted(records):
        entry = records[digest]
        entry["stacks"] = sorted(set(entry["stacks"]))
        by_package.setdefault(entry.pop("name"), {})[digest] = entry
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
        raise InputError(source, "no build-cache records (in_buildcache: true) found", _FIX)
    return Snapshot(source, pages)
