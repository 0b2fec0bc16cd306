"""Links in the Markdown come only from --link-base or the forge's CI variables, checked."""

from __future__ import annotations

import pytest
from clirun import V1, V2, run

from snapdiff.render.links import Links, links_from


def test_github_variables_link_commits_and_the_run() -> None:
    env = {
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "spack/cache.spack.io",
        "GITHUB_RUN_ID": "42",
    }
    links = links_from(None, env, "snapdiff-full.md")
    assert links.commit("abc1234") == "https://github.com/spack/cache.spack.io/commit/abc1234"
    assert links.full_report == "https://github.com/spack/cache.spack.io/actions/runs/42"


def test_gitlab_variables_link_commits_and_the_artifact() -> None:
    env = {
        "CI_PROJECT_URL": "https://gitlab.example/group/cache",
        "CI_JOB_URL": "https://gitlab.example/group/cache/-/jobs/7",
    }
    links = links_from(None, env, "full report.md")
    assert links.commit("abc1234") == "https://gitlab.example/group/cache/-/commit/abc1234"
    assert links.full_report == (
        "https://gitlab.example/group/cache/-/jobs/7/artifacts/file/full%20report.md"
    )


@pytest.mark.parametrize(
    "env",
    [
        {"GITHUB_SERVER_URL": "javascript:alert(1)", "GITHUB_REPOSITORY": "a/b"},
        {"CI_PROJECT_URL": "https://x.example/a) [y](https://evil.example"},
    ],
)
def test_variables_that_are_not_safe_addresses_give_no_links(env: dict[str, str]) -> None:
    assert links_from(None, env, "full.md") == Links()


def test_only_commit_ids_complete_an_address() -> None:
    links = Links("https://github.com/o/r/commit/")
    assert links.commit("main") is None and links.commit("abc1234](x") is None


def test_a_bad_link_base_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([V1, V2, "--link-base", "https://x.example/a b"], capsys)
    assert code == 2 and "--link-base: 'https://x.example/a b' is not an http(s) address" in err


def test_the_full_report_is_linked_in_ci(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    monkeypatch.setenv("GITHUB_RUN_ID", "9")
    full = f"{tmp_path}/full.md"
    out = run([V1, V2, "--max-chars", "3000", "--full-report", full], capsys)[1]
    assert f"see [`{full}`](https://github.com/o/r/actions/runs/9)." in out


def test_cuts_name_the_artifact_the_full_report_is_kept_as_never_its_path(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    """A runner's temporary folder means nothing to a reader of the comment: with --artifact,
    every cut (a section's, and a text cut at a line) names the artifact instead."""
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    monkeypatch.setenv("GITHUB_RUN_ID", "9")
    full = f"{tmp_path}/full.md"
    kept = ["--full-report", full, "--artifact", "snapdiff-full-report-notes"]
    see = "see the artifact [`snapdiff-full-report-notes`](https://github.com/o/r/actions/runs/9)."
    for budget in ("3000", "600"):
        out = run([V1, V2, "--max-chars", budget, *kept], capsys)[1]
        assert str(tmp_path) not in out and out.rstrip().endswith(see)
    code, _, err = run([V1, V2, "--artifact", "snapdiff-full-report-notes"], capsys)
    assert code == 2 and "--artifact: names the artifact the full report is kept as" in err
