"""Command line: parse options, call the library, write the output, return an exit code."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, NoReturn

from .errors import InputError, SnapdiffError, UsageError, printable
from .gates import parse_gates, tripped
from .options import default_jobs, filters, parse
from .output import TerminalProgress, outputs_checked, write, write_files
from .process import KEPT, collector_paused, heap_returned, terminated_cleanly
from .render.budget import PRESETS, budget
from .render.formats import FORMATS, Rendering, render_history, render_report
from .render.links import links_from
from .report.labels import short_commit

__all__ = ["main"]

if TYPE_CHECKING:
    from .compare.causesapart import CausesApart
    from .history import History
    from .model import Filters
    from .report import GateOutcome, Report
    from .sources import LoadOptions


def _sides(
    old: str, new: str | None, repo: str | None = None, command: str = "snapdiff"
) -> tuple[str, str]:
    """OLD and NEW, or the ends of a range like git's: `A..B` from A to B, `A...B` from the
    merge base of A and B to B (what a pull request changes). An empty end is HEAD, as in git;
    an empty start is bad usage, unlike git: in CI it is a variable left empty (`$BASE...$SHA`
    outside a pull request), and HEAD there would compare a commit with itself."""
    if new is not None:
        return old, new
    if old != ".." and (".." not in old or os.path.isdir(old)):  # `..` alone: a range
        wanted = "OLD and NEW, or one range A..B"
        if command != "snapdiff":
            wanted = "one range A..B, or two or more snapshots"
        raise UsageError("", f"give {wanted}", f"see {command} --help")
    dots = "..." if "..." in old else ".."
    start, _, end = old.partition(dots)
    if not start.strip():
        if end.strip():
            what, fix = f"no revision before '{dots}'", f"name the old side, e.g. main{old}"
        else:
            what = "an empty range"
            fix = f"name both sides, e.g. main{dots}HEAD; outside a pull request, give OLD and NEW"
        raise UsageError(f"range '{old}'", what, fix)
    end = end or "HEAD"
    if dots == "...":
        from .sources import merge_base

        return merge_base(start, end, repo), end
    return start, end


def _labels(old: str, new: str | None, names: tuple[str, str] = ("OLD", "NEW")) -> dict[str, str]:
    """What names each side in an error, by the words given for it: OLD and NEW, or the ends
    of one range `A..B` (`A...B`), as `_sides` reads them (an empty end is HEAD)."""
    if new is None and ".." in old:
        start, _, end = old.partition("..." if "..." in old else "..")
        new = end or "HEAD"
        old = start
    labels = {old: names[0]}
    if new is not None:
        labels.setdefault(new, names[1])
    return labels


@contextmanager
def _naming(labels: Mapping[str, str]) -> Iterator[None]:
    """An error about an argument (its `where` the argument, or the argument and more in
    parentheses) says which: `OLD: nosuch: no such directory or git revision`."""
    try:
        yield
    except SnapdiffError as exc:
        where = exc.where
        said = next((a for a in labels if where == a or where.startswith(f"{a} (")), None)
        if said is None:
            raise
        raise type(exc)(f"{labels[said]}: {where}", exc.what, exc.fix) from exc


def _templates_checked(args: argparse.Namespace) -> None:
    """--template and --template-dir name what is there, before any work (a folder that is
    not there would leave the default templates in use, unsaid)."""
    if args.template and not os.path.isfile(args.template):
        raise UsageError(f"--template {args.template}", "no such file", "check the path")
    if args.template_dir and not os.path.isdir(args.template_dir):
        raise UsageError(f"--template-dir {args.template_dir}", "no such folder", "check the path")


def _outputs_checked(args: argparse.Namespace) -> None:
    """A diff's files can be written, and --artifact names the one --full-report writes: said
    before any work."""
    if args.artifact is not None and not args.full_report:
        raise UsageError(
            "--artifact", "names the artifact the full report is kept as", "give --full-report FILE"
        )
    outputs = ("--output", args.output), ("--full-report", args.full_report)
    outputs_checked(*outputs, ("--job-summary", args.job_summary))


def _rendering(args: argparse.Namespace, full_report: str | None) -> Rendering:
    """How to render, from the options (every format reads what it needs; a size limit is
    checked only for a format it cuts)."""
    sized = FORMATS[args.format].sized
    return Rendering(
        template=args.template,
        template_dir=args.template_dir,
        full_report=full_report,
        artifact=getattr(args, "artifact", None),  # a diff's only
        links=links_from(args.link_base, os.environ, full_report),
        budget=budget(args.max_chars, args.forge) if sized else None,
        colour=FORMATS[args.format].coloured and _colour(args.color, args.output),
        cached=True,
    )


def _stack_urls(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """--stack-url NAME=URL pairs, checked: they go with the one side given as an address."""
    from .render.links import valid_url
    from .sources.mirror.layouts import is_url

    pairs = []
    for word in args.stack_url:
        name, _, url = word.partition("=")
        if not name or not valid_url(url):
            raise UsageError("--stack-url", f"{word!r} is not NAME=URL", "e.g. e4s=https://...")
        pairs.append((name, url))
    urls = [side for side in (args.old, args.new) if side and is_url(side)]
    if pairs and len(urls) != 1:
        raise UsageError("--stack-url", "goes with exactly one side given as an address", "")
    return tuple(pairs)


def _colour(when: str, output: str | None) -> bool:
    """--color: `always`, `never`, or `auto`: colour for a terminal, when the output goes to
    stdout, stdout is one, and NO_COLOR (no-color.org) is not set."""
    if when != "auto":
        return when == "always"
    return not output and sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _index_tag(args: argparse.Namespace) -> str:
    """--index-tag, else a single literal --tag, else develop."""
    if args.index_tag:
        return str(args.index_tag)
    if len(args.tag) == 1 and not set(args.tag[0]) & set("*?["):
        return str(args.tag[0])
    return "develop"


def _cache_dir(args: argparse.Namespace) -> str | None:
    """Where tallies are kept across runs: --cache-dir, else the user's cache; --no-cache: none."""
    from .sources.git.tallycache import default_cache_dir

    if args.no_cache:
        return None
    return str(args.cache_dir) if args.cache_dir else default_cache_dir()


