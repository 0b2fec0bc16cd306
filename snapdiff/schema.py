"""The JSON reports' shapes (SPEC section 4), as TypedDicts: what JSON readers and templates see."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from .report import GateLevel, OwnChange, SideName, Status
from .versions import BumpKind, BumpSize

__all__ = [
    "CAUSE_LISTS",
    "REBUILDS_SCHEMA_VERSION",
    "BuiltOnlyInJSON",
    "BumpJSON",
    "CascadeJSON",
    "CausePackagesJSON",
    "CauseStacksJSON",
    "ChangeJSON",
    "ConfigurationJSON",
    "ExemptionJSON",
    "FieldJSON",
    "GateJSON",
    "HistoryJSON",
    "MissingDependencyJSON",
    "PackageJSON",
    "RebuildsJSON",
    "ReportJSON",
    "RootJSON",
    "SideJSON",
    "StackJSON",
    "StackMoveJSON",
    "SummaryJSON",
    "TriggerJSON",
]


class SideJSON(TypedDict):
    source: str
    tags: list[str]
    packages: int
    specs: int
    stacks: int
    commit: str | None
    date: str | None


class SummaryJSON(TypedDict):
    packages_added: int
    packages_removed: int
    packages_changed: int
    specs_added: int
    specs_removed: int
    specs_changed: int
    version_bumps: int
    version_downgrades: int
    specs_rebuilt: int
    stacks_added: int
    stacks_removed: int
    stacks_changed: int


class BuiltOnlyInJSON(TypedDict):
    """A downgrade's cause: every old build of `version` (`specs`) was in stacks removed or
    kept without the package."""

    version: str
    specs: list[str]
    stacks_removed: list[str]
    stacks_left: list[str]
    text: str


BumpJSON = TypedDict(
    "BumpJSON",
    {
        "from": str,
        "to": str,
        "kind": BumpKind,
        "size": BumpSize,
        "cause": NotRequired[BuiltOnlyInJSON | None],  # a diff's downgrades only
    },
)


class FieldJSON(TypedDict):
    old: object
    new: object
    missing: NotRequired[SideName]  # a side without it (a page's own key)


class SpecChangeJSON(TypedDict):
    hash: str
    stacks_added: list[str]
    stacks_removed: list[str]
    fields: dict[str, FieldJSON]
    details: list[str]


class ConfigurationJSON(TypedDict):
    os: str
    platform: str
    target: str
    compiler: str
    variants: list[str]


ChangeJSON = TypedDict(  # one explanation (SPEC section 2a)
    "ChangeJSON",
    {
        "class": str,
        "configurations_old": list[ConfigurationJSON],
        "configurations_new": list[ConfigurationJSON],
        "versions_old": list[str],
        "versions_new": list[str],
        "specs_old": list[str],
        "specs_new": list[str],
        "dimensions": NotRequired[list[str]],  # migrations only
        "text": NotRequired[str],  # always, added last (after `dimensions`)
    },
)


class PackageJSON(TypedDict):
    tag: str
    name: str
    status: Status
    versions_old: list[str]
    versions_new: list[str]
    versions_added: list[str]
    versions_removed: list[str]
    bump: BumpJSON | None
    specs_added: list[str]
    specs_removed: list[str]
    specs_changed: list[SpecChangeJSON]
    stacks_added: list[str]
    stacks_removed: list[str]
    changes: list[ChangeJSON]
    kept: list[str]
    variants_added: list[str]
    variants_removed: list[str]


class StackJSON(TypedDict):
    tag: str
    name: str
    status: Status
    specs_old: int
    specs_new: int
    packages_gained: list[str]
    packages_lost: list[str]


StackMoveJSON = TypedDict(
    "StackMoveJSON",
    {
        "tag": str,
        "stack": str,
        "dimension": str,
        "from": list[str],
        "to": list[str],
        # the specs that moved (compiler: those with none on both sides counted apart, else 0)
        "specs_old": int,
        "specs_new": int,
        "specs_no_compiler_old": int,
        "specs_no_compiler_new": int,
    },
)


class RootJSON(TypedDict):
    """`root` of a tag where its spec count differs from the tag's total on a side."""

    tag: str
    specs_old: int
    specs_new: int
    tag_specs_old: int
    tag_specs_new: int


