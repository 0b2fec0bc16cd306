"""Classify a package's added and removed specs into the classes of SPEC section 2a.

Every added and every removed spec lands in exactly one class; migrations then take over
the new and dropped configurations they explain (`migrations.py`). This module decides
what is true; `claims.py` says it in words.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from ..model import Configuration
from ..report import Change, ChangeClass
from ..versions import sort_versions, version_key
from .builtas import Built

__all__ = ["ConfigVersions", "Facts", "classify"]

ConfigVersions = Mapping[Configuration, set[str]]  # a package's configurations: their versions
Specs = Iterable[tuple[str, Built]]  # (hash, (configuration, version))


Facts = list[Change]
_ByVersion = dict[str, list[str]]  # version -> hashes, sorted
_NO_VERSIONS: frozenset[str] = frozenset()


def _group(specs: Specs) -> dict[Configuration, _ByVersion]:
    found: dict[Configuration, _ByVersion] = {}
    for digest, (config, version) in specs:
        versions = found.get(config)
        if versions is None:
            found[config] = {version: [digest]}
        elif version in versions:
            versions[version].append(digest)
        else:
            versions[version] = [digest]
    for versions in found.values():
        for hashes in versions.values():
            if len(hashes) > 1:
                hashes.sort()
    return found


def _highest(versions: Iterable[str]) -> str:
    return max(versions, key=lambda v: (version_key(v), v))


def _ordered(versions: Collection[str]) -> Collection[str]:
    """Versions in Spack order (most sets here hold one, already in order)."""
    return versions if len(versions) < 2 else sort_versions(versions)


def _fact(
    kind: ChangeClass,
    config: Configuration,
    version_old: str | None,
    version_new: str | None,
    gone: list[str],
    came: list[str],
) -> Change:
    """A record about one configuration, kept on both sides, and at most one version a side."""
    return Change(
        kind,
        (config,),
        (config,),
        (version_old,) if version_old is not None else (),
        (version_new,) if version_new is not None else (),
        tuple(gone),
        tuple(came),
    )


def _shared(
    config: Configuration, removed: _ByVersion, added: _ByVersion, old: set[str], new: set[str]
) -> Facts:
    """The classes of a configuration on both sides: rebuilds, version moves, more/fewer builds."""
    facts: Facts = []
    gone_only: Collection[str] = ()
    came_only: Collection[str] = ()
    both: Collection[str] = removed.keys()
    if removed.keys() != added.keys():  # else (most often) every version is rebuilt
        both, gone_only = removed.keys() & added.keys(), removed.keys() - added.keys()
        came_only = added.keys() - removed.keys()
    for version in _ordered(both):
        gone, came = removed[version], added[version]
        k = min(len(gone), len(came))
        facts.append(_fact("rebuilt", config, version, version, gone[:k], came[:k]))
        if len(gone) > k:
            facts.append(_fact("fewer-builds", config, version, None, gone[k:], []))
        if len(came) > k:
            facts.append(_fact("more-builds", config, None, version, [], came[k:]))
    retired, arrived = (old - new, new - old) if old != new else (_NO_VERSIONS, _NO_VERSIONS)
    top_old = _highest(retired) if retired and arrived else None
    top_new = _highest(arrived) if retired and arrived else None
    if top_old is not None and top_new is not None:
        up = version_key(top_new) > version_key(top_old)
        kind: ChangeClass = "upgrade" if up else "downgrade"
        gone, came = removed.get(top_old, []), added.get(top_new, [])
        facts.append(_fact(kind, config, top_old, top_new, gone, came))
    for version in _ordered(gone_only):
        if version != top_old:
            kind = "version-retired" if version in retired else "fewer-builds"
            facts.append(_fact(kind, config, version, None, removed[version], []))
    for version in _ordered(came_only):
        if version != top_new:
            kind = "version-added" if version in arrived else "more-builds"
            facts.append(_fact(kind, config, None, version, [], added[version]))
    return facts


def _whole(kind: ChangeClass, config: Configuration, specs: _ByVersion) -> Change:
    """A configuration one side lacks: every spec of it is added (or removed)."""
    versions = tuple(sort_versions(specs))
    hashes = tuple(sorted(h for found in specs.values() for h in found))
    if kind == "new-configuration":
        return Change(kind, (), (config,), (), versions, (), hashes)
    return Change(kind, (config,), (), versions, (), hashes, ())


def classify(removed: Specs, added: Specs, old: ConfigVersions, new: ConfigVersions) -> Facts:
    """Every removed and added spec of one package in exactly one class (SPEC section 2a).

    `removed` and `added` are the specs that differ; `old` and `new` every configuration of
    the package on each side with its versions, kept specs included.
    """
    gone, came = _group(removed), _group(added)
    facts: Facts = []
    for config in sorted(gone.keys() | came.keys()):
        if config not in new:
            facts.append(_whole("dropped-configuration", config, gone[config]))
        elif config not in old:
            facts.append(_whole("new-configuration", config, came[config]))
        else:
            facts += _shared(
                config, gone.get(config, {}), came.get(config, {}), old[config], new[config]
            )
    return facts
