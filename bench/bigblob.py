#!/usr/bin/env python3
"""bigblob.py - a SYNTHETIC layout-3 mirror whose gzip index blob is large but within the bound.

Issue 47: a 33 MiB blob, well within the 100x inflation bound, cost 4.1 GiB of memory. This
writes such a mirror for measuring: RECORDS made-up install records (random hashes, one package
name per thousand records), each followed by PAD spaces (valid JSON whitespace, as an indented
index has), gzip-compressed a record at a time. A sidecar `SYNTHETIC-bigblob.json` says so.

  bigblob.py OUT [--records 800000] [--pad 2200] [--seed 1]

Measure with `/usr/bin/time -f %M snapdiff --jobs 1 OLD OUT -o /dev/null` (docs/performance.md,
"Session 22: one large blob").
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import os
import random


def _record(rng: random.Random, number: int) -> tuple[str, bytes]:
    digest = base64.b32encode(rng.randbytes(20)).decode().lower()
    spec = {
        "name": f"pkg-{number // 1000:04}",
        "version": f"1.{number % 1000}",
        "arch": {"platform": "linux", "platform_os": "ubuntu24.04", "target": "x86_64_v3"},
        "namespace": "builtin",
        "parameters": {"build_system": "generic", "cflags": [], "ldflags": []},
        "annotations": {"original_specfile_version": 5, "compiler": "gcc@=13.2.0"},
        "hash": digest,
    }
    record = {"spec": spec, "ref_count": 0, "in_buildcache": True}
    return digest, json.dumps(record).encode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--records", type=int, default=800_000)
    ap.add_argument("--pad", type=int, default=2200, help="spaces after each record")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tmp = os.path.join(args.out, "blob.tmp")
    os.makedirs(args.out, exist_ok=True)
    pad = b" " * args.pad
    size = 0
    with (
        open(tmp, "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as out,
    ):
        head = b'{"database": {"version": "8", "installs": {'
        out.write(head)
        size += len(head)
        for number in range(args.records):
            digest, record = _record(rng, number)
            piece = (b"," if number else b"") + f'"{digest}": '.encode() + record + pad
            out.write(piece)
            size += len(piece)
        out.write(b"}}}")
        size += 3
    with open(tmp, "rb") as handle:
        data = handle.read()
    checksum = hashlib.sha256(data).hexdigest()
    blob = os.path.join(args.out, "blobs", "sha256", checksum[:2], checksum)
    os.makedirs(os.path.dirname(blob), exist_ok=True)
    os.replace(tmp, blob)
    os.makedirs(os.path.join(args.out, "v3", "manifests", "index"), exist_ok=True)
    with open(os.path.join(args.out, "v3", "layout.json"), "w") as handle:
        handle.write('{"signed": false, "version": 3}')
    entry = {
        "contentLength": len(data),
        "mediaType": "application/vnd.spack.db.v8+json",
        "compression": "gzip",
        "checksumAlgorithm": "sha256",
        "checksum": checksum,
    }
    manifest = os.path.join(args.out, "v3", "manifests", "index", "index.manifest.json")
    with open(manifest, "w") as handle:
        json.dump({"version": 3, "data": [entry]}, handle)
    side = {
        "synthetic": True,
        "note": "SYNTHETIC layout-3 mirror written by bigblob.py",
        "args": vars(args),
        "compressed": len(data),
        "inflated": size,
    }
    with open(os.path.join(args.out, "SYNTHETIC-bigblob.json"), "w") as handle:
        json.dump(side, handle, indent=1)
    print(
        f"{args.out}: {len(data) / 2**20:,.1f} MiB inflating to {size / 2**20:,.1f} MiB "
        f"({size / len(data):.0f}x)"
    )


if __name__ == "__main__":
    main()
