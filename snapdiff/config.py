"""`.snapdiff.yaml`: any command-line option, set once for a repository; the command line wins,
and a configuration found in the checkout only ever adds gates."""

from __future__ import annotations

import argparse
import dataclasses
import difflib
from collections.abc import Mapping, Sequence, Set
from pathlib import Path
from typing import Any, NamedTuple

from .errors import UsageError
from .gates import Allow, GateCheck, parse_gates
from .model import Filters

__all__ = [
    "ADDS_ONLY",
    "CONFIG_NAME",
    "TRUSTED_ONLY",
    "Added",
    "Configured",
    "added",
    "allow_entries",
    "allow_list",
    "config_arguments",
    "find_config",
    "load",
    "loads",
    "options_of",
]

CONFIG_NAME = ".snapdiff.yaml"
_FIX = "see 'Configuration' in the README"
_FILTERS = tuple(f.name for f in dataclasses.fields(Filters))  # --package, --tag, ...
# A configuration found in the checkout is part of it, and a pull request can change it. Only
# --config FILE may set a key that widens what is trusted, what is read, or what passes a gate
# given on the command line (README, "What snapdiff trusts"):
TRUSTED_ONLY = frozenset(
    (
        *("template", "template-dir"),  # code that runs
        *("output", "full-report", "job-summary", "artifact"),  # where files are written, kept
        "cache-dir",  # which cache is read and written
        *("repo", "stack-url"),  # where snapshots are read from (a repository, addresses)
        *("allow", "keep-going", *_FILTERS),  # what a gate never sees: exempt, skipped, filtered
        "link-base",  # where the report's links point, which readers take for the repository's
    )
)
# The others only say how to report, or make a gate stricter: format, for, max-chars, fail-on,
# warn-on, exit-code, index-tag, stack-name, no-cache.
# What a configuration found in the checkout adds to, and never takes from: its gates join those
# of the command line and of a trusted file, a gate both name keeping the lower threshold, and its
# `exit-code: true` holds; it cannot remove a gate, raise a threshold or turn exit-code off.
ADDS_ONLY = ("fail-on", "warn-on", "exit-code")
# Options that answer one question: given one on the command line, the file's others are not read.
_TOGETHER = (frozenset(("max-chars", "for")), frozenset(("template", "template-dir")))


def find_config(explicit: str | None, start: str = ".") -> Path | None:
    """--config FILE, else .snapdiff.yaml in the current directory, else at the repository root."""
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise UsageError(explicit, "no such configuration file", "check the --config path")
        return path
    here = Path(start).resolve()
    if (here / CONFIG_NAME).is_file():
        return _not_linked(here / CONFIG_NAME)
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            found = folder / CONFIG_NAME
            return _not_linked(found) if found.is_file() else None
    return None


def _not_linked(found: Path) -> Path:
    """A configuration found in the checkout, refused when it is a link: a pull request could
    point it at any file of the runner (issue 47)."""
    if found.is_symlink():
        fix = "make it a file, or name the file with --config"
        raise UsageError(str(found), "a configuration found in the checkout is a link", fix)
    return found


def options_of(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Each long option by its name without dashes (`max-chars`), except --config and --help."""
    found = {}
    for action in parser._actions:
        for option in action.option_strings:
            if option.startswith("--") and option not in (
                "--config",
                "--no-config",
                "--help",
                "--version",
            ):
                found[option[2:]] = action
    return found


def _tokens(option: str, action: argparse.Action, value: Any, where: str) -> list[str]:
    """Command-line words for one configuration key, after checking the value's type (an
    error names `where`: the file and the key's line)."""
    flag = f"--{option}"
    if action.nargs == 0:  # a switch
        if not isinstance(value, bool):
            raise UsageError(where, f"{option} must be true or false", _FIX)
        return [flag] if value else []
    if isinstance(value, list) and action.metavar == "GATES":  # a list where a list is meant
        value = ",".join(str(v) for v in value)
    if isinstance(action, argparse._AppendAction):
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(v, (str, int, float)) for v in values):
            raise UsageError(where, f"{option} must be a value or a list of values", _FIX)
        return [word for v in values for word in (flag, str(v))]
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise UsageError(where, f"{option} must be a single value", _FIX)
    return [flag, str(value)]


class _Loaded(NamedTuple):
    """A configuration's values, and where each top-level key and `allow:` entry is."""

    values: Any
    where: str  # the file (or what the text is, e.g. `allow input`)
    lines: dict[str, int]  # each top-level key's line
    allow_lines: tuple[int, ...] = ()  # each `allow:` entry's line

    def at(self, key: object) -> str:
        """`FILE:LINE` of a top-level key (the file alone where its line is not known)."""
        line = self.lines.get(str(key))
        return f"{self.where}:{line}" if line else self.where


def _at(where: str, text: str, line: int) -> str:
    """`FILE:LINE`, 1-based, never past the file's last line (the end of a file is on it)."""
    return f"{where}:{max(1, min(line, len(text.splitlines())))}"


