"""Explain a package's added and removed specs (SPEC section 2a), and its specs kept by hash."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from ..model import Configuration, PageEntries, Spec, Spellings, canonical_json, renamed
from ..report import Change, Sentence, SpecChange, counted
from .builtas import built_of
from .claims import describe
from .classify import classify
from .migrations import find_migrations

__all__ = ["Explanation", "describe_fields", "explain", "variant_values"]


_FLAT = ("versions", "compiler", "os", "platform", "target", "variants")  # strings, lists of them
_SHOWN = 80  # characters of a value said in a sentence


def _flat(spec: Spec) -> dict[str, object]:
    """The flat fields of a spec, for deepdiff: strings and lists of strings, nothing nested."""
    return {name: getattr(spec, name) for name in _FLAT}


def _others(spec: Spec) -> dict[str, str]:
    """`size` and every other key as canonical JSON: compared as text, never walked."""
    return {"size": canonical_json(spec.size), **dict(spec.extra)}


def _shown(text: str) -> str:
    """A canonical JSON value as a sentence shows it: a string bare, anything long cut."""
    if text.startswith('"') and text.endswith('"') and "\\" not in text:
        text = text[1:-1]
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def describe_fields(before: Spec, after: Spec, spelling: Mapping[str, str]) -> tuple[Sentence, ...]:
    """What differs between two records of one hash, other than stacks, one line per difference;
    compilers and variants as `spelling` says the pages write them.

    Only called for records already known to differ, so deepdiff (half a second to import)
    is loaded only when a report has such a spec. It sees only the flat fields: values that
    can nest (`size`, unknown keys) are compared as canonical JSON text, so no page can make
    the comparison slow.
    """
    from deepdiff import DeepDiff

    found = DeepDiff(_flat(before), _flat(after), ignore_order=True)
    lines = []
    for kind, items in found.tree.items():
        for item in items:
            path = ".".join(str(p) for p in item.path(output_format="list") if isinstance(p, str))
            was, now = (spelling.get(str(v), str(v)) for v in (item.t1, item.t2))
            if kind.endswith("_added"):
                lines.append(Sentence("{}: added {}", (path, now)))
            elif kind.endswith("_removed"):
                lines.append(Sentence("{}: removed {}", (path, was)))
            else:
                lines.append(Sentence("{}: {} → {}", (path, was, now)))
    old, new = _others(before), _others(after)
    for key in sorted(old.keys() | new.keys()):
        if key not in new:
            lines.append(Sentence("{}: removed {}", (key, _shown(old[key]))))
        elif key not in old:
            lines.append(Sentence("{}: added {}", (key, _shown(new[key]))))
        elif old[key] != new[key]:
            lines.append(Sentence("{}: {} → {}", (key, _shown(old[key]), _shown(new[key]))))
    return tuple(sorted(lines, key=Sentence.plain))


def _stack_lines(changed: list[SpecChange]) -> list[Sentence]:
    """Same-hash specs that joined or left stacks, counted per stack; other field changes."""
    joined = Counter(stack for change in changed for stack in change.stacks_added)
    left = Counter(stack for change in changed for stack in change.stacks_removed)
    lines = [
        Sentence(f"{counted(n, 'spec')} joined {{}}", (stack,))
        for stack, n in sorted(joined.items())
    ]
    lines += [
        Sentence(f"{counted(n, 'spec')} left {{}}", (stack,)) for stack, n in sorted(left.items())
    ]
    for change in changed:
        for detail in change.details:
            lines.append(Sentence("spec {}: " + detail.words, (change.hash[:7], *detail.values)))
    return lines


class Explanation(NamedTuple):
    """Why one package's specs were added and removed (one record each), what changed for its
    specs kept, the variant values on one side only, and the compilers and variants its pages
    write otherwise than normalised (the new side's spelling first)."""

    changes: tuple[Change, ...] = ()
    kept: tuple[Sentence, ...] = ()
    spellings: Spellings = ()
    variants_added: tuple[str, ...] = ()
    variants_removed: tuple[str, ...] = ()
    rebuilt: int = 0  # removed specs rebuilt


def variant_values(
    old: Iterable[Configuration], new: Iterable[Configuration]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The variant tokens (normalised) of these configurations on the new side only and on the
    old side only (SPEC section 2a, variant values)."""
    before = {v for config in old for v in config.variants}
    after = {v for config in new for v in config.variants}
    return tuple(sorted(after - before)), tuple(sorted(before - after))


def explain(
    removed: list[str],
    added: list[str],
    old: PageEntries,
    new: PageEntries,
    changed: list[SpecChange],
) -> Explanation:
    """Why one package's specs were added and removed (hashes), what changed for specs it kept,
    its variant values on one side only, and how its pages write compilers and variants.

    Every removed and added spec lands in exactly one record; `old` and `new` are the
    package's entries on each side, whose configurations and versions the records refer to.
    """
    kept = tuple(_stack_lines(changed)) if changed else ()
    if not (removed or added or any(change.fields for change in changed)):
        return Explanation(kept=kept)
    side_old, side_new = old.versions_by_configuration(), new.versions_by_configuration()
    spelling = old.spellings() | new.spellings()
    variants_added, variants_removed = variant_values(side_old, side_new)
    gone = list(zip(removed, built_of(map(old.__getitem__, removed)), strict=True))
    came = list(zip(added, built_of(map(new.__getitem__, added)), strict=True))
    facts = classify(gone, came, side_old, side_new)
    # what `builtas.rebuilt_count` counts: specs paired by configuration and version
    rebuilt = sum(len(fact.specs_old) for fact in facts if fact.kind == "rebuilt")
    changes = describe(find_migrations(facts, old, new), side_old, side_new, spelling)
    return Explanation(changes, kept, renamed(spelling), variants_added, variants_removed, rebuilt)
