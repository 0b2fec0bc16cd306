"""SYNTHETIC: one package whose configurations nearly all changed (issue 47 item 3), as a
catalogue page pair or a build-cache index pair, seeded; or whose configurations all moved
version, each its own way.

Everything made here is synthetic (made-up versions, hashes and variant names): the package
`quadratic` has N configurations on the old side (os, target, compiler and variants drawn at
random, all `linux`, x86_64 targets, gcc, in stack `e4s`: related to each other, the worst case
for a step that compares every dropped configuration with every new one), and on the new side
each moved along one or two dimensions (several folding into one, some to another stack or
another target family: unrelated), a few kept (rebuilt). Every output folder gets a sidecar
`SYNTHETIC-migrationgen.json` saying so and holding the parameters to replay it.

    python tests/helpers/migrationgen.py page OUT --configurations 3000 --seed 1
    python tests/helpers/migrationgen.py index OUT --configurations 3000 --seed 1

    python tests/helpers/migrationgen.py versions OUT --configurations 3000 --seed 1

writes OUT/old and OUT/new: catalogue trees (`_cache/develop/quadratic/specs.md`) or mirrors
(`<stack>/build_cache/index.json`, Spack database version 7); `versions` is the other shape of
a package with many changed configurations: every configuration kept, each moving from a
version of its own to another (a record a configuration).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from pagegen import spec, write_page

NAME = "quadratic"
SIDECAR = "SYNTHETIC-migrationgen.json"
OSES = ("ubuntu22.04", "rhel8", "rocky8", "sles15")
NEW_OSES = ("ubuntu24.04", "rhel9", "rocky9", "sles16")
TARGETS = ("x86_64_v3", "zen3", "skylake", "icelake")
NEW_TARGETS = ("zen4", "x86_64_v4", "sapphirerapids", "cascadelake")
COMPILERS = tuple(f"gcc@11.{minor}.0" for minor in range(8))
NEW_COMPILERS = tuple(f"gcc@13.{minor}.0" for minor in range(8))
VARIANTS = tuple(f"v{i}" for i in range(10))
VERSIONS = ("1.0", "1.1", "2.0")
# how a configuration changes, drawn with these weights: along dimensions (one or two), to
# another stack or target family (unrelated: a dropped and a new configuration), or kept
MOVES = (
    ("os", 3),
    ("compiler", 3),
    ("target", 2),
    ("variants", 2),
    ("os+compiler", 2),
    ("compiler+target", 1),
    ("stack", 1),
    ("family", 1),
    ("kept", 1),
)

Config = tuple[str, str, str, tuple[str, ...], str]  # os, target, compiler, variants, stack


def _variants(mask: int) -> tuple[str, ...]:
    flags = tuple(("+" if mask >> i & 1 else "~") + v for i, v in enumerate(VARIANTS))
    return ("build_system=cmake", *flags)


def _moved(config: Config, move: str, rng: random.Random) -> Config:
    os_, target, compiler, variants, stack = config
    if "os" in move:
        os_ = NEW_OSES[OSES.index(os_)]
    if "compiler" in move:
        compiler = rng.choice(NEW_COMPILERS[:2])  # several old compilers fold into one
    if "target" in move:
        target = NEW_TARGETS[TARGETS.index(target)]
    if move == "variants":
        variants = ("build_system=ninja", *variants[1:])
    if move == "stack":
        stack = "e4s-cuda"
    if move == "family":
        target = "neoverse_v2"
    return os_, target, compiler, variants, stack


def configurations(n: int, seed: int) -> tuple[list[Config], list[Config]]:
    """N distinct old configurations, and the new side's (each old one moved or kept)."""
    rng = random.Random(seed)
    cells = len(OSES) * len(TARGETS) * len(COMPILERS) * (1 << len(VARIANTS))
    old = []
    for cell in rng.sample(range(cells), n):
        cell, mask = divmod(cell, 1 << len(VARIANTS))
        cell, c = divmod(cell, len(COMPILERS))
        o, t = divmod(cell, len(TARGETS))
        old.append((OSES[o], TARGETS[t], COMPILERS[c], _variants(mask), "e4s"))
    names, weights = zip(*MOVES, strict=True)
    moves = rng.choices(names, weights, k=n)
    new = [c if m == "kept" else _moved(c, m, rng) for c, m in zip(old, moves, strict=True)]
    return old, new


