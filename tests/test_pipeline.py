"""Pipeline use: size budgets, sticky markers, gates, templates, configuration, CI recipes."""

from __future__ import annotations

import json
import random
import re
import shlex
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from pagegen import spec, write_page

from snapdiff.budget import PRESETS, fit, size
from snapdiff.cli import main
from snapdiff.diff import diff_snapshots
from snapdiff.options import parser
from snapdiff.render import MarkdownRenderer, _environment
from snapdiff.sections import CUT_ORDER, SECTIONS, SectionId
from snapdiff.sources import load_pair

ROOT = Path(__file__).parent.parent
V1, V2 = str(ROOT / "snapshots" / "v1"), str(ROOT / "snapshots" / "v2")
TITLES = {s.id: s.title for s in SECTIONS}


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A synthetic pair whose full Markdown is well over a megabyte: every kind of change."""
    root = tmp_path_factory.mktemp("big")
    old, new = root / "old", root / "new"
    for i in range(6600):
        name = f"pkg-{i:04d}"
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


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def shown_and_cut(text: str) -> dict[str, tuple[int, int]]:
    """Per section heading: table rows (or folded package entries) shown, and rows said cut."""
    found = {}
    for part in re.split(r"\n### ", text)[1:]:
        title, _, body = part.partition("\n")
        rows = len(re.findall(r"^\| (?!Package \||Stack \||Platform \||:--)", body, re.M))
        rows += body.count("<details><summary><code>")
        more = re.search(r"… (\d+) more", body)
        found[title] = (rows, int(more.group(1)) if more else 0)
    return found


def test_every_preset_keeps_within_budget_with_counts_intact(renderer: MarkdownRenderer) -> None:
    data, summary = renderer.data, renderer.data["summary"]
    uncut = renderer()
    assert size(uncut) > PRESETS["github-summary"], "the case must need cutting everywhere"
    totals = shown_and_cut(uncut)
    assert all(cut == 0 for _, cut in totals.values())
    for preset, budget in PRESETS.items():
        text = renderer.fitted(budget)
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
        assert kept == sections["Version updates"][0] or kept == 500  # downgrades go last


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


@pytest.mark.parametrize("seed", range(30))
def test_fit_keeps_the_most_rows_that_fit(seed: int) -> None:
    """Rows of uneven length (synthetic sections), so that guessing from sizes is often wrong."""
    rng = random.Random(seed)
    totals: dict[SectionId, int] = {name: rng.randint(0, 150) for name, _ in CUT_ORDER}
    lengths = {name: [rng.choice((4, 9, 30, 250)) for _ in range(n)] for name, n in totals.items()}
    renders = []

    def render(limits: dict[SectionId, int]) -> str:
        renders.append(1)
        text = "title\n"
        for name, total in totals.items():
            rows = limits.get(name, total)
            text += "".join("x" * n + "\n" for n in lengths[name][:rows])
            text += f"… {total - rows} more\n" if rows < total else ""
        return text

    downgrades, budget = rng.randint(0, 5), rng.randint(100, size(render({})))
    expected = _cut_one_row_at_a_time(render, totals, downgrades, budget)
    renders.clear()
    found = fit(render, totals, downgrades, budget)
    assert expected is not None, "budgets from 100 up always fit the floors here"
    assert found == expected and size(found) <= budget
    assert len(renders) <= 2 * len(CUT_ORDER) + 2 * max(totals.values()).bit_length()


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


def test_a_tiny_budget_still_fits(
    renderer: MarkdownRenderer, capsys: pytest.CaptureFixture[str]
) -> None:
    text = renderer.fitted(500)
    assert size(text) <= 500 and "cut to fit 500 characters" in text
    assert run([V1, V2, "--max-chars", "499"], capsys)[0] == 2


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


def pair(tmp_path: Path, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    for side, pages in (("old", old), ("new", new)):
        for name, specs in pages.items():
            write_page(tmp_path / side, name, specs)
    return [str(tmp_path / "old"), str(tmp_path / "new")]


BASE = {"a": [spec("a1", "1.0", ("e4s", "root"))], "b": [spec("b1", "2.0", ("e4s", "root"))]}
GATE_CASES = {
    "nothing": (BASE, set()),
    "upgrade": (dict(BASE, a=[spec("a2", "1.1", ("e4s", "root"))]), {"any", "removed-specs"}),
    "downgrade": (
        dict(BASE, a=[spec("a2", "0.9", ("e4s", "root"))]),
        {"any", "removed-specs", "downgrade"},
    ),
    "stack left": (dict(BASE, a=[spec("a1", "1.0", ("root",))]), {"any", "stack-loss"}),
    "package gone": ({"b": BASE["b"]}, {"any", "removed-packages", "removed-specs", "stack-loss"}),
    "stack gone": (
        {k: [dict(s, stacks=["root"]) for s in v] for k, v in BASE.items()},
        {"any", "stack-loss"},
    ),
    "added": (dict(BASE, c=[spec("c1", "1.0")]), {"any"}),
}


@pytest.mark.parametrize("case", sorted(GATE_CASES))
def test_each_gate_fails_exactly_when_its_change_is_present(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new, expected = GATE_CASES[case]
    sides = pair(tmp_path, BASE, new)
    gates = ["any", "removed-packages", "removed-specs", "downgrade", "stack-loss"]
    for gate in gates:
        out = tmp_path / f"{gate}.md"
        code, _, err = run([*sides, "--fail-on", gate, "-o", str(out)], capsys)
        assert code == (1 if gate in expected else 0), (case, gate, err)
        assert out.exists()  # the report is written either way
        assert err.count("snapdiff: gate failed:") == (gate in expected)
    code, _, err = run([*sides, "--fail-on", ",".join(gates), "-o", str(tmp_path / "all")], capsys)
    assert err.count("\n") == len(expected) and code == (1 if expected else 0)


def test_an_unknown_gate_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([V1, V2, "--fail-on", "downgrades"], capsys)
    assert code == 2 and "--fail-on: unknown gate 'downgrades'" in err


def test_a_template_file_and_a_template_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = tmp_path / "mine.md.j2"
    own.write_text(
        "{{ summary.version_bumps }} bumps in {{ report.new.source }}\n"
        "{% for p in sections.bumps.rows %}{{ p.name }} {% endfor %}\n"
    )
    code, out, _ = run([V1, V2, "--template", str(own)], capsys)
    assert code == 0
    assert out == f"5 bumps in `{V2}`\n`py-build` `py-jax` `py-keras` `py-ml-dtypes` `py-mpi4py` "
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "report.md.j2").write_text("overridden {{ has_changes }}\n")
    assert run([V1, V2, "--template-dir", str(folder)], capsys)[1] == "overridden True\n"


@pytest.fixture
def template_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Jinja's per-user cache of compiled templates in a temporary directory of the test's own.

    Clearing the environments between runs stands for a new process.
    """
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    _environment.cache_clear()
    yield temp
    _environment.cache_clear()


