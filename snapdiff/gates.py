"""Gates (`--fail-on`, `--warn-on`): which changes fail or flag a run, decided from the report
and the allow-list alone."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Sequence
from fnmatch import fnmatchcase
from typing import Literal, NamedTuple, get_args

from .errors import UsageError
from .report import Exemption, GateLevel, GateOutcome, Report, Sentence, counted

__all__ = [
    "GATES",
    "REMOVED_SPECS",
    "THRESHOLD_EXAMPLE",
    "Allow",
    "Gate",
    "GateCheck",
    "parse_gates",
    "spelled",
    "strictest",
    "tripped",
]

Gate = Literal[
    "any",
    "removed-packages",
    "removed-specs",
    "downgrade",
    "stack-loss",
    "rebuilds",
    "missing-binaries",
    "duplicates",
]
GATES: tuple[Gate, ...] = get_args(Gate)
_BY_NAME: dict[str, Gate] = {gate: gate for gate in GATES}


class GateCheck(NamedTuple):
    """A gate and its threshold: it trips when its count is above `above` (0: any at all)."""

    gate: Gate
    above: int = 0


class Allow(NamedTuple):
    """An allow-list entry of the configuration: changes of matching packages or stacks do not
    count towards one gate, for a reason that is printed whenever the entry is used."""

    gate: Gate
    package: str | None
    stack: str | None
    reason: str

    def covers(self, gate: Gate, package: str | None = None, stack: str | None = None) -> bool:
        """Whether this entry allows the gate's change of this package or stack."""
        if gate != self.gate:
            return False
        if self.package is not None:
            return package is not None and fnmatchcase(package, self.package)
        return stack is not None and self.stack is not None and fnmatchcase(stack, self.stack)


# `gate:N` is the spelling to write: `>` is a redirection to a shell, kept for quoted values only.
_THRESHOLD = re.compile(r"([a-z-]+)(?:[:>]([0-9]+))?")
THRESHOLD_EXAMPLE = "removed-specs:100"  # more than 100 removed specs
# what `removed-specs` counts (SPEC section 2a's classes that `CLASSES` marks `lost`)
_NO_SUCCESSOR = "removed with no rebuild, upgrade, downgrade or migration in {} place"
_LOST = "dropped configurations, fewer builds, retired versions, removed packages"
REMOVED_SPECS = f"specs {_NO_SUCCESSOR.format('their')} ({_LOST})"


def parse_gates(spec: str, option: str = "--fail-on") -> list[GateCheck]:
    """The gates of a comma-separated value, each `gate` or `gate:N` (more than N; `gate>N`
    too, as a quoted value), checked."""
    found = []
    for word in (w.strip() for w in spec.split(",")):
        if not word:
            continue
        match = _THRESHOLD.fullmatch(word)
        name, _, threshold = word.replace(">", ":").partition(":")
        if match is None and name in GATES:
            raise UsageError(
                option, f"threshold {threshold!r} of {name}", f"write {name}:N, N a count"
            )
        if match is None or match[1] not in GATES:
            close = difflib.get_close_matches(match[1] if match else word, GATES, n=1)
            fix = f"did you mean {close[0]!r}?" if close else f"use {', '.join(GATES)}, or gate:N"
            raise UsageError(option, f"unknown gate {word!r}", fix)
        found.append(GateCheck(_BY_NAME[match[1]], int(match[2] or 0)))
    return found


def strictest(*given: Sequence[GateCheck]) -> list[GateCheck]:
    """Every gate of the lists once, in the order first given, at the lowest threshold any
    list gives it: a gate added to others can make them stricter, never weaker."""
    lowest: dict[Gate, int] = {}
    for check in (c for checks in given for c in checks):
        lowest[check.gate] = min(lowest.get(check.gate, check.above), check.above)
    return [GateCheck(gate, above) for gate, above in lowest.items()]


def spelled(checks: Sequence[GateCheck]) -> str:
    """Gates as a value of --fail-on (`downgrade,removed-specs:100`), which parse_gates reads."""
    return ",".join(f"{c.gate}:{c.above}" if c.above else c.gate for c in checks)


