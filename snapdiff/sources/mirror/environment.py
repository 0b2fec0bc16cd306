"""Spack environment lockfiles as build-cache records with their roots (install databases:
`database.py`).

A `spack.lock` (lockfile v1-v8, spec files v1-v6) or an install database `.spack-db/index.json`
(v6-v9) becomes the `Install` records a build-cache index gives (SPEC section 7), every one held
(`in_buildcache`), keyed by DAG hash, so `index.Read.add` reads them unchanged; and the
environment's own facts: its roots in file order, its format versions, the Spack that wrote it.

Lockfiles before v4 are keyed by another hash than the DAG hash (v1: the old DAG hash, the node
`{name: {...}}` with no `hash`; v2-v3: the build hash, several nodes sharing one DAG hash): a spec
is its DAG hash, the first node of it reached from the roots is kept, and every edge and root
points at a DAG hash. `include_concrete` (nested) is flattened, each root naming its environment.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from ...errors import InputError
from ...model import Root
from .records import (
    Annotations,
    Arch,
    Compiler,
    Edge,
    Install,
    Spec,
    Text,
    field_error,
    text,
)

__all__ = [
    "LOCKFILE_FIX",
    "LOCKFILE_VERSIONS",
    "SPECFILE_VERSIONS",
    "Decoded",
    "decode_lockfile",
    "is_lockfile",
]

LOCKFILE_VERSIONS = range(1, 9)  # Spack 0.12 (v1) to 1.3 (v8)
SPECFILE_VERSIONS = range(1, 7)  # the nodes' format: v1 (Spack ≤ 0.16) to v6 (Spack 1.3)
LOCKFILE_FIX = "give a spack.lock written by Spack 0.12 to 1.3"
_SNIFF_BYTES = 512  # `_meta` is the first key Spack writes, indented or not
_SNIFF = re.compile(rb'\s*\{\s*"_meta"\s*:\s*\{[^{}]*"file-type"\s*:\s*"spack-lockfile"')
# The package an abstract spec names: its first word, a namespace (`builtin.`) left out; none
# when it starts with a sigil (`%gcc`, `+mpi`, `/hash`) or with a `key=value`.
_NAMED = re.compile(r"\s*(?:[\w-]+\.)*([A-Za-z0-9_][\w-]*)(?![\w.=-])")


@dataclass(frozen=True)
class Decoded:
    """A lockfile or install database as read: its records by DAG hash, roots and format."""

    installs: dict[str, Install]
    roots: tuple[Root, ...]
    lockfile_version: int | None
    database_version: int | None
    spack_version: str | None
    spack_commit: str | None
    warnings: tuple[str, ...]


# -- the lockfile's shape --------------------------------------------------------------------


class _Meta(msgspec.Struct, frozen=True):
    file_type: Any = msgspec.field(default=None, name="file-type")
    lockfile_version: Any = msgspec.field(default=None, name="lockfile-version")
    specfile_version: Any = msgspec.field(default=None, name="specfile-version")


class _Head(msgspec.Struct, frozen=True):
    """The lockfile's `_meta` alone (the rest skipped unparsed)."""

    meta: _Meta | None = msgspec.field(default=None, name="_meta")


class _Spack(msgspec.Struct, frozen=True):
    version: Text = None
    commit: Text = None


class _RootEntry(msgspec.Struct, frozen=True):
    hash: str
    spec: str
    group: str | None = None


class _Included(msgspec.Struct, frozen=True):
    """An included concrete environment: roots, nodes, and those it includes."""

    roots: list[_RootEntry] = []
    concrete_specs: dict[str, msgspec.Raw] = {}
    include_concrete: dict[str, _Included] = {}


class _Lockfile(msgspec.Struct, frozen=True):
    roots: list[_RootEntry]
    concrete_specs: dict[str, msgspec.Raw]
    spack: _Spack | None = None
    include_concrete: dict[str, _Included] = {}


class _IncludedSpecs(msgspec.Struct, frozen=True):
    """`_Included` with its nodes decoded as build-cache specs (lockfile v4 and later)."""

    roots: list[_RootEntry] = []
    concrete_specs: dict[str, Spec] = {}
    include_concrete: dict[str, _IncludedSpecs] = {}


