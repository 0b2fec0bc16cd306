"""Issue 47 item 4: a ladder of triggers (tests/helpers/laddergen.py, synthetic) makes SPEC
section 6's cause -> cascade relation quadratic in the input; the causes stay true, and what the
text and the Markdown say grows with the input, not with that relation."""

from __future__ import annotations

from pathlib import Path

import pytest
from causes import check
from laddergen import write

from snapdiff.compare.diff import diff_snapshots
from snapdiff.render.jsonreport import report_to_dict
from snapdiff.report import Report
from snapdiff.sources import load_pair


def _ladder(tmp_path: Path, rungs: int, tops: int, **shape: bool) -> Report:
    old, new = write(tmp_path / f"ladder-{rungs}-{tops}", rungs, tops, **shape)
    return diff_snapshots(*load_pair(str(old), str(new)))


@pytest.mark.parametrize("shape", [{}, {"variants": True}])
def test_a_ladders_causes_are_true(tmp_path: Path, shape: dict[str, bool]) -> None:
    """Each step reaches the rungs up to its own, each top every rung: the relation has
    n(n+1)/2 + n*tops pairs, each said once per side (a trigger's cascade, a cascade's causes),
    and the independent checker agrees with every claim."""
    rungs, tops = 12, 5
    report = _ladder(tmp_path, rungs, tops, **shape)
    rebuilds = report_to_dict(report)["rebuilds"]
    assert rebuilds is not None
    pairs = rungs * (rungs + 1) // 2 + rungs * tops
    assert sum(len(c["causes"]) for c in rebuilds["cascades"]) == pairs
    assert sum(len(t["cascade"]) for t in rebuilds["triggers"]) == pairs
    assert all(c["causes"] == sorted(c["causes"]) for c in rebuilds["cascades"])
    assert len(rebuilds["triggers"]) == rungs and rebuilds["rebuilt"] == 2 * rungs + tops
    path = tmp_path / f"ladder-{rungs}-{tops}"
    assert check(dict(rebuilds), path / "old", path / "new") == []
