"""Hostile input and hostile checkouts (issue 16): each defect found, reproduced, kept fixed.

Every input here is synthetic, written by the test; each case says what it did before the fix.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from clirun import V1, V2, run
from gitrepo import commit, git, new_repo
from markdown_it import MarkdownIt
from pagegen import page_text, spec, write_page

from snapdiff import load_snapshot
from snapdiff.compare.classify import classify
from snapdiff.model import Configuration


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line of a refusal (exit 2), after `snapdiff: error: `."""
    code, _, err = run(argv, capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("snapdiff: error: "), err
    assert "internal error" not in err and "Traceback" not in err
    return err[len("snapdiff: error: ") :].rstrip("\n")


def nested(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def raw_page(name: str, entries: list[str], tag: str = "develop") -> str:
    """A page in the generator's form whose entries are given as JSON text (any nesting)."""
    meta = {"num_specs": len(entries)}
    return (
        f'---\ntitle: "{name}"\nlayout: cache\ncategories: [package, {tag}]\n'
        f"meta: {json.dumps(meta)}\nspec_details: [{', '.join(entries)}]\n---"
    )


def entry(digest: str, extra: str = "") -> str:
    base = json.dumps(spec(digest), sort_keys=True)[:-1]
    return base + (f", {extra}" if extra else "") + "}"


def pair(tmp_path: Path, old: str, new: str, name: str = "zlib") -> list[str]:
    for side, text in (("old", old), ("new", new)):
        path = tmp_path / side / "_cache" / "develop" / name / "specs.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return [str(tmp_path / "old"), str(tmp_path / "new")]


# 1. A same-hash spec whose extra key nests: DeepDiff took 2.7 s at depth 14, 45 s at 18, did
# not finish at 20, and raised RecursionError from depth 400.


def test_a_nested_extra_key_is_compared_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = raw_page("zlib", [entry("a", f'"x": {nested(14)}')])
    new = raw_page("zlib", [entry("a", f'"x": {nested(15)}')])
    code, out, _ = run([*pair(tmp_path, old, new), "--format", "json"], capsys)
    assert code == 0
    (changed,) = json.loads(out)["packages"][0]["specs_changed"]
    assert changed["details"] == [f"x: {nested(14)} → {nested(15)}"]


@pytest.mark.parametrize("depth", [17, 400, 1000])
def test_an_extra_key_nested_too_deep_is_refused(
    depth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = raw_page("zlib", [entry("a")])
    new = raw_page("zlib", [entry("a", f'"x": {nested(depth)}')])
    message = refused(pair(tmp_path, old, new), capsys)
    assert "spec " + "a".ljust(32, "a") + ": 'x' nests more than 16 levels deep" in message


# 2. A line break in a package name or tag ended the HTML block of a <summary>: the rest was
# read as Markdown, a live link and an image in the pull-request comment.

EVIL = "py-evil\\n\\n[Click to approve](https://evil.example/x) ![t](https://evil.example/p.png)"


@pytest.mark.parametrize("where", ["title", "tag"])
def test_a_line_break_in_a_name_or_tag_injects_nothing(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = EVIL if where == "title" else "zlib"
    tag = "develop" if where == "title" else f'"{EVIL}"'
    old = f'---\ntitle: "{name}"\nlayout: cache\ncategories: [package, {tag}]\nmeta: {{}}\n'
    new = old + f"spec_details: [{entry('b')}]\n---"
    old += f"spec_details: [{entry('a')}]\n---"
    code, out, _ = run(pair(tmp_path, old, new, "p"), capsys)
    assert code == 0
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(out)
    assert "<a " not in html and "<img" not in html
    assert not any(line.startswith("[Click") for line in out.splitlines())


# 3. A YAML alias bomb (560 bytes, a0…a8 through aliases) exhausted memory.


def test_a_yaml_alias_bomb_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bomb = "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9))
    page = (
        '---\ntitle: "zlib"\nlayout: cache\ncategories: [package, develop]\n'
        f"a0: &a0 [x, x, x, x, x, x, x, x, x]\n{bomb}meta: *a8\nspec_details: []\n---\n"
    )
    path = write_page(tmp_path / "s", "zlib", [])
    path.write_text(page)
    assert refused([V1, str(tmp_path / "s")], capsys).endswith(
        "front matter uses a YAML alias (regenerate the page or remove it from the snapshot)"
    )


# 4 and 8. Special files: a FIFO hung the run in open(); a `specs.md` linked to /dev/zero passed
# the size check and was read without bound; a linked page led out of the snapshot.


def snapdiff_process(*argv: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own, so that a hang fails the test instead of hanging."""
    return subprocess.run(
        [sys.executable, "-m", "snapdiff", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_a_fifo_outside_the_catalogue_is_not_opened(tmp_path: Path) -> None:
    root = tmp_path / "s"
    write_page(root, "zlib", [spec("a")])
    os.mkfifo(root / "README")
    os.mkfifo(root / "notes.md")
    done = snapdiff_process(V1, str(root), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["new"]["packages"] == 1


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "outside"])
def test_a_page_that_is_not_a_regular_file_is_refused(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "s"
    write_page(root, "zstd", [spec("b")])
    page = root / "_cache" / "develop" / "zlib" / "specs.md"
    page.parent.mkdir(parents=True)
    outside = write_page(tmp_path / "elsewhere", "zlib", [spec("a")])
    if kind == "fifo":
        os.mkfifo(page)
    else:
        page.symlink_to("/dev/zero" if kind == "dev-zero" else outside)
    done = snapdiff_process(V1, str(root))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"{page}: not a regular file (a link, FIFO or device)" in done.stderr


def test_a_linked_flat_page_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    (root / "zstd.md").write_text(page_text("zstd", "develop", [spec("b")]))
    outside = tmp_path / "secret.md"
    outside.write_text(page_text("zlib", "develop", [spec("a")]))
    (root / "zlib.md").symlink_to(outside)
    done = snapdiff_process(V1, str(root), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["new"]["packages"] == 1  # zstd only


# 5. `.snapdiff.yaml` in the checkout acted as code: a template that ran a command, a template
# that printed /etc/passwd, outputs written anywhere, --for overridden by max-chars.


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of its own holding the configuration a pull request could add."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "line",
    ["template: /etc/passwd", "template-dir: /etc", "output: /tmp/x.md", "full-report: x.md"],
)
def test_a_configuration_in_the_checkout_sets_no_template_or_output(
    line: str, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (checkout / ".snapdiff.yaml").write_text(line + "\n")
    option = line.split(":")[0]
    message = refused([V1, V2], capsys)
    assert message.startswith(
        f"{checkout / '.snapdiff.yaml'}:1: {option} is not read from a configuration found in the"
    )
    assert "--no-config" in message
    assert run([V1, V2, "--no-config"], capsys)[0] == 0
    trusted = run([V1, V2, "--config", ".snapdiff.yaml", "-o", "out.md"], capsys)
    assert trusted[0] == 0 or "template" in line  # trusted: read like the command line


def test_the_command_line_wins_over_the_configured_budget(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (checkout / ".snapdiff.yaml").write_text("max-chars: 600\n")
    assert len(run([V1, V2], capsys)[1].encode()) <= 600
    assert len(run([V1, V2, "--for", "github"], capsys)[1].encode()) > 600  # not cut to 600


def test_templates_run_sandboxed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evil = tmp_path / "evil.md.j2"
    evil.write_text("{{ cycler.__init__.__globals__.os.popen('touch pwned').read() }}\n")
    message = refused([V1, V2, "--template", str(evil)], capsys)
    assert message.startswith(f"{evil}:1: template error:") and "unsafe" in message
    assert not Path("pwned").exists()


# 6. Git mode read every blob whole before deciding it was a page.


def test_git_reads_no_blob_larger_than_a_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from snapdiff.sources import pages
    from snapdiff.sources.git import repo as git_source

    monkeypatch.setattr(pages, "MAX_PAGE_BYTES", 4096)  # a 1.5 GB asset, scaled down
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write_page(repo, "zlib", [spec("a")])
    commit(repo, "one", 1)
    (repo / "asset.bin").write_bytes(b"---\nlayout: cache\n" + b"x" * 10_000)
    write_page(repo, "zlib", [spec("b")])
    commit(repo, "two", 2)
    read: list[str] = []
    real = git_source.GitRepo.read_blobs

    def read_blobs(self: Any, *args: Any) -> Any:
        for sha, data in real(self, *args):
            if isinstance(data, bytes):  # else its size: the content was not read
                read.append(sha)
            yield sha, data

    monkeypatch.setattr(git_source.GitRepo, "read_blobs", read_blobs)
    assert run(["HEAD~1", "HEAD", "--repo", str(repo)], capsys)[0] == 0
    assert read and git(repo, "rev-parse", "HEAD:asset.bin") not in read


def test_a_linked_page_in_a_revision_is_refused_like_in_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write_page(repo, "zstd", [spec("b")])
    page = repo / "_cache" / "develop" / "zlib" / "specs.md"
    page.parent.mkdir(parents=True)
    page.symlink_to("/etc/passwd")
    commit(repo, "a link", 1)
    message = refused([V1, "HEAD", "--repo", str(repo)], capsys)
    assert message.startswith("HEAD:_cache/develop/zlib/specs.md: a symbolic link, not a page")
    assert refused([V1, str(repo)], capsys).startswith(f"{page}: not a regular file")


# 7. Tracebacks with exit 1 (which CI reads as "changes").


def test_meta_versions_holding_lists_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = raw_page("zlib", [entry("a")]).replace(
        '{"num_specs": 1}', '{"num_specs": 1, "versions": [["1.0"]]}'
    )
    path = write_page(tmp_path / "s", "zlib", [])
    path.write_text(text)
    code, _, err = run([V1, str(tmp_path / "s")], capsys)
    assert code == 0 and "meta.versions disagrees with spec_details" in err


@pytest.mark.parametrize("value", ["2024-06-01", "!!set {a: null}", "2024-06-01 10:00:00"])
def test_a_yaml_value_json_cannot_hold_is_refused(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, message = yaml_refused(tmp_path, f"    built: {value}\n", capsys)
    assert "which JSON cannot (quote it)" in message


def yaml_refused(
    tmp_path: Path, fields: str, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str]:
    """A page whose `spec_details` is a YAML block holding one entry with `fields` besides its
    hash, stacks and versions, refused: its path and the refusal's line."""
    page = (
        '---\ntitle: "zlib"\nlayout: cache\ncategories: [package, develop]\n'
        "spec_details:\n  - hash: aaaa\n    stacks: [root]\n    versions: ['1.0']\n"
        f"{fields}---\n"
    )
    path = write_page(tmp_path / "s", "zlib", [])
    path.write_text(page)
    return path, refused([V1, str(tmp_path / "s")], capsys)


def test_a_warning_about_a_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    root = tmp_path / "s"
    text = page_text("zlib", "develop", [spec("a")]).replace('"num_specs": 1', '"num_specs": 7')
    folder = os.path.join(os.fsencode(root), b"\xff")
    os.makedirs(folder)
    with open(os.path.join(folder, b"zlib.md"), "w") as handle:
        handle.write(text)
    done = snapdiff_process(V1, str(root))
    assert done.returncode == 0, done.stderr
    assert "meta says 7 specs" in done.stderr and "\\xff" in done.stderr


INDEX_FIELDS: dict[str, list[Any]] = {
    "arch": ["linux", [1], 3],
    "target": [["x"], {"name": ["x"]}],
    "parameters": [["a"], "a=b"],
    "dependencies": ["gcc", [1], [{"parameters": {"virtuals": ["c"]}}], [{"name": ["x"]}]],
    "version": [["1"], {"a": 1}],
    "annotations": ["gcc", [1]],
    "compiler": [{"name": ["gcc"]}],
    "dependency hash": [["h"], {"h": 1}, 5],
}


@pytest.mark.parametrize(
    ("field", "value"), [(f, v) for f, values in INDEX_FIELDS.items() for v in values]
)
def test_index_records_of_the_wrong_shape_are_one_line(
    field: str, value: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record: dict[str, Any] = {
        "name": "zlib",
        "version": "1.3",
        "arch": {"platform": "linux", "platform_os": "ubuntu24.04", "target": "x86_64"},
        "parameters": {"shared": True},
        "dependencies": [{"name": "gcc", "hash": "g" * 32, "parameters": {"virtuals": ["c"]}}],
    }
    if field == "target":
        record["arch"]["target"] = value
    elif field == "dependency hash":
        record["dependencies"][0]["hash"] = value
    else:
        record[field] = value
    index = {
        "database": {
            "version": "8",
            "installs": {"a" * 32: {"spec": record, "in_buildcache": True}},
        }
    }
    path = tmp_path / "index.json"
    path.write_text(json.dumps(index))
    code, _, err = run([str(path), str(path)], capsys)
    assert code in (0, 2) and "internal error" not in err and err.count("\n") <= 1, err


def test_stdout_on_a_full_disk_is_one_line() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "snapdiff", V1, V2],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr == "snapdiff: error: stdout: cannot write: No space left on device " + (
        "(free space or use -o FILE)\n"
    )


# 9. Warnings printed raw line breaks from page data: a GitHub workflow command on stderr.


def test_data_cannot_forge_a_line_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = page_text("zlib", "develop", [spec("a")]).replace(
        '"num_specs": 1', '"num_specs": "1\\n::error title=forged::\\u001b[31mred"'
    )
    path = write_page(tmp_path / "s", "zlib", [])
    path.write_text(text)
    code, _, err = run([V1, str(tmp_path / "s")], capsys)
    assert code == 0
    assert not any(line.startswith("::") for line in err.splitlines())
    assert "\x1b" not in err and "\\x0a::error" in err


# 10. SIGTERM during a write left `.snapdiff-XXXX` behind (15 of 15 kills).


def test_sigterm_while_writing_leaves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    script = f"""
import os, signal, sys
from snapdiff import cli, output
real = os.replace
def killed(src, dst):  # CI cancels the job while the report is being written
    os.kill(os.getpid(), signal.SIGTERM)
    real(src, dst)
output.os.replace = killed
sys.exit(cli.main([{V1!r}, {V2!r}, "-o", {str(out)!r}]))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 143, done.stderr
    assert list(tmp_path.iterdir()) == []


# 11. Pairing was quadratic (`same.pop(0)`): 760k specs of one configuration took 43 s.


def test_classifying_many_specs_of_one_configuration() -> None:
    config = Configuration("ubuntu24.04", "linux", "x86_64", "gcc@13", ())
    removed = [(f"r{i:06d}", (config, "1.0")) for i in range(60_000)]
    added = [(f"a{i:06d}", (config, "1.0")) for i in range(50_000)]
    added += [(f"b{i:06d}", (config, "2.0")) for i in range(5_000)]
    sides = {config: {"1.0"}}, {config: {"1.0", "2.0"}}
    facts = classify(removed, added, *sides)
    kinds = {f.kind: (len(f.specs_old), len(f.specs_new)) for f in facts}
    assert kinds == {
        "rebuilt": (50_000, 50_000),
        "fewer-builds": (10_000, 0),
        "version-added": (0, 5_000),
    }


# 12. A page saved with a UTF-8 byte-order mark was refused ("no front matter").


def test_a_page_with_a_byte_order_mark_loads_as_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = write_page(tmp_path / "plain", "zlib", [spec("a"), spec("b", "1.1")])
    marked = write_page(tmp_path / "bom", "zlib", [])
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    reports = []
    for side in ("plain", "bom"):
        code, out, _ = run([V1, str(tmp_path / side), "--format", "json"], capsys)
        assert code == 0
        data = json.loads(out)
        data["new"].pop("source")
        reports.append(data)
    assert reports[0] == reports[1]


# Found by the fuzzer: a spec listing no version at all.


def test_a_spec_without_versions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = raw_page("zlib", [entry("a")])
    new = raw_page("zlib", [entry("b").replace('"versions": ["1.0"]', '"versions": []')])
    code, out, _ = run([*pair(tmp_path, old, new), "--format", "json"], capsys)
    assert code == 0
    classes = [c["class"] for c in json.loads(out)["packages"][0]["changes"]]
    assert classes == ["downgrade"]  # "1.0" → "" (no version): lower than any version


# Issue 25, item 13: a spec with no `variants` key loaded, then a diff that asked how the page
# spells its variants failed with an internal error naming no file.


def test_a_spec_without_variants_is_refused_naming_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = raw_page("zlib", [entry("a")])
    new = raw_page("zlib", [entry("b").replace('"variants": ["build_system=cmake"], ', "")])
    assert '"variants"' not in new
    page = tmp_path / "new" / "_cache" / "develop" / "zlib" / "specs.md"
    message = refused(pair(tmp_path, old, new), capsys)
    assert message.startswith(f"{page}: spec b"), message
    assert message.endswith(
        "has no 'variants' list (regenerate the page or remove it from the snapshot)"
    )


def test_an_index_record_without_parameters_has_no_variants(tmp_path: Path) -> None:
    """Spack writes `parameters` only when a spec has some (Spec.to_node_dict): valid data."""
    record = {"name": "zlib", "version": "1.3", "arch": {"platform": "linux"}}
    install = {"spec": record, "in_buildcache": True}
    path = tmp_path / "index.json"
    path.write_text(json.dumps({"database": {"version": "8", "installs": {"a" * 32: install}}}))
    (page,) = load_snapshot(str(path)).pages.values()
    assert page.entries is not None
    assert [entry.variants for entry in page.entries.values()] == [()]


# Issue 25, item 12: a configuration found in the checkout could set `allow:` (`package: "*"`
# turned a failing `--fail-on downgrade` given on the command line into exit 0) and `repo:`.
# Every key that widens what is trusted, what is read, or what passes a gate is now refused.

REFUSED = {
    "allow": 'allow:\n  - {gate: downgrade, package: "*", reason: "any"}',
    "repo": "repo: /elsewhere",
    "stack-url": "stack-url: [e4s=http://127.0.0.1:9/e4s]",
    "keep-going": "keep-going: true",
    "link-base": "link-base: https://phish.example/o/r",
    **{name: f"{name}: [py-jax]" for name in ("package", "tag", "stack", "os", "target")},
    "compiler": "compiler: gcc*",
}


@pytest.mark.parametrize("key", sorted(REFUSED))
def test_a_configuration_in_the_checkout_widens_nothing(
    key: str, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (checkout / ".snapdiff.yaml").write_text(REFUSED[key] + "\n")
    message = refused([V2, V1, "--fail-on", "downgrade"], capsys)
    assert message == (
        f"{checkout / '.snapdiff.yaml'}:1: {key} is not read from a configuration found in the "
        f"checkout (pass --config {checkout / '.snapdiff.yaml'} to trust it, or --no-config)"
    )


def test_allow_in_a_configuration_named_with_config_is_trusted(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (checkout / ".snapdiff.yaml").write_text(REFUSED["allow"] + "\n")
    assert run([V2, V1, "--fail-on", "downgrade", "--no-config"], capsys)[0] == 1
    code, _, err = run([V2, V1, "--fail-on", "downgrade", "--config", ".snapdiff.yaml"], capsys)
    assert code == 0 and "snapdiff: allowed: downgrade * (any)" in err, err


@pytest.mark.parametrize("key", sorted(set(REFUSED) - {"allow"}))
def test_each_refused_key_is_read_from_a_configuration_named_with_config(
    key: str, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Named with --config, the file is read like the command line: the key takes effect."""
    (checkout / ".snapdiff.yaml").write_text(REFUSED[key] + "\n")
    code, _, err = run([V1, V2, "--config", ".snapdiff.yaml"], capsys)
    assert "is not read from a configuration" not in err
    assert code == 0 or err.startswith("snapdiff: error: "), err  # read, and acted on


def test_a_configuration_in_the_checkout_may_set_how_to_report(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (checkout / ".snapdiff.yaml").write_text(
        "format: json\nfor: github\nfail-on: [downgrade]\nwarn-on: [stack-loss]\n"
        "exit-code: false\nindex-tag: develop\nstack-name: root\nno-cache: true\n"
    )
    code, out, _ = run([V2, V1], capsys)
    assert code == 1 and json.loads(out)["schema_version"] == 1  # its gate, stricter, applies


# 13. A spec's `size` over 64 bits (JSON allows any integer) that changed between the sides made
# `--format json` an internal error: orjson writes no integer over 64 bits.


def test_an_integer_over_64_bits_in_a_changed_field_is_written_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = raw_page("zlib", [entry("a").replace('"size": "-"', f'"size": {2**70}')])
    new = raw_page("zlib", [entry("a").replace('"size": "-"', f'"size": {2**70 + 1}')])
    code, out, err = run([*pair(tmp_path, old, new), "--format", "json"], capsys)
    assert code == 0, err
    (changed,) = json.loads(out)["packages"][0]["specs_changed"]
    assert changed["fields"]["size"] == {"old": 2**70, "new": 2**70 + 1}
    assert f'"old": {2**70},\n' in out  # indented as every report is


# 14. Found by a hunt for hostile values (session 14), each an internal error or a false report
# before: a version of more than 4,300 digits (Python's `int` limit); a YAML page holding such an
# integer; YAML's `.inf` and `.nan`, which JSON cannot hold (the JSON report said `null`); an
# integer beyond 64 bits on a page read the slow way (an unknown key), which orjson made a float
# (a change reported where there was none, none where there was one).


def test_a_version_of_more_than_4300_digits_is_ordered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = "1" * 4301
    write_page(tmp_path / "old", "zlib", [spec("a", "2.0")])
    write_page(tmp_path / "new", "zlib", [spec("a", "2.0"), spec("b", long)])
    code, out, err = run([str(tmp_path / "old"), str(tmp_path / "new"), "-f", "json"], capsys)
    assert code == 0, err
    (package,) = json.loads(out)["packages"]
    assert package["versions_new"] == ["2.0", long]
    assert package["bump"]["kind"] == "upgrade"


@pytest.mark.parametrize("value", ["1" * 4301, ".inf", "-.inf", ".nan"])
def test_a_yaml_value_that_cannot_be_read_or_written_is_refused(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, message = yaml_refused(tmp_path, f"    variants: []\n    size: {value}\n", capsys)
    assert message.startswith(str(path)), message
    assert "4300 digits" in message if value[0] == "1" else "which JSON cannot" in message


def test_an_integer_beyond_64_bits_on_a_page_read_the_slow_way_is_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = 2**64 + 5
    write_page(tmp_path / "old", "zlib", [spec("a", size=big), spec("b")])
    write_page(tmp_path / "new", "zlib", [spec("a", size=big), spec("b", foo=1)])
    write_page(tmp_path / "old", "zstd", [spec("c", foo=big)])
    write_page(tmp_path / "new", "zstd", [spec("c", foo=big + 1)])
    code, out, err = run([str(tmp_path / "old"), str(tmp_path / "new"), "-f", "json"], capsys)
    assert code == 0, err
    changed = {p["name"]: p["specs_changed"] for p in json.loads(out)["packages"]}
    assert [c["hash"][:1] for c in changed["zlib"]] == ["b"]  # `a` is the same on both sides
    (foo,) = changed["zstd"]
    assert foo["details"] == [f"foo: {big} → {big + 1}"]


def test_a_key_the_generator_does_not_write_is_a_field_of_its_own_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SPEC §4: `fields` names each field that differs; a key the generator does not write was
    reported as `extra`, its values JSON text in lists of pairs. A side without the key is
    named (`missing`): a key null on one side and missing on the other read `null → null`."""
    old = [spec("a", foo="-", gone=2**70, nulled=None, kept=None)]
    new = [spec("a", foo=[1, "a", None], new={"k": 1.5}, kept=None)]
    write_page(tmp_path / "old", "zlib", old)
    write_page(tmp_path / "new", "zlib", new)
    code, out, err = run([str(tmp_path / "old"), str(tmp_path / "new"), "-f", "json"], capsys)
    assert code == 0, err
    (changed,) = json.loads(out)["packages"][0]["specs_changed"]
    assert changed["fields"] == {
        "foo": {"old": "-", "new": [1, "a", None]},
        "gone": {"old": 2**70, "new": None, "missing": "new"},
        "new": {"old": None, "new": {"k": 1.5}, "missing": "old"},
        "nulled": {"old": None, "new": None, "missing": "new"},
    }
    assert "nulled: removed null" in changed["details"]


def test_a_key_named_package_leaves_a_move_said_in_the_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page's own key named `package` took the move's place in the JSON `fields` (a dict by
    name); the move is the field, and the key's change stays in the details."""
    write_page(tmp_path / "old", "zlib", [spec("a", package="x")])
    write_page(tmp_path / "new", "zstd", [spec("a", package="y")])
    code, out, err = run([str(tmp_path / "old"), str(tmp_path / "new"), "-f", "json"], capsys)
    assert code == 0, err
    changed = [c for p in json.loads(out)["packages"] for c in p["specs_changed"]]
    assert changed and all(
        c["fields"] == {"package": {"old": "zlib", "new": "zstd"}} for c in changed
    )
    assert all("package: x → y" in c["details"] for c in changed)


def test_a_version_beyond_what_int_reads_here_is_ordered() -> None:
    """`int` reads as many digits as the interpreter allows (PYTHONINTMAXSTRDIGITS, 640 at
    least): the cut to `Decimal` follows it, not a number of its own."""
    code = (
        "from snapdiff.versions import sort_versions\n"
        "print([len(v) for v in sort_versions(['1' * 700, '2', '1' * 650])])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONINTMAXSTRDIGITS": "640"},
    )
    assert done.returncode == 0 and done.stdout == "[1, 650, 700]\n", done.stderr


# 15. An unchanged page's `meta` counting a stack below one spec, or above the page's specs, was
# trusted (from a directory, or a git revision's cached tally): a stack's count in the report
# went negative.


@pytest.mark.parametrize("git_mode", [False, True])
@pytest.mark.parametrize("lie", [-4, 0, 3])
def test_an_unchanged_page_whose_meta_counts_a_stack_impossibly_is_read_instead(
    lie: int, git_mode: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sides = [tmp_path / side for side in ("old", "new")]
    for side in sides:
        page = write_page(side, "zlib", [spec("a"), spec("b", stacks=("e4s",))])
        text = page.read_text().replace('{"e4s": 2, "root": 1}', f'{{"e4s": {lie}, "root": 1}}')
        page.write_text(text)
    write_page(sides[0], "cmake", [spec("c")])
    write_page(sides[1], "cmake", [spec("c"), spec("d")])
    argv = [str(side) for side in sides]
    if git_mode:
        repo = new_repo(tmp_path / "repo")
        for day, side in enumerate(sides, start=1):
            shutil.rmtree(repo / "_cache", ignore_errors=True)
            shutil.copytree(side / "_cache", repo / "_cache")
            commit(repo, side.name, day)
        argv = ["HEAD~1", "HEAD", "--repo", str(repo), "--cache-dir", str(tmp_path / "cache")]
    code, out, err = run([*argv, "--format", "json"], capsys)
    assert code == 0 and "meta.num_specs_by_stack disagrees with spec_details" in err
    e4s = next(stack for stack in json.loads(out)["stacks"] if stack["name"] == "e4s")
    assert (e4s["specs_old"], e4s["specs_new"]) == (3, 4)  # zlib's 2, and cmake's 1 then 2
