"""The command line: exit codes, atomic output, one-line errors, the installed script, README."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest
from clirun import run
from pagegen import outputs_under_seeds, spec, write_page

from snapdiff.cli import main
from snapdiff.errors import UsageError
from snapdiff.options import log_parser, parser

ROOT = Path(__file__).parents[2]
V1, V2 = str(ROOT / "snapshots" / "v1"), str(ROOT / "snapshots" / "v2")


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("snapdiff: error: "), err
    assert "Traceback" not in err
    return err


def test_markdown_on_stdout_names_py_ml_dtypes_bump(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([V1, V2]) == 0
    out = capsys.readouterr().out
    assert "| `py-ml-dtypes` | `0.3.1` → `0.4.0` (`minor`) | `0.4.0` | `0.2.0` | +129 −56 |" in out


def test_json_report_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([V1, V2, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data)[:6] == ["schema_version", "old", "new", "summary", "packages", "stacks"]
    assert data["schema_version"] == 1
    assert data["summary"]["version_bumps"] == 5
    dtypes = next(p for p in data["packages"] if p["name"] == "py-ml-dtypes")
    assert dtypes["bump"]["from"] == "0.3.1" and dtypes["bump"]["to"] == "0.4.0"


def test_exit_code_flag(tmp_path: Path) -> None:
    assert main([V1, V1, "--exit-code", "-o", str(tmp_path / "a.md")]) == 0
    assert main([V1, V2, "--exit-code", "-o", str(tmp_path / "b.md")]) == 1
    assert main([V1, V2, "-o", str(tmp_path / "c.md")]) == 0
    assert (tmp_path / "b.md").read_text() == (tmp_path / "c.md").read_text()


def test_output_file_is_replaced_whole_and_not_touched_on_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "notes.md"
    out.write_text("previous notes\n")
    assert main([V1, str(tmp_path / "missing"), "-o", str(out)]) == 2
    assert out.read_text() == "previous notes\n"
    assert os.listdir(tmp_path) == ["notes.md"]  # no temporary file left behind
    one_line_error(capsys)
    assert main([V1, V2, "-o", str(out)]) == 0
    assert out.read_text().split("\n")[1].startswith("## Catalogue changes")


def test_output_to_a_device_writes_to_it_and_leaves_it_a_device(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def drain() -> None:
        with open(fifo, "rb") as reader:
            received.append(reader.read())

    import threading

    reader = threading.Thread(target=drain)
    reader.start()
    assert main([V1, V2, "-o", str(fifo)]) == 0
    reader.join(timeout=10)
    assert received and b"\n## Catalogue changes" in received[0]
    assert not fifo.is_file() and fifo.exists()  # still a pipe, not replaced by a file


def test_dash_as_output_is_stdout_and_refused_for_a_file_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-o -` prints the report, as without -o, and makes no file named `-`; the full report
    and the job summary must be files."""
    monkeypatch.chdir(tmp_path)
    assert main([V1, V2]) == 0
    expected = capsys.readouterr().out
    assert main([V1, V2, "-o", "-"]) == 0
    assert capsys.readouterr().out == expected and os.listdir(tmp_path) == []
    for option in ("--full-report", "--job-summary"):
        assert main([V1, V2, option, "-", "-o", "x.md"]) == 2
        said = f"argument {option}: - (stdout) is for the report itself (-o): name a file"
        assert said in one_line_error(capsys)
        assert os.listdir(tmp_path) == []


def test_output_into_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([V1, V2, "-o", str(tmp_path / "no" / "such" / "x.md")]) == 2
    assert "x.md: cannot write" in one_line_error(capsys)


