"""Small synthetic build-cache index pairs from bench/genindex.py, seeded, with its truth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchgen import generate as run_generator


def genindex(*args: str) -> None:
    """bench/genindex.py, seeded: small synthetic indexes in a fraction of a second."""
    run_generator("genindex", *args)


def generate(tmp_path: Path, events: str, seed: int = 3, *extra: str) -> dict[str, Any]:
    """A small synthetic pair (`old`, `new` under tmp_path) and the generator's truth."""
    old, new, truth = tmp_path / "old", tmp_path / "new", tmp_path / "truth.json"
    genindex(str(old), "--records", "400", "--stacks", "3", "--seed", str(seed), *extra)
    genindex(
        str(new),
        "--evolve-from",
        str(old),
        "--seed",
        str(seed + 1),
        "--truth",
        str(truth),
        "--events",
        events,
    )
    data: dict[str, Any] = json.loads(truth.read_text())
    return data
