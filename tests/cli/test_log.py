"""`snapdiff log A..B` on a repository of real catalogue pages across several commits."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import shutil
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from gitrepo import commit, forked_repo, git, new_repo, place
from hypothesis import given
from hypothesis import strategies as st
from pagegen import HISTORY, SEEDS, page_text, spec, write_page

from snapdiff.cli import main
from snapdiff.history import Flap, Moved, history
from snapdiff.history.flaps import Flaps
from snapdiff.model import Snapshot
from snapdiff.sources import SnapshotPair
from snapdiff.sources.pages import blob_digest, parse_page


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """base: older real pages; then the newest; py-keras gone; py-keras back; a README edit."""
    root = tmp_path_factory.mktemp("history")
    git(root, "init", "-q", "-b", "main")
    place(root, HISTORY)
    commit(root, "base", 1)
    git(root, "tag", "base")
    shutil.rmtree(root / "_cache")
    place(root, SEEDS)
    commit(root, "newest pages", 2)
    shutil.rmtree(root / "_cache" / "develop" / "py-keras")
    commit(root, "py-keras lost", 3)
    place(root, [s for s in SEEDS if "py-keras" in s.read_text()])
    commit(root, "py-keras back", 4)
    (root / "README.md").write_text("not a page\n")
    commit(root, "site only", 5)
    return root


def test_log_is_the_subcommand_where_a_log_folder_exists(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "log").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["log", "HEAD~2..HEAD", "--repo", str(repo), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["range"]["commits"] == 1


@pytest.mark.parametrize(
    ("range_", "expected"),
    [("..", "range '..': an empty range"), ("..HEAD", "range '..HEAD': no revision before '..'")],
)
def test_a_range_with_no_start_is_bad_usage(
    repo: Path, range_: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["log", range_, "--repo", str(repo)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"snapdiff: error: {expected} (") and err.count("\n") == 1, err


def test_a_merge_base_range_is_found_in_the_repository_named(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # not a repository: --repo names it
    assert main(["log", "base...HEAD", "--repo", str(repo), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["range"]["commits"] == 3


def test_a_range_given_backwards_is_said_to_be(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`HEAD..base` holds no commit, `base..HEAD` four: the log is empty, and a warning says
    why; a range with commits that changed nothing, and one that is right, say nothing."""
    assert main(["log", "HEAD..base", "--repo", str(repo)]) == 0
    out, err = capsys.readouterr()
    assert "No commit in this range changed the catalogue." in out
    assert (
        err == "snapdiff: warning: HEAD..base holds no commit, base..HEAD does: given backwards?\n"
    )
    for right in ("HEAD~1..HEAD", "base..HEAD", "HEAD..HEAD"):
        assert main(["log", right, "--repo", str(repo)]) == 0
        assert capsys.readouterr().err == ""