def test_sigterm_as_a_temporary_output_is_made_leaves_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 47: SIGTERM landing just after the temporary file was made, before snapdiff knew
    its name, left it behind (3 of 40 runs). Its name is recorded before it is made."""
    import signal
    import time

    from snapdiff import output
    from snapdiff.process import terminated_cleanly

    made = output._made

    def then_terminated(temp: str, path: str) -> int:
        found = made(temp, path)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the signal lands here, in whichever thread the kernel gives it to
        return found

    monkeypatch.setattr(output, "_made", then_terminated)
    with terminated_cleanly(), pytest.raises(SystemExit):
        output.write_files((str(tmp_path / "notes.md"), "text"))
    assert list(tmp_path.iterdir()) == []


def test_an_output_that_cannot_be_written_leaves_none_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report, its full report and its job summary: all written, or none (each first
    beside its path, then renamed); a missing folder is said before any work."""
    from snapdiff import output, sources

    names = ["full.md", "summary.md", "notes.md"]
    argv = [V1, V2, "--full-report", "full.md", "--job-summary", "summary.md", "-o", "notes.md"]
    monkeypatch.chdir(tmp_path)
    filled = output._filled

    def full_disk_at_the_last(fd: int, path: str, text: str) -> None:
        if path == "notes.md":
            os.close(fd)
            raise UsageError(path, "cannot write: No space left on device", "free space")
        filled(fd, path, text)

    monkeypatch.setattr(output, "_filled", full_disk_at_the_last)
    with pytest.raises(UsageError, match=r"notes\.md: cannot write"):
        output.write_files(*((name, "text") for name in names))
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no file, no temporary file
    monkeypatch.setattr(output, "_filled", filled)
    assert main(argv) == 0 and sorted(p.name for p in tmp_path.iterdir()) == sorted(names)
    for path in tmp_path.iterdir():
        path.unlink()
    monkeypatch.setattr(sources, "load_pair", None)  # any work would fail otherwise
    assert main([*argv[:-1], str(tmp_path / "no" / "notes.md")]) == 2
    assert "notes.md: cannot write: No such file or directory" in one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []


