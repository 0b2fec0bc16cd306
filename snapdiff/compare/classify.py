"""Classify a package's added and removed specs into the classes of SPEC section 2a.

Every added and every removed spec lands in exactly one class; migrations then take over
the new and dropped configurations they explain (`migrations.py`). This module decides
what is true; `claims.py` says it in words.

Specs are paired by what they are built as (configuration and version) first: in a release
every spec is rebuilt, so the rebuilt records of a version are made at once over all its
configurations (the record `claims.merge` would make of one record per configuration), and
only the specs left unpaired are classified configuration by configuration.
"""

from __future__ import annotations

from collections.abc import Collection, Container, Iterable, Mapping

from ..model import Configuration
from ..report import Change, ChangeClass
from ..versions import sort_versions, version_key
from .builtas import Built

__all__ = ["ConfigVersions", "Facts", "classify"]

ConfigVersions = Mapping[Configuration, set[str]]  # a package's configurations: their versions
Specs = Iterable[tuple[str, Built]]  # (hash, (configuration, version))


Facts = list[Change]
_ByBuild = dict[Built, list[str]]  # (configuration, version) -> hashes, sorted
_ByVersion = dict[str, list[str]]  # version -> hashes, sorted
_NO_VERSIONS: frozenset[str] = frozenset()


def _by_build(specs: Specs) -> _ByBuild:
    found: _ByBuild = {}
    for digest, built in specs:
        hashes = found.get(built)
        if hashes is None:
            found[built] = [digest]
        else:
            hashes.append(digest)
    for hashes in found.values():
        if len(hashes) > 1:
            hashes.sort()
    return found


def _by_configuration(specs: _ByBuild, paired: Container[Built]) -> dict[Configuration, _ByVersion]:
    """The specs not `paired`, by configuration and version."""
    found: dict[Configuration, _ByVersion] = {}
    for built, hashes in specs.items():
        if built not in paired:
            config, version = built
            found.setdefault(config, {})[version] = hashes
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


def _paired(gone: _ByBuild, came: _ByBuild) -> Facts:
    """Specs of a configuration and version on both sides: rebuilt one to one (one record a
    version, over every configuration), the rest more or fewer builds."""
    facts: Facts = []
    rebuilt: dict[str, tuple[list[Configuration], list[str], list[str]]] = {}
    for built, old_hashes in gone.items():
        new_hashes = came.get(built)
        if new_hashes is None:
            continue
        config, version = built
        k = min(len(old_hashes), len(new_hashes))
        configs, paired_old, paired_new = rebuilt.setdefault(version, ([], [], []))
        configs.append(config)
        paired_old += old_hashes[:k]
        paired_new += new_hashes[:k]
        if len(old_hashes) > k:
            facts.append(_fact("fewer-builds", config, version, None, old_hashes[k:], []))
        if len(new_hashes) > k:
            facts.append(_fact("more-builds", config, None, version, [], new_hashes[k:]))
    for version, (configs, paired_old, paired_new) in rebuilt.items():
        where, one = tuple(sorted(configs)), (version,)
        old_specs, new_specs = tuple(sorted(paired_old)), tuple(sorted(paired_new))
        facts.append(Change("rebuilt", where, where, one, one, old_specs, new_specs))
    return facts


def _unpaired(
    config: Configuration, removed: _ByVersion, added: _ByVersion, old: set[str], new: set[str]
) -> Facts:
    """The classes of the unpaired specs of a configuration on both sides (no version both
    removed and added): version moves, versions retired or added, more/fewer builds."""
    facts: Facts = []
    retired, arrived = (old - new, new - old) if old != new else (_NO_VERSIONS, _NO_VERSIONS)
    top_old = _highest(retired) if retired and arrived else None
    top_new = _highest(arrived) if retired and arrived else None
    if top_old is not None and top_new is not None:
        up = version_key(top_new) > version_key(top_old)
        kind: ChangeClass = "upgrade" if up else "downgrade"
        gone, came = removed.get(top_old, []), added.get(top_new, [])
        facts.append(_fact(kind, config, top_old, top_new, gone, came))
    for version in _ordered(removed.keys()):
        if version != top_old:
            kind = "version-retired" if version in retired else "fewer-builds"
            facts.append(_fact(kind, config, version, None, removed[version], []))
    for version in _ordered(added.keys()):
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
    the package on each side with its versions, kept specs included. The records come in no
    particular order (`claims.merge` sorts them by content).
    """
    gone, came = _by_build(removed), _by_build(added)
    facts = _paired(gone, came)
    gone_left, came_left = _by_configuration(gone, came), _by_configuration(came, gone)
    for config in sorted(gone_left.keys() | came_left.keys()):
        if config not in new:
            facts.append(_whole("dropped-configuration", config, gone_left[config]))
        elif config not in old:
            facts.append(_whole("new-configuration", config, came_left[config]))
        else:
            removed_left, added_left = gone_left.get(config, {}), came_left.get(config, {})
            facts += _unpaired(config, removed_left, added_left, old[config], new[config])
    return facts
