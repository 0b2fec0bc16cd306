"""Command line: parse options, call the library, write the output, return an exit code."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import NoReturn

from . import __version__
from .errors import SnapdiffError, UsageError
from .model import Filters

__all__ = ["main"]

EXAMPLES = """\
examples:
  snapdiff snapshots/v1 snapshots/v2              Markdown release notes on stdout
  snapdiff old/ new/ --format json -o report.json  the JSON report, written atomically
  snapdiff old/ new/ --exit-code                   exit 1 when anything changed
  snapdiff HEAD~1 HEAD                             two revisions of the catalogue repository
  snapdiff v1..v2 --repo ../cache.spack.io         a range, in another repository
  snapdiff HEAD~7:_cache/develop HEAD:_cache/develop   one folder of each revision

exit codes: 0 report written; 1 changes found (with --exit-code); 2 bad usage or bad input
"""


FILTERS = {
    "package": "packages whose name matches, e.g. 'py-*'",
    "tag": "cache tags, e.g. develop",
    "stack": "specs in a matching stack, e.g. 'ml-*'",
    "os": "specs for a matching OS, e.g. ubuntu24.04",
    "target": "specs for a matching target, e.g. aarch64",
    "compiler": "specs built with a matching compiler, e.g. 'gcc@13*'",
}


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
    parser.add_argument(
        "old",
        metavar="OLD",
        help="the older snapshot: a directory, a git revision (REV or "
        "REV:path), or a range A..B standing for both sides",
    )
    parser.add_argument(
        "new", metavar="NEW", nargs="?", help="the newer snapshot: a directory or a git revision"
    )
    parser.add_argument(
        "--repo",
        metavar="PATH",
        help="the git repository revisions are read from "
        "(default: the one holding the current directory)",
    )
    parser.add_argument(
        "-f",
        "--format",
        choices=("markdown", "json"),
        default="markdown",
        help="Markdown release notes (default) or the JSON report",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout"
    )
    parser.add_argument(
        "--exit-code", action="store_true", help="exit 1 when there are changes, like git diff"
    )
    narrow = parser.add_argument_group(
        "filters", "look only at matching specs (globs; repeat an option for alternatives)"
    )
    for name, what in FILTERS.items():
        narrow.add_argument(f"--{name}", action="append", default=[], metavar="GLOB", help=what)
    parser.add_argument("--version", action="version", version=f"snapdiff {__version__}")
    return parser


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


def _run(args: argparse.Namespace) -> int:
    from .diff import diff_snapshots
    from .render import render_json, render_markdown
    from .sources import load_snapshots

    filters = Filters(**{name: tuple(getattr(args, name)) for name in FILTERS})
    old, new = load_snapshots(*_sides(args.old, args.new), repo=args.repo, full=filters.per_spec)
    report = diff_snapshots(old, new, filters)
    for warning in report.warnings:
        print(f"snapdiff: warning: {warning}", file=sys.stderr)
    text = render_json(report) if args.format == "json" else render_markdown(report)
    if args.output:
        write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 1 if args.exit_code and report.summary.total else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run snapdiff; return 0 (written), 1 (changes with --exit-code) or 2 (bad usage or input)."""
    try:
        args = _parser().parse_args(argv)
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
