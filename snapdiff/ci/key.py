"""The comment key of one job's use of the Action, and the name its folder and artifact take.

CI glue of the command line (`python -m snapdiff.ci.key`, run by action.yml), not a stage of the
library. The key is the comment-key input (COMMENT_KEY) when given; else the workflow and the job
(DEFAULT_KEY) and, in a job of a matrix (MATRIX, as `toJSON(matrix)` gives it), that job's matrix
values as GitHub names the job:
`release notes/notes (casper, 1.0)`. So the jobs of one matrix keep a comment and an artifact
each, where they overwrote one comment and uploaded one artifact name twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping

from ..errors import printable
from .sticky import CommentError

__all__ = ["job_key", "main", "slug"]

_SLUG = 60  # the longest name kept whole; a longer one is cut to 48 and a digest of the whole


def job_key(key: str, matrix: str, default: str) -> str:
    """The key of this job: `key` as given; without one, `default` (the workflow and the job)
    then, in a job of a matrix, the matrix values in their order (a string as it is, any other
    value as compact JSON) in parentheses. A key given is kept whole: the comment it names
    before stays the comment it names."""
    if key:
        return key
    key = default
    try:
        values = json.loads(matrix) if matrix.strip() else None
    except ValueError as exc:
        raise CommentError(f"MATRIX is not JSON: {exc} (pass toJSON(matrix))") from exc
    if values is None:
        return key
    if not isinstance(values, dict):
        raise CommentError("MATRIX is not a JSON object (pass toJSON(matrix))")
    if not values:
        return key
    shown = (v if isinstance(v, str) else json.dumps(v, sort_keys=True) for v in values.values())
    return f"{key} ({', '.join(shown)})"


def slug(key: str) -> str:
    """The key as a folder's and an artifact's name: `%XX` for each byte but ASCII letters,
    digits, `_` and `-`; a long one cut, with a digest of the whole; `default` for no key."""
    raw = key.encode("utf-8", "surrogateescape")
    kept = "".join(
        chr(b) if (chr(b).isalnum() and b < 128) or b in b"_-" else f"%{b:02X}" for b in raw
    )
    if len(kept) > _SLUG:
        kept = f"{kept[:48]}-{hashlib.sha256(raw).hexdigest()[:11]}"
    return kept or "default"


def main(env: Mapping[str, str] = os.environ) -> int:
    """Print this job's slug and its key's length in bytes, on one line; 0, else 2 with one
    `::error` line."""
    try:
        key = job_key(env.get("COMMENT_KEY", ""), env.get("MATRIX", ""), env.get("DEFAULT_KEY", ""))
    except CommentError as exc:
        print(f"::error title=snapdiff::{printable(str(exc)).replace('%', '%25')}")
        return 2
    print(slug(key), len(key.encode("utf-8", "surrogateescape")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
