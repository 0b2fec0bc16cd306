"""Release → release pairs (issue 28): the shortcuts taken when nearly every page differs say
what the long way says."""

from __future__ import annotations

from snapdiff.compare.classify import Facts
from snapdiff.compare.migrations import find_migrations
from snapdiff.model import Configuration, Entry
from snapdiff.report import Change
from snapdiff.sources.entries import Entries


def _config(os: str, compiler: str, platform: str = "linux") -> Configuration:
    return Configuration(os, platform, "x86_64", compiler, ())


def _dropped(config: Configuration, digest: str) -> Change:
    return Change("dropped-configuration", (config,), (), ("1.0",), (), (digest,), ())


def _new(config: Configuration, digest: str) -> Change:
    return Change("new-configuration", (), (config,), (), ("1.0",), (), (digest,))


def _entries(pairs: list[tuple[Configuration, str]]) -> Entries:
    """One side's entries: a spec of each (configuration, hash), built in stack `e4s`."""
    return Entries(
        {
            digest: Entry(
                digest,
                ("e4s", "root"),
                c.variants,
                ("1.0",),
                c.compiler,
                c.os,
                c.platform,
                c.target,
            )
            for c, digest in pairs
        },
        "page",
    )


def _migrations(facts: Facts) -> Facts:
    """The facts with migrations found."""
    old = [(c, h) for f in facts for c, h in zip(f.configurations_old, f.specs_old, strict=True)]
    new = [(c, h) for f in facts for c, h in zip(f.configurations_new, f.specs_new, strict=True)]
    return find_migrations(facts, _entries(old), _entries(new))


def test_a_move_along_two_dimensions_is_one_migration() -> None:
    old, new = _config("ubuntu22.04", "gcc@11.4.0"), _config("ubuntu24.04", "gcc@13.2.0")
    found = _migrations([_dropped(old, "a" * 32), _new(new, "b" * 32)])
    assert [(c.kind, c.dimensions) for c in found] == [("migration", ("os", "compiler"))]
    assert (found[0].configurations_old, found[0].configurations_new) == ((old,), (new,))
    assert (found[0].specs_old, found[0].specs_new) == (("a" * 32,), ("b" * 32,))


def test_configurations_of_other_platforms_or_three_dimensions_never_migrate() -> None:
    old = _config("ubuntu22.04", "gcc@11.4.0")
    facts = [
        _dropped(old, "a" * 32),
        _new(_config("ubuntu22.04", "gcc@11.4.0", platform="darwin"), "b" * 32),
        _new(Configuration("ubuntu24.04", "linux", "aarch64", "gcc@13.2.0", ()), "c" * 32),
    ]
    assert _migrations(facts) == facts


def test_only_dropped_configurations_are_left_as_they_are() -> None:
    facts = [_dropped(_config("ubuntu22.04", "gcc@11.4.0"), "a" * 32)]
    assert _migrations(facts) == facts
