"""SYNTHETIC build-cache index pairs shaped as a ladder of triggers (issue 47 item 4), stdlib only.

Everything written is made up (packages `rung-N`, `step-N`, `top-N`, their versions and hashes);
each side gets a sidecar `SYNTHETIC-laddergen.json` saying so and holding the parameters.

The shape that makes SPEC section 6's cause -> cascade relation quadratic in the input:

  - `rungs` triggers `rung-i` (a version bump each; `--variants` makes every other one a variant
    change instead), stacked: `rung-i` depends on `rung-(i-1)`;
  - beside them a ladder of cascade specs `step-i`, each depending on `rung-i` and `step-(i-1)`,
    so `step-i` reaches the triggers `rung-1` .. `rung-i` (no own change: the walk passes through
    `step-(i-1)` and stops at each rung);
  - `tops` cascade specs `top-j` above the last step, each reaching every rung.

Records per side: 2 * rungs + tops; edges: 2 per rung and step, 1 per top. The relation
(trigger, cascade spec) has rungs * (rungs + 1) / 2 + rungs * tops pairs.

  python tests/helpers/laddergen.py OUT --rungs 2000 --tops 1000   # writes OUT/old, OUT/new
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

SIDECAR = "SYNTHETIC-laddergen.json"
_B32 = bytes(b"abcdefghijklmnopqrstuvwxyz234567"[i % 32] for i in range(256))
Record = dict[str, Any]


def _hash(record: Record) -> str:
    """A 32-character hash of the record's content, its dependencies' hashes included."""
    digest = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).digest()
    return digest.translate(_B32)[:32].decode()


_LEAN = ("namespace", "package_hash", "annotations")  # fields a lean record leaves out


def _record(name: str, version: str, deps: list[tuple[str, str]], variant: bool) -> Record:
    name, _, index = name.partition("#")
    return {
        "name": name,
        "version": version,
        "arch": {"platform": "linux", "platform_os": "rhel9", "target": {"name": "zen3"}},
        "namespace": "builtin",
        "parameters": {
            "build_system": "generic",
            "shared": variant,
            "cflags": [],
            **({"rung": index} if index else {}),
        },
        "package_hash": f"{name}-recipe",
        "annotations": {"original_specfile_version": 5, "compiler": "gcc@=12.3.0"},
        "dependencies": [
            {"name": n, "hash": h, "parameters": {"deptypes": ["build", "link"], "virtuals": []}}
            for n, h in deps
        ],
    }


def _lean(record: Record) -> Record:
    """A record with only what an index needs: no namespace, recipe hash, annotations, flags."""
    found = {k: v for k, v in record.items() if k not in _LEAN}
    found["parameters"] = {k: v for k, v in record["parameters"].items() if k != "cflags"}
    return found


def side(
    rungs: int, tops: int, new: bool, variants: bool = False, one_package: bool = False
) -> dict[str, Record]:
    """One side's records by hash, bottom-up; the new side changes every rung. With
    `one_package`, the rungs are builds of one package `rung` told apart by a variant (and so
    the steps and the tops)."""
    records: dict[str, Record] = {}
    sep = "#" if one_package else "-"

    def add(name: str, version: str, deps: list[tuple[str, str]], variant: bool = True) -> str:
        record = _record(name, version, [(n.partition("#")[0], h) for n, h in deps], variant)
        digest = _hash(record)
        records[digest] = {**record, "hash": digest}
        return digest

    rung = step = ""
    for i in range(1, rungs + 1):
        by_variant = variants and i % 2 == 0
        version = "1.1" if new and not by_variant else "1.0"
        below = [(f"rung{sep}{i - 1}", rung)] if rung else []
        rung = add(f"rung{sep}{i}", version, below, variant=not (new and by_variant))
        steps = [(f"step{sep}{i - 1}", step)] if step else []
        step = add(f"step{sep}{i}", "1.0", [(f"rung{sep}{i}", rung), *steps])
    for j in range(1, tops + 1):
        add(f"top{sep}{j}", "1.0", [(f"step{sep}{rungs}", step)])
    return records


def write(
    out: Path,
    rungs: int,
    tops: int,
    variants: bool = False,
    one_package: bool = False,
    lean: bool = False,
) -> tuple[Path, Path]:
    """`out/old` and `out/new`, each a layout 2 mirror with its sidecar; their paths. `lean`:
    records with only what a build-cache index needs, more of them in as many bytes."""
    paths = []
    for name in ("old", "new"):
        records = side(rungs, tops, name == "new", variants, one_package)
        kept = {"in_buildcache": True} if lean else {"ref_count": 0, "in_buildcache": True}
        installs = {
            digest: {"spec": _lean(record) if lean else record, **kept}
            for digest, record in records.items()
        }
        folder = out / name / "build_cache"
        folder.mkdir(parents=True, exist_ok=True)
        data = {"database": {"version": "8", "installs": installs}}
        (folder / "index.json").write_text(json.dumps(data, separators=(",", ":")))
        sidecar = {"synthetic": True, "generator": "tests/helpers/laddergen.py", "rungs": rungs}
        (out / name / SIDECAR).write_text(json.dumps({**sidecar, "tops": tops}))
        paths.append(out / name)
    return paths[0], paths[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--rungs", type=int, default=2000)
    parser.add_argument("--tops", type=int, default=1000)
    parser.add_argument("--variants", action="store_true", help="every other rung a variant")
    parser.add_argument("--one-package", action="store_true", help="rungs of one package")
    parser.add_argument("--lean", action="store_true", help="records with fewer fields")
    args = parser.parse_args()
    write(args.out, args.rungs, args.tops, args.variants, args.one_package, args.lean)


if __name__ == "__main__":
    main()
