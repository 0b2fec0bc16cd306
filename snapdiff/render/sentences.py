"""The explanations as templates see them: sentences per package, the no-compiler note, the
counts by class and the stack moves (SPEC section 2a), every data string made inert."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..compare.claims import variant_sentence
from ..compare.classes import CLASSES
from ..model import Configuration
from ..report import Change, Labeller, Report, RootCount, Sentence, StackMove, Words, counted
from ..schema import ClassCountJSON
from .jsonreport import specs_by_class
from .markup import Safe, Said, Unlisted, code
from .views import Explained, Notes, RootRow, Spack1, StackMoveGroup, StackMoveRow

__all__ = [
    "CONFIGS_SHOWN",
    "class_counts",
    "cut",
    "explained",
    "notes",
    "root_rows",
    "spack1",
    "stack_move_rows",
    "to_no_compiler",
]

_UNLISTED: Unlisted = {"configurations": [], "more": []}  # a sentence that lists nothing
CONFIGS_SHOWN = 5  # configurations listed under a new or dropped configurations line


def to_no_compiler(change: Change) -> bool:
    """A migration from configurations that name a compiler to ones that record no compiler
    (`none`), possibly with another dimension moved too."""
    return (
        change.kind == "migration"
        and "compiler" in change.dimensions
        and all(c.compiler == "none" for c in change.configurations_new)
        and all(c.compiler != "none" for c in change.configurations_old)
    )


def spack1(report: Report, label: Callable[[str, str], str]) -> Spack1 | None:
    """The move from a compiler to no compiler (`none`), summed once for the report; each
    package's own sentences say it too, with whatever else moved."""
    moved = [(p, c) for p in report.packages for c in p.changes if to_no_compiler(c)]
    if not moved:
        return None
    return {
        "packages": sorted({label(p.tag, p.name) for p, _ in moved}),
        "configurations": sum(len(c.configurations_old) for _, c in moved),
        "specs_old": sum(len(c.specs_old) for _, c in moved),
        "specs_new": sum(len(c.specs_new) for _, c in moved),
        "with_other_moves": sum(
            len(c.configurations_old) for _, c in moved if len(c.dimensions) > 1
        ),
    }


def _values(dimension: str, values: Iterable[str]) -> Safe:
    """Values of one dimension as code spans; `none` as a compiler is "no compiler (`none`)"."""
    return Safe(
        ", ".join(
            f"no compiler ({code(v)})" if dimension == "compiler" and v == "none" else code(v)
            for v in values
        )
    )


def configuration(config: Configuration, spelling: Mapping[str, str]) -> Safe:
    """One configuration on a line: os, target, compiler, variants (both as the pages write
    them), then the platform."""
    compiler = spelling.get(config.compiler, config.compiler)
    parts = [code(config.os), code(config.target), _values("compiler", [compiler])]
    parts += [code(spelling.get(v, v)) for v in config.variants]
    return Safe(f"{' '.join(parts)} ({code(config.platform)})")


def cut(
    configs: Sequence[Configuration], limit: int = CONFIGS_SHOWN
) -> tuple[list[Configuration], list[tuple[int, str]]]:
    """Configurations cut to `limit` without hiding a platform: the first of each platform is
    kept, then the others in order; with how many were hidden on each platform (by platform).
    """
    keep: set[Configuration] = set()
    for config in configs:
        if not any(c.platform == config.platform for c in keep):
            keep.add(config)
    for config in configs:
        if len(keep) >= limit:
            break
        keep.add(config)
    hidden = Counter(c.platform for c in configs if c not in keep)
    return [c for c in configs if c in keep], sorted((n, p) for p, n in hidden.items())


def _said(change: Change, spelling: Mapping[str, str]) -> Said:
    """A record's sentence, and the configurations it is about when the sentence cannot say
    (cut, every platform kept visible, with how many more of each platform)."""
    configs = change.configurations_new or change.configurations_old
    shown, more = cut(configs) if CLASSES[change.kind].lists else ([], [])
    words, values = change.sentence
    return {
        "words": words,
        "values": values,
        "configurations": [configuration(c, spelling) for c in shown],
        "more": [(n, Safe(code(platform))) for n, platform in more],
    }


def explained(report: Report, label: Callable[[str, str], str]) -> list[Explained]:
    """Changed packages with their explanation sentences, as words and values."""
    rows: list[Explained] = []
    for p in report.packages:
        spelling = dict(p.spellings)
        said = [_said(c, spelling) for c in p.changes]
        variants = variant_sentence(p.variants_added, p.variants_removed, spelling)
        if variants is not None:
            said.insert(0, {"words": variants.words, "values": variants.values, **_UNLISTED})
        said += [{"words": words, "values": values, **_UNLISTED} for words, values in p.kept]
        if p.status == "changed" and (said or p.changes):
            rows.append(
                {
                    "label": label(p.tag, p.name),
                    "specs_added": len(p.specs_added),
                    "specs_removed": len(p.specs_removed),
                    "specs_changed": len(p.specs_changed),
                    "sentences": said,
                }
            )
    return rows


