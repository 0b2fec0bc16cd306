"""The records of a build-cache `index.json`, decoded in one call into frozen `msgspec.Struct`s.

Only the fields snapdiff reads are decoded (the rest of each record is skipped unparsed): a spec's
name, version, arch, compiler (DB ≤ 7), annotations (DB 8), parameters, `package_hash` and its
dependency edges `(name, hash, deptypes, virtuals)`. Imported only when an index is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import itemgetter
from typing import Any

import msgspec

from ...errors import InputError
from ...model import EdgeKind, Node, links
from .layouts import DB_VERSIONS

__all__ = [
    "FIX",
    "Edge",
    "Install",
    "Interned",
    "Spec",
    "decode_index",
    "graph_node",
    "page_variants",
    "record_compiler",
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


class EdgeParameters(msgspec.Struct, frozen=True, gc=False):
    deptypes: tuple[str, ...] = ()
    virtuals: tuple[str, ...] = ()


class Edge(msgspec.Struct, frozen=True, gc=False):
    """One of `spec.dependencies`: spec v3+ give `parameters`, spec v2 (DB 6) a `type` list."""

    name: Text = None
    hash: Text = None
    parameters: EdgeParameters | None = None
    type: tuple[str, ...] = ()

    @property
    def deptypes(self) -> tuple[str, ...]:
        return self.parameters.deptypes if self.parameters is not None else self.type

    @property
    def virtuals(self) -> tuple[str, ...]:
        return self.parameters.virtuals if self.parameters is not None else ()


Parameter = bool | list[Text] | Text


class Spec(msgspec.Struct, frozen=True, gc=False):
    name: str | None = None
    version: Text = None
    arch: Arch | None = None
    compiler: Compiler | None = None
    annotations: Annotations | None = None
    parameters: dict[str, Parameter] | None = None
    package_hash: str | None = None
    dependencies: tuple[Edge, ...] = ()
    external: msgspec.Raw = msgspec.Raw(b"")  # kept unparsed: only whether it is there


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
_FLAGS = frozenset(("cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs"))
_NOT_VARIANTS = _FLAGS | {"patches", "dev_path"}
_COMPILER_LANGUAGES = frozenset(("c", "cxx", "fortran"))
_HASH_OF = itemgetter(1)  # of an edge's (name, hash)


def decode_index(raw: bytes, where: str) -> dict[str, Install]:
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


def _refusal(raw: bytes, where: str) -> InputError:
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
            message, at, path = str(exc).rpartition(" - at `$")  # no path: the record itself
            message, field = (message, path.rstrip("`").lstrip(".")) if at else (path, "")
            what = f"install {digest}" + (f", {field}" if field else "")
            return InputError(where, f"{what}: {message[:1].lower()}{message[1:]}", FIX)
    return InputError(where, _NOT_A_DATABASE, FIX)  # the schema refused what no layer does


def _variants(parameters: Mapping[str, Parameter] | None) -> list[str]:
    """Spack's string form: `+shared`, `~doc`, `build_system=cmake`, `a=x,y`; no flags, patches."""
    found = []
    for name, value in (parameters or {}).items():
        if name in _NOT_VARIANTS:
            continue
        if isinstance(value, bool):
            found.append(("+" if value else "~") + name)
        elif isinstance(value, list):
            found.append(f"{name}={','.join(text(v) for v in value)}")
        else:
            found.append(f"{name}={text(value)}")
    return sorted(found)