class _LockfileSpecs(msgspec.Struct, frozen=True):
    """A lockfile v4 or later, keyed by DAG hash, its nodes decoded in the same call as
    build-cache specs (`records.Spec`: the fields snapdiff reads, the rest skipped)."""

    roots: list[_RootEntry]
    concrete_specs: dict[str, Spec]
    meta: _Meta | None = msgspec.field(default=None, name="_meta")
    spack: _Spack | None = None
    include_concrete: dict[str, _IncludedSpecs] = {}


class _DependsOn(msgspec.Struct, frozen=True):
    """Spec v1: a dependency by name, `{hash, type}` (`build_hash` too in a v2 lockfile)."""

    hash: str | None = None
    build_hash: str | None = None
    type: tuple[str, ...] = ()


class _ListedEdge(msgspec.Struct, frozen=True):
    """Spec v2+: `{name, hash, type}` (v3 lockfiles: `build_hash`), v4+ `parameters`."""

    name: str | None = None
    hash: str | None = None
    build_hash: str | None = None
    parameters: msgspec.Raw = msgspec.Raw(b"")
    type: tuple[str, ...] = ()


class _Node(msgspec.Struct, frozen=True):
    """A lockfile's node: what `records.Spec` reads, its own hash and its edges in any shape
    (`provided_virtuals`, spec v6, is skipped as every field snapdiff does not read)."""

    name: str | None = None
    version: Text = None
    arch: Arch | None = None
    compiler: Compiler | None = None
    annotations: Annotations | None = None
    parameters: msgspec.Raw = msgspec.Raw(b"")
    package_hash: str | None = None
    namespace: Text = None
    external: msgspec.Raw = msgspec.Raw(b"")
    hash: str | None = None
    dependencies: list[_ListedEdge] | dict[str, _DependsOn | str] | None = None


_NAMED_NODE = msgspec.json.Decoder(dict[str, _Node])  # spec v1: `{name: {...}}`
_NODE = msgspec.json.Decoder(_Node)


def is_lockfile(data: bytes) -> bool:
    """A JSON object whose `_meta.file-type` is `spack-lockfile`, told from its first bytes."""
    head = data[:_SNIFF_BYTES].removeprefix(b"\xef\xbb\xbf")
    return _SNIFF.match(head) is not None


def decode_lockfile(raw: bytes, where: str) -> Decoded:
    """A `spack.lock`, its included environments flattened; refused in one line when it is not
    one of a version snapdiff reads."""
    try:  # in one pass, when it is of v4 or later and as Spack writes it
        fast: _LockfileSpecs | None = msgspec.json.decode(raw, type=_LockfileSpecs)
    except msgspec.MsgspecError:
        fast = None  # refused, or an older version: read again below, to say why
    version = _lockfile_version(
        fast.meta if fast is not None else _decode(raw, _Head, where).meta, where
    )
    if fast is not None and version >= 4:
        try:
            return _keyed_by_dag(fast, version, where)
        except InputError:
            pass  # said node by node below, naming the concrete spec at fault
    lockfile = _decode(raw, _Lockfile, where)
    nodes: dict[str, tuple[str, _Node]] = {}
    entries: list[tuple[_RootEntry, str]] = []
    for environment, listed, specs in _flattened(".", lockfile):
        entries.extend((entry, environment) for entry in listed)
        for key, node in specs.items():
            if key not in nodes:
                nodes[key] = _node(node, key, version, where)
    graph = _Graph(nodes)
    named = {key: (digest, node.name or "") for key, (digest, node) in nodes.items()}
    roots, warnings = _roots(entries, named, graph.key, where)
    keys: Iterable[str] = graph.reached(roots) if version < 4 else nodes
    return _decoded(graph.installs(keys), roots, warnings, version, lockfile.spack)


def _keyed_by_dag(lockfile: _LockfileSpecs, version: int, where: str) -> Decoded:
    """A lockfile v4 or later: its nodes, keyed by DAG hash, are the records as decoded."""
    installs: dict[str, Install] = {}
    entries: list[tuple[_RootEntry, str]] = []
    for environment, listed, specs in _flattened_specs(".", lockfile):
        entries.extend((entry, environment) for entry in listed)
        for key, spec in specs.items():
            if spec.name is None:
                raise InputError(where, f"concrete spec {key} has no name", LOCKFILE_FIX)
            installs.setdefault(key, Install(spec=spec, in_buildcache=True))
    named = {
        key: (key, install.spec.name or "") for key, install in installs.items() if install.spec
    }
    roots, warnings = _roots(entries, named, lambda ref: ref if ref in named else None, where)
    return _decoded(installs, roots, warnings, version, lockfile.spack)