class ClassCountJSON(TypedDict):
    removed: int
    added: int


class ExemptionJSON(TypedDict):
    package: str | None
    stack: str | None
    reason: str


class GateJSON(TypedDict):
    gate: str
    level: GateLevel
    tripped: bool
    count: int
    above: int
    text: str
    allowed: list[ExemptionJSON]


class CascadePackageJSON(TypedDict):
    name: str
    specs: int


TriggerJSON = TypedDict(
    "TriggerJSON",
    {
        "hash": str,
        "name": str,
        "predecessor": str,
        "changes": list[OwnChange],
        # per change: a version, os, target, platform, compiler, namespace, package hash
        # (`recipe`) or external (`built`, its path, `module NAME`) as a string; variants as
        # the sorted tokens only that side has; dependencies as the names only that side has
        # and, for a dependency resolved to another existing build, that build as a spec text
        # naming what tells the two apart (`automake@1.16.5 ^autoconf@2.71`)
        "from": dict[str, str | list[str]],
        "to": dict[str, str | list[str]],
        "cascade_specs": int,  # the cascade specs it causes
        "cascade_build_only_specs": int,  # those it reaches through a build edge only
        "stacks": list[str],  # the first CAUSE_LISTS, sorted
        "stacks_more": int,  # the stacks after those
        "packages": list[CascadePackageJSON],  # the cascade by package, most specs first:
        "packages_more": int,  # the first CAUSE_LISTS, and the packages after those
    },
)

# The stacks and packages a trigger's record lists at most: what a ladder of triggers, each
# reaching a package (or stack) per spec, would make quadratic; the rest is counted.
CAUSE_LISTS = 30


class CausePackagesJSON(TypedDict):
    packages: list[CascadePackageJSON]
    packages_more: int


class CauseStacksJSON(TypedDict):
    stacks: list[str]
    stacks_more: int


class NewBuildJSON(TypedDict):
    hash: str
    name: str
    cascade_specs: int
    cascade_build_only_specs: int


MoveJSON = TypedDict(
    "MoveJSON",
    {
        "dimension": OwnChange,
        "from": list[str],  # one value each, as SPEC section 6 writes it
        "to": list[str],
        "specs": int,  # the rebuilt specs that made it
    },
)

# The Spack versions and formats each side records (`Spack 0.20, lockfile v4`); `evidence`:
# `formats` when their versions differ, `rehashed` when only records equal in every field with a
# new hash show it; `kept`: the specs whose hash both sides hold.
SchemeJSON = TypedDict("SchemeJSON", {"from": str, "to": str, "evidence": str, "kept": int})


class CascadeJSON(TypedDict):
    hash: str
    name: str
    predecessor: str
    # what its new edges name one step down: causes (triggers, new builds), other cascade specs
    # (whose causes are its too), and those of both named by build edges only; sorted by hash
    direct_causes: list[str]
    through: list[str]
    build_only: list[str]


class MissingDependencyJSON(TypedDict):
    hash: str
    name: str
    dependency: str
    dependency_name: str
    new: bool


# The layout of `rebuilds`: 1 was SPEC section 6's lists of the whole cause->spec relation; 2
# gives each fact once, as each cascade spec's edges one step down (docs/json.md). The report's
# own `schema_version` is SPEC section 4's, whose keys are unchanged.
REBUILDS_SCHEMA_VERSION = 2


