"""What a page's entries are summed up by: specs per stack, and configurations and versions
read from the fields of entries as read (each distinct value normalised once)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from ..model import NO_COMPILER, Configuration, normal_compiler, normal_variants
from ..versions import spec_version

__all__ = ["NO_COMPILER_TEXT", "Counts", "configuration", "stack_counts", "version_of"]

Counts = tuple[tuple[str, int], ...]  # (stack, entries in it), sorted by stack
NO_COMPILER_TEXT = b'"compiler": "' + NO_COMPILER.encode() + b'"'  # as the generator writes it


def stack_counts(lists: Iterable[tuple[Iterable[str], int]]) -> Counts:
    """Entries per stack from (stacks list, entries with it), sorted; a stack listed twice in a
    list counts once."""
    counts: dict[str, int] = {}
    for stacks, times in lists:
        for stack in set(stacks):
            counts[stack] = counts.get(stack, 0) + times
    return tuple(sorted(counts.items()))


@lru_cache(maxsize=65536)
def configuration(
    os: str, platform: str, target: str, compiler: str, variants: tuple[str, ...]
) -> Configuration:
    """A configuration from an entry's fields as read; a catalogue has few."""
    return Configuration(os, platform, target, normal_compiler(compiler), normal_variants(variants))


@lru_cache(maxsize=65536)
def version_of(versions: tuple[str, ...]) -> str:
    """The version of a spec whose versions list is this."""
    return spec_version(versions)
