"""How loaded values are normalised before they are compared (SPEC section 2): compilers by
Spack 1.0 package name, `@=` as `@`, `name:=value` variants as `name=value`; and how the pages
wrote them, so a sentence prints what a reader finds there."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import lru_cache

__all__ = [
    "NO_COMPILER",
    "Spellings",
    "canonical_json",
    "normal_compiler",
    "normal_variant",
    "normal_variants",
    "renamed",
    "written_as",
]

NO_COMPILER = "none"  # the compiler of a spec whose page records none (SPEC section 2a)
# Compilers Spack 1.0 names by package (SPEC section 2a); older pages use the short name.
_COMPILER_PACKAGES = {
    "oneapi": "intel-oneapi-compilers",
    "clang": "llvm",
    "intel": "intel-oneapi-compilers-classic",
}


def canonical_json(value: object) -> str:
    """A value as JSON with sorted keys: equal values, equal text (the loader has checked it is
    plain JSON, nested a few levels at most)."""
    return json.dumps(value, sort_keys=True)


@lru_cache(maxsize=4096)  # a catalogue has a few dozen compilers, spelled a few ways
def normal_compiler(compiler: str) -> str:
    """A compiler as Spack 1.0 names it: `gcc@=11.4.0` is `gcc@11.4.0`, `oneapi@X` is
    `intel-oneapi-compilers@X`, `clang@X` is `llvm@X`."""
    name, at, version = compiler.replace("@=", "@").partition("@")
    return f"{_COMPILER_PACKAGES.get(name, name)}{at}{version}"


# Compilers and variants the pages write otherwise than normalised (SPEC section 2):
# (normalised, as written, `@=` read as `@`), e.g. (`intel-oneapi-compilers@2024.2.0`,
# `oneapi@2024.2.0`) or (`patches=5c7a3c0`, `patches:=5c7a3c0`)
Spellings = tuple[tuple[str, str], ...]


def renamed(*spellings: Mapping[str, str]) -> Spellings:
    """The values of these spellings (normalised -> as written; a later one wins) that the
    pages write otherwise: what a sentence must print for a reader to find them there."""
    merged: dict[str, str] = {}
    for spelling in spellings:
        merged.update(spelling)
    return tuple(sorted((normal, said) for normal, said in merged.items() if normal != said))


def written_as(compilers: Iterable[str], variants: Iterable[str]) -> dict[str, str]:
    """Each normalised compiler and variant as written (`@=` read as `@`); of several ways of
    writing one, the last in sorted order."""
    found = {normal_compiler(c): c.replace("@=", "@") for c in sorted(compilers)}
    found.update((normal_variant(v), v) for v in sorted(variants))
    return found


def normal_variants(variants: Iterable[str]) -> tuple[str, ...]:
    """Variants as a sorted set, Spack 1.0's multi-valued `name:=value` read as `name=value`."""
    return _normal_variants(tuple(variants))


@lru_cache(maxsize=65536)  # a catalogue has a few thousand distinct variant lists
def _normal_variants(variants: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({normal_variant(v) for v in variants}))


def normal_variant(variant: str) -> str:
    """A variant with Spack 1.0's multi-valued `name:=value` read as `name=value`."""
    return variant.replace(":=", "=", 1) if ":=" in variant else variant