def log(repo: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["log", "base..HEAD", "--repo", str(repo), "--format", "json", *argv]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_each_commit_that_changed_the_catalogue_newest_first(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = log(repo, capsys)
    dates = [s["date"][:10] for s in data["steps"]]
    assert dates == ["2025-04-04", "2025-04-03", "2025-04-02"]  # the README commit is not one
    back, lost, newest = data["steps"]
    assert newest["summary"]["version_bumps"] == 5
    assert {b["name"]: (b["from"], b["to"]) for b in newest["bumps"]}["py-ml-dtypes"] == (
        "0.3.1",
        "0.4.0",
    )
    assert lost["summary"]["packages_removed"] == 1 and back["summary"]["packages_added"] == 1
    assert back["commit"] == git(repo, "rev-parse", "HEAD~1")  # the full id


def test_version_paths_and_appearances(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = log(repo, capsys)
    packages = {p["name"]: p for p in data["packages"]}
    assert packages["py-jax"]["versions"] == ["0.4.31", "0.4.38"]
    assert packages["py-mpi4py"]["versions"] == ["3.1.5", "4.0.1"]
    keras = packages["py-keras"]
    assert keras["versions"] == ["3.1.0", "3.9.2"]
    assert keras["first_seen"] == git(repo, "rev-parse", "HEAD~1")  # came back
    assert keras["last_seen"] is None  # present at the end


def test_a_hash_that_leaves_and_returns_is_flapping(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = log(repo, capsys)
    flapping = data["flapping"]
    assert len(flapping) == 130 and {f["package"] for f in flapping} == {"py-keras"}
    lost, back = (git(repo, "rev-parse", f"HEAD~{n}") for n in (2, 1))
    assert all(
        f["left"] == [lost] and f["returned"] == [back] and f["returns"] == 1 for f in flapping
    )


def test_markdown_and_budget(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["log", "base..HEAD", "--repo", str(repo)]) == 0
    text = capsys.readouterr().out
    assert "3 commits changed the catalogue." in text
    assert "### Flapping specs" in text and "| `py-keras` |" in text
    assert "`0.4.31` → `0.4.38`" in text
    assert main(["log", "base..HEAD", "--repo", str(repo), "--max-chars", "2000"]) == 0
    cut = capsys.readouterr().out
    assert len(cut.encode()) <= 2000 and "cut to fit 2000 characters" in cut


def test_log_needs_revisions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["log", "nope..HEAD", "--repo", str(tmp_path)]) == 2
    assert "not a git repository" in capsys.readouterr().err


def test_a_mermaid_chart_of_the_stacks_that_changed_most(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = log(repo, capsys)
    assert main(["log", "base..HEAD", "--repo", str(repo)]) == 0
    text = capsys.readouterr().out
    charts = re.findall(r"```mermaid\nxychart-beta\n(.*?)\n```", text, re.S)
    assert 1 <= len(charts) <= 4
    commits = [step["commit"][:7] for step in reversed(data["steps"])]  # shown short
    for chart in charts:
        stack = re.search(r'title "Specs in (.+)"', chart)
        axis = re.search(r"x-axis \[(.*)\]", chart)
        line = re.search(r"line \[(.*)\]", chart)
        assert stack and axis and line
        assert axis.group(1) == ", ".join(f'"{c}"' for c in ["start", *commits])
        values = [int(v) for v in line.group(1).split(", ")]
        changes = [
            (i, s)
            for i, step in enumerate(reversed(data["steps"]))
            for s in step["stacks"]
            if s["name"] == stack.group(1)
        ]
        assert changes and values[0] == changes[0][1]["specs_old"]
        for i, change in changes:
            assert values[i + 1] == change["specs_new"]


def test_chart_text_holds_no_data_markup() -> None:
    from snapdiff.render.markup import mermaid

    assert mermaid('e4s"]\n    line [1') == "e4s___" + "____line__1"


# Hashes of any form; those of 32 ASCII characters are held packed, and the last is found inside
# the record of the one before it ("a" * 32, then step 0's index as 4 zero bytes), never aligned.
_HASHES = ["h1", "h2", "h3", "a" * 32, "b" * 32, "a" * 28 + "\0" * 4]
# Steps of one history: (commit, [(package, hashes removed, hashes added)]), over one tag.
_steps = st.lists(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c"]),
            st.sets(st.sampled_from(_HASHES)),
            st.sets(st.sampled_from(_HASHES)),
        ),
        max_size=3,
    ),
    max_size=6,
)


def _flaps_by_definition(steps: list[list[tuple[str, set[str], set[str]]]]) -> list[Flap]:
    """SPEC-style reading: a hash removed and later added again; every commit that removed it,
    those that added it back after its first removal, and the package of its latest change."""
    events: dict[str, list[tuple[str, str, str]]] = {}
    for index, changes in enumerate(steps):
        for name, removed, added in changes:
            for digest in sorted(removed):
                events.setdefault(digest, []).append(("left", f"c{index}", name))
            for digest in sorted(added):
                events.setdefault(digest, []).append(("back", f"c{index}", name))
    found = []
    for digest, happened in sorted(events.items()):
        kinds = [kind for kind, _, _ in happened]
        if "left" not in kinds:
            continue
        first = kinds.index("left")
        back = tuple(c for kind, c, _ in happened[first:] if kind == "back")
        if back:
            left = tuple(c for kind, c, _ in happened if kind == "left")
            found.append(Flap("develop", digest, happened[-1][2], left, back))
    return found


@given(_steps)
def test_flapping_specs_are_those_removed_and_added_again(
    steps: list[list[tuple[str, set[str], set[str]]]],
) -> None:
    flaps = Flaps()
    for index, changes in enumerate(steps):
        for name, removed, added in changes:
            change = Moved(
                "develop", name, "changed", None, None, tuple(sorted(added)), tuple(sorted(removed))
            )
            flaps.step(change, f"c{index}")
    assert list(flaps.found()) == _flaps_by_definition(steps)


def test_a_history_of_several_tags_says_where_its_changes_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only develop changes: the log says so once and names packages bare; then a second tag
    changes too, and every name carries its tag."""
    repo = new_repo(tmp_path / "repo")
    for tag in ("develop", "v0.23.1"):
        write_page(repo, "zlib", [spec(f"{tag[:3]}1", "1.3")], tag=tag)
    commit(repo, "start", 1)
    write_page(repo, "zlib", [spec("dev2", "1.3.1")], tag="develop")
    commit(repo, "develop only", 2)
    assert main(["log", "HEAD~1..HEAD", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    said = "Every change is in cache tag `develop`; the other tag (`v0.23.1`) did not change."
    assert said in out and "- `zlib` `1.3` → `1.3.1`" in out
    write_page(repo, "zlib", [spec("dev3", "1.4")], tag="develop")
    write_page(repo, "zlib", [spec("v0232", "1.3.2")], tag="v0.23.1")
    commit(repo, "both tags", 3)
    assert main(["log", "HEAD~2..HEAD", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "Every change is in" not in out and "Counts are per cache tag" in out
    assert "- `develop/zlib` `1.3.1` → `1.4`" in out and "- `v0.23.1/zlib` `1.3` → `1.3.2`" in out
    assert "| `develop/zlib` | `1.3` → `1.3.1` → `1.4` |" in out


# ---------------------------------------------------------------- issue 26: the log's wording


def _newest_pages_step(markdown: str) -> str:
    """The Markdown of the commit that brought the newest pages (2025-04-02)."""
    return next(s for s in markdown.split("#### ") if "2025-04-02" in s.split("\n")[0])


def test_a_step_lists_bumps_then_stacks_apart_with_moves(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["log", "base..HEAD", "--repo", str(repo)]) == 0
    step = _newest_pages_step(capsys.readouterr().out)
    bumps, _, stacks = step.partition("\nStacks:\n\n")
    assert "\nVersion changes:\n\n- `" in bumps  # a paragraph between the two lists
    assert stacks.startswith("- `e4s-aarch64` disappeared (4 specs)\n")
    assert "disappeared" not in bumps
    said = "- `e4s-oneapi` moved, every spec: compiler `oneapi@2023.2.0`, `oneapi@2024.0.0`, "
    said += "`oneapi@2024.2.0` → `intel-oneapi-compilers@2025.1.0` (13 → 10 specs)\n"
    assert said in stacks
    data = log(repo, capsys)
    (newest,) = [s for s in data["steps"] if s["date"].startswith("2025-04-02")]
    assert {m["stack"] for m in newest["stack_moves"]} >= {"e4s-oneapi", "ml-linux-x86_64-cpu"}


def test_a_step_s_bumps_are_in_the_diff_s_order(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Downgrades first, then by size (`versions.bump_order`), as the diff's first screen."""
    newest = git(repo, "rev-list", "-1", "--before=2025-04-02T12:00:00+0000", "main")
    assert main(["--repo", str(repo), f"{newest}~1", newest]) == 0
    first_screen = capsys.readouterr().out.split("<details>")[0]
    (line,) = [x for x in first_screen.splitlines() if x.startswith("- **Largest version")]
    diff_order = re.findall(r"`(py-[\w-]+)`", line)
    assert diff_order != sorted(diff_order)  # by size, not by name
    step = _newest_pages_step(_log_markdown(repo, capsys))
    assert re.findall(r"^- `(py-[\w-]+)` `", step, re.MULTILINE) == diff_order
    data = log(repo, capsys)
    (json_step,) = [s for s in data["steps"] if s["date"].startswith("2025-04-02")]
    assert [b["name"] for b in json_step["bumps"]] == diff_order


def _log_markdown(repo: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["log", *(argv or ("base..HEAD",)), "--repo", str(repo)]) == 0
    return capsys.readouterr().out


def test_a_range_title_shows_both_ends_as_short_ids(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = (git(repo, "rev-parse", "--short", r) for r in ("base", "HEAD"))
    title = _log_markdown(repo, capsys).splitlines()[1]
    assert title == f"## Catalogue history: `{base}` (`base`) → `{head}` (`HEAD`)"
    forked = forked_repo(tmp_path / "forked")
    fork = git(forked, "rev-parse", "--short", "main~3")
    tip = git(forked, "rev-parse", "--short", "branch")
    title = _log_markdown(forked, capsys, "main...branch").splitlines()[1]
    assert title == (
        f"## Catalogue history: `{fork}` (merge base of `main` and `branch`) → `{tip}` (`branch`)"
    )
    assert main(["log", "main...branch", "--repo", str(forked), "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)["range"]  # the JSON: full ids
    ends = git(forked, "rev-parse", "main~3"), git(forked, "rev-parse", "branch")
    assert (found["start_commit"], found["end_commit"]) == ends
    assert found["merge_base_of"] == ["main", "branch"]


def _snapshot(commit: str, day: int, pages: dict[str, list[dict[str, Any]]]) -> Snapshot:
    """A snapshot built in memory from page texts, as a commit of the catalogue would hold."""
    parsed = {}
    for name, specs in pages.items():
        data = page_text(name, "develop", specs).encode()
        page = parse_page(data, f"{commit}:_cache/develop/{name}/specs.md", blob_digest(data)).page
        parsed[(page.tag, page.name)] = page
    return Snapshot(commit, parsed, commit, f"2025-04-0{day}T04:00:00+00:00")


def test_a_history_walks_the_pairs_it_is_handed_without_git() -> None:
    """Snapshots made in memory, paired a commit at a time: the walk needs no repository. A
    spec removed and brought back is a flap; a step that changes nothing is no step."""
    zlib, cmake = [spec("a", "1.0")], [spec("c", "3.1")]
    commits = [
        _snapshot("c0", 1, {"zlib": zlib, "cmake": cmake}),
        _snapshot("c1", 2, {"zlib": [spec("b", "1.1")], "cmake": cmake}),
        _snapshot("c2", 3, {"zlib": [spec("b", "1.1")], "cmake": cmake}),
        _snapshot("c3", 4, {"zlib": [*zlib, spec("b", "1.1")], "cmake": cmake}),
    ]
    pairs = [SnapshotPair(old, new) for old, new in itertools.pairwise(commits)]
    walked = history(pairs, "c0", "c3")
    assert [(s.commit, s.date[:10]) for s in walked.steps] == [
        ("c3", "2025-04-04"),
        ("c1", "2025-04-02"),
    ]
    assert [(b.name, b.bump.old, b.bump.new) for b in walked.steps[1].bumps] == [
        ("zlib", "1.0", "1.1")
    ]
    assert walked.flapping == (Flap("develop", "a".ljust(32, "a"), "zlib", ("c1",), ("c3",)),)
    (path,) = [p for p in walked.packages if p.name == "zlib"]
    assert path.versions == ("1.0", "1.1")
    assert (walked.start_commit, walked.end_commit) == (None, None)  # the caller's to add


def test_a_chart_names_its_stack_by_the_log_s_one_label_rule() -> None:
    """Packages changed in two tags, stacks in one: the chart's title carries the tag, as every
    other label of the log does (the rule is `History.labeller`, not the chart's own)."""
    from snapdiff.history import History, PackagePath, Step
    from snapdiff.render.charts import stack_charts
    from snapdiff.report import StackChange, Summary

    stack = StackChange("develop", "e4s", "changed", 3, 5, (), ())
    summary = Summary(*[0] * len(Summary.__dataclass_fields__))
    walked = History(
        start="A",
        end="B",
        steps=(Step("c0ffee", "2025-01-01", summary, (), (stack,)),),
        packages=(
            PackagePath("develop", "zlib", ("1.3", "1.4"), None, None),
            PackagePath("v0.23.1", "zlib", ("1.3", "1.3.1"), None, None),
        ),
        flapping=(),
        tags=("develop", "v0.23.1"),
    )
    assert walked.labeller().several and walked.labeller()("develop", "e4s") == "develop/e4s"
    (chart,) = stack_charts(walked)
    assert 'title "Specs in develop/e4s"' in chart


# ---------------------------------------------------------------- issue 27: log, first-class


def test_log_refuses_stack_url(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Mirrors are a diff's input: log reads git revisions, and says so instead of ignoring."""
    argv = ["log", "HEAD~2..HEAD", "--repo", str(repo), "--stack-url", "e4s=https://x.example/e4s"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("snapdiff: error: --stack-url: ") and err.count("\n") == 1, err


def test_log_reads_the_configuration_like_the_diff(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `.snapdiff.yaml` found in the checkout sets log's options; the diff's own (`fail_on`)
    are checked and set aside; a key only --config may set is refused; the command line wins."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    found = tmp_path / ".snapdiff.yaml"
    found.write_text("format: json\nfail_on: downgrade\nexit_code: true\n")
    base = ["log", "HEAD~2..HEAD", "--repo", str(repo)]
    assert main(base) == 0
    assert json.loads(capsys.readouterr().out)["range"]["commits"] == 1
    assert main([*base, "--format", "markdown"]) == 0
    assert capsys.readouterr().out.startswith("<!--")
    assert main([*base, "--no-config"]) == 0
    assert capsys.readouterr().out.startswith("<!--")
    found.write_text("package: [py-jax]\n")
    assert main(base) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"snapdiff: error: {found}:1: package is not read from a configuration")
    found.write_text("fail_onn: downgrade\n")
    assert main(base) == 2
    assert "unknown option 'fail_onn' (did you mean 'fail-on'?)" in capsys.readouterr().err
    trusted = tmp_path / "trusted.yaml"
    trusted.write_text("format: json\npackage: [py-jax]\nstack_url: [e4s=https://x.example]\n")
    assert main([*base, "--config", str(trusted)]) == 2  # read beside --config, for its gates
    assert "unknown option 'fail_onn'" in capsys.readouterr().err
    found.write_text("fail_on: downgrade\npackage: [zlib]\n")  # beside --config: gates only
    assert main([*base, "--config", str(trusted)]) == 0
    out, err = capsys.readouterr()
    assert {p["name"] for p in json.loads(out)["packages"]} <= {"py-jax"}
    assert f"snapdiff: warning: {found}: package not read: beside --config {trusted}," in err


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("line one\n{% for x in %}\n", ":2", "template error"),
        ("ok\n\n{{ no_such_name }}\n", ":3", "'no_such_name' is undefined"),
    ],
)
def test_a_broken_log_template_names_its_file_and_line(
    repo: Path, tmp_path: Path, text: str, where: str, what: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The log's templates load and fail as the diff's do: one line naming file and line."""
    broken = tmp_path / "broken.md.j2"
    broken.write_text(text)
    assert main(["log", "HEAD~2..HEAD", "--repo", str(repo), "--template", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"snapdiff: error: {broken}{where}: ") and what in err, err
    assert err.count("\n") == 1


def test_the_log_context_is_typed(repo: Path) -> None:
    """What log.md.j2 sees is exactly `LogContext`, as report.md.j2 sees `MarkdownContext`."""
    from snapdiff.history import history
    from snapdiff.render.context import log_context
    from snapdiff.render.views import LogContext
    from snapdiff.sources import LoadOptions, load_history

    pairs = load_history("HEAD~2", "HEAD", LoadOptions(repo=str(repo)))
    walked = history(pairs, "HEAD~2", "HEAD")
    assert set(log_context(walked)) == set(LogContext.__annotations__)


def test_log_warns_of_a_size_limit_its_format_does_not_cut(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the diff does: a limit given with JSON has no effect, and log says so."""
    argv = ["log", "HEAD~2..HEAD", "--repo", str(repo), "-f", "json", "--max-chars", "1000"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "snapdiff: warning: --max-chars sizes Markdown only: ignored with --format json" in err


def test_removed_hashes_are_held_packed() -> None:
    """A long range removes millions of hashes: each is held in about its own 36 bytes (its
    characters and the step's index), not as a string keyed in a dictionary (~130 bytes)."""
    flaps, removed = Flaps(), 20_000
    tracemalloc.start()
    try:
        for index in range(20):
            hashes = (hashlib.sha1(b"%d %d" % (index, n)).hexdigest()[:32] for n in range(1000))
            change = Moved("develop", "zlib", "changed", None, None, (), tuple(hashes))
            flaps.step(change, f"c{index}")
            del change
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 50 * removed


@pytest.mark.parametrize("reading", [[], ["--package", "py-*"]])  # changed only, or every page
def test_each_step_says_its_commit_s_subject(
    reading: list[str], repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The JSON's `subject`, the Markdown's line under each step's heading (a code span)."""
    steps = log(repo, capsys, *reading)["steps"]
    assert [s["subject"] for s in steps] == ["py-keras back", "py-keras lost", "newest pages"]
    assert main(["log", "base..HEAD", "--repo", str(repo), *reading]) == 0
    lines = capsys.readouterr().out.splitlines()
    for step in steps:
        heading = lines.index(f"#### `{step['commit'][:7]}` (`{step['date'][:10]}`)")
        assert lines[heading + 1 : heading + 3] == ["", f"`{step['subject']}`"]


def test_a_hostile_subject_is_inert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Backticks, a table bar, HTML, a mention and a terminal escape: one code span in the
    Markdown, as said in the JSON (git folds the first paragraph to one line)."""
    root = tmp_path / "hostile"
    git(root.parent, "init", "-q", str(root))
    place(root, HISTORY)
    commit(root, "base", 1)
    place(root, SEEDS)
    said = "new ``pages`` | <b>hi</b> @all \x1b[31mred\nsecond line"
    commit(root, said, 2)
    assert main(["log", "HEAD~1..HEAD", "--repo", str(root), "--format", "json"]) == 0
    subject = json.loads(capsys.readouterr().out)["steps"][0]["subject"]
    assert subject == said.replace("\n", " ")
    assert main(["log", "HEAD~1..HEAD", "--repo", str(root)]) == 0
    out = capsys.readouterr().out
    assert "\n```new ``pages`` \\| <b>hi</b> @all  [31mred second line```\n" in out
    assert "\x1b" not in out
