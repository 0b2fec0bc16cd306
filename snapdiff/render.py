"""Render a Report: JSON for machines, Markdown through Jinja templates for people."""

from __future__ import annotations

from contextlib import suppress
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from .budget import fit, marker
from .context import (
    FOLD_AFTER,
    Safe,
    code,
    finalize,
    html_code,
    markdown_context,
    section_rows,
    sentence,
    signed,
    some,
)
from .errors import TemplateError
from .history import History
from .model import (
    Bump,
    Configuration,
    Migration,
    PackageChange,
    Pair,
    Report,
    Side,
    SpecChange,
    StackChange,
)

__all__ = [
    "history_to_dict",
    "render_history_json",
    "render_history_markdown",
    "render_json",
    "render_markdown",
    "report_to_dict",
    "templates_dir",
]

DEFAULT_TEMPLATE = "report.md.j2"
LOG_TEMPLATE = "log.md.j2"


# ---------------------------------------------------------------- JSON


def _side(side: Side) -> dict[str, Any]:
    return {
        "source": side.source,
        "tags": list(side.tags),
        "packages": side.packages,
        "specs": side.specs,
        "stacks": side.stacks,
        "commit": side.commit,
        "date": side.date,
    }


def _json_value(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    return value


def _spec_change(change: SpecChange) -> dict[str, Any]:
    return {
        "hash": change.hash,
        "stacks_added": list(change.stacks_added),
        "stacks_removed": list(change.stacks_removed),
        "fields": {
            f.name: {"old": _json_value(f.old), "new": _json_value(f.new)} for f in change.fields
        },
        "details": [line.plain() for line in change.details],
    }


def _configuration(config: Configuration) -> dict[str, Any]:
    os_, platform, target, compiler, variants = config
    return {
        "os": os_,
        "platform": platform,
        "target": target,
        "compiler": compiler,
        "variants": list(variants),
    }


def _pair(pair: Pair) -> dict[str, Any]:
    fields: dict[str, Any] = {"old": pair.old, "new": pair.new}
    if pair.kind == "rebuilt":
        fields["version"] = pair.new_version
    else:
        fields |= {"from": pair.old_version, "to": pair.new_version, "kind": pair.kind}
    return fields | {"configuration": _configuration(pair.configuration)}


def _migration(m: Migration) -> dict[str, Any]:
    return {
        "platform": m.platform,
        "dimension": m.dimension,
        "old": list(m.old),
        "new": list(m.new),
        "specs_old": m.specs_old,
        "specs_new": m.specs_new,
    }


def _package(change: PackageChange) -> dict[str, Any]:
    bump = change.bump
    why = change.explanation
    return {
        "tag": change.tag,
        "name": change.name,
        "status": change.status,
        "versions_old": list(change.versions_old),
        "versions_new": list(change.versions_new),
        "versions_added": list(change.versions_added),
        "versions_removed": list(change.versions_removed),
        "bump": bump and _bump(bump),
        "specs_added": list(change.specs_added),
        "specs_removed": list(change.specs_removed),
        "specs_changed": [_spec_change(c) for c in change.specs_changed],
        "stacks_added": list(change.stacks_added),
        "stacks_removed": list(change.stacks_removed),
        "rebuilt": [_pair(p) for p in why.pairs if p.kind == "rebuilt"],
        "pairs": [_pair(p) for p in why.pairs if p.kind != "rebuilt"],
        "appeared": list(why.appeared),
        "disappeared": list(why.disappeared),
        "migrations": [_migration(m) for m in why.migrations],
        "explanation": [line.plain() for line in why.lines],
    }


def _bump(bump: Bump) -> dict[str, Any]:
    return {"from": bump.old, "to": bump.new, "kind": bump.kind, "size": bump.size}


def _summary(report: Report) -> dict[str, Any]:
    summary = report.summary
    return {name: getattr(summary, name) for name in summary.__dataclass_fields__}


def _stack(change: StackChange) -> dict[str, Any]:
    return {
        "tag": change.tag,
        "name": change.name,
        "status": change.status,
        "specs_old": change.specs_old,
        "specs_new": change.specs_new,
        "packages_gained": list(change.packages_gained),
        "packages_lost": list(change.packages_lost),
    }


def report_to_dict(report: Report) -> dict[str, Any]:
    """The JSON report of SPEC section 4 (plus a few documented extra keys)."""
    return {
        "schema_version": report.schema_version,
        "old": _side(report.old),
        "new": _side(report.new),
        "summary": _summary(report),
        "packages": [_package(p) for p in report.packages],
        "stacks": [_stack(s) for s in report.stacks],
        "warnings": list(report.warnings),
        "filters": {name: list(globs) for name, globs in report.filters.applied},
        "incomplete": bool(report.skipped),
        "skipped": list(report.skipped),
    }


def _dumps(data: dict[str, Any]) -> str:
    """Indented JSON, keys in insertion order, ending with a newline.

    orjson writes the same bytes as json.dumps(indent=2, ensure_ascii=False) here, 15 times
    faster (0.013 s against 0.205 s for a develop-size report).
    """
    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE).decode()


def render_json(report: Report) -> str:
    """The JSON report, indented, keys in schema order, ending with a newline."""
    return _dumps(report_to_dict(report))


# ---------------------------------------------------------------- Markdown


