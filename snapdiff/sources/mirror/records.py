"""The records of a build-cache `index.json`, decoded in one call into frozen `msgspec.Struct`s.

Only the fields snapdiff reads are decoded (the rest of each record is skipped unparsed): a spec's
name, version, arch, compiler (DB ≤ 7), annotations (DB 8), parameters, `package_hash` and its
dependency edges `(name, hash, deptypes, virtuals)`; a spec's and an edge's `parameters` are kept
undecoded (records share a few thousand distinct ones). Imported only when an index is read.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...errors import InputError
from .layouts import DB_VERSIONS

__all__ = [
    "FIX",
    "Annotations",
    "Arch",
    "Compiler",
    "Edge",
    "EdgeParameters",
    "External",
    "Install",
    "Parameter",
    "Spec",
    "Target",
    "Text",
    "decode_index",
    "field_error",
    "text",
]

FIX = "give a Spack build-cache index.json (database version 6 or later)"

# A scalar field Spack writes as a string, a number where a YAML-era tool wrote one.
Text = str | int | float | None


def text(value: Text) -> str:
    """A scalar field as the page spells it (missing or null: empty)."""
    return "" if value is None else str(value)


class Compiler(msgspec.Struct, frozen=True, gc=False):
    """DB ≤ 7: `spec.compiler`."""

    name: Text = None
    version: Text = None


class Target(msgspec.Struct, frozen=True, gc=False):
    """`arch.target` as a mapping (a bare string is its name)."""

    name: Text = None


class Arch(msgspec.Struct, frozen=True, gc=False):
    platform: Text = None
    platform_os: Text = None
    target: str | Target | None = None


class Annotations(msgspec.Struct, frozen=True, gc=False):
    """DB 8: `spec.annotations.compiler` of a node upgraded from an older spec format."""

    compiler: str | None = None


class External(msgspec.Struct, frozen=True, gc=False):
    """`spec.external` of an external: where it is, or the module that loads it."""

    path: Text = None
    module: Text | list[Text] = None


class EdgeParameters(msgspec.Struct, frozen=True, gc=False):
    deptypes: tuple[str, ...] = ()
    virtuals: tuple[str, ...] = ()


class Edge(msgspec.Struct, frozen=True, gc=False):
    """One of `spec.dependencies`: spec v3+ give `parameters` (kept undecoded: 1.8 million
    edges of a 200k-record index share a few thousand, each decoded once in `nodes.py`), spec
    v2 (DB 6) a `type` list."""

    name: str | None = None
    hash: str | None = None
    parameters: msgspec.Raw = msgspec.Raw(b"")
    type: tuple[str, ...] = ()


Parameter = bool | list[Text] | Text


class Spec(msgspec.Struct, frozen=True, gc=False):
    name: str | None = None
    version: Text = None
    arch: Arch | None = None
    compiler: Compiler | None = None
    annotations: Annotations | None = None
    parameters: msgspec.Raw = msgspec.Raw(b"")  # decoded once per distinct value (nodes.py)
    package_hash: str | None = None
    dependencies: tuple[Edge, ...] = ()
    namespace: Text = None
    external: msgspec.Raw = msgspec.Raw(b"")  # decoded once per distinct value (nodes.py)


class Install(msgspec.Struct, frozen=True, gc=False):
    spec: Spec | None = None
    in_buildcache: bool = False


class _Database(msgspec.Struct, frozen=True, gc=False):
    version: Any = None  # of any type: one the check refuses is named, whatever it is
    installs: dict[str, Install] | None = None


class _Root(msgspec.Struct, frozen=True, gc=False):
    database: _Database | None = None


class _Outline(msgspec.Struct, frozen=True, gc=False):
    """A database whose records are left undecoded: to find the one the schema refuses."""

    version: Any = None
    installs: dict[str, msgspec.Raw] | None = None


_NOT_A_DATABASE = "not a Spack database: no database.installs"


def decode_index(raw: bytes | bytearray, where: str) -> dict[str, Install]:
    """The install records of an index, by hash; refused in one line naming the record that is
    not of Spack's shape."""
    try:
        root = msgspec.json.decode(raw, type=_Root)
    except msgspec.ValidationError:
        raise _refusal(raw, where) from None
    except msgspec.DecodeError as exc:
        raise InputError(where, f"not valid JSON ({exc})", FIX) from None
    database = root.database
    if database is None or database.installs is None:
        raise InputError(where, _NOT_A_DATABASE, FIX)
    _check_version(database.version, where)
    return database.installs


def _check_version(version: object, where: str) -> None:
    if str(version) not in {str(v) for v in DB_VERSIONS}:
        readable = ", ".join(map(str, DB_VERSIONS))
        what = f"database version {version!r}, not one snapdiff reads ({readable})"
        raise InputError(where, what, FIX)


def field_error(
    digest: str, exc: msgspec.ValidationError, within: str = "", record: str = "install"
) -> str:
    """What msgspec refused in the record of this hash, and where (`within`: the path of the
    part decoded; `record`: what the file calls a record)."""
    message, at, path = str(exc).rpartition(" - at `$")  # no path: the part itself
    message, path = (message, path.rstrip("`")) if at else (path, "")
    field = f"{within}{path}".lstrip(".")
    what = f"{record} {digest}" + (f", {field}" if field else "")
    return f"{what}: {message[:1].lower()}{message[1:]}"


def _refusal(raw: bytes | bytearray, where: str) -> InputError:
    """Why the schema refused an index, found again a layer at a time: msgspec's path names a
    record `installs[...]`, never its hash. Runs only on a bad index."""
    try:
        top = msgspec.json.decode(raw, type=dict[str, msgspec.Raw])
        outline = msgspec.json.decode(top.get("database", b"null"), type=_Outline | None)
    except msgspec.ValidationError:
        return InputError(where, _NOT_A_DATABASE, FIX)
    if outline is None or outline.installs is None:
        return InputError(where, _NOT_A_DATABASE, FIX)
    _check_version(outline.version, where)
    for digest, record in outline.installs.items():
        try:
            msgspec.json.decode(record, type=Install)
        except msgspec.ValidationError as exc:
            return InputError(where, field_error(digest, exc), FIX)
    return InputError(where, _NOT_A_DATABASE, FIX)  # the schema refused what no layer does
