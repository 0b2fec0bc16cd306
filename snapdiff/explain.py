"""Explain a package's added and removed specs (SPEC section 2a), and its specs kept by hash."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from .claims import describe
from .classify import classify
from .migrations import find_migrations
from .model import Configuration, PageEntries, Spec
from .report import Change, Sentence, SpecChange
from .versions import spec_version

__all__ = ["describe_fields", "explain", "rebuilt_count"]


def _specs(count: int) -> str:
    return f"{count:,} spec{'' if count == 1 else 's'}"


def _record(spec: Spec) -> dict[str, Any]:
    """A spec as plain data for deepdiff, without what is compared elsewhere."""
    entry = spec.as_entry()
    del entry["hash"], entry["stacks"]
    return entry


def describe_fields(before: Spec, after: Spec) -> tuple[Sentence, ...]:
    """What differs between two records of one hash, other than stacks, one line per difference.

    Only called for records already known to differ, so deepdiff (half a second to import)
    is loaded only when a report has such a spec.
    """
    from deepdiff import DeepDiff

    found = DeepDiff(_record(before), _record(after), ignore_order=True)
    lines = []
    for kind, items in found.tree.items():
        for item in items:
            path = ".".join(str(p) for p in item.path(output_format="list") if isinstance(p, str))
            if kind.endswith("_added"):
                lines.append(Sentence("{}: added {}", (path, str(item.t2))))
            elif kind.endswith("_removed"):
                lines.append(Sentence("{}: removed {}", (path, str(item.t1))))
            else:
                lines.append(Sentence("{}: {} → {}", (path, str(item.t1), str(item.t2))))
    return tuple(sorted(lines, key=Sentence.plain))


def _stack_lines(changed: list[SpecChange]) -> list[Sentence]:
    """Same-hash specs that joined or left stacks, counted per stack; other field changes."""
    joined = Counter(stack for change in changed for stack in change.stacks_added)
    left = Counter(stack for change in changed for stack in change.stacks_removed)
    lines = [Sentence(f"{_specs(n)} joined {{}}", (stack,)) for stack, n in sorted(joined.items())]
    lines += [Sentence(f"{_specs(n)} left {{}}", (stack,)) for stack, n in sorted(left.items())]
    for change in changed:
        for detail in change.details:
            lines.append(Sentence("spec {}: " + detail.words, (change.hash[:7], *detail.values)))
    return lines


def _facts(specs: Iterable[Spec]) -> list[tuple[str, Configuration, str]]:
    return [(s.hash, s.configuration(), spec_version(s.versions)) for s in specs]


def rebuilt_count(removed: Iterable[Spec], added: Iterable[Spec]) -> int:
    """How many removed specs are rebuilt, paired one to one with an added spec of the same
    configuration and version (SPEC section 2a), without classifying the rest."""
    gone = Counter((config, version) for _, config, version in _facts(removed))
    came = Counter((config, version) for _, config, version in _facts(added))
    return sum(min(count, came[key]) for key, count in gone.items())


def explain(
    removed: list[Spec],
    added: list[Spec],
    old: PageEntries,
    new: PageEntries,
    changed: list[SpecChange],
) -> tuple[tuple[Change, ...], tuple[Sentence, ...]]:
    """Why one package's specs were added and removed, and what changed for specs it kept.

    Every removed and added spec lands in exactly one record; `old` and `new` are the
    package's entries on each side, whose configurations and versions the records refer to.
    """
    changes: tuple[Change, ...] = ()
    if removed or added:
        side_old, side_new = old.versions_by_configuration(), new.versions_by_configuration()
        facts = find_migrations(classify(_facts(removed), _facts(added), side_old, side_new))
        spelling = old.compiler_spellings() | new.compiler_spellings()
        changes = describe(facts, side_old, side_new, spelling)
    return changes, tuple(_stack_lines(changed))