def class_counts(counts: Mapping[str, ClassCountJSON], added: bool) -> list[tuple[int, Safe]]:
    """(specs, what happened to them) of each class with specs on one side, in class order."""
    found = [(counts[kind]["added" if added else "removed"], kind) for kind in CLASSES]
    return [(n, Safe(CLASSES[kind].summary(added, n))) for n, kind in found if n]


def _class_summary(
    counts: Mapping[str, ClassCountJSON], added: bool, total: int
) -> Sentence | None:
    """ "Specs added (470): 11 rebuilt (same version and configuration, new hash), …" """
    found = class_counts(counts, added)
    if not found:
        return None
    said = ", ".join(f"{n:,} {words}" for n, words in found)
    return Sentence(f"Specs {'added' if added else 'removed'} ({total:,}): {said}.")


def _spack1_note(note: Spack1) -> Sentence:
    """The move to no compiler (`none`), summed for the report, in one sentence."""
    n, packages, others = note["configurations"], note["packages"], note["with_other_moves"]
    said = Words().say("From a compiler to no compiler ({})", "none")
    said.say(f": {counted(n, 'configuration')} of {counted(len(packages), 'package')} (")
    said.say(", ".join("{}" for _ in packages) + "), ", *packages)
    said.say(f"{note['specs_old']:,} → {counted(note['specs_new'], 'spec')}")
    if others:
        which = "it" if n == 1 else "all of them" if others == n else f"{others:,} of them"
        said.say(f" ({which} moved along another dimension too)")
    said.say(". {} says only that the page records no compiler for a spec; ", "none")
    return said.say("each package's own lines say what else moved.").sentence()


def _root_note(row: RootRow) -> Sentence:
    """`root` of a tag where it does not hold every spec of the tag, with the counts."""
    said = Words().say("{}", "root")
    if row["tag"] is not None:
        said.say(" of tag {}", row["tag"])
    said.say(", the merged cache, does not hold every spec: ")
    new, old = row["tag_specs_new"], row["tag_specs_old"]
    said.say(f"{row['specs_new']:,} of the {counted(new, 'spec')}" if new else "")
    said.say(", " if new and old else "")
    return said.say(f"{row['specs_old']:,} of {old:,} before." if old else ".").sentence()


ROOT_NOT_A_STACK = Sentence(
    "{}, the merged cache, is not counted as a stack here or in the "
    "Stacks row: its change is the Specs row.",
    ("root",),
)


def notes(
    report: Report,
    label: Labeller,
    counts: Mapping[str, ClassCountJSON] | None = None,
    found: Spack1 | None = None,
) -> Notes:
    """The report's notes and summary lines as sentences: the same words in every format.

    `counts` (`specs_by_class`) and `found` (`spack1`), when given, are the report's own,
    already worked out."""
    summary, counts = report.summary, specs_by_class(report) if counts is None else counts
    found = spack1(report, label) if found is None else found
    return {
        "root": [_root_note(row) for row in root_rows(report.root, label)],
        "spack1": _spack1_note(found) if found else None,
        "added": _class_summary(counts, True, summary.specs_added),
        "removed": _class_summary(counts, False, summary.specs_removed),
        "root_not_a_stack": ROOT_NOT_A_STACK,
    }


def stack_move_rows(moves: Sequence[StackMove], label: Labeller) -> list[StackMoveRow]:
    """One row per stack that moved: its label and its moves along each dimension, grouped by
    the specs they are about, compilers as the stack's pages write them."""
    rows: dict[tuple[str, str], StackMoveRow] = {}
    for m in moves:
        row = rows.setdefault(
            (m.tag, m.stack),
            {"label": label(m.tag, m.stack), "groups": []},
        )
        compiled = bool(m.no_compiler_old or m.no_compiler_new)
        counts = (m.specs_old, m.specs_new, m.no_compiler_old, m.no_compiler_new)
        group = next((g for g in row["groups"] if _counts(g) == (compiled, *counts)), None)
        if group is None:
            group = {
                "compiled": compiled,
                "specs_old": m.specs_old,
                "specs_new": m.specs_new,
                "no_compiler_old": m.no_compiler_old,
                "no_compiler_new": m.no_compiler_new,
                "moves": [],
            }
            row["groups"].append(group)
        before, after = m.written()
        # the dimension is os, target or compiler: snapdiff's own words, not data
        group["moves"].append(
            (Safe(m.dimension), _values(m.dimension, before), _values(m.dimension, after))
        )
    return list(rows.values())


def _counts(group: StackMoveGroup) -> tuple[bool, int, int, int, int]:
    """What makes two moves of a stack one group: the same specs."""
    return (
        group["compiled"],
        group["specs_old"],
        group["specs_new"],
        group["no_compiler_old"],
        group["no_compiler_new"],
    )


def root_rows(counts: Sequence[RootCount], label: Labeller) -> list[RootRow]:
    """`root` where it is not its tag's total: the counts that say so."""
    return [
        {
            "tag": r.tag if label.several else None,
            "specs_old": r.specs_old,
            "specs_new": r.specs_new,
            "tag_specs_old": r.total_old,
            "tag_specs_new": r.total_new,
        }
        for r in counts
    ]
