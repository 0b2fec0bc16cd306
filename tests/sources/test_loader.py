"""Loading pages: both generations, both layouts, which files are pages, and bad input."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from pagegen import HISTORY, SEEDS, load_real, page_text, spec, write_page

from snapdiff.errors import InputError
from snapdiff.model import Entry, Spec
from snapdiff.sources import frontmatter, load_snapshot, pages
from snapdiff.sources.entries import Entries
from snapdiff.sources.pages import blob_digest, is_candidate, is_page, parse_page


@pytest.mark.parametrize("path", HISTORY + SEEDS, ids=lambda p: p.parent.name + "/" + p.name)
def test_real_pages_of_both_generations_load(path: Path) -> None:
    title, tag, meta, details = load_real(path)
    page, _, warnings = parse_page(path.read_bytes(), str(path), "x")
    assert page.entries is not None
    assert (page.name, page.tag) == (title, tag)
    specs = [Spec.from_entry(e) for e in page.entries.values()]
    assert [s.hash for s in specs] == sorted(d["hash"] for d in details)
    assert page.spec_count == len(specs) == meta["num_specs"]
    assert warnings == []
    for entry, normalised in zip(sorted(details, key=lambda d: d["hash"]), specs, strict=True):
        raw = entry["compiler"].replace("@=", "@")  # Spack 1.0 names oneapi by its package
        expected = "intel-oneapi-compilers@" + raw[7:] if raw.startswith("oneapi@") else raw
        assert normalised.compiler == expected
        assert normalised.stacks == tuple(sorted(entry["stacks"]))
        assert normalised.versions == tuple(entry["versions"])
        assert normalised.extra == ()  # tarball is ignored, nothing else is unknown


@pytest.mark.parametrize("path", HISTORY + SEEDS, ids=lambda p: p.name)
def test_generator_pages_never_go_through_yaml(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """YAML is ~30x slower on these pages: the one-line JSON form must take the fast path."""

    def no_yaml(*args: object) -> None:
        raise AssertionError("YAML fallback used")

    monkeypatch.setattr(frontmatter, "_yaml_fields", no_yaml)
    for full in (True, False):
        assert pages.parse_page(path.read_bytes(), "p", "d", full).page.spec_count > 0
    assert pages.counts_from_meta(path.read_bytes(), "p", "d").page.spec_count > 0


def test_older_generation_normalises_like_the_newer() -> None:
    """Key order, `tarball`, `gcc@=` and stack order do not survive normalisation."""
    old = HISTORY[0]
    title, tag, _, details = load_real(old)
    rewritten = [
        {k: v for k, v in d.items() if k != "tarball"}
        | {"compiler": d["compiler"].replace("@=", "@"), "stacks": d["stacks"][::-1]}
        for d in details
    ]
    page_old = parse_page(old.read_bytes(), "old", "1").page
    page_new = parse_page(page_text(title, tag, rewritten).encode(), "new", "2").page
    assert "@=" in old.read_text() and "tarball" in old.read_text()
    assert page_old.entries is not None and page_new.entries is not None
    assert page_old.entries != page_new.entries  # as read, they differ
    normalised = [
        [Spec.from_entry(e) for e in entries.values()]
        for entries in (page_old.entries, page_new.entries)
    ]
    assert normalised[0] == normalised[1]


def test_flat_folder_and_catalogue_layout_load_the_same(tmp_path: Path) -> None:
    flat = tmp_path / "flat"
    flat.mkdir()
    for seed in SEEDS:
        shutil.copy(seed, flat / seed.name)
    layout = tmp_path / "layout"
    for seed in SEEDS:
        title = load_real(seed)[0]
        target = layout / "_cache" / "develop" / title / "specs.md"
        target.parent.mkdir(parents=True)
        shutil.copy(seed, target)
    a, b = load_snapshot(str(flat)), load_snapshot(str(layout))
    assert list(a.pages) == list(b.pages) == sorted(a.pages)
    assert len(a.pages) == 5
    assert [p.entries for p in a.pages.values()] == [p.entries for p in b.pages.values()]


def test_site_files_are_not_pages(tmp_path: Path) -> None:
    write_page(tmp_path, "zlib", [spec("z1")])
    (tmp_path / "README.md").write_text("# The catalogue\n")
    (tmp_path / "index.md").write_text("---\nlayout: default\ntitle: Home\n---\nHello\n")
    (tmp_path / "_config.yml").write_text("title: cache\n")
    (tmp_path / "_layouts").mkdir()
    (tmp_path / "_layouts" / "cache.html").write_text("<html>{{ content }}</html>\n")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "specs.md").write_text(page_text("hidden", "develop", [spec("h1")]))
    snapshot = load_snapshot(str(tmp_path))
    assert list(snapshot.pages) == [("develop", "zlib")]


@pytest.mark.parametrize(
    ("path", "read"),
    [
        ("_cache/develop/zlib/specs.md", True),
        ("specs.md", True),
        (".snapdiff.yaml", True),  # a hidden file, not a hidden folder
        ("a/b.c/.d", True),
        (".git/specs.md", False),
        (".github/workflows/x.md", False),
        ("_cache/.tmp/zlib/specs.md", False),
    ],
)
def test_files_in_hidden_folders_are_never_read(path: str, read: bool) -> None:
    assert is_candidate(path) is read


def test_is_page() -> None:
    assert is_page(b'---\ntitle: "x"\nlayout: cache\n---')
    assert is_page(b"---\nlayout: 'cache'\n---\n")
    assert not is_page(b"---\nlayout: default\n---\n")
    assert not is_page(b"# readme\nlayout: cache\n")
    assert not is_page(b"---\ntitle: x\n---\nlayout: cache\n")


def test_yaml_front_matter_in_another_form_loads(tmp_path: Path) -> None:
    """Valid YAML that is not the generator's one-line form goes through the safe YAML loader."""
    entry = spec("y1", "2.0")
    text = (
        "---\nlayout: cache\ncategories:\n  - package\n  - develop\ntitle: 'zlib'\n"
        f"spec_details:\n  - {json.dumps(entry)}\n---\n"
    )
    page = parse_page(text.encode(), "p", "d").page
    assert page.entries is not None
    assert (page.tag, page.name) == ("develop", "zlib")
    assert Spec.from_entry(page.entries[entry["hash"]]) == Spec.from_entry(
        Entry.from_mapping(entry)
    )