def _specs(installs: Mapping[str, Install]) -> Iterator[tuple[str, Spec]]:
    return ((key, found.spec) for key, found in installs.items() if found.spec is not None)


def _flattened_specs(
    environment: str, lockfile: _LockfileSpecs | _IncludedSpecs
) -> Iterator[tuple[str, list[_RootEntry], dict[str, Spec]]]:
    """`_flattened`, the nodes decoded as specs."""
    yield environment, lockfile.roots, lockfile.concrete_specs
    for path, included in lockfile.include_concrete.items():
        yield from _flattened_specs(path, included)


def _decoded(
    installs: dict[str, Install],
    roots: tuple[Root, ...],
    warnings: tuple[str, ...],
    version: int,
    spack: _Spack | None,
) -> Decoded:
    return Decoded(
        installs=installs,
        roots=roots,
        lockfile_version=version,
        database_version=None,
        spack_version=None if spack is None or spack.version is None else text(spack.version),
        spack_commit=None if spack is None or spack.commit is None else text(spack.commit),
        warnings=warnings,
    )


def _roots(
    entries: Iterable[tuple[_RootEntry, str]],
    named: Mapping[str, tuple[str, str]],
    key_of: Callable[[str | None], str | None],
    where: str,
) -> tuple[tuple[Root, ...], tuple[str, ...]]:
    """The roots by DAG hash (`named`: each key's DAG hash and package; `key_of`: the key a
    root's hash names), and a warning for each whose node is of another package."""
    roots, warnings = [], []
    for entry, environment in entries:
        key = key_of(entry.hash)
        if key is None:
            what = f"root `{entry.spec}` names {entry.hash}, a hash no concrete spec has"
            raise InputError(where, what, LOCKFILE_FIX)
        digest, name = named[key]
        spelled = _NAMED.match(entry.spec)
        trusted = not (spelled and spelled[1] != name)
        roots.append(Root(entry.spec, digest, entry.group, environment, trusted))
        if not trusted:
            within = "" if environment == "." else f" (included from {environment})"
            warnings.append(
                f"root `{entry.spec}`{within} names the hash of the node of `{name}`"
                f" ({digest[:7]}): its version and compiler are not said"
            )
    return tuple(roots), tuple(warnings)


def _decode(raw: bytes, shape: type[Any], where: str) -> Any:
    """The file as this shape, or one line saying why it is not a lockfile."""
    try:
        return msgspec.json.decode(raw, type=shape)
    except msgspec.ValidationError as exc:
        raise InputError(where, f"not a Spack lockfile: {_lower(str(exc))}", LOCKFILE_FIX) from None
    except msgspec.DecodeError as exc:
        raise InputError(where, f"not valid JSON ({exc})", LOCKFILE_FIX) from None


def _lower(message: str) -> str:
    return message[:1].lower() + message[1:]


def _lockfile_version(meta: _Meta | None, where: str) -> int:
    """`_meta.lockfile-version`, checked with the spec file version it names."""
    if meta is None or meta.file_type != "spack-lockfile":
        what = "not a Spack lockfile: no _meta.file-type `spack-lockfile`"
        raise InputError(where, what, LOCKFILE_FIX)
    version, specfile = meta.lockfile_version, meta.specfile_version
    if not _among(version, LOCKFILE_VERSIONS):
        what = f"lockfile version {_spelled(version)}, not one snapdiff reads (1-8)"
        raise InputError(where, what, LOCKFILE_FIX)
    if specfile is not None and not _among(specfile, SPECFILE_VERSIONS):
        what = f"lockfile version {version} with spec file version {_spelled(specfile)}"
        raise InputError(where, f"{what}, not one snapdiff reads (1-6)", LOCKFILE_FIX)
    assert isinstance(version, int)
    return version


def _among(version: object, versions: range) -> bool:
    return isinstance(version, int) and not isinstance(version, bool) and version in versions


def _spelled(version: object) -> str:
    return str(version) if isinstance(version, int) else repr(version)


