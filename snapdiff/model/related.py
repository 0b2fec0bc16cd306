"""When two builds are of related configurations (SPEC sections 2a and 6): the platform kept
(`cray` was folded into `linux`), the target's family kept (as Spack's own `archspec` defines
families: `zen3` and `x86_64_v3` are both `x86_64`), the compiler's family kept or one side with
none. A predecessor and a migration are only ever found between related builds; `related_keys`
finds them by a dict where there are many."""

from __future__ import annotations

from functools import lru_cache

from .normal import NO_COMPILER, normal_compiler

__all__ = ["compiler_family", "related", "related_keys", "target_family"]

_FOLDED = frozenset(("cray", "linux"))  # Spack folded the `cray` platform into `linux`


@lru_cache(maxsize=1024)  # a side holds a few dozen targets
def target_family(target: str) -> str:
    """The family of a target as `archspec` knows it (`zen3` → `x86_64`); a target it does not
    know is a family of its own."""
    from archspec.cpu import TARGETS  # its JSON database read only when a pair is weighed

    known = TARGETS.get(target)
    return known.family.name if known is not None else target


@lru_cache(maxsize=1024)
def compiler_family(compiler: str) -> str:
    """A compiler's Spack 1.0 package (`gcc@7.5.0` → `gcc`, `oneapi@2024` →
    `intel-oneapi-compilers`, `intel@19` → `intel-oneapi-compilers-classic`), `none` for none."""
    return normal_compiler(compiler).partition("@")[0]


def related(
    platforms: tuple[str, str], targets: tuple[str, str], compilers: tuple[str, str]
) -> bool:
    """Whether builds with these (old, new) platforms, targets and compilers are related."""
    old, new = platforms
    if old != new and {old, new} != _FOLDED:
        return False
    if targets[0] != targets[1] and target_family(targets[0]) != target_family(targets[1]):
        return False
    families = {compiler_family(compilers[0]), compiler_family(compilers[1])}
    return len(families) == 1 or NO_COMPILER in families


# In the keys of `related_keys`: the other side's builds with no compiler share a key with
# every build of this side, and this side's build with none with every one of the other's.
# Tuples, so that no compiler's family (a string, whatever the data names) is ever one of them.
_OLD_NONE, _NEW_NONE = ("none", "old side"), ("none", "new side")


def related_keys(platform: str, target: str, compiler: str, old: bool) -> tuple[object, ...]:
    """Keys of an old build (or, `old` false, a new one) such that an old and a new build are
    `related` exactly when they share a key: related builds are then found by looking their
    keys up, never by weighing every old build with every new one.

    Each key holds the platform (`cray` as `linux`) and the target's family; then the
    compiler's family, or (what a side with none shares with every compiler) a side's `none`.
    """
    place = ("linux" if platform in _FOLDED else platform, target_family(target))
    family = compiler_family(compiler)
    mine, theirs = (_OLD_NONE, _NEW_NONE) if old else (_NEW_NONE, _OLD_NONE)
    keys = [(*place, family), (*place, theirs)]
    if family == NO_COMPILER:
        keys.append((*place, mine))
    return tuple(keys)