def test_compiled_templates_are_kept_and_an_edited_one_is_compiled_again(
    template_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = tmp_path / "mine.md.j2"
    own.write_text("first {{ summary.version_bumps }}\n")
    assert run([V1, V2, "--template", str(own)], capsys)[1] == "first 5\n"
    kept = list(template_cache.glob("_jinja2-cache-*/*.cache"))
    assert len(kept) == 1
    _environment.cache_clear()
    own.write_text("second {{ summary.version_bumps }}\n")
    assert run([V1, V2, "--template", str(own)], capsys)[1] == "second 5\n"
    kept[0].write_bytes(b"not what Jinja wrote")
    _environment.cache_clear()
    assert run([V1, V2, "--template", str(own)], capsys)[1] == "second 5\n"


def test_markdown_without_a_usable_template_cache(
    template_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = run([V1, V2], capsys)[1]
    blocked = template_cache / "a-file"
    blocked.write_text("")
    tempfile.tempdir = str(blocked)  # restored by the fixture's monkeypatch
    _environment.cache_clear()
    assert run([V1, V2], capsys)[1] == expected


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("line one\n{% for x in %}\n", ":2", "template error"),
        ("ok\n\n{{ no_such_name }}\n", ":3", "'no_such_name' is undefined"),
        ("{{ report.nope.deeper }}\n", ":1", "has no attribute 'nope'"),
    ],
)
def test_a_broken_template_names_its_file_and_line(
    text: str, where: str, what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.md.j2"
    broken.write_text(text)
    out = tmp_path / "out.md"
    code, _, err = run([V1, V2, "--template", str(broken), "-o", str(out)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert f"snapdiff: error: {broken}{where}: " in err and what in err
    assert not out.exists()


def test_configuration_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".snapdiff.yaml").write_text("format: json\npackage: [py-jax]\nexit_code: true\n")
    code, out, _ = run([V1, V2], capsys)
    data = json.loads(out)
    assert code == 1 and data["filters"] == {"package": ["py-jax"]}
    code, out, _ = run([V1, V2, "--format", "markdown", "--package", "py-keras"], capsys)
    assert out.startswith("<!--") and "`py-keras`" in out and "`py-jax`" not in out


def test_configuration_at_the_repository_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".snapdiff.yaml").write_text("format: json\n")
    (tmp_path / "deep" / "er").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "deep" / "er")
    assert json.loads(run([V1, V2], capsys)[1])["schema_version"] == 1
    other = tmp_path / "other.yaml"
    other.write_text("for: github\n")
    assert run([V1, V2, "--config", str(other)], capsys)[1].startswith("<!--")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("formt: json\n", "unknown option 'formt' (did you mean 'format'?)"),
        ("max_char: 1000\n", "unknown option 'max_char' (did you mean 'max-chars'?)"),
        ("exit-code: maybe\n", "exit-code must be true or false"),
        ("format: [json]\n", "format must be a single value"),
        ("format: xml\n", "argument -f/--format: invalid choice: 'xml'"),
        ("- a list\n", "the configuration is not a mapping of options"),
    ],
)
def test_bad_configuration_names_the_file(
    content: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    code, _, err = run([V1, V2, "--config", str(path)], capsys)
    assert code == 2 and err.startswith(f"snapdiff: error: {path}: ") and expected in err


@pytest.mark.parametrize("recipe", ["github-actions.yml", "gitlab-ci.yml"])
def test_ci_recipes_parse_and_use_real_options(recipe: str) -> None:
    text = (ROOT / "docs" / recipe).read_text()
    assert yaml.safe_load(text)
    options = {o for a in parser()._actions for o in a.option_strings}
    used = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", text))
    assert {"--for", "--full-report", "--fail-on", "--output"} <= used
    assert used <= options | {"--header", "--data"}  # curl's own, in the GitLab recipe
    commands = [line for line in text.splitlines() if line.strip().startswith("snapdiff ")]
    assert commands and all(shlex.split(c.replace("\\", ""))[0] == "snapdiff" for c in commands)
