"""The gates on why specs were rebuilt: `rebuilds` (distinct rebuilt specs) and
`missing-binaries` (specs newly depending on a binary the cache does not hold), with the
allow-list, on hand-built causes (tests/rebuildsgen.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from rebuildsgen import report

from snapdiff.gates import Allow, GateCheck, parse_gates, tripped
from snapdiff.render.jsonreport import render_json
from snapdiff.render.markdown import render_markdown
from snapdiff.render.text import render_text


@pytest.mark.parametrize(
    ("allow", "expected"),
    [
        ((), 9),  # 3 triggers, 4 cascade specs, 1 hash-scheme, 1 unexplained: each once
        (((None, "nothing-*"),), 9),
        # the zlib-ng specs, and those rebuilt only through them (n1, n3); n2, h1 also by cmake
        ((("zlib-ng", None),), 5),
        # causes seen only in e4s (z1, cmake), and what only they rebuilt (n1, h1)
        (((None, "e4s"),), 5),
        ((("py-*", None),), 6),  # a package's own rebuilt specs, whatever their cause
        ((("zlib-ng", None), ("cmake", None)), 2),  # the hash-scheme and unexplained specs
    ],
)
def test_rebuilds_counts_distinct_specs_less_the_allowed(
    tmp_path: Path, allow: tuple[tuple[str | None, str | None], ...], expected: int
) -> None:
    entries = [Allow("rebuilds", package, stack, "planned") for package, stack in allow]
    found = tripped(report(tmp_path), [GateCheck("rebuilds", 0)], entries)
    assert found[0].count == expected
    assert found[0].said.plain() == f"{expected} specs rebuilt"
    used = {(e.package, e.stack) for e in found[0].exemptions}
    assert used == ({entry for entry in allow if entry != (None, "nothing-*")})


def test_a_rebuilds_threshold_at_the_count_passes_and_below_fails(tmp_path: Path) -> None:
    found = report(tmp_path)
    assert tripped(found, parse_gates("rebuilds:9")) == []
    [outcome] = tripped(found, parse_gates("rebuilds:8"))
    assert outcome.tripped and outcome.plain() == "rebuilds (9 specs rebuilt, more than 8)"


@pytest.mark.parametrize(
    ("allow", "expected"),
    [((), 2), ((("cuda", None),), 1), ((("hdf5", None),), 1), ((("py-numpy", None),), 1)],
)
def test_missing_binaries_counts_specs_with_a_new_gap(
    tmp_path: Path, allow: tuple[tuple[str | None, str | None], ...], expected: int
) -> None:
    """n1 → cuda and h1 → mpi are new; n3 → cuda was missing before: not counted."""
    entries = [Allow("missing-binaries", p, s, "later") for p, s in allow]
    [outcome] = tripped(report(tmp_path), [GateCheck("missing-binaries")], entries)
    assert outcome.count == expected and outcome.tripped


def test_a_gate_on_rebuilds_is_on_the_first_screen_and_in_json(tmp_path: Path) -> None:
    found = report(tmp_path)
    gates = tripped(found, parse_gates("rebuilds:5,missing-binaries"))
    found = dataclasses.replace(found, gates=tuple(gates))
    markdown = render_markdown(found)
    assert "- **❌ Gate failed, `rebuilds`:** 9 specs rebuilt, more than 5\n" in markdown
    assert (
        "- **❌ Gate failed, `missing-binaries`:** 2 specs newly depend on binaries this cache "
        "does not hold: `cuda`, `mpi`\n" in markdown
    )
    assert markdown.index("Gate failed") < markdown.index("| Packages |")
    data = json.loads(render_json(found))
    assert [(g["gate"], g["count"]) for g in data["gates"]] == [
        ("rebuilds", 9),
        ("missing-binaries", 2),
    ]
    assert "Why specs were rebuilt" in markdown and "why specs were rebuilt" in render_text(found)


def test_pages_never_trip_the_rebuild_gates(tmp_path: Path) -> None:
    found = report(tmp_path, None)
    assert tripped(found, parse_gates("rebuilds,missing-binaries")) == []
