"""Write small synthetic catalogue pages for tests, in the real pages' byte format.

Everything made here is synthetic and labelled so: real pages live in tests/data/real/.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from snapdiff.render.jsonreport import render_json
from snapdiff.report import Report

REAL = Path(__file__).parents[1] / "data" / "real"
HISTORY = sorted((REAL / "history").glob("*/*.md"))
SEEDS = sorted((REAL / "seeds").glob("*.txt"))


def spec(
    hash_: str,
    version: str = "1.0",
    stacks: tuple[str, ...] = ("e4s", "root"),
    *,
    compiler: str = "gcc@11.4.0",
    os: str = "ubuntu22.04",
    target: str = "x86_64_v3",
    variants: tuple[str, ...] = ("build_system=cmake",),
    **extra: Any,
) -> dict[str, Any]:
    """One spec_details entry; the hash is padded to Spack's 32 characters."""
    entry = {
        "compiler": compiler,
        "hash": hash_.ljust(32, "a"),
        "os": os,
        "platform": "darwin" if os in ("ventura", "sequoia") else "linux",
        "size": "-",
        "stacks": list(stacks),
        "target": target,
        "variants": list(variants),
        "versions": [version],
    }
    entry.update(extra)
    return entry


def page_text(name: str, tag: str, specs: list[dict[str, Any]]) -> str:
    """A page as the catalogue generator writes it: front matter only, sorted JSON."""
    by_stack = Counter(s for entry in specs for s in entry.get("stacks", ()))
    meta = {
        "compilers": sorted({e.get("compiler", "") for e in specs}),
        "num_specs": len(specs),
        "num_specs_by_stack": dict(sorted(by_stack.items())),
        "oss": sorted({e.get("os", "") for e in specs}),
        "platforms": sorted({e.get("platform", "") for e in specs}),
        "stacks": sorted(by_stack),
        "targets": sorted({e.get("target", "") for e in specs}),
        "versions": sorted({v for e in specs for v in e.get("versions", ())}),
    }
    ordered = sorted(specs, key=lambda e: str(e.get("hash")))
    return (
        f'---\ntitle: "{name}"\nlayout: cache\ncategories: [package, {tag}]\n'
        f"meta: {json.dumps(meta, sort_keys=True)}\n"
        f"spec_details: {json.dumps(ordered, sort_keys=True)}\n---"
    )


def write_page(root: Path, name: str, specs: list[dict[str, Any]], tag: str = "develop") -> Path:
    """Write a page at root/_cache/<tag>/<name>/specs.md and return its path."""
    path = root / "_cache" / tag / name / "specs.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page_text(name, tag, specs), encoding="utf-8")
    return path


def load_real(path: Path) -> tuple[str, str, dict[str, Any], list[dict[str, Any]]]:
    """(title, tag, meta, spec_details) of a real page, parsed independently of snapdiff."""
    lines = path.read_text(encoding="utf-8").split("\n")
    title = lines[1][len('title: "') : -1]
    tag = lines[3][len("categories: [package, ") : -1]
    fields = {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in lines[4:6]}
    return title, tag, json.loads(fields["meta"]), json.loads(fields["spec_details"])


def outputs_under_seeds(
    old: str, new: str, seeds: tuple[str, ...] = ("0", "4242")
) -> set[tuple[str, str]]:
    """(format, output) of `python -m snapdiff old new` under several PYTHONHASHSEED values."""
    import os
    import subprocess
    import sys

    outputs = set()
    for seed in seeds:
        for fmt in ("json", "markdown"):
            env = dict(os.environ, PYTHONHASHSEED=seed)
            done = subprocess.run(
                [sys.executable, "-m", "snapdiff", old, new, "-f", fmt],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            outputs.add((fmt, done.stdout))
    return outputs


def as_json(report: Report) -> dict[str, Any]:
    """The JSON report as a reader of `--format json` gets it: plain data."""
    data: dict[str, Any] = json.loads(render_json(report))
    return data
