#!/usr/bin/env python3
"""Fuzz the page parser for a bounded time (not a test: run it by hand or in a nightly job).

Mutates real pages (tests/data/real) and synthetic ones: flipped, inserted, deleted and
duplicated bytes, truncations, swapped lines, JSON values of the wrong type, YAML syntax, deep
nesting, YAML aliases, and line breaks and control characters in every field. Every input must
either parse or raise InputError, whose message is one line naming the page. What parses is then
diffed against its original and rendered (Markdown and JSON), which must take under two seconds
and keep every data line break out of the Markdown. Anything else is a crash, written to
fuzz-crashes/ for a regression test.

Usage: python tests/fuzz_pages.py [--seconds 60] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from pagegen import HISTORY, SEEDS

from snapdiff.compare.diff import diff_snapshots
from snapdiff.errors import InputError
from snapdiff.model import Snapshot
from snapdiff.render.jsonreport import render_json
from snapdiff.render.markdown import render_markdown
from snapdiff.sources.pages import counts_from_meta, parse_page

SLOW = 2.0  # seconds a diff of one page pair may take
BREAKS = [b"\\n", b"\\r", b"\\u2028", b"\\u001b[31m", b"\\n\\n[x](https://e.example/x)\\n"]
ALIASES = (
    b'---\ntitle: "x"\nlayout: cache\ncategories: [package, develop]\n'
    b"a0: &a0 [x, x, x, x, x, x, x, x, x]\n"
    + b"".join(
        b"a%d: &a%d [%s]\n" % (i, i, b", ".join([b"*a%d" % (i - 1)] * 9)) for i in range(1, 9)
    )
    + b"meta: *a8\nspec_details: []\n---\n"
)

TOKENS = [
    b"null",
    b"1",
    b"-1",
    b"1e999",
    b'"x"',
    b"[]",
    b"{}",
    b"[[",
    b'"\\ud800"',
    b"!!python",
    b"&a",
    b"*a",
    b"|",
    b">",
    b"---",
    b"\n---\n",
    b"\xff",
    b"\x00",
    b"\r\n",
    b": ",
    b"#",
]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random edits of the bytes."""
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data) + 1)
        kind = rng.randrange(10)
        if kind == 0 and data:
            data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
        elif kind == 1:
            data = data[:at] + rng.choice(TOKENS) + data[at:]
        elif kind == 2:
            data = data[:at] + data[at + rng.randint(1, 64) :]
        elif kind == 3:
            data = data[:at] + data[at : at + rng.randint(1, 256)] + data[at:]
        elif kind == 4:
            data = data[:at]
        elif kind == 5:
            lines = data.split(b"\n")
            rng.shuffle(lines)
            data = b"\n".join(lines)
        elif kind == 7:  # a value nested deep (a new key, sorted last, or an existing one)
            depth = rng.choice([3, 15, 17, 40, 400, 1000, 2000])
            nested = b"[" * depth + b"1" + b"]" * depth
            key = rng.choice([b'"zz": ', b'"size": ', b'"variants": '])
            data = data.replace(
                b'"versions": ', b'"' + key.strip(b'": ') + b'": ' + nested + b', "versions": ', 1
            )
        elif kind == 8:
            data = ALIASES
        elif kind == 9:  # a line break or control character inside a string of any field
            quote = data.find(b'"', at)
            if quote >= 0:
                data = data[: quote + 1] + rng.choice(BREAKS) + data[quote + 1 :]
        else:
            data = data.replace(
                rng.choice([b'"hash": ', b'"stacks": ', b'"versions": ']),
                rng.choice(
                    [b'"hash": 1, "x": ', b'"stacks": null, "y": ', b'"versions": {"a": 1}, "z": ']
                ),
                1,
            )
    return data


def _diff(original: bytes, data: bytes) -> str | None:
    """Diff a parsed mutation against its original and render it: quick, and inert."""
    try:
        old = parse_page(original, "old.md", "o").page
        new = parse_page(data, "p.md", "d").page
        if old.entries is None or new.entries is None:
            return None
    except InputError:
        return None  # refused while reading, as a loader would
    start = time.monotonic()
    try:
        report = diff_snapshots(
            Snapshot("a", {(old.tag, old.name): old}), Snapshot("b", {(new.tag, new.name): new})
        )
        markdown = render_markdown(report)
        render_json(report)
    except InputError:
        return None
    except Exception as exc:
        return f"diff: {type(exc).__name__}: {exc}"
    if time.monotonic() - start > SLOW:
        return f"diff took {time.monotonic() - start:.1f} s"
    if "\n[x](https://e.example" in markdown or "\x1b" in markdown:
        return "a line break or control character from the data reached the Markdown"
    return None


def check(data: bytes, original: bytes = b"") -> str | None:
    """None when the parser (and a diff against the original) behaved; else what went wrong."""
    parses: list[Callable[[], object]] = [
        lambda: parse_page(data, "p.md", "d"),
        lambda: parse_page(data, "p.md", "d", full=False),
        lambda: counts_from_meta(data, "p.md", "d"),
    ]
    for parse in parses:
        try:
            parse()
        except InputError as error:
            if "\n" in error.message or not error.message.startswith("p.md"):
                return f"badly formed message: {error.message!r}"
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
    return _diff(original, data) if original else None


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    corpus = [p.read_bytes() for p in HISTORY + SEEDS]
    corpus.append(
        b'---\ntitle: "x"\nlayout: cache\ncategories: [package, develop]\nmeta: {}\n'
        b"spec_details: "
        + json.dumps([{"hash": "a", "stacks": [], "versions": []}]).encode()
        + b"\n---"
    )
    crashes = Path("fuzz-crashes")
    runs = found = 0
    stop = time.monotonic() + args.seconds
    while time.monotonic() < stop:
        original = rng.choice(corpus)
        data = mutate(original, rng)
        runs += 1
        problem = check(data, original)
        if problem:
            found += 1
            crashes.mkdir(exist_ok=True)
            (crashes / f"crash-{found:03d}.md").write_bytes(data)
            print(f"crash {found}: {problem}", file=sys.stderr)
    print(f"{runs} inputs in {args.seconds:.0f} s (seed {args.seed}): {found} crashes")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
