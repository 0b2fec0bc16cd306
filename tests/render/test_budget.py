"""Size budgets (`--max-chars`, `--for`): cut by priority, counts intact, the full report beside."""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from clirun import V1, V2, run
from pagegen import spec, write_page

from snapdiff.cli import main
from snapdiff.compare.diff import diff_snapshots
from snapdiff.render.budget import PRESETS, fit, size
from snapdiff.render.markdown import MarkdownRenderer, templates_dir
from snapdiff.render.sections import CUT_ORDER, SECTIONS, SectionId
from snapdiff.sources import load_pair

TITLES = {s.id: s.title for s in SECTIONS}


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A synthetic pair whose full Markdown (about 80 KB) must be cut for `--for github` and
    any smaller budget: every kind of change."""
    root = tmp_path_factory.mktemp("big")
    old, new = root / "old", root / "new"
    for i in range(400):
        name = f"pkg-{i:04d}"  # synthetic
        kind = i % 6
        stacks = ("e4s", "root", f"s{i % 40}")
        before = [spec(f"o{i:04d}{j}", f"1.{i % 7}.{j}", stacks, target=f"t{j}") for j in range(3)]
        if kind != 5:
            write_page(old, name, before)
        if kind == 0:  # upgraded on every configuration
            write_page(
                new,
                name,
                [spec(f"n{i:04d}{j}", f"2.{i % 7}.{j}", stacks, target=f"t{j}") for j in range(3)],
            )
        elif kind == 1 and i % 12 == 1:  # a downgrade
            write_page(new, name, [spec(f"n{i:04d}0", "0.9", stacks)])
        elif kind == 2:  # rebuilt, moved to a new OS
            write_page(
                new,
                name,
                [
                    spec(f"n{i:04d}{j}", f"1.{i % 7}.{j}", stacks, target=f"t{j}", os="ubuntu24.04")
                    for j in range(3)
                ],
            )
        elif kind == 3:  # left a stack
            write_page(new, name, [dict(s, stacks=["root"]) for s in before])
        elif kind in (4, 5):  # unchanged / added
            write_page(new, name, before if kind == 4 else [spec(f"a{i:04d}", "3.0", stacks)])
    return str(old), str(new)


@pytest.fixture(scope="module")
def renderer(big: tuple[str, str]) -> MarkdownRenderer:
    """The big pair's report, loaded once; each test renders it under its own budget."""
    return MarkdownRenderer(diff_snapshots(*load_pair(*big)))


def shown_and_cut(text: str) -> dict[str, tuple[int, int]]:
    """Per section heading: table rows (or folded package entries) shown, and rows said cut."""
    found = {}
    for part in re.split(r"\n### ", text)[1:]:
        title, _, body = part.partition("\n")
        rows = len(re.findall(r"^\| (?!Package \||Stack \||Platform \||:--)", body, re.M))
        rows += body.count("<details><summary><code>")
        if title == "Other changed packages":  # a list, not a table
            rows += len(re.findall(r"^- ", body, re.M))
        more = re.search(r"… ([\d,]+) more", body)
        found[title] = (rows, int(more.group(1).replace(",", "")) if more else 0)
    return found


BUDGETS = {**PRESETS, "small": 20_000, "medium": 40_000}


@pytest.mark.parametrize("preset", sorted(BUDGETS))
def test_every_budget_keeps_within_it_with_counts_intact(
    renderer: MarkdownRenderer, preset: str
) -> None:
    """Every preset of `--for`, and budgets smaller than the case: fitted, never over."""
    data, summary = renderer.data, renderer.data["summary"]
    uncut = renderer()
    assert PRESETS["github"] < size(uncut) < PRESETS["github-release"], "cut by one preset"
    assert size(uncut) < PRESETS["gitlab"], "and whole under the others"
    totals = shown_and_cut(uncut)
    assert all(cut == 0 for _, cut in totals.values())
    budget = BUDGETS[preset]
    text = renderer.fitted(budget)
    if size(uncut) <= budget:
        assert text == uncut
    else:
        assert size(text) <= budget, preset
        assert text.startswith("<!-- snapdiff report sha256:")
        assert (
            f"| Packages | {data['old']['packages']} | {data['new']['packages']} | "
            f"{summary['packages_added']} | {summary['packages_removed']} | "
            f"{summary['packages_changed']} |"
        ) in text
        for title, (rows, cut) in shown_and_cut(text).items():
            assert rows + cut == totals[title][0], (preset, title)
        assert size(text) > budget * 0.9, "cut no more than needed"


