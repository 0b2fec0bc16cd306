"""Render a Report as Markdown through Jinja templates (the only jinja2 import)."""

from __future__ import annotations

import pickle  # what Jinja's cache files hold besides the code
from collections.abc import Mapping
from contextlib import suppress
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import jinja2
import jinja2.bccache
import jinja2.sandbox
from markupsafe import Markup, escape

from ..errors import TemplateError
from ..report import Report
from ..report.labels import short_commit
from .budget import PLACEHOLDER, fit, marked, truncated
from .context import cut_sections, log_context, markdown_context, section_rows, template_data
from .links import Links
from .markup import code, delta, finalize, html_code, number, plural, sentence, signed, some
from .sections import SECTIONS, SectionId
from .views import LogContext, MarkdownContext, Sections, SectionView

if TYPE_CHECKING:  # `snapdiff log` only: the diff path need not import it
    from ..history import History

__all__ = ["MarkdownRenderer", "render_history_markdown", "render_markdown", "templates_dir"]

DEFAULT_TEMPLATE = "report.md.j2"
LOG_TEMPLATE = "log.md.j2"


def templates_dir() -> Path:
    """The default templates: inside the installed package, or top-level in a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "templates", here.parent.parent / "templates"):
        if (candidate / DEFAULT_TEMPLATE).is_file():
            return candidate
    raise TemplateError(str(here), "default templates not found", "reinstall snapdiff")


class _QuietCache(jinja2.FileSystemBytecodeCache):
    """Jinja's cache of compiled templates, where failing to read or write costs a compile."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError, pickle.UnpicklingError):
            bucket.reset()  # compile it again

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with suppress(OSError):  # a full disk, a folder removed meanwhile
            super().dump_bytecode(bucket)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """The user's private cache folder in the temporary directory (`_jinja2-cache-<uid>`), or
    None where there is none. Each template is kept by its path with a checksum of its source,
    so an edited template is compiled again."""
    try:
        return _QuietCache()
    except (OSError, RuntimeError):  # no usable per-user folder in the temporary directory
        return None


_DICT_NAMES = frozenset(dir(dict))  # what `getattr` finds on a dict before its items


class _Sandbox(jinja2.sandbox.ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, with `row.field` of a plain dict (what the context is made
    of) read at once: the sandbox's own way tries the attribute first and fails (an exception
    per field a row prints: 4 % of a release → release run), then takes the item, as this does."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_NAMES and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)


@lru_cache(maxsize=4)
def _environment(template_dir: str | None, cached: bool = False) -> jinja2.Environment:
    """A Jinja environment: the user's template folder first (if any), then the defaults.

    `cached` keeps compiled templates in a folder of the user's (the command line opts in:
    a library call writes nothing outside its output).
    """
    folders = [template_dir] if template_dir else []
    env = _Sandbox(  # a template may come with a checkout
        loader=jinja2.FileSystemLoader([*folders, str(templates_dir())]),
        bytecode_cache=_bytecode_cache() if cached else None,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=True,  # escapes nothing: finalize makes every data string inert first
        finalize=finalize,
    )
    env.filters.update(
        signed=signed,
        delta=delta,
        some=some,
        sentence=sentence,
        code=code,
        html=html_code,
        number=number,
        plural=plural,
        short_commit=short_commit,
    )
    return env


def _escaped(value: object) -> Markup:
    """What the template prints, as `markupsafe.escape` gives it, but a Markup (every string
    `finalize` gives is one) is given back as it is, not copied into a new one."""
    return value if isinstance(value, Markup) else escape(value)


def _printing(template: jinja2.Template) -> jinja2.Template:
    """The template with `_escaped` for what each `{{ }}` prints: Jinja's compiled code calls
    the name `escape` of its module's namespace (markupsafe's, two Python calls a value: 0.05 s
    of the 0.33 s a release pair's Markdown takes). A template it includes keeps its own."""
    namespace = template.root_render_func.__globals__
    if namespace.get("escape") is escape:
        namespace["escape"] = _escaped
    return template


def _template(
    template: str | None, template_dir: str | None, default: str, cached: bool
) -> jinja2.Template:
    """The one template loader: --template FILE, else `default` from --template-dir (if any)
    over the shipped templates."""
    path = Path(template) if template else None
    name = path.name if path else default
    try:
        env = _environment(str(path.parent) if path else template_dir, cached)
        return _printing(env.get_template(name))
    except jinja2.TemplateNotFound as exc:
        where = template or f"{template_dir}/{name}"
        raise TemplateError(where, "template not found", "check the path") from exc
    except jinja2.TemplateError as exc:
        raise _template_error(exc, name) from exc


