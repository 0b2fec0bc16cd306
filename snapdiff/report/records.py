"""The report's typed records: what a diff concluded, that every output is rendered from. No I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple, get_args

from ..model import Configuration, Filters, Spellings
from ..versions import Bump  # a package's version change
from .labels import Labeller, OneTag, one_tag
from .rebuilds import Rebuilds

__all__ = [
    "BuiltOnlyIn",
    "Change",
    "ChangeClass",
    "EnvironmentChange",
    "EnvironmentDowngrade",
    "Exemption",
    "FieldChange",
    "GateLevel",
    "GateOutcome",
    "PackageChange",
    "Reconcretized",
    "Report",
    "Respelled",
    "RootCount",
    "RootSpec",
    "Sentence",
    "Side",
    "SideName",
    "SpackRun",
    "SpecChange",
    "StackChange",
    "StackMove",
    "Status",
    "Summary",
    "Words",
]

SCHEMA_VERSION = 1  # of the JSON report (SPEC section 4; `rebuilds` has its own)
Status = Literal["added", "removed", "changed"]
GateLevel = Literal["fail", "warn"]  # --fail-on, --warn-on
SideName = Literal["old", "new"]


@dataclass(frozen=True, slots=True)
class Side:
    """What the report says about one input."""

    source: str
    tags: tuple[str, ...]
    packages: int
    specs: int
    stacks: int
    commit: str | None = None
    date: str | None = None
    kind: Literal["catalogue", "build cache", "environment"] = "catalogue"


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One normalised field, other than stacks, that differs for the same hash."""

    name: str
    old: object
    new: object
    missing: SideName | None = None  # the side without it (a key of a page's own only)


@dataclass(frozen=True, slots=True)
class SpecChange:
    """A spec present on both sides (same tag and hash) whose normalised fields differ."""

    hash: str
    stacks_added: tuple[str, ...]
    stacks_removed: tuple[str, ...]
    fields: tuple[FieldChange, ...] = ()
    details: tuple[Sentence, ...] = ()  # the fields' differences, one sentence each


class Sentence(NamedTuple):
    """Words with `{}` where values from the data go: plain in JSON, marked up in Markdown."""

    words: str
    values: tuple[str, ...] = ()

    def plain(self) -> str:
        """The sentence as plain text."""
        return self.words.format(*self.values)


