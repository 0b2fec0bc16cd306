"""`.snapdiff.yaml`: any command-line option, set once for a repository; the command line wins."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import UsageError

__all__ = ["CONFIG_NAME", "config_arguments", "find_config"]

CONFIG_NAME = ".snapdiff.yaml"
_FIX = "see 'Configuration' in the README"


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


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Each long option by its name without dashes (`max-chars`), except --config and --help."""
    found = {}
    for action in parser._actions:
        for option in action.option_strings:
            if option.startswith("--") and option not in ("--config", "--help", "--version"):
                found[option[2:]] = action
    return found


def _tokens(option: str, action: argparse.Action, value: Any, path: Path) -> list[str]:
    """Command-line words for one configuration key, after checking the value's type."""
    flag = f"--{option}"
    if action.nargs == 0:  # a switch
        if not isinstance(value, bool):
            raise UsageError(str(path), f"{option} must be true or false", _FIX)
        return [flag] if value else []
    if isinstance(action, argparse._AppendAction):
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(v, (str, int, float)) for v in values):
            raise UsageError(str(path), f"{option} must be a value or a list of values", _FIX)
        return [word for v in values for word in (flag, str(v))]
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise UsageError(str(path), f"{option} must be a single value", _FIX)
    return [flag, str(value)]


def config_arguments(parser: argparse.ArgumentParser, path: Path, argv: Sequence[str]) -> list[str]:
    """The configuration as command-line words to put before argv (so argv wins).

    A list option given on the command line replaces the configured list rather than adding to it.
    """
    import yaml  # deferred: only runs with a configuration file

    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise UsageError(str(path), f"cannot read the configuration: {exc}", _FIX) from exc
    if not isinstance(loaded, dict):
        raise UsageError(str(path), "the configuration is not a mapping of options", _FIX)
    options = _options(parser)
    given = {word.split("=")[0] for word in argv if word.startswith("--")}
    words: list[str] = []
    for key, value in loaded.items():
        option = str(key).replace("_", "-")
        if option not in options:
            close = difflib.get_close_matches(option, list(options), n=1)
            fix = f"did you mean {close[0]!r}?" if close else _FIX
            raise UsageError(str(path), f"unknown option {key!r}", fix)
        action = options[option]
        if isinstance(action, argparse._AppendAction) and set(action.option_strings) & given:
            continue
        words += _tokens(option, action, value, path)
    return words