@pytest.mark.parametrize("budget", [20_000, 65_536, 300_000])
def test_a_section_is_cut_only_once_every_less_important_one_is_empty(
    renderer: MarkdownRenderer, budget: int
) -> None:
    text = renderer.fitted(budget)
    sections = shown_and_cut(text)
    order = [TITLES[name] for name, _ in CUT_ORDER if name != "bumps"]
    for position, title in enumerate(order):
        if sections.get(title, (0, 0))[1]:  # this one is cut: all before it are empty
            assert all(sections.get(t, (0, 0))[0] == 0 for t in order[:position]), title
    if sections["Version updates"][1]:
        kept = text.count("(downgrade) |")
        downgrades = renderer.data["summary"]["version_downgrades"]
        assert kept in (sections["Version updates"][0], downgrades)  # downgrades go last


def _cut_one_row_at_a_time(
    render: Callable[[dict[SectionId, int]], str],
    totals: dict[SectionId, int],
    downgrades: int,
    budget: int,
) -> str | None:
    """What `fit` must find, the slow and obvious way: sections in CUT_ORDER, a row at a time;
    None when even every section at its floor does not fit."""
    limits: dict[SectionId, int] = {}
    text = render(limits)
    for section, floor in CUT_ORDER:
        if size(text) <= budget:
            return text
        keep = downgrades if floor < 0 else floor
        for rows in range(limits.get(section, totals[section]) - 1, keep - 1, -1):
            limits[section] = rows
            text = render(limits)
            if size(text) <= budget:
                return text
    return None


class Synthetic:
    """Sections of rows of the given lengths, rendered as `fit` asks, with a "… N more" line
    per cut section; counts the renders and the characters rendered."""

    def __init__(self, lengths: dict[SectionId, list[int]]) -> None:
        self.lengths = lengths
        self.totals: dict[SectionId, int] = {name: len(rows) for name, rows in lengths.items()}
        self.renders: list[int] = []

    def render(self, limits: Mapping[SectionId, int]) -> str:
        return self.listing(limits, max(self.totals.values(), default=0))

    def listing(self, limits: Mapping[SectionId, int], most: int) -> str:
        text = "title\n"
        for name, total in self.totals.items():
            rows = limits.get(name, total)
            text += "".join("x" * n + "\n" for n in self.lengths[name][: min(rows, most)])
            text += f"… {total - rows} more\n" if rows < total else ""
        self.renders.append(size(text))
        return text


@pytest.mark.parametrize("listed", [False, True], ids=["whole", "listing"])
@pytest.mark.parametrize("seed", range(30))
def test_fit_keeps_the_most_rows_that_fit(seed: int, listed: bool) -> None:
    """Rows of uneven length (synthetic sections), so that guessing from sizes is often wrong;
    the same text whether over-budget texts are tried listing fewer rows or not."""
    rng = random.Random(seed)
    lengths = {
        name: [rng.choice((4, 9, 30, 250)) for _ in range(rng.randint(0, 150))]
        for name, _ in CUT_ORDER
    }
    report = Synthetic(lengths)
    downgrades, budget = rng.randint(0, 5), rng.randint(100, size(report.render({})))
    expected = _cut_one_row_at_a_time(report.render, report.totals, downgrades, budget)
    report.renders.clear()
    listing = report.listing if listed else None
    found = fit(report.render, report.totals, downgrades, budget, listing)
    assert expected is not None, "budgets from 100 up always fit the floors here"
    assert found == expected and size(found) <= budget
    if not listed:
        bits = max(report.totals.values()).bit_length()
        assert len(report.renders) <= 2 * len(CUT_ORDER) + 2 * bits