def _warn(text: str) -> None:
    print(f"snapdiff: warning: {printable(text)}", file=sys.stderr)


def _causes(jobs: int) -> CausesApart | None:
    """With `jobs` of 2, the child that works out why specs were rebuilt, to be started as soon
    as both sides' graphs are read, while NEW's pages are built (19 % of a 200k-record index
    pair's time, measured paired at idle: docs/performance.md)."""
    if jobs < 2:
        return None
    from .compare.causesapart import CausesApart

    return CausesApart(_warn)


def _run(args: argparse.Namespace) -> int:
    from .compare.diff import diff_snapshots
    from .sources import LoadOptions, load_pair

    parse_gates(args.fail_on)  # checked before any work
    parse_gates(args.warn_on, "--warn-on")
    for note in args.config_notes:
        _warn(note)
    if args.template and args.template_dir:
        raise UsageError("--template", "give --template or --template-dir, not both", "")
    _templates_checked(args)
    _outputs_checked(args)
    narrow = filters(args)
    progress = TerminalProgress(sys.stderr)
    jobs = args.jobs or default_jobs()
    causes = _causes(jobs)  # started as soon as both sides' graphs are read
    options = LoadOptions(
        repo=args.repo,
        keep_going=args.keep_going,
        index_tag=_index_tag(args),
        stack_name=args.stack_name,
        progress=progress,
        stack_urls=_stack_urls(args),
        cache_dir=_cache_dir(args),
        warn=_warn,
        jobs=jobs,
        graphs=causes.start if causes else None,
    )
    labels = _labels(args.old, args.new)
    try:
        try:
            with _naming(labels):
                old, new = load_pair(*_sides(args.old, args.new, args.repo), options, narrow)
        finally:
            progress.done()
        heap_returned(old, new)
        report = diff_snapshots(old, new, narrow, jobs=jobs, told=_warn, started=causes)
    finally:
        if causes:
            causes.cancel()  # an error or an interrupt while the child works
    report = dataclasses.replace(report, gates=_gates(report, args))
    KEPT.diffed(old, new, report)
    del old, new  # a big report's pages freed here (unless kept), before rendering
    said = [*_usage_warnings(report, args), *map(printable, report.warnings)]
    for warning in [*said, *(f"skipped {printable(page)}" for page in report.skipped)]:
        print(f"snapdiff: warning: {warning}", file=sys.stderr)
    summary = PRESETS["github-summary"] if args.job_summary else None
    how = dataclasses.replace(_rendering(args, args.full_report), all_causes=args.all_causes)
    rendered = render_report(report, args.format, how, summary)
    files = (args.full_report, rendered.full), (args.job_summary, rendered.summary)
    write_files(*files, (args.output, rendered.text))  # all of them, or none on an error
    if not args.output:
        write(None, rendered.text)
    _say_gates(report.gates)
    failing = any(found.tripped for found in report.gates if found.level == "fail")
    return 1 if failing or (args.exit_code and report.changed) else 0


