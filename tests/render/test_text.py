"""`--format text`: the terminal view, coloured on a terminal unless NO_COLOR."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from clirun import V1, V2, run
from pagegen import spec, write_page

from snapdiff.compare.diff import diff_snapshots
from snapdiff.render.text import render_text
from snapdiff.sources import load_pair


def test_one_line_per_version_change_grouped(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([V1, V2, "--format", "text"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"snapdiff: {V1} → {V2}"
    assert lines[1] == "packages 5 → 5 (+0 −0 ~5)"
    upgrades = lines[lines.index("upgrades (5)") + 1 : lines.index("upgrades (5)") + 6]
    assert "  py-mpi4py 3.1.5 → 4.0.1 (major)" in upgrades
    assert "stacks removed (3)" in lines and "  e4s-power (21 specs)" in lines
    assert "\x1b" not in out  # not a terminal: no colour
    # five stacks moved, some along two dimensions: counted and said once per stack
    assert "stacks moved (5)" in lines
    said = "  ml-darwin-aarch64-mps: os ventura → sequoia; compiler apple-clang@15.0.0 → "
    assert said + "apple-clang@16.0.0, no compiler (none) (19 → 25 specs)" in lines


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("no_color", "coloured"), [("", True), ("1", False)])
def test_colour_on_a_terminal_unless_no_color(
    no_color: str, coloured: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from snapdiff.cli import main

    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    monkeypatch.setenv("NO_COLOR", no_color)
    assert main([V1, V2, "--format", "text"]) == 0
    assert ("\x1b[1m\x1b[32mupgrades (5)\x1b[0m" in terminal.getvalue()) == coloured


@pytest.mark.parametrize(
    ("when", "terminal", "coloured"),
    [("always", False, True), ("never", True, False), ("auto", False, False), ("auto", True, True)],
)
def test_color_always_never_or_auto(
    when: str, terminal: bool, coloured: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`--color always` colours a pipe and a file too, `never` not even a terminal; `auto` only a
    terminal (NO_COLOR unset)."""
    from snapdiff.cli import main

    stdout = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr("sys.stdout", stdout)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert main([V1, V2, "--format", "text", "--color", when]) == 0
    assert ("\x1b[1m\x1b[32mupgrades (5)\x1b[0m" in stdout.getvalue()) == coloured
    written = tmp_path / "out.txt"
    assert main([V1, V2, "--format", "text", "--color", when, "-o", str(written)]) == 0
    assert ("\x1b[" in written.read_text(encoding="utf-8")) == (when == "always")


def test_no_change_and_data_kept_on_one_line() -> None:
    report = diff_snapshots(*load_pair(V1, V1))
    assert render_text(report).splitlines()[1] == "no changes: 325 specs of 5 packages"


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Older real pages; the newest; py-keras gone (a subject with a terminal escape); back."""
    import shutil

    from gitrepo import commit, git, place
    from pagegen import HISTORY, SEEDS

    root = tmp_path_factory.mktemp("history")
    git(root, "init", "-q", "-b", "main")
    place(root, HISTORY)
    commit(root, "base", 1)
    shutil.rmtree(root / "_cache")
    place(root, SEEDS)
    commit(root, "newest pages", 2)
    shutil.rmtree(root / "_cache" / "develop" / "py-keras")
    commit(root, "py-keras lost \x1b[31m", 3)
    place(root, [s for s in SEEDS if "py-keras" in s.read_text()])
    commit(root, "py-keras back", 4)
    return root


def test_log_has_a_text_view(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each step's short id, date and subject (escaped), its counts and version changes; the
    packages over the range and the flapping specs: what the Markdown and the JSON say."""
    argv = ["log", "HEAD~3..HEAD", "--repo", str(history)]
    code, out, _ = run([*argv, "--format", "json"], capsys)
    steps = json.loads(out)["steps"]
    code, out, err = run([*argv, "--format", "text"], capsys)
    assert code == 0 and not err and "\x1b" not in out
    lines = out.splitlines()
    assert lines[0].startswith("snapdiff log: catalogue history, ")
    assert lines[1] == "3 commits changed the catalogue"
    heads = [f"{s['commit'][:7]} {s['date'][:10]} {s['subject']}" for s in steps]
    heads[1] = heads[1].replace("\x1b", "\\x1b")
    assert [line for line in lines if line[:7] in {s["commit"][:7] for s in steps}] == heads
    newest = lines.index(heads[2])
    assert lines[newest + 1].startswith("  packages +0 −0 ~5; specs +470 −325 ~0 (11 rebuilt")
    assert "    py-jax 0.4.31 → 0.4.38" in lines and "    hep appeared (3 specs)" in lines
    assert f"  py-keras 3.1.0 → 3.9.2; added in {steps[0]['commit'][:7]}" in lines
    assert "flapping specs: left and came back within the range (130)" in lines
    code, out, _ = run([*argv, "--format", "text", "--color", "always"], capsys)
    assert f"\x1b[1m{heads[0]}\x1b[0m" in out.splitlines()