def test_meta_disagreeing_with_spec_details_warns() -> None:
    text = page_text("zlib", "develop", [spec("a1"), spec("a2")])
    text = text.replace('"num_specs": 2', '"num_specs": 3')
    page, _, warnings = parse_page(text.encode(), "zlib.md", "d")
    assert page.spec_count == 2
    assert warnings == ["zlib.md: meta says 3 specs, spec_details has 2 (using spec_details)"]


BAD_PAGES = {
    "empty": ("", "no front matter"),
    "no front matter": ("title: x\n", "no front matter"),
    "unterminated": ('---\ntitle: "x"\nlayout: cache\n', "unterminated front matter"),
    "bad json": (
        '---\ntitle: "x"\nlayout: cache\ncategories: [package, develop]\nmeta: {}\n'
        'spec_details: [{"hash": }]\n---',
        ":6: spec_details is not valid JSON (unexpected character",
    ),
    "not a list": (
        page_text("x", "develop", []).replace("spec_details: []", "spec_details: 3"),
        "'spec_details' is missing or not a list",
    ),
    "no hash": (
        page_text("x", "develop", [{"versions": ["1"], "stacks": []}]),
        "spec_details[0] has no string 'hash'",
    ),
    "hash not a string": (
        page_text("x", "develop", [{"hash": 5, "versions": [], "stacks": []}]),
        "spec_details[0] has no string 'hash'",
    ),
    "same hash twice": (page_text("x", "develop", [spec("d1"), spec("d1")]), "appears twice"),
    "no tag": (page_text("x", "develop", []).replace("[package, develop]", "[package]"), "no tag"),
    "python tag": (
        '---\nlayout: cache\ntitle: !!python/object/apply:os.system ["touch x"]\n---',
        "could not determine a constructor",
    ),
    "python tag, block": (
        "---\nlayout: cache\ntitle:\n  !!python/object/new:os.system [x]\n---",
        "could not determine a constructor",
    ),
}


