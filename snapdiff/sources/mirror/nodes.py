"""A build-cache record as a node of its side's graph (SPEC section 6), and as a catalogue page's
entry fields: name, version, arch, compiler, variants, `package_hash`, edges.

200k records share a few thousand names, versions, variant sets, arches and edge kinds, so each
distinct value is read and spelled once (`Interned`), and a record's edges are handled a list at a
time in C, not an edge at a time in Python. Imported only when an index is read (msgspec).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from itertools import islice
from operator import attrgetter, itemgetter, lt
from typing import Any, cast

import msgspec

from ...errors import InputError
from ...model import EdgeKind, Node, links
from .records import (
    FIX,
    Arch,
    EdgeParameters,
    External,
    Install,
    Parameter,
    Spec,
    Target,
    field_error,
    text,
)

__all__ = ["Interned"]

_FLAGS = frozenset(("cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs"))
_NOT_VARIANTS = _FLAGS | {"patches", "dev_path"}
_COMPILER_LANGUAGES = frozenset(("c", "cxx", "fortran"))
_NAME = attrgetter("name")
_HASH = attrgetter("hash")
_PARAMETERS = attrgetter("parameters")
_HASH_OF = itemgetter(1)  # of an edge's (name, hash)
_ABSENT = (b"", b"null")  # a field kept undecoded, missing or null
_NO_RAW = tuple(map(msgspec.Raw, _ABSENT))
# as in a record's schema, so a refusal says `object | null` (a null is read as the `type`)
_EDGE_PARAMETERS = msgspec.json.Decoder(EdgeParameters | None)
_EXTERNAL = msgspec.json.Decoder(External)
_NOT_EXTERNAL: tuple[str, ...] = ()
_Variants = tuple[tuple[str, ...], tuple[str, ...]]  # a page entry's, a node's (patches too)
_Edges = tuple[tuple[EdgeKind, ...], tuple[str, ...]]
# an edge's name, and its raw `parameters` (or its `type` where it has none)
_KindKey = tuple[str, bytes | tuple[str, ...]]
# a record's edges as listed: their names, and their raw `parameters` (two flat tuples)
_Listed = tuple[tuple[str | None, ...], tuple[bytes, ...]]


def _variants(parameters: Mapping[str, Parameter]) -> tuple[str, ...]:
    """Spack's string form: `+shared`, `~doc`, `build_system=cmake`, `a=x,y`; no flags, patches;
    sorted."""
    found = []
    for name, value in parameters.items():
        if name in _NOT_VARIANTS:
            continue
        if isinstance(value, bool):
            found.append(("+" if value else "~") + name)
        elif isinstance(value, list):
            found.append(f"{name}={','.join(text(v) for v in value)}")
        else:
            found.append(f"{name}={text(value)}")
    return tuple(sorted(found))


def _with_patches(parameters: Mapping[str, Parameter], page: tuple[str, ...]) -> tuple[str, ...]:
    """The variants of SPEC section 6: the page's, `patches` included (a patch changes the
    build)."""
    patches = parameters.get("patches")
    if isinstance(patches, list) and patches:
        return tuple(sorted([*page, f"patches={','.join(sorted(text(v) for v in patches))}"]))
    return page


def _first_compiler(kinds: tuple[EdgeKind, ...]) -> int:
    """Where the first c/cxx/fortran provider is among a record's edge kinds, -1 if none."""
    for at, kind in enumerate(kinds):
        if not _COMPILER_LANGUAGES.isdisjoint(kind[2]):
            return at
    return -1


def _target(arch: Arch) -> str:
    return text(arch.target.name if isinstance(arch.target, Target) else arch.target)