def _flattened(
    environment: str, lockfile: _Lockfile | _Included
) -> Iterator[tuple[str, list[_RootEntry], dict[str, msgspec.Raw]]]:
    """(environment, roots, nodes) of a lockfile and, depth first, of those it includes."""
    yield environment, lockfile.roots, lockfile.concrete_specs
    for path, included in lockfile.include_concrete.items():
        yield from _flattened(path, included)


def _node(raw: msgspec.Raw, key: str, version: int, where: str) -> tuple[str, _Node]:
    """A node's DAG hash (its key where it has no `hash`: lockfile v1) and the node; spec v1
    (lockfiles v1-v2) is `{name: {...}}`."""
    try:
        if version > 2:
            node = _NODE.decode(raw)
        else:
            named = _NAMED_NODE.decode(raw)
            if len(named) != 1:
                what = f"concrete spec {key}: {len(named)} keys, not one (the package's name)"
                raise InputError(where, what, LOCKFILE_FIX)
            ((name, node),) = named.items()
            node = msgspec.structs.replace(node, name=name)
    except msgspec.ValidationError as exc:
        what = field_error(key, exc, "concrete_specs", "concrete spec")
        raise InputError(where, what, LOCKFILE_FIX) from None
    if node.name is None:
        raise InputError(where, f"concrete spec {key} has no name", LOCKFILE_FIX)
    return node.hash or key, node


class _Graph:
    """A lockfile's nodes by their key, each edge and root resolved to a DAG hash."""

    def __init__(self, nodes: dict[str, tuple[str, _Node]]) -> None:
        self.nodes = nodes
        self.key_of: dict[str, str] = {}  # a DAG hash's first key (a dependency may name it)
        for key, (digest, _) in nodes.items():
            self.key_of.setdefault(digest, key)

    def key(self, reference: str | None) -> str | None:
        """The key of the node a root or an edge names: a key (build hash in v2-v3), else a
        DAG hash."""
        if reference is None or reference in self.nodes:
            return reference
        return self.key_of.get(reference)

    def dag(self, reference: str | None) -> str:
        """The DAG hash a root or an edge names (as given when no node has it)."""
        key = self.key(reference)
        return self.nodes[key][0] if key is not None else text(reference)

    def edges(self, node: _Node) -> Iterator[tuple[str, str | None, msgspec.Raw, tuple[str, ...]]]:
        """(name, reference, raw parameters, type) of each of a node's edges, as listed."""
        deps = node.dependencies
        if isinstance(deps, list):
            for edge in deps:
                reference = edge.build_hash or edge.hash
                yield text(edge.name), reference, edge.parameters, edge.type
        elif deps:
            for name, given in deps.items():
                if isinstance(given, str):
                    yield name, given, msgspec.Raw(b""), ()
                else:
                    yield name, given.build_hash or given.hash, msgspec.Raw(b""), given.type

    def spec(self, node: _Node) -> Spec:
        """The node as a build-cache record's spec, its edges pointing at DAG hashes."""
        edges = tuple(
            Edge(name, self.dag(reference), parameters, deptypes)
            for name, reference, parameters, deptypes in self.edges(node)
        )
        return Spec(
            name=node.name,
            version=node.version,
            arch=node.arch,
            compiler=node.compiler,
            annotations=node.annotations,
            parameters=node.parameters,
            package_hash=node.package_hash,
            dependencies=edges,
            namespace=node.namespace,
            external=node.external,
        )

    def reached(self, roots: Iterable[Root]) -> list[str]:
        """Every key, those reached from the roots first (depth first, each node's dependencies
        by name, as Spack walks them): the first node of a DAG hash reached is the one kept."""
        order: dict[str, None] = {}
        stack = [key for key in (self.key(root.hash) for root in roots) if key][::-1]
        while stack:
            key = stack.pop()
            if key in order:
                continue
            order[key] = None
            below = sorted(
                (name, self.key(ref) or "") for name, ref, _, _ in self.edges(self.nodes[key][1])
            )
            stack.extend(dep for _, dep in reversed(below) if dep and dep not in order)
        return [*order, *(key for key in self.nodes if key not in order)]

    def installs(self, keys: Iterable[str]) -> dict[str, Install]:
        """The records by DAG hash, the first node of each in this order kept."""
        found: dict[str, Install] = {}
        for key in keys:
            digest, node = self.nodes[key]
            if digest not in found:
                found[digest] = Install(spec=self.spec(node), in_buildcache=True)
        return found
