#!/usr/bin/env python3
"""Fuzz the page parser for a bounded time (not a test: run it by hand or in a nightly job).

Mutates real pages (tests/data/real) and synthetic ones: flipped, inserted, deleted and
duplicated bytes, truncations, swapped lines, JSON values of the wrong type, YAML syntax. Every
input must either parse or raise InputError, whose message is one line naming the page; anything
else is a crash, written to fuzz-crashes/ for a regression test.

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

from snapdiff.errors import InputError
from snapdiff.sources.pages import counts_from_meta, parse_page

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
        kind = rng.randrange(7)
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
        else:
            data = data.replace(
                rng.choice([b'"hash": ', b'"stacks": ', b'"versions": ']),
                rng.choice(
                    [b'"hash": 1, "x": ', b'"stacks": null, "y": ', b'"versions": {"a": 1}, "z": ']
                ),
                1,
            )
    return data


def check(data: bytes) -> str | None:
    """None when the parser behaved; else the unexpected exception."""
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
    return None


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
        data = mutate(rng.choice(corpus), rng)
        runs += 1
        problem = check(data)
        if problem:
            found += 1
            crashes.mkdir(exist_ok=True)
            (crashes / f"crash-{found:03d}.md").write_bytes(data)
            print(f"crash {found}: {problem}", file=sys.stderr)
    print(f"{runs} inputs in {args.seconds:.0f} s (seed {args.seed}): {found} crashes")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
