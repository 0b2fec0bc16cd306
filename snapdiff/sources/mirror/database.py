"""Spack install databases (`.spack-db/index.json`, versions 6 to 9) as an environment: every
record, installed or not, as a build-cache record; its roots the explicit records (SPEC
section 7)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ...errors import InputError
from ...model import Root
from .environment import Decoded
from .layouts import DB_VERSIONS
from .records import Install, Spec, field_error

__all__ = ["DATABASE_FIX", "decode_database"]

DATABASE_FIX = "give a Spack install database, .spack-db/index.json (database version 6 to 9)"


class _DatabaseHead(msgspec.Struct, frozen=True):
    version: Any = None


class _DatabaseFileHead(msgspec.Struct, frozen=True):
    database: _DatabaseHead | None = None


class _Record(msgspec.Struct, frozen=True):
    spec: Spec | None = None
    explicit: bool = False


class _Database(msgspec.Struct, frozen=True):
    installs: dict[str, _Record]


class _DatabaseFile(msgspec.Struct, frozen=True):
    database: _Database


class _Outline(msgspec.Struct, frozen=True):
    installs: dict[str, msgspec.Raw]


class _OutlineFile(msgspec.Struct, frozen=True):
    database: _Outline


def decode_database(raw: bytes, where: str) -> Decoded:
    """An install database: every record, installed or not; its roots the explicit ones."""
    version = _database_version(raw, where)
    try:
        records = msgspec.json.decode(raw, type=_DatabaseFile).database.installs
    except msgspec.ValidationError:
        raise _refusal(raw, where) from None
    installs, roots = {}, []
    for digest, record in records.items():
        if record.spec is None or record.spec.name is None:
            raise InputError(where, f"install {digest} has no spec with a name", DATABASE_FIX)
        installs[digest] = Install(spec=record.spec, in_buildcache=True)
        if record.explicit:
            roots.append(Root("", digest, None, "."))
    return Decoded(installs, tuple(roots), None, version, None, None, ())


def _database_version(raw: bytes, where: str) -> int:
    """`database.version`, one snapdiff reads."""
    try:
        head = msgspec.json.decode(raw, type=_DatabaseFileHead).database
    except msgspec.ValidationError:
        head = None
    except msgspec.DecodeError as exc:
        raise InputError(where, f"not valid JSON ({exc})", DATABASE_FIX) from None
    if head is None:
        raise InputError(where, "not a Spack database: no database.installs", DATABASE_FIX)
    version = head.version
    if str(version) not in {str(v) for v in DB_VERSIONS}:
        readable = f"{DB_VERSIONS[0]}-{DB_VERSIONS[-1]}"
        what = f"database version {version!r}, not one snapdiff reads ({readable})"
        raise InputError(where, what, DATABASE_FIX)
    return int(str(version))


def _refusal(raw: bytes, where: str) -> InputError:
    """The record the schema refused, found a record at a time (runs only on a bad file)."""
    try:
        records: Mapping[str, msgspec.Raw] = msgspec.json.decode(
            raw, type=_OutlineFile
        ).database.installs
    except msgspec.ValidationError:
        return InputError(where, "not a Spack database: no database.installs", DATABASE_FIX)
    for digest, record in records.items():
        try:
            msgspec.json.decode(record, type=_Record)
        except msgspec.ValidationError as exc:
            return InputError(where, field_error(digest, exc), DATABASE_FIX)
    return InputError(where, "not a Spack database: no database.installs", DATABASE_FIX)