class Words:
    """Builds one sentence: words with `{}` slots, and the values that fill them."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.values: list[str] = []

    def say(self, words: str, *values: str) -> Words:
        """Add words, with the values of their `{}` slots."""
        self.words.append(words)
        self.values += values
        return self

    def sentence(self) -> Sentence:
        """The sentence said so far."""
        return Sentence("".join(self.words), tuple(self.values))


NO_SENTENCE = Sentence("")  # a record not yet said in words

ChangeClass = Literal[
    "rebuilt",
    "upgrade",
    "downgrade",
    "version-retired",
    "version-added",
    "more-builds",
    "fewer-builds",
    "new-configuration",
    "dropped-configuration",
    "migration",
]


@dataclass(frozen=True, slots=True)
class Change:
    """One explanation of SPEC section 2a: a claim about some of a package's added and removed
    specs, with its evidence (the configurations, versions and hashes it is about).

    The configurations are those on each side (the same but for migrations); a migration's
    `dimensions` are the ones along which its configurations differ.
    """

    kind: ChangeClass
    configurations_old: tuple[Configuration, ...]
    configurations_new: tuple[Configuration, ...]
    versions_old: tuple[str, ...]
    versions_new: tuple[str, ...]
    specs_old: tuple[str, ...]
    specs_new: tuple[str, ...]
    dimensions: tuple[str, ...] = ()
    sentence: Sentence = NO_SENTENCE


@dataclass(frozen=True, slots=True)
class BuiltOnlyIn:
    """Why a package's highest version went down, when the data shows it: every old build of
    that version (`specs`) was in stacks other than `root` that no longer hold the package,
    each removed (`removed`) or kept without it (`left`)."""

    version: str
    specs: tuple[str, ...]
    removed: tuple[str, ...]
    left: tuple[str, ...]
    sentence: Sentence  # "`0.7.9` was built only in the removed stack `data-vis-sdk`"


@dataclass(frozen=True, slots=True)
class PackageChange:
    """A package added, removed or changed."""

    tag: str
    name: str
    status: Status
    versions_old: tuple[str, ...]
    versions_new: tuple[str, ...]
    versions_added: tuple[str, ...]
    versions_removed: tuple[str, ...]
    bump: Bump | None
    specs_added: tuple[str, ...]
    specs_removed: tuple[str, ...]
    specs_changed: tuple[SpecChange, ...]
    stacks_added: tuple[str, ...]
    stacks_removed: tuple[str, ...]
    changes: tuple[Change, ...]  # why specs were added and removed (empty when not described)
    kept: tuple[Sentence, ...] = ()  # what changed for specs on both sides (stacks, fields)
    rebuilt: int = 0  # removed specs rebuilt: same configuration and version, new hash
    spellings: Spellings = ()  # values its pages write otherwise (`oneapi@…`, `name:=v`)
    variants_added: tuple[str, ...] = ()  # variant tokens on the new side only (normalised)
    variants_removed: tuple[str, ...] = ()  # and on the old side only
    built_only_in: BuiltOnlyIn | None = None  # a downgrade's cause, when the data shows it


@dataclass(frozen=True, slots=True)
class StackChange:
    """Coverage of one (tag, stack) that appeared, disappeared or changed."""

    tag: str
    name: str
    status: Status
    specs_old: int
    specs_new: int
    packages_gained: tuple[str, ...]
    packages_lost: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RootCount:
    """`root`, the merged cache, where its spec count differs from its tag's total on a side
    (SPEC section 2a): the only thing a report says of `root`, which is not a stack row."""

    tag: str
    specs_old: int
    specs_new: int
    total_old: int  # specs of the tag on each side
    total_new: int


@dataclass(frozen=True, slots=True)
class Summary:
    """Counts of every kind of change."""

    packages_added: int
    packages_removed: int
    packages_changed: int
    specs_added: int
    specs_removed: int
    specs_changed: int
    version_bumps: int
    version_downgrades: int
    specs_rebuilt: int  # rebuilt pairs: each is one added and one removed spec
    stacks_added: int
    stacks_removed: int
    stacks_changed: int

    @property
    def total(self) -> int:
        """Number of changed packages, specs and stacks: zero means no change at all."""
        return sum(
            getattr(self, f"{counted}_{status}")
            for counted in ("packages", "specs", "stacks")
            for status in get_args(Status)
        )


@dataclass(frozen=True, slots=True)
class StackMove:
    """A stack, other than `root`, whose specs all had values in `old` along one dimension and
    now all have values in `new`, the two sets disjoint, keeping a package on both sides (SPEC
    section 2a). On the compiler dimension, specs with no compiler (`none`) on both sides are
    set aside: `specs_old`, `specs_new` count the specs that moved, `no_compiler_*` the others."""

    tag: str
    stack: str
    dimension: str
    old: tuple[str, ...]
    new: tuple[str, ...]
    specs_old: int
    specs_new: int
    spellings: Spellings = ()  # compilers of `old`, `new` its pages write by another name
    no_compiler_old: int = 0  # specs with no compiler set aside (compiler moves only)
    no_compiler_new: int = 0

    def written(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """`old` and `new` as the stack's pages write them, for a reader to find there."""
        spelling = dict(self.spellings)
        return tuple(spelling.get(v, v) for v in self.old), tuple(
            spelling.get(v, v) for v in self.new
        )


class Exemption(NamedTuple):
    """An `allow:` entry a gate used: the changes of this package or stack did not count."""

    package: str | None
    stack: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class GateOutcome:
    """A gate the command line checked that tripped (its count above `above`), or that passed
    only thanks to `allow:` entries: what it counted, in words, and the entries it used."""

    gate: str
    level: GateLevel
    tripped: bool
    count: int
    above: int
    said: Sentence  # what it counted: "1 package's highest version went down: {}"
    exemptions: tuple[Exemption, ...] = ()

    def plain(self) -> str:
        """The gate and what it counted, on one line: `downgrade (…, more than 2)`."""
        limit = f", more than {self.above:,}" if self.above else ""
        return f"{self.gate} ({self.said.plain()}{limit})"


@dataclass(frozen=True, slots=True)
class RootSpec:
    """A root said with what it was concretized to (SPEC section 7): its abstract spec text, the
    hash, and the node's name, version and compiler (normalised)."""

    spec: str
    hash: str
    name: str
    version: str
    compiler: str
    group: str | None = None


@dataclass(frozen=True, slots=True)
class Reconcretized:
    """A root whose abstract spec text is on both sides with another hash."""

    spec: str
    old: str
    new: str
    name: str
    versions: tuple[str, str]
    compilers: tuple[str, str]


@dataclass(frozen=True, slots=True)
class Respelled:
    """A root whose abstract spec text changed while its hash stayed (Spack rewrote the text:
    `cflags="-x"` as `cflags='-x'`): the same spec, not one removed and one added."""

    old: str
    new: str
    hash: str


@dataclass(frozen=True, slots=True)
class SpackRun:
    """The Spack that wrote a lockfile: its version and commit (empty when not recorded)."""

    version: str
    commit: str


@dataclass(frozen=True, slots=True)
class EnvironmentDowngrade:
    """A package of an environment whose highest version went down: asked for when a root of
    it changed its abstract spec text, else unexpected."""

    name: str
    before: str
    after: str
    asked: bool