def _gates(report: Report, args: argparse.Namespace) -> tuple[GateOutcome, ...]:
    """The gates of --fail-on and --warn-on that tripped or used allow-list entries."""
    failing = tripped(report, parse_gates(args.fail_on), args.allow, "fail")
    return (*failing, *tripped(report, parse_gates(args.warn_on, "--warn-on"), args.allow, "warn"))


def _say_gates(gates: Sequence[GateOutcome]) -> None:
    """The allow-list entries used, then the failed gates, then the warnings, on stderr (with
    annotations in GitHub Actions, which reads workflow commands from the log)."""
    annotate = os.environ.get("GITHUB_ACTIONS") == "true"
    for found in gates:
        for used in found.exemptions:
            entry = f"{found.gate} {used.package or used.stack} ({used.reason})"
            print(f"snapdiff: allowed: {printable(entry)}", file=sys.stderr)
    for level, said, command in (("fail", "failed", "error"), ("warn", "warning", "warning")):
        for found in gates:
            if found.level == level and found.tripped:
                line = printable(found.plain())
                print(f"snapdiff: gate {said}: {line}", file=sys.stderr)
                if annotate:
                    data = line.replace("%", "%25")
                    print(f"::{command} title=snapdiff {found.gate}::{data}", file=sys.stderr)


def _usage_warnings(report: Report, args: argparse.Namespace) -> list[str]:
    """Options that had no effect, sides that look swapped, or that name two stacks."""
    found = [*_unsized(args), *_lone_stacks(args)]
    old, new = report.old.date, report.new.date
    if old and new and datetime.fromisoformat(new) < datetime.fromisoformat(old):
        ids = short_commit(report.new.commit or ""), short_commit(report.old.commit or "")
        found.append(
            f"the new side ({ids[0]}, {new[:10]}) is older than the old side "
            f"({ids[1]}, {old[:10]}): are OLD and NEW swapped?"
        )
    return found


def _lone_stacks(args: argparse.Namespace) -> list[str]:
    """Two lone indexes whose places name two stacks (`old/build_cache/index.json` against
    `new/build_cache/index.json`): one stack is said removed and the other added, and no
    configuration migrates (SPEC 2a pairs only configurations that share a stack); said, with
    the way to read both as one stack."""
    from .sources import LoadOptions
    from .sources.kinds import kind_of

    sides = (args.old, args.new)
    if args.stack_name or args.new is None or not all(map(_json_file, sides)):
        return []  # the kinds asked only of two JSON files: no folder looked into again
    kinds = [kind_of(side, LoadOptions()) for side in sides]
    if any(kind is None or kind.name != "build-cache index" for kind in kinds):
        return []
    from .sources.mirror.index import lone_stack

    stacks = [lone_stack(side, None) for side in sides]
    if stacks[0] == stacks[1]:
        return []
    return [
        f"{printable(args.old)} and {printable(args.new)} are read as the stacks {stacks[0]} and"
        f" {stacks[1]} (from their places, <mirror>/<stack>/build_cache/index.json), so the"
        " report says one removed and the other added: give --stack-name NAME to read both as"
        " one stack"
    ]


def _json_file(arg: str) -> bool:
    return arg.endswith(".json") and os.path.isfile(arg)