def test_with_several_tags_a_stack_move_names_its_tag(tmp_path: Path) -> None:
    old = {"v1.0": [spec("a", "1.0", ("e4s",))], "develop": [spec("b", "1.0", ("e4s",))]}
    new = {  # both tags change
        "v1.0": [spec("a", "1.0", ("e4s",)), spec("d", "1.1", ("e4s",))],
        "develop": [spec("c", "1.0", ("e4s",), os="rhel8")],
    }
    for side, pages in (("old", old), ("new", new)):
        for tag, specs in pages.items():
            write_page(tmp_path / side, "x", specs, tag=tag)
    text = render_text(diff_snapshots(*load_pair(str(tmp_path / "old"), str(tmp_path / "new"))))
    assert "  develop/e4s: os ubuntu22.04 → rhel8 (1 → 1 spec)" in text.splitlines()


def test_text_carries_the_markdown_s_explanations(capsys: pytest.CaptureFixture[str]) -> None:
    """The no-compiler note, every sentence of each package and the legend of `~`, as in the
    Markdown (without its code spans)."""
    from snapdiff.render.markdown import render_markdown

    code, out, _ = run([V1, V2, "--format", "text"], capsys)
    assert code == 0
    assert "~ changed: a package with a spec added, removed or changed" in out
    assert (
        "  From a compiler to no compiler (none): 6 configurations of 3 packages (py-build, "
        "py-jax, py-keras), 131 → 100 specs" in out
    )
    report = diff_snapshots(*load_pair(V1, V2))
    for package in report.packages:
        for change in package.changes:
            assert f"  - {change.sentence.plain()}\n" in out
    said = [line[2:].replace("`", "") for line in render_markdown(report).splitlines()]
    assert (
        "    - linux compiler gcc@11.4.0 → no compiler (none): 1 configuration, 55 → 7 specs; "
        "versions 0.4.23, 0.4.31 → 0.4.38" in out.splitlines()
    )
    assert (
        "linux compiler gcc@11.4.0 → no compiler (none): 1 configuration, 55 → 7 specs; "
        "versions 0.4.23, 0.4.31 → 0.4.38" in said
    )


def test_every_output_labels_by_the_report_s_one_rule() -> None:
    """`Report.labeller` is the label rule: `tag/name` when the changes span several tags (the
    many-packages case), the bare name otherwise (downgrade); text and Markdown both follow it."""
    from snapdiff.render.markdown import render_markdown

    cases = Path(__file__).parents[1] / "cases"
    for case, several in (("many-packages", True), ("downgrade", False)):
        report = diff_snapshots(*load_pair(str(cases / case / "old"), str(cases / case / "new")))
        label = report.labeller()
        assert label.several is several
        text, markdown = render_text(report), render_markdown(report)
        for p in report.packages:
            assert label(p.tag, p.name) == (f"{p.tag}/{p.name}" if several else p.name)
            assert f"  {label(p.tag, p.name)}" in text
            assert f"`{label(p.tag, p.name)}`" in markdown


CASES = Path(__file__).parents[1] / "cases"
_SPAN = re.compile(r"(`+)( ?)(.+?)\2\1")
_REBUILDS = "**Why specs were rebuilt:**"
_NOTES = ("`root`", "From a compiler to no compiler", "Specs added (", "Specs removed (")


def _unspanned(line: str) -> str:
    """A Markdown line with each code span replaced by its text (`|` unescaped)."""
    return _SPAN.sub(lambda span: span.group(3).replace("\\|", "|"), line)


def _said(markdown: str) -> list[str]:
    """The notes and summary lines of a Markdown report, then every explanation sentence and
    configuration line of its package-by-package section."""
    lines = markdown.splitlines()
    said = [line for line in lines if line.startswith(_NOTES)]
    if _REBUILDS in lines:  # the first screen's lines on why specs were rebuilt, unmarked
        start = lines.index(_REBUILDS) + 2
        end = lines.index("", start)
        said += [re.sub(r"^- (\*\*⚠️ )?|\*\*$", "", line) for line in lines[start:end]]
    if "### What changed, package by package" in lines:
        section = lines[lines.index("### What changed, package by package") + 1 :]
        for line in section:
            if line.startswith("### "):
                break
            if line.lstrip().startswith("- "):
                said.append(line.lstrip()[2:])
    return [_unspanned(line) for line in said]


