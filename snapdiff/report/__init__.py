"""What a diff concluded: typed records (`records`) and the label rules (`labels`). No I/O."""

from __future__ import annotations

from .labels import Labeller, OneTag, counted, one_tag
from .rebuilds import Cascade, MissingDependency, OwnChange, Rebuilds, Trigger
from .records import (
    SCHEMA_VERSION,
    Change,
    ChangeClass,
    Exemption,
    FieldChange,
    GateLevel,
    GateOutcome,
    PackageChange,
    Report,
    RootCount,
    Sentence,
    Side,
    SideName,
    SpecChange,
    StackChange,
    StackMove,
    Status,
    Summary,
)

__all__ = [
    "SCHEMA_VERSION",
    "Cascade",
    "Change",
    "ChangeClass",
    "Exemption",
    "FieldChange",
    "GateLevel",
    "GateOutcome",
    "Labeller",
    "MissingDependency",
    "OneTag",
    "OwnChange",
    "PackageChange",
    "Rebuilds",
    "Report",
    "RootCount",
    "Sentence",
    "Side",
    "SideName",
    "SpecChange",
    "StackChange",
    "StackMove",
    "Status",
    "Summary",
    "Trigger",
    "counted",
    "one_tag",
]
