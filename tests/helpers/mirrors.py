"""Build-cache mirrors around the real test indexes, in Spack's layouts 2 and 3."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from clirun import run

INDEX = Path(__file__).parents[1] / "data" / "spack-index"


V7, V8 = INDEX / "db-v7-index.json", INDEX / "db-v8-index.json"


def layout2(root: Path, index: Path) -> Path:
    (root / "build_cache").mkdir(parents=True)
    shutil.copyfile(index, root / "build_cache" / "index.json")
    return root


def layout3(root: Path, newest: Path, older: Path | None = None, lie: bool = False) -> Path:
    """A layout 3 mirror: the newest index gzip-compressed, and an older database's listed too."""
    (root / "v3" / "manifests" / "index").mkdir(parents=True)
    (root / "v3" / "layout.json").write_text('{"signed": false, "version": 3}')
    entries = []
    for path, version, compress in ((older, 7, False), (newest, 8, True)):
        if path is None:
            continue
        data = gzip.compress(path.read_bytes(), mtime=0) if compress else path.read_bytes()
        checksum = hashlib.sha256(data).hexdigest()
        blob = root / "blobs" / "sha256" / checksum[:2] / checksum
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data + (b" " if lie and compress else b""))
        entries.append(
            {
                "contentLength": len(data),
                "mediaType": f"application/vnd.spack.db.v{version}+json",
                "compression": "gzip" if compress else "none",
                "checksumAlgorithm": "sha256",
                "checksum": checksum,
            }
        )
    manifest = {"version": 3, "data": entries}
    (root / "v3" / "manifests" / "index" / "index.manifest.json").write_text(json.dumps(manifest))
    return root


def report(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run([*argv, "--format", "json"], capsys)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    for side in ("old", "new"):
        data[side].pop("source")
    return data
