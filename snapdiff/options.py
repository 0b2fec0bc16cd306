"""The command line's options: argparse parsers for `snapdiff OLD NEW` and `snapdiff log`."""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

from . import __version__
from .errors import UsageError
from .gates import GATES, REMOVED_SPECS, THRESHOLD_EXAMPLE
from .render.budget import PRESETS
from .render.formats import FORMATS, log_formats

if TYPE_CHECKING:
    from pathlib import Path

    from .config import Configured
    from .model import Filters

__all__ = ["FILTERS", "default_jobs", "filters", "log_parser", "parse", "parser"]

EXAMPLES = """\
examples:
  snapdiff snapshots/v1 snapshots/v2              Markdown release notes on stdout
  snapdiff old/ new/ --format json -o report.json  the JSON report, written atomically
  snapdiff old/ new/ --exit-code                   exit 1 when anything changed
  snapdiff HEAD~1 HEAD                             two revisions of the catalogue repository
  snapdiff v1..v2 --repo ../cache.spack.io         a range, in another repository
  snapdiff HEAD~7:_cache/develop HEAD:_cache/develop   one folder of each revision
  snapdiff main...feature --for github -o comment.md --fail-on downgrade,removed-specs:100
                                                   what a pull request changes, for a comment
  snapdiff https://mirror.example/develop yesterday/   a live build-cache mirror against a copy
  snapdiff old/ new/ --format text                 a compact view for a terminal
  snapdiff log HEAD~30..HEAD                       one entry per commit, then the range
  snapdiff log mirror-1 mirror-2 mirror-3          one entry per snapshot given, in order

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


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the option, like every other error."""

    def error(self, message: str) -> NoReturn:
        fix = "see snapdiff --help"
        if message.startswith("unrecognized arguments: "):
            options = [o for a in self._actions for o in a.option_strings]
            for word in message.split(": ", 1)[1].split():
                close = difflib.get_close_matches(word.split("=")[0], options, n=1)
                if close:
                    fix = f"did you mean {close[0]}?"
                    break
        raise UsageError("", message, fix)


def to_file(path: str) -> str | None:
    """-o FILE as argparse reads it: `-` is stdout, as without -o (never a file named `-`)."""
    return None if path == "-" else path


def beside(path: str) -> str:
    """A file written beside the report (--full-report, --job-summary): `-`, stdout, is for
    the report itself (-o), and refused here."""
    if path == "-":
        raise argparse.ArgumentTypeError("- (stdout) is for the report itself (-o): name a file")
    return path


def jobs(word: str) -> int:
    """--jobs N (and SNAPDIFF_JOBS) as argparse reads it: 1 or more."""
    try:
        count = int(word)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"{word!r} is not a number of processes (1 or more)")
    return count


def default_jobs() -> int:
    """SNAPDIFF_JOBS, else 2 where the machine has two cores or more (the command; the library
    is serial unless asked)."""
    word = os.environ.get("SNAPDIFF_JOBS")
    if word is None:
        return min(2, os.cpu_count() or 1)
    try:
        return jobs(word)
    except argparse.ArgumentTypeError as exc:
        raise UsageError("SNAPDIFF_JOBS", str(exc), "set it to 1 or more, or unset it") from None


