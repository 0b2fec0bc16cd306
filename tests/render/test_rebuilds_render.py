"""What a reader sees of why specs were rebuilt (SPEC section 6), from hand-built causes: the
first screen's lines in Markdown and text, the folded lists, the size budget, and pages."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path

import pytest
from clirun import V1, V2, run
from rebuildsgen import REBUILDS, h, report

from snapdiff.render.jsonrebuilds import rebuilds_to_dict
from snapdiff.render.markdown import MarkdownRenderer, render_markdown
from snapdiff.render.text import render_text
from snapdiff.report import Cascade, Rebuilds, Trigger
from snapdiff.schema import CAUSE_LISTS

FIRST_SCREEN = [
    "- `zlib-ng` `2.2.1` → `2.2.2` (version, in 2 specs): 4 other specs rebuilt in 2 stacks, 2 of "
    "them through build dependencies only",
    "- `cmake` recipe changed, same version `3.30.5`: 2 other specs rebuilt in 1 stack, all of "
    "them through build dependencies only",
    "- 1 spec rebuilt with no change of its own, nor of any of its dependencies beyond a new "
    "hash: a change of hash scheme (a new Spack version or a newly hashed field rehashes every "
    "spec)",
    "- 1 spec rebuilt through a dependency this side has no record of",
    # h1n and n2n are reached through build edges from every cause they have; n1n, n3n link
    "- 9 distinct specs rebuilt in all, 2 at a new version; 2 through several causes, counted "
    "under each; 2 through build dependencies only from every cause",
    "- **⚠️ 3 specs depend on 2 binaries this cache does not hold (2 of the 3 specs newly): "
    "`cuda`, `mpi`**",
]


def _first_screen(markdown: str) -> list[str]:
    lines = markdown.splitlines()
    start = lines.index("**Why specs were rebuilt:**") + 2
    return lines[start : lines.index("", start)]


def test_the_first_screen_says_each_cause_once_in_the_spec_s_order(tmp_path: Path) -> None:
    """The same bump in two specs is one line counting distinct cascade specs and stacks; a
    spec is build-only for a cause only when every trigger of it reaching it does so through a
    build edge; a spec under two causes counts under each and once in the total."""
    markdown = render_markdown(report(tmp_path))
    assert _first_screen(markdown) == FIRST_SCREEN
    # the first screen comes before any fold
    assert markdown.index("**Why specs were rebuilt:**") < markdown.index("<details>")


def test_the_folds_list_packages_with_counts_not_hashes(tmp_path: Path) -> None:
    markdown = render_markdown(report(tmp_path))
    folds = markdown.split("### Why specs were rebuilt, cause by cause")[1]
    assert "- `py-numpy`: 3 specs, 1 of them through build dependencies only\n" in folds
    assert "- `hdf5`: 1 spec, through build dependencies only\n" in folds
    assert "- `foo`: 1 spec\n" in folds and "- `bar`: 1 spec\n" in folds  # by the report's names
    missing = folds.split("### Binaries this cache does not hold")[1]
    summaries = re.findall(r"<summary>(.*)</summary>", missing)
    assert summaries == [
        "<code>cuda/cudaaaa</code>: needed by 2 specs (1 of them newly)",
        "<code>mpi/mpiaaaa</code>: needed by 1 spec (newly)",
    ]
    assert "- `py-numpy`: 2 specs, 1 of them newly\n" in missing
    assert h("n2n") not in markdown  # no hash lists


def test_one_cause_one_spec_is_said_in_the_singular(tmp_path: Path) -> None:
    trigger = dataclasses.replace(
        REBUILDS.triggers[2],
        cascade=(h("h1n"),),
        cascade_build_only=(h("h1n"),),
        stacks=("e4s", "root"),
    )
    causes = (trigger.hash,)
    cascade = Cascade(h("h1n"), "hdf5", h("h1o"), causes, causes, (), causes)
    rebuilds = Rebuilds((trigger,), (cascade,), (), (), ())
    assert _first_screen(render_markdown(report(tmp_path, rebuilds))) == [
        "- `cmake` recipe changed, same version `3.30.5`: 1 other spec rebuilt in 1 stack, through "
        "build dependencies only",
        "- 2 distinct specs rebuilt in all",
    ]


def _trigger(n: int) -> Trigger:
    """A version bump of package `p<n>` rebuilding `n` specs of `q`."""
    cascade = tuple(h(f"q{n}x{i}") for i in range(n))
    return Trigger(
        h(f"p{n}"), f"p{n}", h(f"p{n}o"), ("version",), (("version", "1"),), (("version", "2"),),
        cascade, (), ("e4s",),
    )  # fmt: skip


def test_the_largest_causes_first_then_how_many_more(tmp_path: Path) -> None:
    triggers = tuple(_trigger(n) for n in range(1, 9))
    cascades = tuple(
        Cascade(c, "q", h("old"), (t.hash,), (t.hash,), (), ()) for t in triggers for c in t.cascade
    )
    rebuilds = Rebuilds(
        tuple(sorted(triggers, key=lambda t: -len(t.cascade))), cascades, (), (), ()
    )
    lines = _first_screen(render_markdown(report(tmp_path, rebuilds)))
    assert [line.split(" ")[1] for line in lines[:5]] == [f"`p{n}`" for n in (8, 7, 6, 5, 4)]
    assert lines[5:] == [
        "- … and 3 more causes",
        # none of these made-up hashes is a spec of the report's pages: each is said so
        "- 44 distinct specs rebuilt in all (44 of them records with no binary in this cache, "
        "not counted as specs added), 8 at a new version",
    ]


def test_the_same_causes_in_any_order_say_the_same_bytes(tmp_path: Path) -> None:
    found = report(tmp_path)
    shuffled = list(REBUILDS.triggers)
    random.Random(3).shuffle(shuffled)
    other = dataclasses.replace(
        found, rebuilds=dataclasses.replace(REBUILDS, triggers=tuple(reversed(shuffled)))
    )
    assert render_markdown(other) == render_markdown(found)
    assert render_text(other) == render_text(found)


def test_the_text_says_the_first_screen_s_lines_in_its_order(tmp_path: Path) -> None:
    found = report(tmp_path)
    text = render_text(found).split("why specs were rebuilt\n")[1].splitlines()
    plain = [re.sub(r"\*\*(⚠️ )?|`", "", line[2:]) for line in FIRST_SCREEN]
    assert [line.strip() for line in text[: len(plain)]] == plain


def test_a_size_budget_cuts_the_folds_and_keeps_the_first_screen(tmp_path: Path) -> None:
    """Per-spec detail goes first, then the folds per cause; never the first screen."""
    renderer = MarkdownRenderer(report(tmp_path))
    budget = len(renderer({"explained": 0}).encode()) - 300
    cut = renderer.fitted(budget)
    assert len(cut.encode()) <= budget
    assert _first_screen(cut) == FIRST_SCREEN
    assert re.search(r"… \d more causes?, left out to fit the size limit", cut)
    assert "### Binaries this cache does not hold" in cut  # cut after the folds per cause


@pytest.mark.parametrize("form", ["markdown", "text", "json"])
def test_pages_say_nothing_about_causes(
    form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run([V1, V2, "--format", form], capsys)
    assert code == 0 and out
    said = out.replace(V1, "OLD").replace(V2, "NEW").lower()  # a checkout's path may say anything
    for words in ("why specs were rebuilt", "cause", "binaries", "hash scheme", "build dep"):
        assert words not in said
    markdown = render_markdown(report(tmp_path, None))
    assert "Why specs were rebuilt" not in markdown and "cause" not in markdown


def test_names_and_values_from_the_index_are_inert(tmp_path: Path) -> None:
    """A package name, version or dependency with markup is a code span (Markdown), escaped
    `<code>` (a fold's summary) and one printable line (text)."""
    evil = "x`<script>|\n@team"
    trigger = dataclasses.replace(
        REBUILDS.triggers[0],
        name=evil,
        before=(("version", evil),),
        after=(("version", "<b>2</b>"),),
    )
    gap = dataclasses.replace(REBUILDS.missing_dependencies[0], dependency_name=evil)
    rebuilds = dataclasses.replace(REBUILDS, triggers=(trigger,), missing_dependencies=(gap,))
    found = report(tmp_path, rebuilds)
    markdown = render_markdown(found)
    outside = re.sub(r"(`+) ?.+? ?\1|<code>.*?</code>", "", markdown)  # outside code spans
    assert "<script>" not in outside and "<b>" not in outside and "@team" not in outside
    assert (
        "- ``x`<script>\\| @team`` ``x`<script>\\| @team`` → `<b>2</b>` (version, a downgrade)"
        in markdown
    )
    assert "<summary><code>x`&lt;script&gt;| @team</code> <code>" in markdown
    text = render_text(found)
    assert "\n@team" not in text and "x`<script>|\\x0a@team x`<script>|\\x0a@team →" in text


def test_one_recipe_change_in_several_configurations_is_one_line() -> None:
    """Package hashes differ between configurations of one recipe change: one cause, its
    version named; another version's recipe change is another line."""
    from snapdiff.report.causes import cause_sentence, causes

    def recipe(name: str, package_hashes: tuple[str, str], version: str) -> Trigger:
        before, after = (("recipe", package_hashes[0]),), (("recipe", package_hashes[1]),)
        return Trigger(
            h(name), "cmake", h(f"{name}o"), ("recipe",), before, after, (), (), (), (), version
        )

    recipes = (
        recipe("a", ("p1", "q1"), "3.30.5"),
        recipe("b", ("p2", "q2"), "3.30.5"),
        recipe("c", ("p3", "q3"), "3.31.0"),
    )
    found = causes(dataclasses.replace(REBUILDS, triggers=recipes))
    said = sorted(cause_sentence(cause).plain() for cause in found)
    assert said == [
        "cmake recipe changed, same version 3.30.5 (in 2 specs): no other spec rebuilt through it",
        "cmake recipe changed, same version 3.31.0: no other spec rebuilt through it",
    ]


def _uncounted(rebuilds: Rebuilds) -> Rebuilds:
    """The same causes without the triggers' own counts (what a fold then counts per spec)."""
    bare = [dataclasses.replace(t, packages=(), packages_build_only=()) for t in rebuilds.triggers]
    return dataclasses.replace(rebuilds, triggers=tuple(bare))


def test_folds_counted_from_the_triggers_are_those_counted_per_spec(tmp_path: Path) -> None:
    """A cause's packages come from its triggers' own counts when their cascades are disjoint:
    the same rows as counting each spec (synthetic: bench/genindex.py, several triggers a
    cause, packages with more than one spec)."""
    from indexgen import generate

    from snapdiff.compare.diff import diff_snapshots
    from snapdiff.render.rebuildfolds import rebuilt_rows
    from snapdiff.report.causes import causes
    from snapdiff.sources import load_pair

    generate(tmp_path, "version=4,build-tool=2,recipe=2", 5, "--stacks", "4")
    found = diff_snapshots(*load_pair(str(tmp_path / "old"), str(tmp_path / "new")))
    assert found.rebuilds is not None
    for t in found.rebuilds.triggers:  # the counts the compare made: of the specs listed
        assert sum(n for _, n in t.packages) == len(t.cascade)
        assert sum(n for _, n in t.packages_build_only) == len(t.cascade_build_only)
    rows = rebuilt_rows(found, causes(found.rebuilds))
    assert any(len(c.triggers) > 1 and c.cascade for c in causes(found.rebuilds))
    assert any(n > 1 for row in rows for _, n, _ in row.packages)
    bare = _uncounted(found.rebuilds)
    assert rows == rebuilt_rows(dataclasses.replace(found, rebuilds=bare), causes(bare))


def test_a_cause_whose_triggers_overlap_is_counted_per_spec(tmp_path: Path) -> None:
    """zlib-ng's two triggers both reach n2n: their own counts would count it twice."""
    from snapdiff.render.rebuildfolds import rebuilt_rows
    from snapdiff.report.causes import causes

    names = {c.hash: c.name for c in REBUILDS.cascades}

    def counts(specs: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
        found: dict[str, int] = {}
        for spec in specs:
            found[names[spec]] = found.get(names[spec], 0) + 1
        return tuple(sorted(found.items(), key=lambda item: (-item[1], item[0])))

    counted = dataclasses.replace(
        REBUILDS,
        triggers=tuple(
            dataclasses.replace(
                t, packages=counts(t.cascade), packages_build_only=counts(t.cascade_build_only)
            )
            for t in REBUILDS.triggers
        ),
    )
    pages = report(tmp_path)
    rows = rebuilt_rows(dataclasses.replace(pages, rebuilds=counted), causes(counted))
    assert rows == rebuilt_rows(pages, causes(REBUILDS))
    assert rows[0].packages == (("py-numpy", 3, 1), ("hdf5", 1, 1))  # n2n once, not twice


def test_a_template_has_the_reports_rebuilds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`report` in a template is the JSON report (docs/templates.md), its `rebuilds` too."""
    template = tmp_path / "mine.md.j2"
    template.write_text("{{ report.rebuilds.triggers | length }} triggers\n")
    case = Path(__file__).parents[1] / "cases" / "causes-generated"
    code, out, err = run(
        [str(case / "old"), str(case / "new"), "--template", str(template)], capsys
    )
    expected = json.loads((case / "expected.json").read_text())["rebuilds"]["triggers"]
    assert code == 0, err
    assert out.startswith(f"{len(expected)} triggers") and len(expected) > 1


CASE = Path(__file__).parents[1] / "cases" / "causes-generated"


@pytest.mark.parametrize("form", ["markdown", "text"])
def test_all_causes_names_every_cause_on_the_first_screen(
    form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Six causes: five and "… and 1 more cause" by default; with --all-causes, all six and no
    such line; the rest of the output as it was (the Markdown's section of packages rebuilt per
    cause says the sixth, which rebuilt nothing else, as a line of its own either way)."""
    sides = [str(CASE / "old"), str(CASE / "new"), "--format", form]
    code, whole, _ = run([*sides, "--all-causes"], capsys)
    assert code == 0
    code, cut, _ = run(sides, capsys)
    assert "… and 1 more cause" in cut and "more cause" not in whole
    sixth = "mebululaio target x86_64_v3 → zen5: no other spec rebuilt through it"
    if form == "markdown":
        sixth = "`mebululaio` target `x86_64_v3` → `zen5`: no other spec rebuilt through it"
        assert len(_first_screen(whole)) == len(_first_screen(cut))
        assert f"- {sixth}" in _first_screen(whole) and f"- {sixth}" not in _first_screen(cut)
    assert whole.count(sixth) == cut.count(sixth) + 1
    if form == "markdown":  # the marker's digest is of what the report says
        whole = whole.replace(whole.split("\n", 1)[0], cut.split("\n", 1)[0])
    assert whole.replace(sixth, "… and 1 more cause", 1) == cut  # the first: the first screen's


def test_a_cause_that_rebuilt_nothing_else_keeps_its_values_inert(tmp_path: Path) -> None:
    """Its line is no fold: said in Markdown's code spans like every other line, never inside
    an inline `<code>` tag, whose text CommonMark would still read as links and images."""
    from markdown_it import MarkdownIt

    link, image = "[x](https://evil.example)", "![i](https://evil.example/i.png)"
    trigger = dataclasses.replace(
        REBUILDS.triggers[0],
        name=link,
        before=(("version", image),),
        after=(("version", "2.0"),),
        cascade=(),
        cascade_build_only=(),
    )
    rebuilds = Rebuilds((trigger,), (), (), (), ())
    html = MarkdownIt("commonmark").render(render_markdown(report(tmp_path, rebuilds)))
    assert "<a " not in html and "<img" not in html
    assert "[x](https://evil.example)" in html  # said, as text


def test_a_causes_json_record_lists_its_first_stacks_and_packages_and_counts_the_rest() -> None:
    """A cause reaching a stack and a package per spec (a ladder whose steps are built in
    stacks of their own) would make the JSON quadratic: its record lists the first
    CAUSE_LISTS of each and counts the rest."""
    stacks = tuple(f"stack-{i:03}" for i in range(100))
    packages = tuple((f"p{i:03}", 1) for i in range(45))
    trigger = dataclasses.replace(REBUILDS.triggers[0], stacks=stacks, packages=packages)
    said = rebuilds_to_dict(dataclasses.replace(REBUILDS, triggers=(trigger,)))["triggers"][0]
    assert said["stacks"] == list(stacks[:CAUSE_LISTS]) and said["stacks_more"] == 70
    assert [p["name"] for p in said["packages"]] == [n for n, _ in packages[:CAUSE_LISTS]]
    assert said["packages_more"] == 15
    whole = rebuilds_to_dict(REBUILDS)["triggers"][0]
    assert whole["stacks"] == list(REBUILDS.triggers[0].stacks) and whole["stacks_more"] == 0