class RebuildsJSON(TypedDict):
    """SPEC section 6: why specs were rebuilt, when both sides carry a dependency graph."""

    schema_version: int  # REBUILDS_SCHEMA_VERSION
    scheme: SchemeJSON | None
    moves: list[MoveJSON]
    triggers: list[TriggerJSON]
    new_builds: list[NewBuildJSON]
    cascades: list[CascadeJSON]
    cascades_filtered_out: list[CascadeJSON]  # with filters: specs `through` names
    hash_scheme: list[str]
    unexplained: list[str]
    missing_dependencies: list[MissingDependencyJSON]
    rebuilt: int


class RootSpecJSON(TypedDict):
    spec: str
    hash: str
    name: str
    version: str
    compiler: str


class ReconcretizedJSON(TypedDict):
    spec: str
    old: str
    new: str
    name: str
    versions: list[str]  # [old, new]


class RespelledJSON(TypedDict):
    old: str
    new: str
    hash: str


class SpackJSON(TypedDict):
    version: str
    commit: str


# asked: the root of the package changed its abstract spec text
EnvironmentDowngradeJSON = TypedDict(
    "EnvironmentDowngradeJSON", {"name": str, "from": str, "to": str, "asked": bool}
)


class EnvironmentJSON(TypedDict):
    """SPEC section 7's `environments`: one entry per environment on either side."""

    name: str
    status: str
    spack_old: SpackJSON | None
    spack_new: SpackJSON | None
    lockfile_old: int | None
    lockfile_new: int | None
    roots_added: list[RootSpecJSON]
    roots_removed: list[RootSpecJSON]
    roots_reconcretized: list[ReconcretizedJSON]
    compilers_added: list[str]
    compilers_removed: list[str]
    duplicates_new: list[str]
    downgrades: list[EnvironmentDowngradeJSON]
    warnings: list[str]
    roots_respelled: list[RespelledJSON]  # extra: a root's text rewritten, its hash kept


class ReportJSON(TypedDict):
    schema_version: int
    old: SideJSON
    new: SideJSON
    summary: SummaryJSON
    packages: list[PackageJSON]
    stacks: list[StackJSON]
    stack_moves: list[StackMoveJSON]
    root: list[RootJSON]
    specs_by_class: dict[str, ClassCountJSON]
    warnings: list[str]
    filters: dict[str, list[str]]
    incomplete: bool
    skipped: list[str]
    gates: list[GateJSON]
    rebuilds: RebuildsJSON | None
    environments: NotRequired[list[EnvironmentJSON]]  # environments only


class StepBumpJSON(BumpJSON):
    tag: str
    name: str


class StepRebuildsJSON(TypedDict):
    rebuilt: int  # distinct specs rebuilt (SPEC section 6)
    said: list[str]  # the diff's first-screen lines on why, and on missing binaries


class StepJSON(TypedDict):
    commit: str
    date: str
    subject: str | None  # the commit's subject line; null for a snapshot given
    summary: SummaryJSON
    bumps: list[StepBumpJSON]
    stacks: list[StackJSON]
    stack_moves: list[StackMoveJSON]
    rebuilds: StepRebuildsJSON | None  # None unless both sides are build-cache indexes
    environments: NotRequired[list[EnvironmentJSON]]  # environments that changed, if any


class RangeJSON(TypedDict):
    start: str
    end: str
    commits: int  # steps: commits that changed the catalogue, or snapshots (`unit`)
    unit: Literal["commit", "snapshot"]
    start_commit: str | None  # full ids of the ends
    end_commit: str | None
    merge_base_of: list[str] | None  # `A...B`: [A, B], whose merge base is `start`


class HistoryPackageJSON(TypedDict):
    tag: str
    name: str
    versions: list[str]
    first_seen: str | None
    last_seen: str | None


class FlappingJSON(TypedDict):
    tag: str
    hash: str
    package: str
    left: list[str]
    returned: list[str]
    returns: int


class HistoryJSON(TypedDict):
    schema_version: int
    range: RangeJSON
    steps: list[StepJSON]
    packages: list[HistoryPackageJSON]
    flapping: list[FlappingJSON]
    incomplete: bool
    skipped: list[str]