@pytest.mark.parametrize("full", [True, False], ids=["full", "counts-only"])
@pytest.mark.parametrize("case", sorted(BAD_PAGES))
def test_bad_pages_name_the_file_and_the_problem(case: str, full: bool) -> None:
    text, expected = BAD_PAGES[case]
    with pytest.raises(InputError) as caught:
        parse_page(text.encode(), "cat/x/specs.md", "d", full)
    assert caught.value.message.startswith("cat/x/specs.md")
    assert expected in caught.value.message
    assert "\n" not in caught.value.message


@pytest.mark.parametrize("path", HISTORY + SEEDS, ids=lambda p: p.name)
def test_counts_only_parse_agrees_with_the_full_parse(path: Path) -> None:
    data = path.read_bytes()
    full = parse_page(data, "p", blob_digest(data))
    counts = parse_page(data, "p", blob_digest(data), full=False)
    assert counts.page.entries is None and full.page.entries is not None
    assert counts.hashes == full.hashes
    assert (counts.page.spec_count, counts.page.stack_counts) == (
        full.page.spec_count,
        full.page.stack_counts,
    )
    assert counts.warnings == full.warnings == []


def _compiled(details: list[dict[str, object]]) -> tuple[tuple[str, int], ...]:
    """Specs per stack with a compiler (not `none`), counted independently of snapdiff."""
    found: dict[str, int] = {}
    for entry in details:
        if entry.get("compiler") != "none":
            for stack in set(entry["stacks"]):  # type: ignore[call-overload]
                found[stack] = found.get(stack, 0) + 1
    return tuple(sorted(found.items()))


def _every_way(data: bytes) -> list[tuple[tuple[str, int], ...]]:
    """A page's specs per stack with a compiler, as each way of reading it counts them."""
    return [
        parse_page(data, "p", "d").page.compiled_counts,
        parse_page(data, "p", "d", full=False).page.compiled_counts,
        pages.counts_from_meta(data, "p", "d").page.compiled_counts,
    ]


@pytest.mark.parametrize("path", HISTORY + SEEDS, ids=lambda p: p.name)
def test_real_pages_count_their_specs_with_a_compiler_alike_every_way(path: Path) -> None:
    expected = _compiled(load_real(path)[3])
    assert _every_way(path.read_bytes()) == [expected] * 3


@pytest.mark.parametrize(
    "compilers",
    [("none", "none"), ("gcc@12.4.0", "gcc@=12.5.0"), ("none", "gcc@12.4.0"), ("none@1", "")],
    ids=["none", "compiled", "mixed", "almost-none"],
)
@pytest.mark.parametrize("form", ["generator", "another-key"])
def test_specs_with_a_compiler_are_counted_alike_every_way(
    compilers: tuple[str, str], form: str
) -> None:
    """Synthetic pages: every way of reading a page (the line decoded into records, entries
    parsed whole, and meta's counts with `spec_details` only searched) counts alike."""
    details = [
        spec("a1", stacks=("e4s", "root"), compiler=compilers[0]),
        spec("b2", stacks=("hep", "root"), compiler=compilers[1]),
    ]
    text = page_text("x", "develop", details)
    if form != "generator":  # a key of a newer generator last: the entries are parsed whole
        other = [{**d, "zz_new": [1]} for d in details]
        line = text.split("\n")[5]
        assert line.startswith("spec_details: ")
        text = text.replace(line, "spec_details: " + json.dumps(other))
        assert Entries.from_line(line[14:].encode(), "p") is not None
        assert Entries.from_line(json.dumps(other).encode(), "p") is None
    assert _every_way(text.encode()) == [_compiled(details)] * 3


def test_a_meta_that_lists_no_compiler_none_can_only_make_specs_look_compiled() -> None:
    """Counts-only pages trust meta's `compilers` to skip reading: a meta that leaves `none`
    out makes the specs with no compiler look compiled (a stack cannot move), never the
    other way round."""
    details = [spec("a1", compiler="none"), spec("b2", stacks=("hep", "root"), compiler="none")]
    text = page_text("x", "develop", details)
    lying = text.replace('"compilers": ["none"]', '"compilers": ["gcc@11.4.0"]')
    assert lying != text
    counted = pages.counts_from_meta(lying.encode(), "p", "d").page
    assert counted.compiled_counts == counted.stack_counts
    assert parse_page(lying.encode(), "p", "d").page.compiled_counts == ()