@pytest.mark.parametrize(("rows", "longest"), [(3000, 400), (1000, 200)])
def test_fitting_renders_far_less_than_a_long_report_and_as_before_a_short_one(
    rows: int, longest: int
) -> None:
    """Megabytes of rows for a comment of 65,536 characters: texts over the budget are tried
    listing a few rows of each section, so fitting never renders the whole report (a release
    pair's Markdown is megabytes). A report a few budgets long is rendered whole after one
    try, as without tries. The text is the same either way."""
    rng = random.Random(28)
    sections = [s.id for s in SECTIONS][: 9 if rows > 1000 else 2]
    lengths = {name: [rng.randint(20, longest) for _ in range(rows)] for name in sections}
    report, budget = Synthetic(lengths), PRESETS["github"]
    long = size(report.render({}))
    report.renders.clear()
    whole = fit(report.render, report.totals, 0, budget)
    rendered_whole, report.renders[:] = list(report.renders), []
    assert fit(report.render, report.totals, 0, budget, report.listing) == whole
    if long > 10 * budget:
        assert sum(report.renders) < sum(rendered_whole) / 5
        assert max(report.renders) < long / 5
    else:  # one try, then as without them
        assert budget < long < 5 * budget and report.renders[1:] == rendered_whole


def _rows(renderer: MarkdownRenderer) -> tuple[dict[SectionId, int], int]:
    """Rows per section and downgrades, as `MarkdownRenderer.fitted` gives them to `fit`."""
    totals = {s.id: len(renderer.rows[s.id]) for s in SECTIONS}
    bumps = [row["bump"] for row in renderer.rows["bumps"]]
    return totals, sum(1 for bump in bumps if bump and bump["kind"] == "downgrade")


def _cut_whole(renderer: MarkdownRenderer, budget: int) -> str:
    """What `fit` gives rendering every cut whole (no tries), for this renderer's report."""
    return renderer._marked(fit(renderer._render, *_rows(renderer), budget))


def test_the_shipped_template_lists_fewer_rows_in_fewer_characters(
    renderer: MarkdownRenderer,
) -> None:
    """`fit` takes a text listing fewer rows, over the budget, to mean the whole cut is over
    it too: with the shipped template it cuts exactly as trying every cut whole would, with
    budgets tiny next to the report (where tries go on) or not."""
    limits: dict[SectionId, int] = {"bumps": 3}
    whole = size(renderer(limits))
    assert size(renderer._listing(limits, 2)) < size(renderer._listing(limits, 20)) < whole
    assert size(renderer._listing(limits, 10**6)) == whole
    totals, downgrades = _rows(renderer)
    for budget in (20_000, PRESETS["github"]):
        expected = _cut_one_row_at_a_time(renderer, totals, downgrades, budget)
        assert renderer.fitted(budget) == expected
    for budget in (1_000, 1_500, 2_500, 4_000, 7_000):
        assert renderer.fitted(budget) == _cut_whole(renderer, budget), budget


def test_a_template_that_needs_every_row_it_counts_is_cut_whole(
    big: tuple[str, str], tmp_path: Path
) -> None:
    """A try lists fewer rows than it counts; a template indexing `rows` by a count fails on
    one, and is then rendered whole for every cut, as it always was."""
    shipped = (templates_dir() / "report.md.j2").read_text()
    anchor = "{% for t in s.rows %}"
    assert anchor in shipped
    counted = "{% if s.rows %}Last: {{ s.rows[s.total - s.more - 1].label }}\n{% endif %}"
    template = tmp_path / "counted.md.j2"
    template.write_text(shipped.replace(anchor, counted + anchor, 1))
    renderer = MarkdownRenderer(diff_snapshots(*load_pair(*big)), str(template))
    for budget in (1_000, 4_000):
        assert renderer.fitted(budget) == _cut_whole(renderer, budget)


