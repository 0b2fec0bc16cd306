"""Issue 47 item 4: a ladder of triggers (tests/helpers/laddergen.py, synthetic) makes SPEC
section 6's cause -> cascade relation quadratic in the input; the causes stay true, and what the
text, the Markdown and the JSON say grows with the input, not with that relation."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from causes import check, expand
from laddergen import write

from snapdiff.compare.diff import diff_snapshots
from snapdiff.render.jsonreport import render_json, report_to_dict
from snapdiff.render.markdown import render_markdown
from snapdiff.render.rebuildfolds import PACKAGES_SHOWN, rebuilt_rows
from snapdiff.render.text import render_text
from snapdiff.report import Report
from snapdiff.report.causes import causes
from snapdiff.sources import load_pair


def _ladder(tmp_path: Path, rungs: int, tops: int, **shape: bool) -> Report:
    old, new = write(tmp_path / f"ladder-{rungs}-{tops}", rungs, tops, **shape)
    return diff_snapshots(*load_pair(str(old), str(new)))


@pytest.mark.parametrize("shape", [{}, {"variants": True}])
def test_a_ladders_causes_are_true(tmp_path: Path, shape: dict[str, bool]) -> None:
    """Each step reaches the rungs up to its own, each top every rung: the relation has
    n(n+1)/2 + n*tops pairs. The JSON gives each once, as evidence one step down (a step names
    its rung and the step below, a top the last step), which the checker follows and checks
    against the records; each trigger counts its cascade."""
    rungs, tops = 12, 5
    report = _ladder(tmp_path, rungs, tops, **shape)
    rebuilds = report_to_dict(report)["rebuilds"]
    assert rebuilds is not None
    pairs = rungs * (rungs + 1) // 2 + rungs * tops
    evidence = sum(len(c["direct_causes"]) + len(c["through"]) for c in rebuilds["cascades"])
    assert evidence == 2 * rungs - 1 + tops  # an edge a step (the first has no step below), top
    assert sum(t["cascade_specs"] for t in rebuilds["triggers"]) == pairs
    whole = expand(dict(rebuilds))
    assert sum(len(c["causes"]) for c in whole["cascades"]) == pairs
    assert sum(len(t["cascade"]) for t in whole["triggers"]) == pairs
    assert len(rebuilds["triggers"]) == rungs and rebuilds["rebuilt"] == 2 * rungs + tops
    path = tmp_path / f"ladder-{rungs}-{tops}"
    assert check(dict(rebuilds), path / "old", path / "new") == []


def _sizes(tmp_path: Path, rungs: int) -> tuple[int, int, int, int]:
    """Bytes of the input pair, the text, the Markdown and the JSON of a ladder of `rungs`."""
    report = _ladder(tmp_path, rungs, rungs // 2)
    folder = tmp_path / f"ladder-{rungs}-{rungs // 2}"
    given = sum(p.stat().st_size for p in folder.glob("*/build_cache/index.json"))
    return given, len(render_text(report)), len(render_markdown(report)), len(render_json(report))


def test_every_format_grows_with_the_input_not_the_relation(tmp_path: Path) -> None:
    """Twice the rungs: twice the input, four times the relation, and about twice the text, the
    Markdown (each cause one line, its fold at most PACKAGES_SHOWN packages) and the JSON (each
    cascade spec's edges one step down, each cause's counts and first PACKAGES_SHOWN packages)."""
    small, large = _sizes(tmp_path, 40), _sizes(tmp_path, 80)
    assert 1.9 < large[0] / small[0] < 2.1
    for before, after in zip(small[1:], large[1:], strict=True):
        assert after / before < 2.3  # the relation grew 4 times


def test_a_folds_row_keeps_the_packages_it_lists(tmp_path: Path) -> None:
    """Each cause of a ladder reaches up to 3n/2 packages; its row keeps the first
    PACKAGES_SHOWN and how many more, never every one."""
    report = _ladder(tmp_path, 40, 20)
    assert report.rebuilds is not None
    found = causes(report.rebuilds)
    rows = rebuilt_rows(report, found)
    assert len(rows) == 40
    for cause, row in zip(found, rows, strict=True):
        assert len(row.packages) == min(cause.specs, PACKAGES_SHOWN)
        assert len(row.packages) + row.more == cause.specs  # one spec a package
    assert rows[0].more == 60 - PACKAGES_SHOWN  # rung-1 reaches every step and top


def test_a_template_still_reads_the_rebuilds_of_the_json_report(tmp_path: Path) -> None:
    """A template's `report.rebuilds` is the JSON report's, worked out when read."""
    report = _ladder(tmp_path, 5, 2)
    template = tmp_path / "mine.md.j2"
    template.write_text(
        "{{ report.rebuilds.triggers|length }} {{ report.rebuilds['cascades'][-1].through|length }}"
        " {{ report.rebuilds|length }} {{ 'cascades' in report.rebuilds }}\n"
    )
    rebuilds = report_to_dict(report)["rebuilds"]
    assert rebuilds is not None
    expected = f"5 {len(rebuilds['cascades'][-1]['through'])} {len(rebuilds)} True\n"
    assert render_markdown(report, template=str(template)) == expected


def test_a_template_of_the_users_takes_the_rebuilds_as_json(tmp_path: Path) -> None:
    """`tojson` and `string` of a template of the user's see plain data: the JSON report's
    `rebuilds`, not an object (which `tojson` refused, and `string` printed by its address)."""
    report = _ladder(tmp_path, 3, 1)
    template = tmp_path / "mine.md.j2"
    template.write_text("{{ report.rebuilds|tojson }}\n{{ report.rebuilds|string }}\n")
    rebuilds = report_to_dict(report)["rebuilds"]
    first, second = render_markdown(report, template=str(template)).splitlines()
    assert json.loads(html.unescape(first)) == rebuilds
    assert second == f"`{rebuilds}`"  # made inert as every string of the data is


def test_the_walks_bits_read_out_lowest_first() -> None:
    """A reach is an int with a bit per cause: the positions come out in order (so the causes,
    numbered in hash order, come out sorted), none for 0, one for a power of two."""
    from snapdiff.compare.rebuilds import _ones

    for bits in (0, 1, 2, 5, 2**64, 2**300 + 2**7 + 1, int("10" * 200, 2)):
        assert _ones(bits) == [i for i in range(bits.bit_length()) if bits >> i & 1]