_NAMED = 10  # packages a gate's line names before "… and N more"


class _Count:
    """What a gate counts, less what the allow-list allows (noting each entry used)."""

    def __init__(self, gate: Gate, allow: Sequence[Allow]) -> None:
        self.gate, self.allow = gate, allow
        self.used: dict[Exemption, None] = {}

    def kept(self, package: str | None = None, stack: str | None = None) -> bool:
        """Whether the change counts; an entry that excuses it is noted as used."""
        entry = self.which(package, stack)
        self.use(entry)
        return entry is None

    def which(self, package: str | None = None, stack: str | None = None) -> Allow | None:
        """The first entry that would excuse a change of this package or stack (none noted)."""
        return next((e for e in self.allow if e.covers(self.gate, package, stack)), None)

    def every_stack(self, stacks: Sequence[str]) -> Allow | None:
        """The first `stack:` entry that every one of these stacks matches (none noted)."""
        found = [s for s in stacks if s != "root"]
        return next(
            (e for e in self.allow if found and all(e.covers(self.gate, stack=s) for s in found)),
            None,
        )

    def use(self, *entries: Allow | None) -> None:
        """Note these entries as used: they excused a change."""
        for entry in entries:
            if entry is not None:
                self.used[Exemption(entry.package, entry.stack, entry.reason)] = None


def _named(words: str, names: Sequence[str]) -> Sentence:
    """Words followed by the first _NAMED names (values from the data), then how many more."""
    shown = names[:_NAMED]
    more = f", … and {len(names) - _NAMED:,} more" if len(names) > _NAMED else ""
    return Sentence(words + ", ".join("{}" for _ in shown) + more, tuple(shown))


def _rebuilt(report: Report, count: _Count) -> tuple[int, Sentence]:
    """Distinct rebuilt specs, less those of allowed packages and those rebuilt only through
    allowed causes (a trigger of an allowed package, or seen only in allowed stacks)."""
    rebuilds = report.rebuilds
    if rebuilds is None:
        return 0, Sentence("no spec rebuilt")
    excused = {
        t.hash: count.which(t.name) or count.every_stack(t.stacks) for t in rebuilds.triggers
    }
    names = {spec: p.name for p in report.packages for spec in p.specs_added}
    n = 0
    for name, causes in (
        *((t.name, (t.hash,)) for t in rebuilds.triggers),
        *((c.name, c.causes) for c in rebuilds.cascades),
        *((names.get(spec), ()) for spec in (*rebuilds.hash_scheme, *rebuilds.unexplained)),
    ):
        own = count.which(name)
        reasons = [own] if own else [excused.get(cause) for cause in causes]
        if reasons and all(reasons):
            count.use(*reasons)
        else:
            n += 1
    return n, Sentence(f"{counted(n, 'spec')} rebuilt")


_UNCLASSIFIED = "unclassified"  # removed specs of a package the report did not explain


def _lost(report: Report, count: _Count) -> tuple[int, Sentence]:
    """Removed specs with no successor: those of the classes `CLASSES` marks `lost` (dropped
    configurations, which hold every spec of a removed package; fewer builds; retired
    versions), not those rebuilt, upgraded, downgraded or migrated; less allowed packages. A
    package the report did not explain (made without explanations) counts every spec it
    removed, said apart."""
    from .compare.classes import CLASSES  # the comparison's table: not for parsing gates

    by_class: Counter[str] = Counter()
    for p in report.packages:
        found: Counter[str] = Counter()
        for change in p.changes:
            if CLASSES[change.kind].lost:
                found[change.kind] += len(change.specs_old)
        if p.specs_removed and not p.changes:
            found[_UNCLASSIFIED] += len(p.specs_removed)
        if found and count.kept(package=p.name):
            by_class += found
    n = sum(by_class.values())
    said = f"{counted(n, 'spec')} " + _NO_SUCCESSOR.format("its" if n == 1 else "their")
    parts = [
        f"{k:,} {CLASSES[kind].summary(False, k)}" for kind in CLASSES if (k := by_class[kind])
    ]
    if by_class[_UNCLASSIFIED]:
        parts.append(f"{by_class[_UNCLASSIFIED]:,} {_UNCLASSIFIED}")
    return n, Sentence(said + (": " + ", ".join(parts) if parts else ""))