def _yaml_error(where: str, text: str, exc: Exception) -> UsageError:
    """A YAML error as one line naming the file and line: `FILE:LINE: not valid YAML: ...`."""
    import yaml

    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        return UsageError(
            _at(where, text, exc.problem_mark.line + 1), f"not valid YAML: {exc.problem}", _FIX
        )
    if isinstance(exc, yaml.reader.ReaderError):  # a control character
        at = _at(where, text, text.count("\n", 0, exc.position) + 1)
        return UsageError(at, f"not valid YAML: {exc.reason} (#x{exc.character:04x})", _FIX)
    return UsageError(where, f"not valid YAML: {exc}", _FIX)


CONFIG_BYTES = 1 << 20  # a configuration is a few lines; past this it is refused, not read


def _text(path: Path) -> str:
    """The file's text; an error names the file (and the line of a byte that is not UTF-8).
    At most `CONFIG_BYTES` are read: a larger file is refused (a 300 MiB one took minutes)."""
    try:
        with path.open("rb") as file:
            data = file.read(CONFIG_BYTES + 1)
    except OSError as exc:
        raise UsageError(str(path), f"cannot read the configuration: {exc.strerror}", _FIX) from exc
    if len(data) > CONFIG_BYTES:
        what = f"larger than {CONFIG_BYTES // 2**20} MiB: not a configuration"
        raise UsageError(str(path), what, _FIX)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        where = f"{path}:{line}"
        raise UsageError(where, f"not UTF-8 (byte 0x{data[exc.start]:02x})", _FIX) from exc


def load(path: Path) -> Any:
    """The file's YAML, safely (as `loads` reads it)."""
    return _load(path).values


def loads(text: str, where: str) -> Any:
    """YAML text, safely: no object constructed, no alias (nothing to grow a bomb from); an
    error is one line naming `where` and the line (`where:LINE: ...`)."""
    return _parse(text, where).values


def _load(path: Path) -> _Loaded:
    """The file's YAML with the line of each key (`_parse`); an error names the file and line."""
    return _parse(_text(path), str(path))


def _parse(text: str, where: str) -> _Loaded:
    """YAML text, safely (no object constructed, no alias: nothing to grow a bomb from), with
    the line of each key; an error is one line naming `where` and the line."""
    import yaml  # deferred: only runs with a configuration file

    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                mark = event.start_mark
                at = _at(where, text, mark.line + 1 if mark else 1)
                raise UsageError(at, "the configuration uses a YAML alias", _FIX)
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            values = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise _yaml_error(where, text, exc) from exc
    if not isinstance(node, yaml.MappingNode):
        return _Loaded(values or {}, where, {})
    return _Loaded(values, where, *_lines(where, node))


def _lines(where: str, node: Any) -> tuple[dict[str, int], tuple[int, ...]]:
    """The line of each key of a mapping node, and of each entry of its `allow:` list; a key
    given twice is an error (YAML keeps the last, silently)."""
    lines: dict[str, int] = {}
    allow: tuple[int, ...] = ()
    for key, value in node.value:
        line = key.start_mark.line + 1
        first = lines.setdefault(str(key.value), line)
        if first != line:
            what = f"{key.value} is given twice (lines {first} and {line})"
            raise UsageError(f"{where}:{line}", what, "keep one")
        if key.value == "allow" and value.id == "sequence":
            allow = tuple(item.start_mark.line + 1 for item in value.value)
    return lines, allow


Configured = list[tuple[str, list[str]]]  # (`FILE:LINE` of a key, its command-line words)


class _Key(NamedTuple):
    """One key of a configuration: as written, its value, and `FILE:LINE` where it is."""

    key: str
    value: Any
    at: str


def _read(
    path: Path, options: Mapping[str, argparse.Action], elsewhere: Set[str]
) -> dict[str, _Key]:
    """The file's keys by option name (`max-chars`), each with its key as written, its value
    and its line; a key that names no option of either command is an error with a
    did-you-mean, naming the file and line."""
    loaded = _load(path)
    if not isinstance(loaded.values, dict):
        raise UsageError(f"{path}:1", "the configuration is not a mapping of options", _FIX)
    found = {}
    for key, value in loaded.values.items():
        option = str(key).replace("_", "-")
        at = loaded.at(key)
        if option not in options and option not in elsewhere and option != "allow":
            close = difflib.get_close_matches(option, [*options, *sorted(elsewhere)], n=1)
            fix = f"did you mean {close[0]!r}?" if close else _FIX
            raise UsageError(at, f"unknown option {key!r}", fix)
        found[option] = _Key(str(key), value, at)
    return found