class Interned:
    """One object per distinct string or tuple of a side's graph, and each distinct variant set,
    arch and edge kind spelled once."""

    def __init__(self, shared: Interned | None = None) -> None:
        """`shared`: the other side's, whose tables of values this side adds to (what is read
        the same from any index): values equal on both sides are then one object, compared and
        looked up by identity."""
        self.seen: dict[Any, Any] = shared.seen if shared else {}
        self.kinds: dict[_KindKey, EdgeKind] = shared.kinds if shared else {}
        # each distinct tuple of a record's edge kinds once, by the kinds' ids (records of a
        # package alike share it; the kinds live as long as `kinds`)
        self.kind_tuples: dict[tuple[int, ...], tuple[EdgeKind, ...]] = (
            shared.kind_tuples if shared else {}
        )
        # by the record's raw `parameters`
        self.variant_sets: dict[bytes, _Variants] = shared.variant_sets if shared else {}
        self.arches: dict[Arch | None, tuple[str, str, str]] = shared.arches if shared else {}
        self.externals: dict[bytes, tuple[str, ...]] = shared.externals if shared else {}
        # a record's edges read a list at a time: its tuple of kinds, by its edges' (name, raw
        # `parameters`) in its own order, when that order is sorted by name, each name once
        self.listed: dict[_Listed, tuple[EdgeKind, ...]] = shared.listed if shared else {}
        # by id of a tuple of kinds in `kind_tuples`: where its first c/cxx/fortran edge is
        self.compiler_at: dict[int, int] = shared.compiler_at if shared else {}
        self.keep = self.seen.setdefault  # `keep(value, value)`: `self(value)` without a call
        # of this side only:
        # a compiler edge's (name, hash): its spelling, when its record was found
        self.providers: dict[tuple[str, str], str] = {}
        self.twice = 0  # edges listed twice in one record (kept once, with both's deptypes)
        # the index being read: where it is (named in errors), and its records by hash
        self.source, self.installs = "", cast(Mapping[str, Install], {})

    @contextmanager
    def reading(self, source: str, installs: Mapping[str, Install]) -> Iterator[None]:
        """The records read meanwhile are those of this index (held no longer)."""
        self.source, self.installs = source, installs
        try:
            yield
        finally:
            self.source, self.installs = "", {}

    def __call__(self, value: Any) -> Any:
        return self.seen.setdefault(value, value)

    def node(self, spec: Spec, install: Install, variants: tuple[str, ...], digest: str) -> Node:
        """A record whose spec has a name as a node, with these variants (`variants()[1]`)."""
        kinds, deps, listed = self._edges(spec, digest)
        keep = self.keep
        name, version, package_hash, namespace = (
            spec.name,
            spec.version,
            spec.package_hash,
            spec.namespace,
        )
        platform, os, target = self._arch(spec.arch)
        return Node(
            keep(name, name) if name.__class__ is str else self(text(name)),
            keep(version, version) if version.__class__ is str else self(text(version)),
            platform,
            os,
            target,
            self._compiler(spec, (kinds, deps), listed, digest),
            variants,
            keep(package_hash, package_hash) if package_hash.__class__ is str else "",
            keep(namespace, namespace) if namespace.__class__ is str else self(text(namespace)),
            _NOT_EXTERNAL if spec.external in _NO_RAW else self._external(spec.external, digest),
            install.in_buildcache,
            kinds,
            deps,
        )

    def variants(self, spec: Spec, digest: str) -> _Variants:
        """A record's variants: its page entry's, and its node's (patches included)."""
        raw = bytes(spec.parameters)
        found = self.variant_sets.get(raw)
        if found is None:
            try:
                parameters = msgspec.json.decode(raw or b"null", type=dict[str, Parameter] | None)
            except msgspec.ValidationError as exc:
                what = field_error(digest, exc, "spec.parameters")
                raise InputError(self.source, what, FIX) from None
            page = self(_variants(parameters or {}))
            found = self.variant_sets[raw] = (page, self(_with_patches(parameters or {}, page)))
        return found

    def _external(self, raw: msgspec.Raw, digest: str) -> tuple[str, ...]:
        """An external's (path, module) as recorded, "" for what it lacks; a module given as a
        list is its items joined by spaces."""
        found = self.externals.get(bytes(raw))
        if found is None:
            try:
                given = _EXTERNAL.decode(raw)
            except msgspec.ValidationError as exc:
                raise InputError(
                    self.source, field_error(digest, exc, "spec.external"), FIX
                ) from None
            module = given.module
            if isinstance(module, list):
                module = " ".join(map(text, module))
            found = self.externals[bytes(raw)] = self((text(given.path), text(module)))
        return found

    def _arch(self, arch: Arch | None) -> tuple[str, str, str]:
        found = self.arches.get(arch)
        if found is None:
            seen = arch or Arch()
            spelled = (text(seen.platform), text(seen.platform_os), _target(seen))
            found = self.arches[arch] = (self(spelled[0]), self(spelled[1]), self(spelled[2]))
        return found

    def _compiler(self, spec: Spec, edges: _Edges, listed: bool, digest: str) -> str:
        """DB ≤ 7: `spec.compiler`; 8+: `annotations.compiler`, else the c/cxx/fortran provider:
        the first such edge the record lists (`edges` are in its own order when `listed`)."""
        spelled: str
        if spec.compiler is not None and spec.compiler.name:
            spelled = self(f"{text(spec.compiler.name)}@{text(spec.compiler.version)}".rstrip("@"))
            return spelled
        annotated = spec.annotations.compiler if spec.annotations is not None else None
        if annotated:
            spelled = self(annotated.replace("@=", "@"))
            return spelled
        if listed:  # the first such edge's place, found once per tuple of kinds
            kinds = edges[0]
            at = self.compiler_at.get(id(kinds))
            if at is None:
                at = self.compiler_at[id(kinds)] = _first_compiler(kinds)
            return "none" if at < 0 else self._provider(kinds[at][0], edges[1][at], digest)
        for kind, target in zip(*self._listed(spec, digest), strict=True):
            if not _COMPILER_LANGUAGES.isdisjoint(kind[2]):
                return self._provider(kind[0], target, digest)
        return "none"

    def _provider(self, name: str, target: str, digest: str) -> str:
        """The compiler a record's first c/cxx/fortran edge names: its provider's spelling."""
        if not name:
            what = f"install {digest}: a compiler dependency has no name"
            raise InputError(self.source, what, FIX)
        found = self.providers.get((name, target))
        if found is None:
            provider = self.installs.get(target)
            if provider is None or provider.spec is None:
                return name  # not in this index (another index may hold it: not kept)
            version = text(provider.spec.version)
            found = self.providers[name, target] = self(f"{name}@{version}" if version else name)
        return found

    def _edges(self, spec: Spec, digest: str) -> tuple[tuple[EdgeKind, ...], tuple[str, ...], bool]:
        """A record's edges sorted by (name, hash), each once: their kinds, their hashes, and
        whether that is the order the record lists them in. Spack lists them sorted: then a list
        at a time in C, the kinds looked up once per record by its edges' (name, `parameters`);
        else (or a field missing) an edge at a time."""
        deps = spec.dependencies
        if not deps:
            return (), (), True
        listed = tuple(map(_NAME, deps)), tuple(map(bytes, map(_PARAMETERS, deps)))
        hashes = list(map(_HASH, deps))
        kinds = self.listed.get(listed)
        if kinds is None:
            kinds = self._first_listed(listed, digest)
            if kinds is None:
                return (*self._sorted(spec, digest), False)
        if None in hashes:
            return (*self._sorted(spec, digest), False)  # a hash missing
        return kinds, tuple(map(self.keep, hashes, hashes)), True

    def _first_listed(self, listed: _Listed, digest: str) -> tuple[EdgeKind, ...] | None:
        """The kinds of edges first seen so (kept in `listed`), or None when they are not
        sorted by name each once, or a field is missing: DB 6's `type`, a nameless edge."""
        if None in listed[0] or any(raw in _ABSENT for raw in listed[1]):
            return None
        names = cast(tuple[str, ...], listed[0])
        if not all(map(lt, names, islice(names, 1, None))):
            return None  # not sorted by name, or a name twice
        keys: list[_KindKey] = list(zip(names, listed[1], strict=True))
        found = [self.kinds.get(key) or self._kind(key, digest, at) for at, key in enumerate(keys)]
        kinds = self.listed[listed] = self._shared(found)
        return kinds

    def _kind(self, key: _KindKey, digest: str, at: int) -> EdgeKind:
        """The kind of a record's edge number `at`, by (name, raw `parameters` or `type`)."""
        name, given = key
        if isinstance(given, tuple):  # no `parameters`: spec v2's `type`
            parameters = EdgeParameters(given, ())
        else:
            try:
                parameters = _EDGE_PARAMETERS.decode(given) or EdgeParameters()
            except msgspec.ValidationError as exc:
                where = f"spec.dependencies[{at}].parameters"
                raise InputError(self.source, field_error(digest, exc, where), FIX) from None
        deptypes, virtuals = self(parameters.deptypes), self(parameters.virtuals)
        found: EdgeKind = self((self(name), deptypes, virtuals, links(deptypes)))
        self.kinds[key] = found
        return found

    def _listed(self, spec: Spec, digest: str) -> _Edges:
        """A record's edges in its own order, as given (names and hashes spelled as text)."""
        kinds = []
        for at, edge in enumerate(spec.dependencies):
            given = bytes(edge.parameters)
            key = (text(edge.name), edge.type if given in _ABSENT else given)
            kinds.append(self.kinds.get(key) or self._kind(key, digest, at))
        return tuple(kinds), tuple(text(edge.hash) for edge in spec.dependencies)

    def _sorted(self, spec: Spec, digest: str) -> _Edges:
        """The slow way: an edge at a time, sorted by (name, hash), each once (an edge listed
        twice with the deptypes and virtuals of both listings: a link listed beside a build is a
        link edge, whichever comes first)."""
        found: dict[tuple[str, str], EdgeKind] = {}
        for kind, target in zip(*self._listed(spec, digest), strict=True):
            key = (kind[0], target)
            if key in found:
                self.twice += 1
                kind = self._both(found[key], kind)
            found[key] = kind
        keys = sorted(found)
        hashes = list(map(_HASH_OF, keys))
        kinds = list(map(found.__getitem__, keys))
        return self._shared(kinds), tuple(map(self.seen.setdefault, hashes, hashes))

    def _both(self, first: EdgeKind, then: EdgeKind) -> EdgeKind:
        """One edge's kind from two listings of it: their deptypes and virtuals together."""
        deptypes = self(tuple(sorted({*first[1], *then[1]})))
        virtuals = self(tuple(sorted({*first[2], *then[2]})))
        found: EdgeKind = self((first[0], deptypes, virtuals, links(deptypes)))
        return found

    def _shared(self, kinds: list[EdgeKind]) -> tuple[EdgeKind, ...]:
        return self.kind_tuples.setdefault(tuple(map(id, kinds)), tuple(kinds))