def test_a_stack_listed_twice_in_a_spec_counts_once() -> None:
    text = page_text("x", "develop", [spec("a1", stacks=("e4s", "e4s", "root"))])
    for full in (True, False):
        page = parse_page(text.encode(), "p", "d", full).page
        assert page.stack_counts == (("e4s", 1), ("root", 1))


def test_non_utf8_page() -> None:
    page = page_text("zlib", "develop", [spec("a1")]).encode()
    with pytest.raises(InputError, match=r"^p:3: not UTF-8 text \(bad byte at column 11\)"):
        parse_page(page.replace(b"layout: cache", b"layout: ca\xffche"), "p", "d")
    with pytest.raises(InputError, match=r"^p:5: meta is not valid JSON \(.*UTF-8"):
        parse_page(page.replace(b"ubuntu22.04", b"ubuntu\xff"), "p", "d")


def test_a_catalogue_path_must_parse(tmp_path: Path) -> None:
    bad = tmp_path / "_cache" / "develop" / "zlib" / "specs.md"
    bad.parent.mkdir(parents=True)
    bad.write_text("not a page at all\n")
    with pytest.raises(InputError, match=r"specs\.md: no front matter"):
        load_snapshot(str(tmp_path))


def test_missing_and_empty_directories(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such directory"):
        load_snapshot(str(tmp_path / "missing"))
    with pytest.raises(InputError, match="no catalogue pages found under"):
        load_snapshot(str(tmp_path))


def test_two_pages_for_one_package_is_an_error(tmp_path: Path) -> None:
    write_page(tmp_path, "zlib", [spec("a1")])
    (tmp_path / "copy.md").write_text(page_text("zlib", "develop", [spec("b1")]))
    with pytest.raises(InputError, match="second page for zlib under tag develop"):
        load_snapshot(str(tmp_path))


def test_one_hash_on_two_pages_of_a_tag_is_an_error(tmp_path: Path) -> None:
    write_page(tmp_path, "zlib", [spec("a1")])
    write_page(tmp_path, "zstd", [spec("a1")])
    with pytest.raises(InputError, match=r"zstd/specs.md: hash a1a+ of tag develop is also in"):
        load_snapshot(str(tmp_path))


def test_same_hash_under_two_tags_is_fine(tmp_path: Path) -> None:
    write_page(tmp_path, "zlib", [spec("a1")], tag="develop")
    write_page(tmp_path, "zlib", [spec("a1")], tag="v0.22.0")
    assert load_snapshot(str(tmp_path)).tags == ("develop", "v0.22.0")


def test_invalid_json_names_line_and_column() -> None:
    text = BAD_PAGES["bad json"][0]
    with pytest.raises(InputError) as caught:
        parse_page(text.encode(), "p.md", "d")
    assert caught.value.where == "p.md:6"
    assert caught.value.what.startswith("spec_details is not valid JSON (")
    assert caught.value.what.endswith(" at column 25)")  # the character after '"hash": '


def test_what_a_page_is_has_one_home() -> None:
    """A file at a page's place is a page, too large a bad page; elsewhere its bytes decide, and
    a file too large to read is no page. Every reader (a folder, a revision, a pair of
    revisions in O(changed)) asks this one function, and none decides by itself."""
    page = b"---\nlayout: cache\ntitle: zlib\n---\n"
    huge = pages.MAX_PAGE_BYTES + 1
    assert pages.is_page_content(b"anything", True, "p")
    assert pages.is_page_content(page, False, "p")
    assert not pages.is_page_content(b"---\nlayout: post\n---\n", False, "p")
    assert not pages.is_page_content(huge, False, "p")
    with pytest.raises(InputError, match="more than a page can be"):
        pages.is_page_content(huge, True, "p")
    readers = Path(pages.__file__).parent
    deciding = [
        str(module.relative_to(readers))
        for module in sorted(readers.rglob("*.py"))
        if module.name != "pages.py" and re.search(r"\bis_page\(", module.read_text())
    ]
    assert deciding == []
