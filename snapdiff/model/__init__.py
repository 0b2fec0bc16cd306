"""What is loaded: typed records (`records`) and the normalisation they are compared by
(`normal`). No I/O."""

from __future__ import annotations

from .graph import Edge, EdgeKind, Graph, Node, links
from .normal import (
    NO_COMPILER,
    Spellings,
    canonical_json,
    normal_compiler,
    normal_variant,
    normal_variants,
    renamed,
    written_as,
)
from .records import (
    NOTHING,
    Configuration,
    Entry,
    Environment,
    Filters,
    Page,
    PageEntries,
    Root,
    Snapshot,
    Spec,
    Tally,
    configuration_from,
    configuration_of,
    counted_apart,
)
from .related import compiler_family, related, related_keys, target_family

__all__ = [
    "NOTHING",
    "NO_COMPILER",
    "Configuration",
    "Edge",
    "EdgeKind",
    "Entry",
    "Environment",
    "Filters",
    "Graph",
    "Node",
    "Page",
    "PageEntries",
    "Root",
    "Snapshot",
    "Spec",
    "Spellings",
    "Tally",
    "canonical_json",
    "compiler_family",
    "configuration_from",
    "configuration_of",
    "counted_apart",
    "links",
    "normal_compiler",
    "normal_variant",
    "normal_variants",
    "related",
    "related_keys",
    "renamed",
    "target_family",
    "written_as",
]
