"""What a diff concluded: typed records (`records`), the label rules (`labels`) and the words
every format says of why specs were rebuilt (`causes`). No I/O."""

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
    Words,
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
    "Words",
    "counted",
    "one_tag",
]
