"""Classify a package's added and removed specs into the classes of SPEC section 2a.

Every added and every removed spec lands in exactly one class; migrations then take over
the new and dropped configurations they explain (`migrations.py`). This module decides
what is true; `claims.py` says it in words.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from ..model import Configuration
from ..report import Change, ChangeClass
from ..versions import sort_versions, version_key
from .builtas import Built

__all__ = ["ConfigVersions", "Facts", "classify"]

ConfigVersions = Mapping[Configuration, set[str]]  # a package's configurations: their versions
Specs = Iterable[tuple[str, Built]]  # (hash, (configuration, version))


Facts = list[Change]
_ByVersion = dict[str, list[str]]  # version -> hashes, sorted


def _group(specs: Specs) -> dict[Configuration, _ByVersion]:
    found: dict[Configuration, _ByVersion] = defaultdict(lambda: defaultdict(list))
    for digest, (config, version) in specs:
        found[config][version].append(digest)
    for versions in found.values():
        for hashes in versions.values():
            hashes.sort()
    return found


def _highest(versions: Iterable[str]) -> str:
    return max(versions, key=lambda v: (version_key(v), v))


def _shared(
    config: Configuration, removed: _ByVersion, added: _ByVersion, old: set[str], new: set[str]
) -> Facts:
    """The classes of a configuration on both sides: rebuilds, version moves, more/fewer builds."""
    facts: Facts = []
    one = (config,)

    def fact(
        kind: ChangeClass, v_old: str | None, v_new: str | None, gone: list[str], came: list[str]
    ) -> None:
        facts.append(
            Change(
                kind,
                one,
                one,
                (v_old,) if v_old is not None else (),
                (v_new,) if v_new is not None else (),
                tuple(gone),
                tuple(came),
            )
        )

    for version in sort_versions(removed.keys() & added.keys()):
        gone, came = removed[version], added[version]
        k = min(len(gone), len(came))
        fact("rebuilt", version, version, gone[:k], came[:k])
        if len(gone) > k:
            fact("fewer-builds", version, None, gone[k:], [])
        if len(came) > k:
            fact("more-builds", None, version, [], came[k:])
    retired, arrived = old - new, new - old
    top_old = _highest(retired) if retired and arrived else None
    top_new = _highest(arrived) if retired and arrived else None
    if top_old is not None and top_new is not None:
        up = version_key(top_new) > version_key(top_old)
        kind: ChangeClass = "upgrade" if up else "downgrade"
        fact(kind, top_old, top_new, removed.get(top_old, []), added.get(top_new, []))
    for version in sort_versions(removed.keys() - added.keys()):
        if version == top_old:
            continue
        kind = "version-retired" if version in retired else "fewer-builds"
        fact(kind, version, None, removed[version], [])
    for version in sort_versions(added.keys() - removed.keys()):
        if version == top_new:
            continue
        kind = "version-added" if version in arrived else "more-builds"
        fact(kind, None, version, [], added[version])
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