def test_an_interrupt_as_outputs_are_renamed_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM (a SystemExit here) or ^C right after the first rename: that file is written,
    the interrupt goes on, and the others' temporary files are gone."""
    from snapdiff import output

    renamed = os.replace

    def interrupted(source: str, target: str) -> None:
        renamed(source, target)
        raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        output.write_files(("a.md", "a"), ("b.md", "b"), ("c.md", "c"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


def test_an_interrupt_while_the_command_loads_is_exit_130_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """^C before the command line is loaded (its imports take a moment) ends the process as ^C
    during the command does, not with a traceback of the import it stopped."""
    import sys
    import types

    import snapdiff.__main__ as entry

    class Loading(types.ModuleType):
        def __getattr__(self, name: str) -> object:
            raise KeyboardInterrupt

    def ended(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setitem(sys.modules, "snapdiff.cli", Loading("snapdiff.cli"))
    monkeypatch.setattr(os, "_exit", ended)
    with pytest.raises(SystemExit) as exited:
        entry.run()
    assert exited.value.code == 130


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["only-one"], "give OLD and NEW, or one range A..B"),
        ([], "the following arguments are required: OLD"),
        ([V1, V2, "--format", "xml"], "argument -f/--format: invalid choice: 'xml'"),
        ([V1, V2, "--bogus"], "unrecognized arguments: --bogus"),
        ([V1, "/no/such/dir"], "/no/such/dir: no such directory"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert expected in one_line_error(capsys)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('---\ntitle: "x"\nlayout: cache\n', "unterminated front matter"),
        (
            '---\ntitle: "x"\nlayout: cache\ncategories: [package, develop]\nmeta: {}\n'
            "spec_details: [{]\n---",
            "specs.md:6: spec_details is not valid JSON",
        ),
        (
            '---\ntitle: "x"\nlayout: cache\ncategories: [package, develop]\nmeta: {}\n'
            'spec_details: [{"versions": ["1"], "stacks": []}]\n---',
            "has no string 'hash'",
        ),
    ],
)
def test_bad_page_names_the_file(
    tmp_path: Path, content: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "_cache" / "develop" / "x" / "specs.md"
    bad.parent.mkdir(parents=True)
    bad.write_text(content)
    assert main([V1, str(tmp_path), "-o", str(tmp_path / "out.md")]) == 2
    err = one_line_error(capsys)
    assert str(bad) in err and expected in err
    assert not (tmp_path / "out.md").exists()


def test_meta_disagreement_is_a_warning_in_report_and_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = write_page(tmp_path / "new", "zlib", [spec("a1")])
    page.write_text(page.read_text().replace('"num_specs": 1', '"num_specs": 2'))
    write_page(tmp_path / "old", "zlib", [spec("a1")])
    assert main([str(tmp_path / "old"), str(tmp_path / "new"), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["warnings"] == [
        f"{page}: meta says 2 specs, spec_details has 1 (using spec_details)"
    ]
    assert (
        captured.err == f"snapdiff: warning: {page}: meta says 2 specs, spec_details has 1 "
        "(using spec_details)\n"
    )


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    from snapdiff import __version__

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"snapdiff {__version__}\n"
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "examples:" in capsys.readouterr().out


def run_installed(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    # the console script of the interpreter running the tests, activated or not
    exe = Path(sysconfig.get_path("scripts")) / "snapdiff"
    assert exe.is_file(), "the snapdiff console script is not installed (pip install -e '.[test]')"
    return subprocess.run(
        [str(exe), *args], cwd=cwd, capture_output=True, text=True, env=env, check=False
    )


def test_installed_console_script_runs_from_elsewhere(tmp_path: Path) -> None:
    done = run_installed(V1, V2, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "`py-ml-dtypes` | `0.3.1` → `0.4.0`" in done.stdout
    assert run_installed(V1, "missing", cwd=tmp_path).returncode == 2


def test_output_is_identical_under_another_hash_seed() -> None:
    assert len(outputs_under_seeds(V1, V2)) == 2  # one JSON and one Markdown text


def test_readme_quick_start_output_is_the_checked_in_sample(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["snapshots/v1", "snapshots/v2"]) == 0
    sample = (ROOT / "docs" / "sample.md").read_text(encoding="utf-8")
    assert capsys.readouterr().out == sample
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "[`docs/sample.md`](docs/sample.md)" in readme and "(docs/sample.png)" in readme
    assert (ROOT / "docs" / "sample.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("made", [parser, log_parser], ids=["diff", "log"])
def test_every_option_is_documented_in_the_readme(
    made: Callable[[], argparse.ArgumentParser],
) -> None:
    """Every option of `snapdiff OLD NEW` and of `snapdiff log` is in the README."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    options = [s for action in made()._actions for s in action.option_strings]
    assert len(options) > 5
    missing = [o for o in options if o != "-h" and f"`{o}" not in readme and f" {o}" not in readme]
    assert missing == []


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = re.search(r"```sh\n(python -m pip install -e '\.\[test\]'.*?)\n```", readme, re.S)
    assert command is not None
    assert command.group(1) in ci


def test_the_readme_stays_short() -> None:
    """What it does, quick start, a picture, usage, CI, library use; the rest in docs/."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    for heading in (
        "## Quick start",
        "## What it prints",
        "## Usage",
        "### In CI",
        "## Library use",
    ):
        assert heading in readme
    for linked in re.findall(r"\]\((docs/[^)]+)\)", readme):
        assert (ROOT / linked).is_file(), linked


def test_a_mistyped_option_gets_a_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([V1, V2, "--fail-of", "downgrade"], capsys)
    assert code == 2 and "(did you mean --fail-on?)" in err


def test_a_filter_matching_nothing_is_refused_with_a_did_you_mean(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run([V1, V2, "--os", "ubuntu2404", "--fail-on", "downgrade"], capsys)
    assert (code, err) == (
        2,
        "snapdiff: error: --os ubuntu2404: matches no spec (did you mean ubuntu24.04?)\n",
    )
    assert run([V1, V2, "--package", "py-jaxx"], capsys)[2].endswith("did you mean py-jax?)\n")


def test_stack_coverage_under_stack_is_about_those_stacks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run([V1, V2, "--stack", "e4s-oneapi", "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0 and [s["name"] for s in data["stacks"]] == ["e4s-oneapi"]
    for package in data["packages"]:
        assert set(package["stacks_added"]) | set(package["stacks_removed"]) <= {"e4s-oneapi"}
    assert data["summary"]["stacks_removed"] == 0


def test_output_files_honour_the_umask_and_keep_their_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.md"
    old = os.umask(0o022)
    try:
        assert run([V1, V2, "-o", str(out)], capsys)[0] == 0
        assert out.stat().st_mode & 0o777 == 0o644
        out.chmod(0o640)
        assert (
            run([V1, V2, "-o", str(out), "--full-report", str(tmp_path / "f.md")], capsys)[0] == 0
        )
        assert out.stat().st_mode & 0o777 == 0o640
        assert (tmp_path / "f.md").stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(old)


def test_options_without_effect_are_warned_about(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([V1, V2, "--for", "github", "--format", "json"], capsys)
    assert code == 0
    assert err == "snapdiff: warning: --for sizes Markdown only: ignored with --format json\n"
    code, _, err = run([V1, V2, "--max-chars", "10", "--format", "text"], capsys)  # not checked
    assert code == 0
    assert err == "snapdiff: warning: --max-chars sizes Markdown only: ignored with --format text\n"


def test_the_formats_are_one_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--format` offers the FORMATS table (log: the formats with a history renderer), and the
    command line writes what the table's renderer gives; a history's formats are those with a
    history renderer."""
    from snapdiff.compare.diff import diff_snapshots
    from snapdiff.errors import UsageError
    from snapdiff.render.formats import FORMATS, Rendering, log_formats, render_history
    from snapdiff.sources import load_pair

    def choices(made: argparse.ArgumentParser) -> list[str]:
        return next(list(a.choices or ()) for a in made._actions if "--format" in a.option_strings)

    assert choices(parser()) == list(FORMATS) and choices(log_parser()) == log_formats()
    assert log_formats() == ["markdown", "json", "text"]
    for variable in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "CI_PROJECT_URL", "CI_JOB_URL"):
        monkeypatch.delenv(variable, raising=False)  # no links from a CI the tests run in
    monkeypatch.chdir(Path(__file__).parents[1] / "cases" / "downgrade")
    report = diff_snapshots(*load_pair("old", "new"))
    for name, found in FORMATS.items():
        assert main(["old", "new", "--no-config", "--format", name]) == 0
        assert capsys.readouterr().out == found.report(report, Rendering())
    unsized = dataclasses.replace(FORMATS["text"], history=None)
    monkeypatch.setitem(FORMATS, "text", unsized)  # a format with no history renderer
    with pytest.raises(UsageError, match="text is a diff's view, not a history's"):
        render_history(None, "text", Rendering())  # type: ignore[arg-type]


@pytest.mark.parametrize("word", ["0", "-1", "two"])
def test_a_bad_number_of_jobs_is_one_line_naming_it(
    word: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run([V1, V2, "--jobs", word], capsys)
    assert code == 2 and not out and err.count("\n") == 1
    assert err.startswith("snapdiff: error: argument --jobs: ") and repr(word) in err
    monkeypatch.setenv("SNAPDIFF_JOBS", word)
    code, out, err = run([V1, V2], capsys)
    assert code == 2 and not out and err.count("\n") == 1
    assert err.startswith("snapdiff: error: SNAPDIFF_JOBS: ") and repr(word) in err


def test_one_job_forks_nothing_and_says_what_two_say(
    forks: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    case = ROOT / "tests" / "cases" / "causes-real-v8"
    sides = [str(case / "old"), str(case / "new")]
    code, one, _ = run([*sides, "--jobs", "1"], capsys)
    assert code == 0 and not forks
    code, two, _ = run([*sides, "--jobs", "2"], capsys)
    assert code == 0 and len(forks) == 2 and two == one  # NEW read apart, then the causes


@pytest.fixture
def catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository of two commits of the sample pages, as the current directory."""
    from gitrepo import commit, git, new_repo

    repo = new_repo(tmp_path / "catalogue")
    for day, side in enumerate((V1, V2), start=1):
        shutil.copytree(side, repo, dirs_exist_ok=True)
        commit(repo, f"day {day}", day)
    git(repo, "tag", "day1", "HEAD~1")
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["nosuch", V2], "OLD: nosuch: no such directory or git revision"),
        ([V1, "nosuch"], "NEW: nosuch: no such directory or git revision"),
        (["nosuch..HEAD"], "OLD: nosuch: no such directory or git revision"),
        (["day1..nosuch"], "NEW: nosuch: no such directory or git revision"),
        (["nosuch...HEAD"], "OLD: nosuch: no such commit"),
        (["HEAD:nope", "HEAD"], "OLD: HEAD:nope: path 'nope' does not exist in HEAD"),
        (["log", "nosuch..HEAD"], "A: nosuch: no such directory or git revision"),
        (["log", "day1..nosuch"], "B: nosuch: no such commit"),
        (["log", V1, V2, "nosuch"], "SNAPSHOT 3: nosuch: no such directory or git revision"),
        ([V1, V2, "--template", "nope.j2"], "--template nope.j2: no such file (check the path)"),
        ([V1, V2, "--template-dir", "nope"], "--template-dir nope: no such folder (check the"),
        (["log", "day1..", "--template-dir", "nope"], "--template-dir nope: no such folder"),
        ([V1, V2, "-o", "no/x.md"], "--output no/x.md: cannot write: No such file or directory"),
    ],
)
def test_an_error_about_an_argument_names_it(
    argv: list[str], said: str, catalogue: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One line, exit 2, nothing written: which argument is at fault, then what is wrong (a
    template or folder that is not there is said before any work, not left unused)."""
    code, out, err = run(argv, capsys)
    assert code == 2 and not out and err.count("\n") == 1
    assert err.startswith(f"snapdiff: error: {said}"), err