def _digest(rng: random.Random) -> str:
    return "".join(rng.choices("abcdefghijklmnopqrstuvwxyz234567", k=32))


def specs(configs: list[Config], seed: int) -> list[tuple[str, str, Config]]:
    """(hash, version, configuration): one or two specs a configuration, each hash new."""
    rng = random.Random(seed)
    return [
        (_digest(rng), version, config)
        for config in configs
        for version in rng.sample(VERSIONS, rng.choice((1, 1, 2)))
    ]


def _sidecar(out: Path, kind: str, n: int, seed: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    note = {
        "synthetic": True,
        "made_by": "tests/helpers/migrationgen.py",
        "kind": kind,
        "configurations": n,
        "seed": seed,
        "what": "made-up package, versions, hashes and variants: not a real catalogue",
    }
    (out / SIDECAR).write_text(json.dumps(note, indent=1) + "\n")


def write_pages(out: Path, n: int, seed: int) -> tuple[Path, Path]:
    """OUT/old and OUT/new as catalogue trees, one page each."""
    old, new = configurations(n, seed)
    sides = []
    for offset, (side, configs) in enumerate((("old", old), ("new", new))):
        entries = [
            spec(h, v, (c[4], "root"), os=c[0], target=c[1], compiler=c[2], variants=c[3])
            for h, v, c in specs(configs, seed * 2 + offset)
        ]
        write_page(out / side, NAME, entries)
        _sidecar(out / side, "page", n, seed)
        sides.append(out / side)
    return sides[0], sides[1]


def write_versions(out: Path, n: int, seed: int) -> tuple[Path, Path]:
    """OUT/old and OUT/new as catalogue trees: N configurations kept, configuration i at version
    `1.i` before and `2.i` after."""
    configs, _ = configurations(n, seed)
    rng = random.Random(seed)
    sides = []
    for side, major in (("old", 1), ("new", 2)):
        entries = [
            spec(
                _digest(rng),
                f"{major}.{i}",
                (c[4], "root"),
                os=c[0],
                target=c[1],
                compiler=c[2],
                variants=c[3],
            )
            for i, c in enumerate(configs)
        ]
        write_page(out / side, NAME, entries)
        _sidecar(out / side, "versions", n, seed)
        sides.append(out / side)
    return sides[0], sides[1]


def _record(version: str, config: Config) -> dict[str, Any]:
    os_, target, compiler, variants, _ = config
    name, _, compiler_version = compiler.partition("@")
    parameters: dict[str, Any] = {"build_system": variants[0].partition("=")[2]}
    parameters |= {v[1:]: v[0] == "+" for v in variants[1:]}
    return {
        "spec": {
            "name": NAME,
            "version": version,
            "arch": {"platform": "linux", "platform_os": os_, "target": target},
            "compiler": {"name": name, "version": compiler_version},
            "namespace": "builtin",
            "parameters": parameters,
        },
        "in_buildcache": True,
    }


def write_indexes(out: Path, n: int, seed: int) -> tuple[Path, Path]:
    """OUT/old and OUT/new as mirrors, one index a stack."""
    old, new = configurations(n, seed)
    sides = []
    for offset, (side, configs) in enumerate((("old", old), ("new", new))):
        by_stack: dict[str, dict[str, Any]] = {}
        for digest, version, config in specs(configs, seed * 2 + offset):
            by_stack.setdefault(config[4], {})[digest] = _record(version, config)
        for stack, installs in sorted(by_stack.items()):
            path = out / side / stack / "build_cache" / "index.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            database = {"database": {"version": "7", "installs": installs}}
            path.write_text(json.dumps(database, sort_keys=True))
        _sidecar(out / side, "index", n, seed)
        sides.append(out / side)
    return sides[0], sides[1]


WRITERS = {"page": write_pages, "index": write_indexes, "versions": write_versions}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("kind", choices=sorted(WRITERS))
    parser.add_argument("out", type=Path)
    parser.add_argument("--configurations", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for side in WRITERS[args.kind](args.out, args.configurations, args.seed):
        size = sum(p.stat().st_size for p in side.rglob("*") if p.is_file())
        print(f"{side}: {size:,} bytes (SYNTHETIC)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