def record_compiler(spec: Spec, installs: Mapping[str, Install], where: str, digest: str) -> str:
    """DB ≤ 7: `spec.compiler`; 8+: `annotations.compiler`, else the c/cxx/fortran provider."""
    if spec.compiler is not None and spec.compiler.name:
        return f"{text(spec.compiler.name)}@{text(spec.compiler.version)}".rstrip("@")
    annotated = spec.annotations.compiler if spec.annotations is not None else None
    if annotated:
        return annotated.replace("@=", "@")
    for edge in spec.dependencies:
        if _COMPILER_LANGUAGES.intersection(edge.virtuals):
            name = text(edge.name)
            if not name:
                raise InputError(where, f"install {digest}: a compiler dependency has no name", FIX)
            provider = installs.get(text(edge.hash))
            found = provider.spec if provider is not None else None
            version = text(found.version) if found is not None else ""
            return f"{name}@{version}" if version else name
    return "none"


def _target(arch: Arch) -> str:
    return text(arch.target.name if isinstance(arch.target, Target) else arch.target)


def page_variants(spec: Spec) -> tuple[str, ...]:
    """The variants of a record's catalogue-page entry, in Spack's string form, sorted."""
    return tuple(_variants(spec.parameters))


class Interned:
    """One object per distinct string or tuple of a side's graph: 200k records share a few
    thousand names, versions, variant tuples and edge kinds."""

    def __init__(self) -> None:
        self.seen: dict[Any, Any] = {}
        self.kinds: dict[tuple[str, tuple[str, ...], tuple[str, ...]], EdgeKind] = {}
        self.twice = 0  # edges listed twice in one record (kept once)

    def __call__(self, value: Any) -> Any:
        return self.seen.setdefault(value, value)

    def edges(self, spec: Spec) -> tuple[tuple[EdgeKind, ...], tuple[str, ...]]:
        """A record's edges sorted by (name, hash), each once: their kinds and their hashes."""
        one = self.seen.setdefault
        kinds = self.kinds
        found: dict[tuple[str, str], EdgeKind] = {}
        for edge in spec.dependencies:
            name, digest = edge.name, edge.hash
            if name.__class__ is not str or digest.__class__ is not str:  # as a page spells it
                name, digest = text(name), text(digest)
            key = (name, digest)
            if key in found:
                self.twice += 1
                continue
            parameters = edge.parameters
            if parameters is not None:
                kind = (name, parameters.deptypes, parameters.virtuals)
            else:
                kind = (name, edge.type, ())
            found[key] = kinds.get(kind) or self._kind(kind)
        keys = sorted(found)
        hashes = list(map(_HASH_OF, keys))
        kinds_of = tuple(map(found.__getitem__, keys))  # shared: records of one package alike
        return one(kinds_of, kinds_of), tuple(map(one, hashes, hashes))

    def _kind(self, kind: tuple[str, tuple[str, ...], tuple[str, ...]]) -> EdgeKind:
        name, deptypes, virtuals = kind
        found: EdgeKind = (self(name), self(deptypes), self(virtuals), links(deptypes))
        self.kinds[kind] = found
        return found


def _node_variants(
    parameters: Mapping[str, Parameter] | None, page: tuple[str, ...]
) -> tuple[str, ...]:
    """The variants of SPEC section 6: the page's (`page`), `patches` included (a patch changes
    the build)."""
    patches = (parameters or {}).get("patches")
    if isinstance(patches, list) and patches:
        return tuple(sorted([*page, f"patches={','.join(sorted(text(v) for v in patches))}"]))
    return page


def graph_node(
    spec: Spec,
    compiler: str,
    install: Install,
    intern: Interned,
    page: tuple[str, ...] | None = None,
) -> Node:
    """One record as a node of its side's graph (SPEC section 6); `page`: its page entry's
    variants, when it has one (the same, without patches)."""
    arch = spec.arch or Arch()
    variants = _node_variants(spec.parameters, page_variants(spec) if page is None else page)
    return Node(
        intern(text(spec.name)),
        intern(text(spec.version)),
        intern(text(arch.platform)),
        intern(text(arch.platform_os)),
        intern(_target(arch)),
        intern(compiler),
        intern(variants),
        intern(text(spec.package_hash)),
        bytes(spec.external) not in (b"", b"null"),
        install.in_buildcache,
        *intern.edges(spec),
    )