@pytest.mark.parametrize(
    "case", sorted(p.name for p in CASES.iterdir() if (p / "expected.txt").exists())
)
def test_the_text_says_every_note_and_explanation_of_the_markdown(case: str) -> None:
    markdown = (CASES / case / "expected.md").read_text(encoding="utf-8")
    text = (CASES / case / "expected.txt").read_text(encoding="utf-8")
    said = _said(markdown)
    assert said or case == "stack-order-only", "nothing to compare"
    for line in said:
        assert line in text, line


def test_a_package_s_sentences_come_in_the_markdown_s_order(tmp_path: Path) -> None:
    """Changes, then what happened to specs kept ("1 spec joined `ml`"), in both formats."""
    from snapdiff.render.markdown import render_markdown

    old = [spec("a", "1.0"), spec("b", "1.0")]
    new = [spec("a", "1.0", ("e4s", "ml", "root")), spec("c", "1.1"), spec("d", "1.1", os="rhel8")]
    write_page(tmp_path / "old", "pkg", old)
    write_page(tmp_path / "new", "pkg", new)
    report = diff_snapshots(*load_pair(str(tmp_path / "old"), str(tmp_path / "new")))
    markdown = render_markdown(report).split("package by package")[1]
    said_md = [line[2:].replace("`", "") for line in markdown.splitlines() if line.startswith("- ")]
    text = render_text(report).split("why specs were added and removed")[1]
    said_text = [line[6:] for line in text.splitlines() if line.startswith("    - ")]
    assert said_md == said_text and said_md[-1] == "1 spec joined ml", (said_md, said_text)


def test_the_text_says_every_line_the_markdown_says_of_rebuilds(tmp_path: Path) -> None:
    """With hand-built causes (tests/rebuildsgen.py): each first-screen line, in its order."""
    from rebuildsgen import report

    from snapdiff.render.markdown import render_markdown

    found = report(tmp_path)
    said, text = _said(render_markdown(found)), render_text(found)
    assert [line for line in said if line not in text] == []
    ours = ("zlib-ng", "cmake", "1 spec rebuilt", "9 distinct", "3 specs depend")
    rebuilds = [line for line in said if line.startswith(ours)]
    assert len(rebuilds) == 6  # two causes, hash scheme, unexplained, total, missing binaries
    positions = [text.index(line) for line in rebuilds]
    assert positions == sorted(positions)


def test_the_text_says_the_gates_the_markdown_s_first_screen_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "gates.yaml"
    config.write_text(
        "fail-on: [removed-specs]\nwarn-on: [stack-loss]\n"
        'allow: [{gate: removed-specs, package: "py-jax", reason: "moved to the new stacks"}]\n'
    )
    argv = [str(V1), str(V2), "--config", str(config)]
    _, markdown, _ = run(argv, capsys)
    code, text, _ = run([*argv, "-f", "text"], capsys)
    assert code == 1
    said = re.findall(
        r"^- \*\*(?:❌ Gate failed|⚠️ Gate warning|Exemption used), ([^:]+):\*\* (.*)$",
        markdown,
        re.M,
    )
    gates = text.split("\ngates (")[1].split("\n\n")[0].splitlines()[1:]
    assert len(gates) == len(said) == 3
    for (gate, words), line in zip(said, gates, strict=True):
        assert gate.strip("`") in line and words.replace("`", "").split(" (")[0] in line
    assert gates[0].startswith("  failed: removed-specs (") and gates[1].startswith("  warning:")
    assert gates[2] == (
        "  exemption used, removed-specs: changes of packages py-jax not counted "
        "(moved to the new stacks)"
    )


def test_the_text_view_names_its_filters(capsys: pytest.CaptureFixture[str]) -> None:
    """As the Markdown does, changes or none, each value on one line."""
    code, out, _ = run([V1, V2, "-f", "text", "--package", "py-jax", "--package", "py-ml*"], capsys)
    assert code == 0 and out.splitlines()[1] == "only specs matching: package py-jax, py-ml*"
    code, out, _ = run([V1, V1, "-f", "text", "--stack", "ml-*", "--tag", "develop"], capsys)
    assert out.splitlines()[1:3] == [
        "only specs matching: tag develop; stack ml-*",
        "no changes: 183 specs of 5 packages",
    ]
    code, out, _ = run([V1, V2, "-f", "text"], capsys)
    assert "only specs matching" not in out
