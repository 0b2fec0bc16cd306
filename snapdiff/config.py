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
        return here / CONFIG_NAME
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            found = folder / CONFIG_NAME
            return found if found.is_file() else None
    return None


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


def _tokens(option: str, action: argparse.Action, value: Any, path: Path) -> list[str]:
    """Command-line words for one configuration key, after checking the value's type."""
    flag = f"--{option}"
    if action.nargs == 0:  # a switch
        if not isinstance(value, bool):
            raise UsageError(str(path), f"{option} must be true or false", _FIX)
        return [flag] if value else []
    if isinstance(value, list) and action.metavar == "GATES":  # a list where a list is meant
        value = ",".join(str(v) for v in value)
    if isinstance(action, argparse._AppendAction):
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(v, (str, int, float)) for v in values):
            raise UsageError(str(path), f"{option} must be a value or a list of values", _FIX)
        return [word for v in values for word in (flag, str(v))]
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise UsageError(str(path), f"{option} must be a single value", _FIX)
    return [flag, str(value)]


def load(path: Path) -> Any:
    """The file's YAML, safely (as `loads` reads it)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(str(path), f"cannot read the configuration: {exc}", _FIX) from exc
    return loads(text, str(path))


def loads(text: str, where: str) -> Any:
    """YAML text, safely: no object constructed, no alias (nothing to grow a bomb from)."""
    import yaml  # deferred: only runs with a configuration file

    try:
        if any(isinstance(e, yaml.AliasEvent) for e in yaml.parse(text, Loader=yaml.SafeLoader)):
            raise UsageError(where, "the configuration uses a YAML alias", _FIX)
        return yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise UsageError(where, f"cannot read the configuration: {exc}", _FIX) from exc


def _read(
    path: Path, options: Mapping[str, argparse.Action], elsewhere: Set[str]
) -> dict[str, tuple[str, Any]]:
    """The file's keys as option names (`max-chars`), each with its key as written and its
    value; a key that names no option of either command is an error with a did-you-mean."""
    loaded = load(path)
    if not isinstance(loaded, dict):
        raise UsageError(str(path), "the configuration is not a mapping of options", _FIX)
    found = {}
    for key, value in loaded.items():
        option = str(key).replace("_", "-")
        if option not in options and option not in elsewhere and option != "allow":
            close = difflib.get_close_matches(option, [*options, *sorted(elsewhere)], n=1)
            fix = f"did you mean {close[0]!r}?" if close else _FIX
            raise UsageError(str(path), f"unknown option {key!r}", fix)
        found[option] = (str(key), value)
    return found


def config_arguments(
    parser: argparse.ArgumentParser,
    path: Path,
    argv: Sequence[str],
    trusted: bool,
    elsewhere: Set[str] = frozenset(),
) -> list[str]:
    """The configuration as command-line words to put before argv (so argv wins).

    A list option given on the command line replaces the configured list rather than adding to
    it, and one of `--max-chars`/`--for` (or `--template`/`--template-dir`) given on the command
    line sets aside the file's other. A file found automatically (not `trusted`: not named by
    --config) may not set a key of TRUSTED_ONLY, and its keys of ADDS_ONLY are left to `added`.
    A key of `elsewhere` (an option of the other command, e.g. `fail-on` for `snapdiff log`) is
    checked like any other, then set aside.
    """
    options = options_of(parser)
    given = {word.split("=")[0] for word in argv if word.startswith("--")}
    words: list[str] = []
    for option, (_, value) in _read(path, options, elsewhere).items():
        if option in TRUSTED_ONLY and not trusted:
            what = f"{option} is not read from a configuration found in the checkout"
            raise UsageError(str(path), what, f"pass --config {path} to trust it, or --no-config")
        if option == "allow" or option not in options or (option in ADDS_ONLY and not trusted):
            continue  # not an option of this command: allow_list reads `allow`
        action = options[option]
        if isinstance(action, argparse._AppendAction) and set(action.option_strings) & given:
            continue
        if any(option in group and {f"--{o}" for o in group} & given for group in _TOGETHER):
            continue
        words += _tokens(option, action, value, path)
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
        words = _tokens(option, options[option], keys[option][1], path)
        if option == "exit-code":
            exit_code = bool(words)
        else:
            gates[option] = tuple(parse_gates(words[1] if words else "", str(path)))
    aside: list[str] = []
    if beside is not None:
        trusted = _read(beside, options, elsewhere)
        for option, (key, value) in keys.items():
            if option not in ADDS_ONLY and not _says(trusted.get(option, (key, None))[1], value):
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
    loaded = load(path)
    entries = loaded.get("allow", []) if isinstance(loaded, dict) else []
    return allow_entries(entries, str(path))


def allow_entries(entries: Any, where: str) -> list[Allow]:
    """`allow:` entries (a list of mappings, as YAML gives them) checked, `where` naming them."""
    if not isinstance(entries, list):
        raise UsageError(where, "allow must be a list of entries", _FIX)
    found = []
    for number, entry in enumerate(entries, start=1):
        said = f"{where}: allow entry {number}"
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
