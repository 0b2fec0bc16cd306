"""Custom templates, the command line's compiled-template cache, and template errors."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import markupsafe
import pytest
from clirun import V1, V2, run

from snapdiff.render.markdown import _environment, _printing


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


def test_a_rows_fields_read_as_the_sandbox_reads_them() -> None:
    """A plain dict's field is read at once (issue 28), and everything else as Jinja's sandbox
    reads it: a dict's own attribute before an item of that name, an unknown one undefined,
    anything unsafe refused."""
    import jinja2
    import jinja2.sandbox

    reference = jinja2.sandbox.ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined)
    ours = _environment(None)
    row = {"label": "a", "items": "an item", "keys": 3, "_hidden": "h"}
    for source in (
        "{{ row.label }}",
        "{{ row.items is callable }}",
        "{{ row.keys is callable }}",
        "{{ row._hidden }}",
        "{{ row.missing is defined }}",
        "{{ row['items'] }}",
    ):
        expected = reference.from_string(source).render(row=row)
        assert ours.from_string(source).render(row=row).strip("`") == expected, source
    for source in ("{{ row.missing }}", "{{ row.__class__.__subclasses__() }}"):
        with pytest.raises(jinja2.TemplateError) as theirs:
            reference.from_string(source).render(row=row)
        with pytest.raises(type(theirs.value)):
            ours.from_string(source).render(row=row)


def test_what_a_template_prints_as_markupsafe_escapes_it() -> None:
    """Each printed value as `markupsafe.escape` gives it (a Markup is given back as it is, not
    copied: issue 28): a number or a list HTML-escaped, a string from the data a code span,
    a constant of the template's HTML-escaped (as Jinja folds it), what a filter, a macro or a
    `set` block composed kept."""
    source = (
        "{% macro m(x) %}<i>{{ x }}</i>{% endmacro %}{% set b %}<b>{{ n }}</b>{% endset %}"
        "{{ n }} {{ items }} {{ s }} {{ '<c>' }} {{ n|number }} {{ m('<x>') }} {{ b }} {{ none }}"
    )
    values = {"n": 1234, "items": ["<a>", "b'c"], "s": "<s>", "none": None}
    plain = _environment(None).from_string(source)
    quick = _printing(_environment(None).from_string(source))
    assert quick.root_render_func.__globals__["escape"] is not markupsafe.escape
    expected = (
        "1234 [&#39;&lt;a&gt;&#39;, &#34;b&#39;c&#34;] `<s>` &lt;c&gt; 1,234 <i>`<x>`</i> "
        "<b>1234</b> None"
    )
    assert plain.render(values) == quick.render(values) == expected