def templates_dir() -> Path:
    """The default templates: inside the installed package, or top-level in a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "templates", here.parent / "templates"):
        if (candidate / DEFAULT_TEMPLATE).is_file():
            return candidate
    raise TemplateError(str(here), "default templates not found", "reinstall snapdiff")


def _bytecode_cache() -> Any:
    """Jinja's cache of compiled templates, or None where it cannot be used.

    It is a folder private to the user in the temporary directory (`_jinja2-cache-<uid>`).
    Compiling the default template costs about 70 ms a run; loading it compiled, 2 ms. Each
    template is kept by its path with a checksum of its source, so an edited template is
    compiled again. Failing to read or write the cache only costs the compile.
    """
    import pickle  # what Jinja's cache files hold besides the code

    import jinja2

    class QuietCache(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket: Any) -> None:
            try:
                super().load_bytecode(bucket)
            except (OSError, EOFError, ValueError, pickle.UnpicklingError):
                bucket.reset()  # compile it again

        def dump_bytecode(self, bucket: Any) -> None:
            with suppress(OSError):  # a full disk, a folder removed meanwhile
                super().dump_bytecode(bucket)

    try:
        return QuietCache()
    except (OSError, RuntimeError):  # no usable per-user folder in the temporary directory
        return None


@lru_cache(maxsize=4)
def _environment(template_dir: str | None) -> Any:
    """A Jinja environment: the user's template folder first (if any), then the defaults."""
    import jinja2  # deferred: about 50 ms of start-up that JSON output does not need

    folders = [template_dir] if template_dir else []
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([*folders, str(templates_dir())]),
        bytecode_cache=_bytecode_cache(),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # noqa: S701 - Markdown: every data string becomes a code span
        finalize=finalize,
    )
    env.filters.update(signed=signed, some=some, sentence=sentence, code=code, html=html_code)
    return env


class MarkdownRenderer:
    """Renders one report through one template, as often as the budget needs (limits differ)."""

    def __init__(
        self,
        report: Report,
        template: str | None = None,
        template_dir: str | None = None,
        full_report: str | None = None,
    ) -> None:
        import jinja2

        self.report = report
        self.data = report_to_dict(report)
        self.rows = section_rows(report, self.data)
        self.full_report = full_report
        self.marker = marker(self.data)
        path = Path(template) if template else None
        folder = str(path.parent) if path else template_dir
        name = path.name if path else DEFAULT_TEMPLATE
        try:
            self._template = _environment(folder).get_template(name)
        except jinja2.TemplateNotFound as exc:
            where = template or f"{template_dir}/{name}"
            raise TemplateError(where, "template not found", "check the path") from exc
        except jinja2.TemplateSyntaxError as exc:
            where = f"{exc.filename or name}:{exc.lineno}"
            raise TemplateError(
                where, f"template error: {exc.message}", "fix the template"
            ) from exc

    def __call__(self, limits: dict[str, int] | None = None) -> str:
        """The Markdown with each section cut to its limit (no limit: everything)."""
        import jinja2

        context = markdown_context(
            self.report, self.data, self.rows, limits, self.full_report, self.marker
        )
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
        totals = {name: len(found) for name, found in self.rows.items()}
        downgrades = sum(1 for p in self.rows["bumps"] if p["bump"]["kind"] == "downgrade")
        return fit(self, totals, downgrades, budget)


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


def history_to_dict(history: History) -> dict[str, Any]:
    """The JSON of `snapdiff log`: steps newest first, then the range summarised."""
    steps = []
    for step in history.steps:
        report = step.report
        bumps = [p for p in report.packages if p.bump]
        bumps.sort(key=lambda p: p.bump is not None and p.bump.kind != "downgrade")
        steps.append(
            {
                "commit": step.commit,
                "date": step.date,
                "summary": _summary(report),
                "bumps": [{"tag": p.tag, "name": p.name, **_bump(p.bump)} for p in bumps if p.bump],
                "stacks": [_stack(s) for s in report.stacks],
            }
        )
    return {
        "schema_version": 1,
        "range": {"start": history.start, "end": history.end, "commits": len(history.steps)},
        "steps": steps,
        "packages": [
            {
                "tag": p.tag,
                "name": p.name,
                "versions": list(p.versions),
                "first_seen": p.first_seen,
                "last_seen": p.last_seen,
            }
            for p in history.packages
        ],
        "flapping": [
            {
                "tag": f.tag,
                "hash": f.hash,
                "package": f.package,
                "left": list(f.left),
                "returned": list(f.returned),
                "returns": len(f.returned),
            }
            for f in history.flapping
        ],
    }


def render_history_json(history: History) -> str:
    """`snapdiff log --format json`."""
    return _dumps(history_to_dict(history))


def render_history_markdown(
    history: History,
    template: str | None = None,
    template_dir: str | None = None,
    budget: int | None = None,
) -> str:
    """`snapdiff log` as Markdown through `log.md.j2`, cut to the budget if one is given."""
    import jinja2

    data = history_to_dict(history)
    path = Path(template) if template else None
    env = _environment(str(path.parent) if path else template_dir)
    name = path.name if path else LOG_TEMPLATE
    moved = [
        p for p in data["packages"] if len(p["versions"]) > 1 or p["first_seen"] or p["last_seen"]
    ]
    context = {
        "history": data,
        "packages": moved,
        "fold_after": FOLD_AFTER,
        "marker": Safe(marker(data)),
    }
    try:
        text: str = env.get_template(name).render(context)
    except jinja2.TemplateError as exc:
        where = getattr(exc, "filename", None) or template or name
        raise TemplateError(str(where), f"template error: {exc}", "fix the template") from exc
    return fit(lambda _: text, {}, 0, budget) if budget else text