def config_arguments(
    parser: argparse.ArgumentParser,
    path: Path,
    argv: Sequence[str],
    trusted: bool,
    elsewhere: Set[str] = frozenset(),
) -> Configured:
    """The configuration as command-line words to put before argv (so argv wins), key by key
    with the file and line each comes from.

    A list option given on the command line replaces the configured list rather than adding to
    it, and one of `--max-chars`/`--for` (or `--template`/`--template-dir`) given on the command
    line sets aside the file's other. A file found automatically (not `trusted`: not named by
    --config) may not set a key of TRUSTED_ONLY, and its keys of ADDS_ONLY are left to `added`.
    A key of `elsewhere` (an option of the other command, e.g. `fail-on` for `snapdiff log`) is
    checked like any other, then set aside.
    """
    options = options_of(parser)
    given = {word.split("=")[0] for word in argv if word.startswith("--")}
    words: Configured = []
    for option, (_, value, where) in _read(path, options, elsewhere).items():
        if option in TRUSTED_ONLY and not trusted:
            what = f"{option} is not read from a configuration found in the checkout"
            raise UsageError(where, what, f"pass --config {path} to trust it, or --no-config")
        if option == "allow" or option not in options or (option in ADDS_ONLY and not trusted):
            continue  # read by allow_list; another command's; a found file's gates: `added`
        action = options[option]
        if isinstance(action, argparse._AppendAction) and set(action.option_strings) & given:
            continue
        if any(option in group and {f"--{o}" for o in group} & given for group in _TOGETHER):
            continue
        words.append((where, _tokens(option, action, value, where)))
    return words


class Added(NamedTuple):
    """What a configuration found in the checkout adds (ADDS_ONLY), and what of it was not read."""

    fail_on: tuple[GateCheck, ...] = ()
    warn_on: tuple[GateCheck, ...] = ()
    exit_code: bool = False
    set_aside: tuple[str, ...] = ()  # one sentence a key


def added(
    parser: argparse.ArgumentParser,
    path: Path,
    elsewhere: Set[str] = frozenset(),
    beside: Path | None = None,
) -> Added:
    """The gates the configuration found at `path` adds. Beside a trusted file (`beside`, named
    by --config) that is all it is read for: each other key is set aside, and said so where it
    says what the trusted file does not (a value of its own, or a list entry the other lacks)."""
    options = options_of(parser)
    keys = _read(path, options, elsewhere)
    gates: dict[str, tuple[GateCheck, ...]] = {}
    exit_code = False
    for option in ADDS_ONLY:
        if option not in keys or option not in options:
            continue  # unset, or not an option of this command (`snapdiff log`)
        _, value, at = keys[option]  # an error names the file and the key's line
        words = _tokens(option, options[option], value, at)
        if option == "exit-code":
            exit_code = bool(words)
        else:
            gates[option] = tuple(parse_gates(words[1] if words else "", at))
    aside: list[str] = []
    if beside is not None:
        trusted = {option: said.value for option, said in _read(beside, options, elsewhere).items()}
        for option, (key, value, _) in keys.items():
            if option not in ADDS_ONLY and not _says(trusted.get(option), value):
                aside.append(
                    f"{path}: {key} not read: beside --config {beside}, a configuration "
                    "found in the checkout only adds gates"
                )
    return Added(gates.get("fail-on", ()), gates.get("warn-on", ()), exit_code, tuple(aside))


def _says(trusted: Any, value: Any) -> bool:
    """Whether the trusted value already says `value`: the same, or for lists each entry;
    where the trusted file has no value, an empty one (`[]`, `false`) says nothing new."""
    if trusted is None:
        return not value
    if isinstance(trusted, list) and isinstance(value, list):
        return all(entry in trusted for entry in value)
    return bool(trusted == value)


def allow_list(path: Path | None) -> list[Allow]:
    """The configuration's `allow:` entries, each checked: `gate`, `package` or `stack` (a
    glob), and a `reason`, which is printed whenever the entry is used."""
    if path is None:
        return []
    loaded = _load(path)
    entries = loaded.values.get("allow", []) if isinstance(loaded.values, dict) else []
    if not isinstance(entries, list):
        raise UsageError(loaded.at("allow"), "allow must be a list of entries", _FIX)
    return allow_entries(entries, str(path), loaded.allow_lines)


def allow_entries(entries: Any, where: str, lines: Sequence[int] = ()) -> list[Allow]:
    """`allow:` entries (a list of mappings, as YAML gives them) checked, `where` naming them
    (with `lines`, each entry's line: `FILE:LINE: allow entry N`)."""
    if not isinstance(entries, list):
        raise UsageError(where, "allow must be a list of entries", _FIX)
    found = []
    for number, entry in enumerate(entries, start=1):
        line = lines[number - 1] if len(lines) == len(entries) else None
        said = f"{where}:{line}: allow entry {number}" if line else f"{where}: allow entry {number}"
        if not isinstance(entry, dict) or set(entry) - {"gate", "package", "stack", "reason"}:
            raise UsageError(said, "takes gate, package or stack, and reason", _FIX)
        checks = parse_gates(str(entry.get("gate", "")), said)
        if len(checks) != 1 or checks[0].above or not entry.get("reason"):
            raise UsageError(said, "needs one gate and a reason", _FIX)
        check = checks[0]
        package, stack = entry.get("package"), entry.get("stack")
        if (package is None) == (stack is None):
            raise UsageError(said, "names a package or a stack (one of them)", _FIX)
        if not all(isinstance(v, str) for v in (package or stack, entry["reason"])):
            raise UsageError(said, "package, stack and reason are strings", _FIX)
        found.append(Allow(check.gate, package, stack, str(entry["reason"])))
    return found