def _missing(report: Report, count: _Count) -> tuple[int, Sentence]:
    """Specs with a link or run dependency no record of the new side holds, where that gap is
    new against the old side, less those whose package or missing dependency is allowed."""
    gaps = report.rebuilds.missing_dependencies if report.rebuilds else ()
    gating = [g for g in gaps if g.new and count.kept(g.name) and count.kept(g.dependency_name)]
    n = len({g.hash for g in gating})
    verb = "depends" if n == 1 else "depend"
    missing = sorted({g.dependency_name for g in gating})
    return n, _named(
        f"{counted(n, 'spec')} newly {verb} on binaries this cache does not hold: ", missing
    )


def _duplicates(report: Report, count: _Count) -> tuple[int, Sentence]:
    """Packages of an environment with more than one concrete spec on the new side and at most
    one on the old (SPEC section 7), less allowed packages."""
    names = sorted(
        {n for e in report.environments for n in e.duplicates_new if count.kept(package=n)}
    )
    verb = "has" if len(names) == 1 else "have"
    what = f"{counted(len(names), 'package')} newly {verb} more than one concrete spec: "
    return len(names), _named(what, names)


def _count(report: Report, count: _Count) -> tuple[int, Sentence]:
    """(how many times the report trips the gate, what to say of it). The allow-list is asked
    only of what would count, so an entry is said to be used only when it excused something."""
    if count.gate == "removed-packages":
        n = sum(1 for p in report.packages if p.status == "removed" and count.kept(package=p.name))
        return n, Sentence(f"{counted(n, 'package')} removed")
    if count.gate == "removed-specs":
        return _lost(report, count)
    if count.gate == "downgrade":
        names = [
            p.name
            for p in report.packages
            if p.bump and p.bump.kind == "downgrade" and count.kept(package=p.name)
        ]
        whose = "1 package's" if len(names) == 1 else f"{len(names):,} packages'"
        return len(names), _named(f"{whose} highest version went down: ", names)
    if count.gate == "stack-loss":
        stacks = [s for s in report.stacks if s.status == "removed" and count.kept(stack=s.name)]
        losing = [
            p
            for p in report.packages
            if p.stacks_removed
            and count.kept(package=p.name)
            and any(count.kept(stack=s) for s in p.stacks_removed)
        ]
        n = len(stacks) + len(losing)
        said = f"{counted(len(stacks), 'stack')} removed, "
        said += f"{counted(len(losing), 'package')} lost a stack"
        return n, Sentence(said)
    if count.gate == "rebuilds":
        return _rebuilt(report, count)
    if count.gate == "missing-binaries":
        return _missing(report, count)
    if count.gate == "duplicates":
        return _duplicates(report, count)
    packages = [p for p in report.packages if count.kept(package=p.name)]
    kinds = {
        "package": len(packages),
        "spec": sum(
            len(p.specs_added) + len(p.specs_removed) + len(p.specs_changed) for p in packages
        ),
        "stack": sum(1 for s in report.stacks if count.kept(stack=s.name)),
    }
    kinds["environment"] = sum(
        1 for e in report.environments if e.status != "unchanged" and count.kept(package=e.name)
    )
    if not kinds["environment"]:
        del kinds["environment"]
    n = sum(kinds.values())
    said = ", ".join(counted(k, kind) for kind, k in kinds.items())
    return n, Sentence(f"{counted(n, 'change')}: {said} added, removed or changed")


def tripped(
    report: Report,
    wanted: Sequence[GateCheck],
    allow: Sequence[Allow] = (),
    level: GateLevel = "fail",
) -> list[GateOutcome]:
    """Each wanted gate whose count is above its threshold once the allow-list is applied, and
    each that passed only thanks to allow-list entries (`tripped` false)."""
    found = []
    for check in wanted:
        count = _Count(check.gate, allow)
        n, said = _count(report, count)
        if n > check.above or count.used:
            used = tuple(count.used)
            found.append(
                GateOutcome(check.gate, level, n > check.above, n, check.above, said, used)
            )
    return found