def parser() -> argparse.ArgumentParser:
    """The options of `snapdiff OLD NEW`."""
    made = _Parser(
        prog="snapdiff",
        description="What changed between two snapshots of the Spack binary cache catalogue, "
        "of build caches, or of Spack environments (spack.lock).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_inputs(made.add_argument)
    _add_outputs(made.add_argument)
    _add_filters(made)
    markdown = made.add_argument_group("Markdown").add_argument
    _add_markdown(markdown)
    markdown(
        "--full-report",
        metavar="FILE",
        type=beside,
        help="also write the uncut report to FILE (JSON if it ends in .json)",
    )
    markdown(
        "--artifact",
        metavar="NAME",
        help="the CI artifact the full report is uploaded as: cut sections name it (linked to "
        "the run) rather than FILE's path",
    )
    markdown(
        "--job-summary",
        metavar="FILE",
        type=beside,
        help="also write the Markdown cut to a GitHub job summary's limit (github-summary) "
        "to FILE, whatever --for, --max-chars and --format: a comment and its job summary "
        "from one run",
    )
    return made


def _add_filters(made: argparse.ArgumentParser) -> None:
    """One option per filter, each a glob that may be repeated."""
    group = made.add_argument_group(
        "filters", "look only at matching specs (globs; repeat an option for alternatives)"
    )
    for name, what in FILTERS.items():
        group.add_argument(f"--{name}", action="append", default=[], metavar="GLOB", help=what)


def _add_reading(add: Callable[..., object], mirrors: bool = True) -> None:
    """Where revisions (and, for a diff, mirrors) are read from, and what a bad page does."""
    add(
        "--repo",
        metavar="PATH",
        help="the git repository revisions are read from "
        "(default: the one holding the current directory)",
    )
    if mirrors:
        add(
            "--stack-url",
            metavar="NAME=URL",
            action="append",
            default=[],
            help="with a side given as a mirror's http(s) address: one more stack's mirror, "
            "e.g. e4s=https://mirror.example/develop/e4s (repeat for each)",
        )
    add(
        "--keep-going",
        action="store_true",
        help="leave out bad pages with a warning each; the report says it is incomplete",
    )
    add(
        "--cache-dir",
        metavar="DIR",
        help="keep the counts of revisions read here, so that later runs read only what changed "
        "(default: $XDG_CACHE_HOME/snapdiff, else ~/.cache/snapdiff)",
    )
    add("--no-cache", action="store_true", help="neither read nor write the cache")
    add(
        "--jobs",
        metavar="N",
        type=jobs,
        help="processes at work at once: 1 does everything in this one; 2 reads a side, works "
        "out why specs were rebuilt, or diffs a log's later half in a second process, where that "
        "pays (default: $SNAPDIFF_JOBS, else 2 on a machine with two cores or more); the output "
        "is the same bytes either way",
    )


def _add_format(add: Callable[..., object], names: Sequence[str] = tuple(FORMATS)) -> None:
    """The output's format (one of `names`, of the FORMATS table) and file."""
    helps = [FORMATS[name].help for name in names]
    add(
        "-f",
        "--format",
        choices=names,
        default="markdown",
        help=f"{', '.join(helps[:-1])}{',' * (len(helps) > 2)} or {helps[-1]}",
    )
    add("-o", "--output", metavar="FILE", type=to_file, help="write to FILE atomically (-: stdout)")
    if any(FORMATS[name].coloured for name in names):
        add(
            "--color",
            choices=("auto", "always", "never"),
            default="auto",
            help="colour the text view: auto (default: on a terminal, unless NO_COLOR is set), "
            "always or never",
        )


def _add_inputs(add: Callable[..., object]) -> None:
    """What is compared, and how it is read."""
    add(
        "old",
        metavar="OLD",
        help="the older snapshot: a directory (of catalogue pages, or of Spack build-cache "
        "mirrors), a mirror's http(s) address, a git revision (REV or REV:path; of a catalogue or "
        "of mirrors), an index.json, "
        "or a range for both: A..B, or A...B (from the merge base of A and B)",
    )
    add("new", metavar="NEW", nargs="?", help="the newer snapshot, in any of those forms")
    _add_reading(add)
    add(
        "--index-tag",
        metavar="TAG",
        help="the cache tag of build-cache index snapshots (default: a single --tag, else develop)",
    )
    add(
        "--stack-name",
        metavar="NAME",
        help="the stack of an index.json (or a mirror's address) given as a snapshot "
        "(default: from its path, <mirror>/<stack>/build_cache/index.json, else root)",
    )
    _add_config(add)


def _add_config(add: Callable[..., object]) -> None:
    """Which configuration file is read."""
    add(
        "--no-config",
        action="store_true",
        help="read no configuration file (not even .snapdiff.yaml found in the checkout)",
    )
    add(
        "--config",
        metavar="FILE",
        help="read options from FILE, trusted like the command line (default: .snapdiff.yaml "
        "in the current directory, else at the repository root; beside FILE, such a file found "
        "adds only its gates)",
    )


def _add_outputs(add: Callable[..., object]) -> None:
    """What is written, and what the exit code says."""
    _add_format(add)
    add(
        "--all-causes",
        action="store_true",
        help="name every cause of rebuilds on the first screen (Markdown, text), not the "
        "largest five and how many more",
    )
    add("--exit-code", action="store_true", help="exit 1 when there are changes, like git diff")
    add(
        "--fail-on",
        metavar="GATES",
        default="",
        help=f"exit 1 when any of these happened (comma-separated: {', '.join(GATES)}; "
        f"gate:N: more than N times, e.g. {THRESHOLD_EXAMPLE}); the report is still written. "
        f"removed-specs counts {REMOVED_SPECS}",
    )
    add(
        "--warn-on",
        metavar="GATES",
        default="",
        help="report these gates as warnings (and CI annotations), exit 0",
    )
    add("--version", action="version", version=f"snapdiff {__version__}")


def _add_markdown(add: Callable[..., object]) -> None:
    """How the Markdown is cut and rendered."""
    add(
        "--max-chars",
        metavar="N",
        type=int,
        help="cut the Markdown to fit N characters, least important first",
    )
    add(
        "--for",
        dest="forge",
        choices=sorted(PRESETS),
        help="the size limit of a forge: "
        + ", ".join(f"{k} {v:,}" for k, v in sorted(PRESETS.items())),
    )
    add(
        "--link-base",
        metavar="URL",
        help="link commits to this repository's web address, e.g. https://github.com/OWNER/REPO "
        "(default: from GitHub's or GitLab's CI variables, when set)",
    )
    add("--template", metavar="FILE", help="render with this Jinja template")
    add(
        "--template-dir",
        metavar="DIR",
        help="templates here override the defaults of the same name",
    )


def parse(argv: Sequence[str], log: bool = False) -> argparse.Namespace:
    """Options from the command line over those of the configuration files, for `snapdiff OLD
    NEW` or (`log`) for `snapdiff log A..B`, which sets aside the files' options of the diff.

    A file named by --config is trusted like the command line; a `.snapdiff.yaml` found in the
    checkout is read under both, and its gates only ever add to theirs (config.ADDS_ONLY);
    beside a trusted file, its gates are all it is read for. `args.config_notes` says what of
    it was not read."""
    from .config import allow_list, find_config, options_of

    options = log_parser() if log else parser()
    if log and any(word.split("=")[0] == "--stack-url" for word in argv):
        raise UsageError(
            "--stack-url", "snapdiff log reads git revisions, not mirrors", "leave it out"
        )
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--config")
    early.add_argument("--no-config", action="store_true")
    known, _ = early.parse_known_args(argv)
    if known.no_config and known.config:
        raise UsageError("--no-config", "give --config FILE or --no-config, not both", "")
    trusted = find_config(known.config) if known.config else None
    found = None if known.no_config else find_config(None)
    if found and trusted and found.resolve() == trusted.resolve():
        found = None  # the found file named by --config: trusted
    diff_only = set(options_of(parser())) - set(options_of(options)) if log else set()
    words: list[str] = []
    for path, trust in ((trusted, True), (None if trusted else found, False)):
        if path is not None:
            words += _configured(options, path, argv, trust, diff_only, log)
    args = options.parse_args([*words, *argv])
    args.allow = allow_list(trusted)
    args.config_notes = []
    if found is not None:
        _add_found(args, options, found, diff_only, trusted)
    return args


def _configured(
    options: argparse.ArgumentParser,
    path: Path,
    argv: Sequence[str],
    trusted: bool,
    elsewhere: set[str],
    log: bool,
) -> list[str]:
    """One file's words, checked alone: an error in them names the file and the line."""
    from .config import config_arguments

    configured = config_arguments(options, path, argv, trusted, elsewhere=elsewhere)
    return _checked(options, configured, ["A..B"] if log else ["OLD", "NEW"], str(path))


def _add_found(
    args: argparse.Namespace,
    options: argparse.ArgumentParser,
    found: Path,
    elsewhere: set[str],
    trusted: Path | None,
) -> None:
    """The found file's gates added to those given (the lower threshold of a gate both name)."""
    from .config import added
    from .gates import parse_gates, spelled, strictest

    more = added(options, found, elsewhere, beside=trusted)
    if hasattr(args, "fail_on"):
        args.fail_on = spelled(strictest(parse_gates(args.fail_on), more.fail_on))
        args.warn_on = spelled(strictest(parse_gates(args.warn_on, "--warn-on"), more.warn_on))
        args.exit_code = args.exit_code or more.exit_code
    args.config_notes = list(more.set_aside)


def _checked(
    options: argparse.ArgumentParser, configured: Configured, sides: list[str], path: str
) -> list[str]:
    """The configuration's words, checked as the parser reads them before the command line's
    are added: an error names the file and the line of the key at fault (tried alone)."""
    words = [word for _, said in configured for word in said]
    try:
        options.parse_args([*words, *sides])
    except UsageError as exc:
        where, what = path, exc.what
        for at, said in configured:
            try:
                options.parse_args([*said, *sides])
            except UsageError as alone:
                where, what = at, alone.what
                break
        raise UsageError(where, what, "fix the configuration file") from exc
    return words


def filters(args: argparse.Namespace) -> Filters:
    """The filters the options name."""
    from .model import Filters

    return Filters(**{name: tuple(getattr(args, name)) for name in FILTERS})


def log_parser() -> argparse.ArgumentParser:
    """The options of `snapdiff log A..B`."""
    made = _Parser(
        prog="snapdiff log",
        description="One entry per commit in A..B that changed the catalogue (first-parent, "
        "newest first), or per snapshot given after the first, then per package the path of its "
        "highest version, and flapping specs; for build-cache indexes, why specs were rebuilt.",
    )
    made.add_argument("range", metavar="A..B", help="the commits after A up to B")
    made.add_argument(
        "more",
        nargs="*",
        metavar="SNAPSHOT",
        help="with these, A..B is instead the first of two or more snapshots (folders, mirrors, "
        "index files, revisions), oldest first: one entry per snapshot against the one before",
    )
    _add_reading(made.add_argument, mirrors=False)
    _add_config(made.add_argument)
    _add_format(made.add_argument, log_formats())
    _add_filters(made)
    _add_markdown(made.add_argument_group("Markdown").add_argument)
    return made
