"""`python -m snapdiff`: the same as the `snapdiff` command."""

from __future__ import annotations

from .cli import console

console()
