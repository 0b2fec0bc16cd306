"""Render a Report as Markdown through Jinja templates (the only jinja2 import)."""

from __future__ import annotations

import pickle  # what Jinja's cache files hold besides the code
from collections.abc import Callable, Mapping
from contextlib import suppress
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
import jinja2.bccache
import jinja2.sandbox

from ..errors import TemplateError
from ..report import Report
from .budget import PLACEHOLDER, fit, marked
from .charts import stack_charts
from .context import FOLD_AFTER, commit_linker, markdown_context, section_rows
from .jsonreport import history_to_dict, report_to_dict
from .links import Links
from .markup import Safe, code, delta, finalize, html_code, number, plural, sentence, signed, some
from .sections import SECTIONS, SectionId
from .sentences import stack_move_rows
from .views import MarkdownContext

if TYPE_CHECKING:  # `snapdiff log` only: the diff path need not import it
    from ..history import History

__all__ = ["MarkdownRenderer", "render_history_markdown", "render_markdown", "templates_dir"]

DEFAULT_TEMPLATE = "report.md.j2"
LOG_TEMPLATE = "log.md.j2"


# ---------------------------------------------------------------- Markdown


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


@lru_cache(maxsize=4)
def _environment(template_dir: str | None, cached: bool = False) -> jinja2.Environment:
    """A Jinja environment: the user's template folder first (if any), then the defaults.

    `cached` keeps compiled templates in a folder of the user's (the command line opts in:
    a library call writes nothing outside its output).
    """
    folders = [template_dir] if template_dir else []
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(  # a template may come with a checkout
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
    )
    return env


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
    ) -> None:
        self.report = report
        self.data = report_to_dict(report)
        self.rows = section_rows(report, self.data)
        self.full_report = full_report
        self.links = links or Links()
        found = self._context(None)
        self._labels = (found["old_label"], found["new_label"])  # left out of the marker
        path = Path(template) if template else None
        folder = str(path.parent) if path else template_dir
        name = path.name if path else DEFAULT_TEMPLATE
        try:
            self._template = _environment(folder, cached).get_template(name)
        except jinja2.TemplateNotFound as exc:
            where = template or f"{template_dir}/{name}"
            raise TemplateError(where, "template not found", "check the path") from exc
        except jinja2.TemplateSyntaxError as exc:
            where = f"{exc.filename or name}:{exc.lineno}"
            raise TemplateError(
                where, f"template error: {exc.message}", "fix the template"
            ) from exc

    def __call__(self, limits: Mapping[SectionId, int] | None = None) -> str:
        """The Markdown with each section cut to its limit (no limit: everything), marked."""
        return self._marked(self._render(limits))

    def _marked(self, text: str) -> str:
        return marked(text, self._labels)

    def _context(self, limits: Mapping[SectionId, int] | None) -> MarkdownContext:
        return markdown_context(
            self.report, self.data, self.rows, limits, self.full_report, PLACEHOLDER, self.links
        )

    def _render(self, limits: Mapping[SectionId, int] | None) -> str:
        """The Markdown with the marker's placeholder (of the same length as the marker)."""
        context = self._context(limits)
        try:
            text: str = self._template.render(context)
        except jinja2.TemplateError as exc:
            where = self._template.filename or self._template.name or DEFAULT_TEMPLATE
            line = _template_line(exc, where)
            raise TemplateError(
                f"{where}:{line}" if line else where, f"template error: {exc}", "fix the template"
            ) from exc
        return text

    def fitted(self, budget: int) -> str:
        """The Markdown cut to fit the budget, least important sections first."""
        totals = {s.id: len(self.rows[s.id]) for s in SECTIONS}
        bumps = [p["bump"] for p in self.rows["bumps"]]
        downgrades = sum(1 for bump in bumps if bump and bump["kind"] == "downgrade")
        return self._marked(fit(self._render, totals, downgrades, budget))


def _template_line(exc: BaseException, filename: str) -> int | None:
    """The line of the template a rendering error came from (Jinja keeps it in the traceback)."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def render_markdown(
    report: Report, template: str | None = None, template_dir: str | None = None
) -> str:
    """The whole report as Markdown through a Jinja template (every data string inert)."""
    return MarkdownRenderer(report, template, template_dir)()


# ---------------------------------------------------------------- history (snapdiff log)


def _end(
    name: str, commit: str | None, base_of: tuple[str, str] | None, linked: Callable[[str], Safe]
) -> Safe:
    """One end of a history's range: its short commit id, then what names it (the revision
    given, or the merge base of the two `A...B` names)."""
    if commit is None:
        return code(name)
    if base_of:
        return Safe(f"{linked(commit)} (merge base of {code(base_of[0])} and {code(base_of[1])})")
    if name.startswith(commit) or (len(name) >= 7 and commit.startswith(name)):
        return linked(commit)  # the name is the commit id itself
    return Safe(f"{linked(commit)} ({code(name)})")


def render_history_markdown(
    history: History,
    template: str | None = None,
    template_dir: str | None = None,
    budget: int | None = None,
    cached: bool = False,
    links: Links | None = None,
) -> str:
    """`snapdiff log` as Markdown through `log.md.j2`, cut to the budget if one is given."""
    data = history_to_dict(history)
    path = Path(template) if template else None
    env = _environment(str(path.parent) if path else template_dir, cached)
    name = path.name if path else LOG_TEMPLATE
    moved = [
        p for p in data["packages"] if len(p["versions"]) > 1 or p["first_seen"] or p["last_seen"]
    ]
    labeller = history.labeller()
    linked = commit_linker(links or Links())

    def label(tag: str, name: str) -> Safe:
        """A package or stack as one code span, `tag/name` when the changes span several tags."""
        return code(labeller(tag, name))

    context = {
        "start_label": _end(history.start, history.start_commit, history.merge_base_of, linked),
        "end_label": _end(history.end, history.end_commit, None, linked),
        "step_moves": [stack_move_rows(step.moves, labeller) for step in history.steps],
        "history": data,
        "packages": moved,
        "fold_after": FOLD_AFTER,
        "marker": Safe(PLACEHOLDER),
        "commit_link": linked,
        "charts": [Safe(chart) for chart in stack_charts(history)],  # built of safe parts
        "label": label,
        "one_tag": history.one_tag(),
        "tags_counted": history.tags_counted(),
    }
    try:
        text: str = env.get_template(name).render(context)
    except jinja2.TemplateError as exc:
        where = getattr(exc, "filename", None) or template or name
        raise TemplateError(str(where), f"template error: {exc}", "fix the template") from exc
    labels = (data["range"]["start"], data["range"]["end"])
    return marked(fit(lambda _: text, {}, 0, budget) if budget else text, labels)
