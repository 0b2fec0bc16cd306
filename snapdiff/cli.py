"""Command line: parse options, call the library, write the output, return an exit code."""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import NoReturn

from . import __version__
from .errors import SnapdiffError, UsageError
from .model import Filters, Report

__all__ = ["main"]

EXAMPLES = """\
examples:
  snapdiff snapshots/v1 snapshots/v2              Markdown release notes on stdout
  snapdiff old/ new/ --format json -o report.json  the JSON report, written atomically
  snapdiff old/ new/ --exit-code                   exit 1 when anything changed
  snapdiff HEAD~1 HEAD                             two revisions of the catalogue repository
  snapdiff v1..v2 --repo ../cache.spack.io         a range, in another repository
  snapdiff HEAD~7:_cache/develop HEAD:_cache/develop   one folder of each revision
  snapdiff HEAD~1 HEAD --for github --full-report full.md -o comment.md --fail-on downgrade
  snapdiff log HEAD~30..HEAD                       one entry per commit, then the range

exit codes: 0 report written; 1 changes found (--exit-code) or a --fail-on gate failed;
2 bad usage or bad input
"""

FILTERS = {
    "package": "packages whose name matches, e.g. 'py-*'",
    "tag": "cache tags, e.g. develop",
    "stack": "specs in a matching stack, e.g. 'ml-*'",
    "os": "specs for a matching OS, e.g. ubuntu24.04",
    "target": "specs for a matching target, e.g. aarch64",
    "compiler": "specs built with a matching compiler, e.g. 'gcc@13*'",
}
GATES = ("any", "removed-packages", "removed-specs", "downgrade", "stack-loss")
MIN_BUDGET = 500


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the option, like every other error."""

    def error(self, message: str) -> NoReturn:
        raise UsageError("", message, "see snapdiff --help")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="snapdiff",
        description="What changed between two snapshots of the Spack binary cache catalogue.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add(
        "old",
        metavar="OLD",
        help="the older snapshot: a directory (of catalogue pages, or of Spack build-cache "
        "indexes), a git revision (REV or REV:path), an index.json, or a range A..B for both",
    )
    add("new", metavar="NEW", nargs="?", help="the newer snapshot, in any of those forms")
    add(
        "--repo",
        metavar="PATH",
        help="the git repository revisions are read from "
        "(default: the one holding the current directory)",
    )
    add(
        "-f",
        "--format",
        choices=("markdown", "json"),
        default="markdown",
        help="Markdown release notes (default) or the JSON report",
    )
    add("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    add("--exit-code", action="store_true", help="exit 1 when there are changes, like git diff")
    add(
        "--index-tag",
        metavar="TAG",
        help="the cache tag of build-cache index snapshots (default: a single --tag, else develop)",
    )
    add(
        "--stack-name",
        metavar="NAME",
        help="the stack of an index.json given as a snapshot "
        "(default: from its path, <mirror>/<stack>/build_cache/index.json)",
    )
    add(
        "--keep-going",
        action="store_true",
        help="leave out bad pages with a warning each; the report says it is incomplete",
    )
    add(
        "--fail-on",
        metavar="GATES",
        default="",
        help=f"exit 1 when any of these happened (comma-separated: {', '.join(GATES)}); "
        "the report is still written",
    )
    add(
        "--config",
        metavar="FILE",
        help="read options from FILE (default: .snapdiff.yaml in "
        "the current directory, else at the repository root)",
    )
    add("--version", action="version", version=f"snapdiff {__version__}")
    narrow = parser.add_argument_group(
        "filters", "look only at matching specs (globs; repeat an option for alternatives)"
    )
    for name, what in FILTERS.items():
        narrow.add_argument(f"--{name}", action="append", default=[], metavar="GLOB", help=what)
    markdown = parser.add_argument_group("Markdown")
    markdown.add_argument(
        "--max-chars",
        metavar="N",
        type=int,
        help="cut the Markdown to fit N characters, least important first",
    )
    markdown.add_argument(
        "--for",
        dest="forge",
        choices=sorted(_presets()),
        help="the size limit of a forge: "
        + ", ".join(f"{k} {v:,}" for k, v in sorted(_presets().items())),
    )
    markdown.add_argument(
        "--full-report",
        metavar="FILE",
        help="also write the uncut report to FILE (JSON if it ends in .json)",
    )
    markdown.add_argument("--template", metavar="FILE", help="render with this Jinja template")
    markdown.add_argument(
        "--template-dir",
        metavar="DIR",
        help="templates here override the defaults of the same name",
    )
    return parser


def _presets() -> dict[str, int]:
    from .budget import PRESETS

    return PRESETS


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    """Options from the command line over those of the configuration file."""
    from .config import config_arguments, find_config

    parser = _parser()
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--config")
    known, _ = early.parse_known_args(argv)
    path = find_config(known.config)
    if path is None:
        return parser.parse_args(argv)
    configured = config_arguments(parser, path, argv)
    try:
        parser.parse_args([*configured, "OLD", "NEW"])
    except UsageError as exc:
        raise UsageError(str(path), exc.what, "fix the configuration file") from exc
    return parser.parse_args([*configured, *argv])


def write_atomically(path: str, text: str) -> None:
    """Write text to path through a temporary file and a rename: never a half-written file.

    A path that exists and is not a regular file (`/dev/null`, a pipe) is written directly:
    renaming over it would replace the device with a file.
    """
    if os.path.exists(path) and not os.path.isfile(path):
        try:
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        except OSError as exc:
            raise UsageError(path, f"cannot write: {exc.strerror}", "check the path") from exc
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(prefix=".snapdiff-", dir=directory)
    except OSError as exc:
        raise UsageError(path, f"cannot write: {exc.strerror}", "check the folder exists") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def _sides(old: str, new: str | None) -> tuple[str, str]:
    """OLD and NEW, or the two ends of a range `A..B` (an empty end is HEAD), like git."""
    if new is not None:
        return old, new
    if ".." not in old or os.path.isdir(old):
        raise UsageError("", "give OLD and NEW, or one range A..B", "see snapdiff --help")
    if "..." in old:
        raise UsageError(old, "a symmetric range A...B is not a pair of snapshots", "write A..B")
    start, _, end = old.partition("..")
    return start or "HEAD", end or "HEAD"


def _gates(spec: str) -> list[str]:
    gates = [g.strip() for g in spec.split(",") if g.strip()]
    for gate in gates:
        if gate not in GATES:
            raise UsageError("--fail-on", f"unknown gate {gate!r}", f"use {', '.join(GATES)}")
    return gates


def _failed(report: Report, gates: list[str]) -> list[str]:
    """One line per gate the report fails."""
    s = report.summary
    losing = [p.name for p in report.packages if p.stacks_removed]
    found = {
        "any": (s.total, f"{s.total} changes"),
        "removed-packages": (s.packages_removed, f"{s.packages_removed} packages removed"),
        "removed-specs": (s.specs_removed, f"{s.specs_removed} specs removed"),
        "downgrade": (
            s.version_downgrades,
            f"{s.version_downgrades} packages' highest version "
            "went down: "
            + ", ".join(p.name for p in report.packages if p.bump and p.bump.kind == "downgrade"),
        ),
        "stack-loss": (
            s.stacks_removed + len(losing),
            f"{s.stacks_removed} stacks removed, {len(losing)} packages lost a stack",
        ),
    }
    return [f"{gate} ({found[gate][1]})" for gate in gates if found[gate][0]]


def _budget(args: argparse.Namespace) -> int | None:
    from .budget import PRESETS

    budget = args.max_chars if args.max_chars is not None else PRESETS.get(args.forge or "")
    if budget is not None and budget < MIN_BUDGET:
        raise UsageError("--max-chars", f"{budget} is too small", f"give at least {MIN_BUDGET}")
    return budget


def _outputs(report: Report, args: argparse.Namespace) -> tuple[str, str | None]:
    """The text to write, and the uncut report for --full-report (JSON if its name says so)."""
    from .render import MarkdownRenderer, render_json

    @functools.cache
    def markdown() -> MarkdownRenderer:  # built once, only when Markdown is wanted
        return MarkdownRenderer(report, args.template, args.template_dir, args.full_report)

    if args.format == "json":
        text = render_json(report)
    else:
        budget = _budget(args)
        text = markdown().fitted(budget) if budget else markdown()()
    if not args.full_report:
        return text, None
    if args.full_report.endswith(".json"):
        return text, render_json(report)
    return text, markdown()()


def _index_tag(args: argparse.Namespace) -> str:
    """--index-tag, else a single literal --tag, else develop."""
    if args.index_tag:
        return str(args.index_tag)
    if len(args.tag) == 1 and not set(args.tag[0]) & set("*?["):
        return str(args.tag[0])
    return "develop"


def _run(args: argparse.Namespace) -> int:
    from .diff import diff_snapshots
    from .sources import Options, load_snapshots

    gates = _gates(args.fail_on)
    if args.template and args.template_dir:
        raise UsageError("--template", "give --template or --template-dir, not both", "")
    filters = Filters(**{name: tuple(getattr(args, name)) for name in FILTERS})
    options = Options(
        args.repo, filters.per_spec, args.keep_going, _index_tag(args), args.stack_name
    )
    old, new = load_snapshots(*_sides(args.old, args.new), options)
    report = diff_snapshots(old, new, filters)
    for warning in report.warnings:
        print(f"snapdiff: warning: {warning}", file=sys.stderr)
    for skipped in report.skipped:
        print(f"snapdiff: warning: skipped {skipped}", file=sys.stderr)
    text, full = _outputs(report, args)
    if full is not None and args.full_report:
        write_atomically(args.full_report, full)
    if args.output:
        write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    failed = _failed(report, gates)
    for gate in failed:
        print(f"snapdiff: gate failed: {gate}", file=sys.stderr)
    return 1 if failed or (args.exit_code and report.summary.total) else 0


def _log_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="snapdiff log",
        description="One entry per commit in A..B that changed the catalogue (first-parent, "
        "newest first), then per package the path of its highest version, and flapping specs.",
    )
    parser.add_argument("range", metavar="A..B", help="the commits after A up to B")
    parser.add_argument("--repo", metavar="PATH", help="the git repository (default: here)")
    parser.add_argument("-f", "--format", choices=("markdown", "json"), default="markdown")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically)")
    parser.add_argument("--keep-going", action="store_true", help="leave bad pages out")
    parser.add_argument("--max-chars", metavar="N", type=int, help="cut the Markdown to N")
    parser.add_argument("--for", dest="forge", choices=sorted(_presets()), help="a forge's limit")
    parser.add_argument("--template", metavar="FILE", help="render with this Jinja template")
    parser.add_argument("--template-dir", metavar="DIR", help="override templates by name")
    for name, what in FILTERS.items():
        parser.add_argument(f"--{name}", action="append", default=[], metavar="GLOB", help=what)
    return parser


def _log(argv: Sequence[str]) -> int:
    """`snapdiff log A..B`."""
    from .history import history
    from .render import render_history_json, render_history_markdown
    from .sources import Options

    args = _log_parser().parse_args(argv)
    start, end = _sides(args.range, None)
    filters = Filters(**{name: tuple(getattr(args, name)) for name in FILTERS})
    options = Options(args.repo, filters.per_spec, args.keep_going)
    walked = history(start, end, options, filters)
    if args.format == "json":
        text = render_history_json(walked)
    else:
        text = render_history_markdown(walked, args.template, args.template_dir, _budget(args))
    if args.output:
        write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run snapdiff; return 0 (written), 1 (changes or a failed gate) or 2 (bad usage or input)."""
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        if words[:1] == ["log"] and not os.path.isdir("log"):
            return _log(words[1:])
        args = _parse(words)
        return _run(args)
    except SnapdiffError as exc:
        print(f"snapdiff: error: {exc.message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`snapdiff ... | head`); not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