@dataclass(frozen=True, slots=True)
class EnvironmentChange:
    """One environment on either side (SPEC section 7), matched by name (or the one of each
    side): its roots, compilers, new duplicates and the Spack and format that wrote it."""

    name: str
    status: Literal["added", "removed", "changed", "unchanged"]
    spack_old: SpackRun | None
    spack_new: SpackRun | None
    lockfile_old: int | None
    lockfile_new: int | None
    roots_added: tuple[RootSpec, ...] = ()
    roots_removed: tuple[RootSpec, ...] = ()
    roots_reconcretized: tuple[Reconcretized, ...] = ()
    compilers_added: tuple[str, ...] = ()
    compilers_removed: tuple[str, ...] = ()
    duplicates_new: tuple[str, ...] = ()
    downgrades: tuple[EnvironmentDowngrade, ...] = ()
    warnings: tuple[str, ...] = ()
    database_old: int | None = None  # an install database's version (no lockfile)
    database_new: int | None = None
    paired: bool = True  # both sides are environments (not one against a build-cache index)
    roots_respelled: tuple[Respelled, ...] = ()
    rooted: frozenset[str] = frozenset()  # packages with a root on either side (trusted)

    def moved(self, packages: bool) -> bool:
        """Whether anything of it changed (`packages`: a package of it changed)."""
        roots = (
            self.roots_added or self.roots_removed or self.roots_reconcretized
        ) or self.roots_respelled
        return bool(packages or roots or self.spack_moved or self.format_moved)

    @property
    def spack_moved(self) -> bool:
        """Whether the Spack version or commit differs (a side without the block is unknown,
        which counts as differing), both sides being environments."""
        return self.paired and self.spack_old != self.spack_new

    @property
    def format_moved(self) -> bool:
        """Whether the lockfile or database version differs, both sides being environments."""
        before, after = (
            (self.lockfile_old, self.database_old),
            (self.lockfile_new, self.database_new),
        )
        return self.paired and before != after


@dataclass(frozen=True, slots=True)
class Report:
    """Everything snapdiff concluded about two snapshots; every output is rendered from it."""

    old: Side
    new: Side
    summary: Summary
    packages: tuple[PackageChange, ...]
    stacks: tuple[StackChange, ...]
    stack_moves: tuple[StackMove, ...] = field(default=())
    root: tuple[RootCount, ...] = field(default=())  # `root` short of its tag's total
    warnings: tuple[str, ...] = field(default=())
    filters: Filters = field(default=Filters())
    skipped: tuple[str, ...] = field(default=())  # bad pages left out: the report is incomplete
    gates: tuple[GateOutcome, ...] = field(default=())  # set by the command line's gates
    rebuilds: Rebuilds | None = None  # why specs were rebuilt: both sides build-cache indexes
    environments: tuple[EnvironmentChange, ...] = field(default=())  # environments only
    schema_version: int = SCHEMA_VERSION

    def tags_counted(self) -> int:
        """How many cache tags the counts run over when a side holds several (each package,
        spec and stack counts once per tag it is in); 0 when each side holds one."""
        if max(len(self.old.tags), len(self.new.tags)) < 2:
            return 0
        return len({*self.old.tags, *self.new.tags})

    def changed_tags(self) -> set[str]:
        """The cache tags of every package and stack that changed."""
        return {p.tag for p in self.packages} | {s.tag for s in self.stacks}

    def one_tag(self) -> OneTag | None:
        """The one cache tag every change is in, and the sides' other tags, when the sides hold
        several and the changes are all in one (labels then leave the tag out, so a report says
        it once); None otherwise, and from release to release, where each side's tag is its
        label."""
        return one_tag(self.old.tags, self.new.tags, self.changed_tags())

    @property
    def changed(self) -> bool:
        """Whether anything changed: a package, spec or stack, or an environment's roots, Spack
        or format (SPEC section 7), which a report of no spec change still says."""
        return bool(self.summary.total) or any(e.status != "unchanged" for e in self.environments)

    def environments_counted(self) -> int:
        """How many environments the counts run over when a side holds several (a package or
        spec in several counts once in each); 0 otherwise."""
        if len(self.environments) < 2:
            return 0
        return len(self.environments)

    def subject(self) -> str:
        """What the report compares, as its title says it: environments when a side is one,
        else build caches when a side is an index, else the catalogue."""
        kinds = {self.old.kind, self.new.kind}
        if "environment" in kinds:
            return "Environment"
        return "Build cache" if "build cache" in kinds else "Catalogue"

    def stacks_row(self) -> bool:
        """Whether the counts have a Stacks row: for catalogue pages always; for indexes and
        environments when a side has a stack other than `root` (SPEC section 7)."""
        pages = "catalogue" in {self.old.kind, self.new.kind}
        return pages or bool(self.old.stacks or self.new.stacks or self.stacks)

    def labeller(self) -> Labeller:
        """How every output names a package or stack of this report (see `Labeller`)."""
        return Labeller(len(self.changed_tags()) > 1)