def _unsized(args: argparse.Namespace) -> list[str]:
    """A size limit given with a format it does not cut (a diff's or a log's)."""
    if FORMATS[args.format].sized or not (args.forge or args.max_chars is not None):
        return []
    option = "--for" if args.forge else "--max-chars"
    return [f"{option} sizes Markdown only: ignored with --format {args.format}"]


def _log(argv: Sequence[str]) -> int:
    """`snapdiff log A..B`, or `snapdiff log S1 S2 [S3 ...]` over snapshots given in order."""
    from .sources import LoadOptions, backwards, unrelated

    args = parse(argv, log=True)
    _templates_checked(args)
    outputs_checked(("--output", args.output))  # before any work
    for note in args.config_notes:
        _warn(note)
    snapshots = [args.range, *args.more]
    if args.more:
        start, end = snapshots[0], snapshots[-1]
        labels = {s: f"SNAPSHOT {n}" for n, s in reversed(list(enumerate(snapshots, 1)))}
    else:
        labels = _labels(args.range, None, ("A", "B"))
        with _naming(labels):
            start, end = _sides(args.range, None, args.repo, "snapdiff log")
    for warning in _unsized(args):
        print(f"snapdiff: warning: {warning}", file=sys.stderr)
    base = args.range.partition("...") if "..." in args.range and not args.more else None
    merge_base_of = (base[0] or "HEAD", base[2] or "HEAD") if base else None
    narrow = filters(args)
    progress = TerminalProgress(sys.stderr)
    options = LoadOptions(
        repo=args.repo,
        keep_going=args.keep_going,
        progress=progress,
        cache_dir=_cache_dir(args),
        warn=_warn,
        jobs=args.jobs or default_jobs(),
    )
    try:
        with _naming(labels):
            walked = _walked(args, start, end, merge_base_of, narrow, options)
        KEPT(walked)
    except InputError as exc:
        if args.more or merge_base_of or not unrelated(start, end, args.repo):
            raise
        fix = f"{start} and {end} share no history, so {start}..{end} is every commit of {end}:"
        compare = f"compare the two with snapdiff {start} {end}"
        raise InputError(exc.where, exc.what, f"{fix} {compare}") from exc
    finally:
        progress.done()
    for skipped in walked.skipped:
        print(f"snapdiff: warning: skipped {printable(skipped)}", file=sys.stderr)
    if not (walked.steps or args.more or merge_base_of) and backwards(start, end, args.repo):
        said = f"{start}..{end} holds no commit, {end}..{start} does: given backwards?"
        print(f"snapdiff: warning: {printable(said)}", file=sys.stderr)
    write(args.output, render_history(walked, args.format, _rendering(args, None)))
    return 0


def _walked(
    args: argparse.Namespace,
    start: str,
    end: str,
    merge_base_of: tuple[str, str] | None,
    narrow: Filters,
    options: LoadOptions,
) -> History:
    """The history `snapdiff log` walks: of the snapshots given, or of a range (in halves)."""
    from .history import history
    from .history.apart import history_apart
    from .sources import commit_id, history_parts, load_sequence

    if args.more:
        pairs = load_sequence([args.range, *args.more], options)
        return history(pairs, start, end, narrow, unit="snapshot")
    parts = history_parts(start, end, options, narrow)  # halves: side by side
    walked = history_apart(parts, start, end, _warn, narrow, merge_base_of, options.progress)
    ends = commit_id(start, args.repo), commit_id(end, args.repo)
    return dataclasses.replace(walked, start_commit=ends[0], end_commit=ends[1])


def console() -> NoReturn:
    """The `snapdiff` command: `main`, its output flushed, and the process ended at once."""
    KEPT.on = True
    gc.disable()  # for good: the process ends when the command does
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass  # the reader went away, or a stream is closed: nothing more to say
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run snapdiff; return 0 (written), 1 (changes or a failed gate) or 2 (bad usage or input)."""
    with collector_paused(), terminated_cleanly():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        if words[:1] == ["log"]:  # a folder named log is `./log`
            return _log(words[1:])
        args = parse(words)
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
    except Exception as exc:  # a bug of ours on input we did not foresee: still one line
        what = printable(f"{type(exc).__name__}: {exc}")[:300]
        print(f"snapdiff: error: internal error ({what}); please report it", file=sys.stderr)
        return 2