def _render(template: jinja2.Template, context: MarkdownContext | LogContext) -> str:
    """The template rendered; any error of Jinja's as a TemplateError naming file and line."""
    try:
        text: str = template.render(context)
    except jinja2.TemplateError as exc:
        raise _template_error(exc, template.filename or template.name or "template") from exc
    return text


def _template_error(exc: jinja2.TemplateError, where: str) -> TemplateError:
    """The one error mapper: a Jinja error as `TemplateError(file:line, ...)`."""
    line: int | None
    if isinstance(exc, jinja2.TemplateSyntaxError):
        where, line, what = exc.filename or where, exc.lineno, exc.message
    else:
        line, what = _template_line(exc, where), str(exc)
    return TemplateError(
        f"{where}:{line}" if line else where, f"template error: {what}", "fix the template"
    )


def _template_line(exc: BaseException, filename: str) -> int | None:
    """The line of the template a rendering error came from (Jinja keeps it in the traceback)."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


class MarkdownRenderer:
    """Renders one report through one template, as often as the budget needs (limits differ)."""

    def __init__(
        self,
        report: Report,
        template: str | None = None,
        template_dir: str | None = None,
        full_report: str | None = None,
        cached: bool = False,
        links: Links | None = None,
        all_causes: bool = False,
        artifact: bool = False,
    ) -> None:
        self.report = report
        self.data = template_data(report, shipped=template is None and template_dir is None)
        self.rows = section_rows(report, self.data, all_causes)
        self.full_report = full_report
        self.links = links or Links()
        # all but the sections is the same whatever their limits: worked out once
        self._whole = markdown_context(
            report, self.data, self.rows, None, full_report, PLACEHOLDER, self.links, artifact
        )
        self._labels = (self._whole["old_label"], self._whole["new_label"])  # not in the marker
        self._template = _template(template, template_dir, DEFAULT_TEMPLATE, cached)
        self._whole_text: str | None = None  # rendered when first asked for

    def __call__(self, limits: Mapping[SectionId, int] | None = None) -> str:
        """The Markdown with each section cut to its limit (no limit: everything), marked."""
        return self._marked(self._render(limits))

    def _marked(self, text: str) -> str:
        return marked(text, self._labels)

    def _render(self, limits: Mapping[SectionId, int] | None) -> str:
        """The Markdown with the marker's placeholder (of the same length as the marker); the
        whole text rendered once (a comment that fits is also its full report)."""
        if limits:
            cut = self._whole.copy()
            cut["sections"] = cut_sections(self.rows, limits)
            return _render(self._template, cut)
        if self._whole_text is None:
            self._whole_text = _render(self._template, self._whole)
        return self._whole_text

    def _listing(self, limits: Mapping[SectionId, int], most: int) -> str:
        """As `_render`, each section listing only its first `most` of the rows the limits
        show, its counts (`total`, `more`) as with the limits: for `fit`, a text never longer
        than that one."""
        found = self._whole.copy()
        views = cast(Mapping[str, SectionView[Any]], cut_sections(self.rows, limits))
        listed = {name: {**view, "rows": view["rows"][:most]} for name, view in views.items()}
        found["sections"] = cast(Sections, listed)
        return _render(self._template, found)

    def text(self, budget: int | None) -> str:
        """The Markdown cut to the budget; whole without one."""
        return self.fitted(budget) if budget else self()

    def fitted(self, budget: int) -> str:
        """The Markdown cut to fit the budget, least important sections first."""
        totals = {s.id: len(self.rows[s.id]) for s in SECTIONS}
        bumps = [p["bump"] for p in self.rows["bumps"]]
        downgrades = sum(1 for bump in bumps if bump and bump["kind"] == "downgrade")
        see: str | None = self._whole["full_report"]
        if see and self._whole["full_report_artifact"]:
            see = f"the artifact {see}"
        return self._marked(fit(self._render, totals, downgrades, budget, self._listing, see))


def render_markdown(
    report: Report, template: str | None = None, template_dir: str | None = None
) -> str:
    """The whole report as Markdown through a Jinja template (every data string inert)."""
    return MarkdownRenderer(report, template, template_dir)()


def render_history_markdown(
    history: History,
    template: str | None = None,
    template_dir: str | None = None,
    budget: int | None = None,
    cached: bool = False,
    links: Links | None = None,
) -> str:
    """`snapdiff log` as Markdown through `log.md.j2`; over the budget, if one is given, cut at
    a line with a note (a log has no sections to cut by priority)."""
    context = log_context(history, PLACEHOLDER, links)
    text = _render(_template(template, template_dir, LOG_TEMPLATE, cached), context)
    labels = (context["history"]["range"]["start"], context["history"]["range"]["end"])
    return marked(truncated(text, budget) if budget else text, labels)
