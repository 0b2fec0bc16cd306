"""`snapdiff log`: a walk over the pairs it is handed (`walk`), its records (`records`), the
specs that flap (`flaps`), and the range's two halves diffed side by side (`apart`)."""

from __future__ import annotations

from .records import Flap, History, Moved, PackagePath, Pair, Step, StepBump, Stepped, Unit
from .walk import history, stepped, walk

__all__ = [
    "Flap",
    "History",
    "Moved",
    "PackagePath",
    "Pair",
    "Step",
    "StepBump",
    "Stepped",
    "Unit",
    "history",
    "stepped",
    "walk",
]
