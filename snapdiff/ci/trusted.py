"""The trusted configuration of a CI run, written to one file for `snapdiff --config FILE`.

CI glue of the command line (`python -m snapdiff.ci.trusted FILE`, run by action.yml and the
GitLab recipe), not a stage of the library. A pull request can change its checkout, so nothing
of it is trusted: the configuration comes from the base commit (SNAPDIFF_BASE), which it cannot
change; outside a pull request, from the old side (SNAPDIFF_OLD) if it is a revision. From the
environment:

- CONFIG: empty, `.snapdiff.yaml` at the base commit, if it holds one; a path, that file at the
  base commit; `OWNER/REPO/path@REF`, that repository's file at REF, read through GitHub's API
  (GITHUB_API_URL, with CONFIG_TOKEN), as dependency-review-action reads its `config-file`;
- ALLOW: more `allow:` entries, a YAML list of them, added to the file's.

FILE is written even when there is nothing to trust (then empty): beside it, the checkout's
`.snapdiff.yaml` only adds gates.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..config import CONFIG_NAME, allow_entries, loads
from ..errors import SnapdiffError, UsageError, printable

__all__ = ["main", "trusted"]

TIMEOUT = 30  # seconds, for the one request to another repository
_NAME = re.compile(r"[A-Za-z0-9_.-]+")  # an owner's or a repository's name on GitHub
_FIX = "see the config input in action.yml"


def _path(path: str, where: str) -> str:
    """A path inside a repository, checked: relative, no `..`, no option-like start."""
    while path.startswith("./"):
        path = path[2:]
    parts = path.split("/")
    if not path or path.startswith(("/", "-")) or ".." in parts or "" in parts:
        raise UsageError(where, f"{path!r} is not a path inside the repository", _FIX)
    return path


def _commit(revision: str) -> bool:
    """Whether the revision names a commit of the repository here."""
    from ..sources.git.process import run

    if not revision or revision.startswith("-"):
        return False
    return not run(
        ["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], check=False
    ).returncode


def _at_base(base: str, path: str, named: bool) -> tuple[str, str]:
    """(text, what it is) of `path` at the base commit; no file is "" unless it was `named`."""
    from ..sources.git.process import GitError, run

    if not base:
        if named:
            raise UsageError("config", f"no base commit to read {path} at", "set the input old")
        return "", "no base commit to read it at (old is not a revision)"
    if not _commit(base):
        fix = "fetch the whole history (fetch-depth: 0)"
        raise UsageError(base, "the base commit is not in the clone", fix)
    said = f"{path} at the base commit {base[:12]}"
    kind = run(["cat-file", "-t", f"{base}:{path}"], check=False)
    if kind.returncode != 0:
        if named:
            raise UsageError("config", f"no file {path} at the base commit {base[:12]}", _FIX)
        return "", f"no {path} at the base commit {base[:12]}"
    if kind.stdout.strip() != b"blob":
        raise UsageError("config", f"{said} is not a file", _FIX)
    try:
        return run(["cat-file", "blob", f"{base}:{path}"]).stdout.decode("utf-8"), said
    except (GitError, UnicodeDecodeError) as exc:
        raise UsageError(said, f"cannot read it: {exc}", _FIX) from exc


def _elsewhere(named: str, env: Mapping[str, str]) -> tuple[str, str]:
    """(text, what it is) of `OWNER/REPO/path@REF`, through GitHub's contents API."""
    head, _, ref = named.rpartition("@")
    owner, _, rest = head.partition("/")
    repo, _, path = rest.partition("/")
    if not (_NAME.fullmatch(owner) and _NAME.fullmatch(repo) and ref and path):
        raise UsageError("config", f"{named!r} is not OWNER/REPO/path@REF", _FIX)
    path = _path(path, "config")
    api = env.get("GITHUB_API_URL", "")
    if not api:
        fix = "name a path, read at the base commit"
        raise UsageError(
            "config", f"{named!r}: another repository's file, in GitHub Actions only", fix
        )
    if not api.startswith(("https://", "http://")):
        raise UsageError("GITHUB_API_URL", f"{api!r} is not an http(s) address", "")
    url = f"{api.rstrip('/')}/repos/{owner}/{repo}/contents/{quote(path)}?ref={quote(ref)}"
    headers = {
        "Accept": "application/vnd.github.raw",
        "User-Agent": "snapdiff",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    if env.get("CONFIG_TOKEN"):
        headers["Authorization"] = f"Bearer {env['CONFIG_TOKEN']}"
    import urllib.error  # only for another repository's file: a slow import otherwise
    import urllib.request

    request = urllib.request.Request(url, headers=headers)  # noqa: S310 - http(s), checked
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310
            return response.read().decode("utf-8"), f"{owner}/{repo}/{path} at {ref}"
    except urllib.error.HTTPError as exc:
        fix = "check the config input, and that config-token may read that repository"
        raise UsageError(named, f"HTTP {exc.code} {exc.reason}", fix) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(named, f"cannot read it: {exc}", _FIX) from exc


def trusted(env: Mapping[str, str]) -> tuple[str, str]:
    """(the trusted configuration's text, what it was made of, in words)."""
    named = env.get("CONFIG", "").strip()
    if "@" in named:
        text, said = _elsewhere(named, env)
    else:
        path = _path(named, "config") if named else CONFIG_NAME
        base = env.get("SNAPDIFF_BASE", "")
        if not base and _commit(env.get("SNAPDIFF_OLD", "")):
            base = env["SNAPDIFF_OLD"]  # outside a pull request: the old side, if a revision
        text, said = _at_base(base, path, bool(named))
    allow = env.get("ALLOW", "").strip()
    if not allow:
        return text, said
    entries = loads(allow, "allow input")
    if entries == {}:
        entries = []  # `[]`, or a comment alone: no entry
    allow_entries(entries, "allow input")  # checked here, where the input can be named
    loaded: Any = loads(text, said) if text else {}
    if not isinstance(loaded, dict):
        raise UsageError(said, "the configuration is not a mapping of options", _FIX)
    given = loaded.get("allow") or []
    if not isinstance(given, list):
        raise UsageError(said, "allow must be a list of entries", _FIX)
    loaded["allow"] = [*given, *entries]
    import yaml  # deferred, as in config

    count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
    return yaml.safe_dump(loaded, sort_keys=False), f"{said}, and {count} of the allow input"


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] = os.environ) -> int:
    """Write the trusted configuration to the file named by the one argument; 0, else 2 with
    one `snapdiff: error:` line."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        if len(words) != 1:
            raise UsageError("", "usage: python -m snapdiff.ci.trusted FILE", "")
        text, said = trusted(env)
        Path(words[0]).write_text(text, encoding="utf-8")
    except SnapdiffError as exc:
        print(f"snapdiff: error: {exc.message}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"snapdiff: error: {words[0]}: {printable(str(exc))}", file=sys.stderr)
        return 2
    print(f"snapdiff: trusted configuration: {printable(said)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