def test_fit_renders_little_even_when_row_lengths_mislead() -> None:
    """One long row then short ones: guessing from sizes alone would step a few rows at a time."""
    lengths = [5000] + [1] * 4000
    renders = []

    def render(limits: dict[SectionId, int]) -> str:
        renders.append(1)
        rows = limits.get("explained", len(lengths))
        return "title\n" + "".join("x" * n + "\n" for n in lengths[:rows])

    budget = 8000
    text = fit(render, {"explained": len(lengths)}, 0, budget)
    short = (budget - len("title\n") - 5001) // 2  # as many short rows as fit after the long one
    assert text.count("\n") == 2 + short
    assert len(renders) <= 2 + len(lengths).bit_length()  # here no more than bisecting (14)


def test_a_text_cut_at_a_line_points_to_the_full_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No section left to cut: the note says where the uncut report is, unless the note would
    then take more than a quarter of the budget."""
    full = tmp_path / "full.md"
    assert main([V1, V2, "--max-chars", "2000", "--full-report", str(full)]) == 0
    text = capsys.readouterr().out
    assert text.endswith(f"\n\n… cut to fit 2000 characters; see `{full}`.\n")
    assert size(text) <= 2000 < size(full.read_text())
    long = tmp_path / ("x" * 200 + ".md")
    assert main([V1, V2, "--max-chars", "600", "--full-report", str(long)]) == 0
    text = capsys.readouterr().out
    assert text.endswith("\n… cut to fit 600 characters.\n") and size(text) <= 600


def test_a_tiny_budget_still_fits(
    renderer: MarkdownRenderer, capsys: pytest.CaptureFixture[str]
) -> None:
    text = renderer.fitted(500)
    assert size(text) <= 500 and "cut to fit 500 characters" in text
    assert run([V1, V2, "--max-chars", "499"], capsys)[0] == 2


def test_without_a_full_report_cut_lines_point_to_none(
    big: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*big, "--for", "github"]) == 0
    cut = capsys.readouterr().out
    assert re.search(r"^… [0-9,]+ more \w+, left out to fit the size limit\.$", cut, re.M)
    assert "full report" not in cut


def test_full_report_is_uncut_and_cut_lines_point_to_it(
    big: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full_md, full_json = tmp_path / "full.md", tmp_path / "full.json"
    assert main([*big, "--for", "github", "--full-report", str(full_md)]) == 0
    cut = capsys.readouterr().out
    assert f"see `{full_md}`" in cut
    assert main([*big, "--full-report", str(full_md)]) == 0
    assert full_md.read_text() == capsys.readouterr().out.replace(f"see `{full_md}`", "")
    cut_md = tmp_path / "c.md"
    assert (
        main([V1, V2, "--for", "github", "--full-report", str(full_json), "-o", str(cut_md)]) == 0
    )
    assert json.loads(full_json.read_text()) == json.loads(
        run([V1, V2, "--format", "json"], capsys)[1]
    )
    assert cut_md.read_text().startswith("<!-- snapdiff report")


def _renderers_built(monkeypatch: pytest.MonkeyPatch) -> list[MarkdownRenderer]:
    """Every MarkdownRenderer made from now on, in order."""
    built: list[MarkdownRenderer] = []
    init = MarkdownRenderer.__init__

    def counted_init(self: MarkdownRenderer, *args: object, **kwargs: object) -> None:
        built.append(self)
        init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(MarkdownRenderer, "__init__", counted_init)
    return built


def test_a_comment_and_its_full_report_are_worked_out_once(
    big: tuple[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The Action's run (`--for github --full-report X.md`): one renderer works out the data of
    both, and a comment that fits is its full report, rendered once."""
    from snapdiff.render import markdown

    built = _renderers_built(monkeypatch)
    rendered: list[object] = []
    render = markdown._render

    def counted_render(*args: object) -> str:
        rendered.append(args[1])
        return render(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(markdown, "_render", counted_render)
    full = tmp_path / "full.md"
    assert main([V1, V2, "--for", "github", "--full-report", str(full)]) == 0
    assert (len(built), len(rendered)) == (1, 1)
    assert full.read_text() == capsys.readouterr().out  # it fits: the comment is the report
    built.clear()
    assert main([*big, "--for", "github", "--full-report", str(full)]) == 0
    cut = capsys.readouterr().out
    assert len(built) == 1 and size(cut) <= PRESETS["github"] < size(full.read_text())


def test_the_job_summary_is_the_github_summary_cut_of_the_same_run(
    big: tuple[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--job-summary FILE`: the Markdown a `--for github-summary` run writes, with the same
    full report, from the run that writes the comment; JSON on stdout leaves it Markdown."""
    full, summary = tmp_path / "full.md", tmp_path / "summary.md"
    sized = ["--full-report", str(full)]
    assert main([*big, *sized, "--for", "github-summary"]) == 0
    expected = capsys.readouterr().out
    built = _renderers_built(monkeypatch)
    assert main([*big, *sized, "--for", "github", "--job-summary", str(summary)]) == 0
    comment = capsys.readouterr().out
    assert summary.read_text() == expected != comment and len(built) == 1
    assert f"see `{full}`" in comment and size(comment) <= PRESETS["github"]
    assert main([V1, V2, "--format", "json", "--job-summary", str(summary)]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]
    assert summary.read_text() == run([V1, V2, "--for", "github-summary"], capsys)[1]


def test_a_job_summary_over_its_limit_is_cut_as_a_sized_run_cuts_it(
    big: tuple[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A report longer than the job summary's limit (here lowered to 20,000 characters): the
    summary is what `--max-chars 20000` writes with the same full report, its cut lines
    pointing to it."""
    full, summary = tmp_path / "full.md", tmp_path / "summary.md"
    assert main([*big, "--full-report", str(full), "--max-chars", "20000"]) == 0
    expected = capsys.readouterr().out
    monkeypatch.setitem(PRESETS, "github-summary", 20_000)
    argv = [*big, "--full-report", str(full), "--job-summary", str(summary), "-o", os.devnull]
    assert main(argv) == 0
    assert summary.read_text() == expected and size(expected) <= 20_000
    assert f"see `{full}`" in expected and size(full.read_text()) > 20_000


@pytest.mark.parametrize("other", ["-o", "--full-report"])
def test_two_outputs_to_one_file_are_refused_before_any_work(
    other: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.md"
    assert (
        main(
            [
                V1,
                V2,
                other,
                str(path),
                "--job-summary",
                str(tmp_path / ".." / path.parent.name / path.name),
            ]
        )
        == 2
    )
    said = capsys.readouterr().err.splitlines()
    assert said == [
        "snapdiff: error: --job-summary: names the same file as"
        f" {'--output' if other == '-o' else other} (give each output a file of its own)"
    ]
    assert not path.exists()
    assert main([V1, V2, "-o", os.devnull, "--job-summary", os.devnull]) == 0  # a device: fine


def test_marker_digest_follows_content_not_sources(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    shutil.copytree(V1, tmp_path / "a")
    shutil.copytree(V2, tmp_path / "b")
    first = run([V1, V2], capsys)[1].splitlines()[0]
    again = run([str(tmp_path / "a"), str(tmp_path / "b")], capsys)[1].splitlines()[0]
    other = run([V1, V2, "--package", "py-jax"], capsys)[1].splitlines()[0]
    assert re.fullmatch(r"<!-- snapdiff report sha256:[0-9a-f]{32} -->", first)
    assert first == again and first != other


def test_cutting_to_a_budget_leaves_the_whole_report_whole(renderer: MarkdownRenderer) -> None:
    """The context is worked out once and only its sections cut per limit: rendering cut
    versions in between leaves the uncut rendering as it was."""
    whole = renderer()
    budget = size(whole) // 3
    assert size(renderer.fitted(budget)) <= budget
    assert renderer({"stacks": 0, "bumps": 1}) != whole
    assert renderer() == whole
