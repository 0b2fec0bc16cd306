"""Random catalogue snapshots for property tests (hypothesis), and writing them as pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from pagegen import page_text, spec

HASHES = [f"h{i:02d}" for i in range(24)]


specs = st.builds(
    lambda h, v, stacks, os_, target, compiler, variants: spec(
        h, v, tuple(stacks), os=os_, target=target, compiler=compiler, variants=variants
    ),
    st.sampled_from(HASHES),
    st.sampled_from(["1.0", "1.2", "1.10", "2.0rc1", "2.0", "develop"]),
    st.lists(
        st.sampled_from(["e4s", "root", "ml-cpu", "hep"]), min_size=1, max_size=3, unique=True
    ),
    st.sampled_from(["ubuntu22.04", "ubuntu24.04", "sequoia"]),
    st.sampled_from(["x86_64_v3", "aarch64"]),
    st.sampled_from(
        [
            *("gcc@11.4.0", "gcc@=11.4.0", "none", "clang@=17.0.6", "llvm@17.0.6"),
            *("oneapi@=2024.2.0", "intel-oneapi-compilers@2024.2.0"),
        ]
    ),
    st.sampled_from([("build_system=cmake",), ("patches:=abc",), ("patches=abc",), ("+mpi",)]),
)


# A snapshot: package -> specs; each hash at most once in the snapshot (one page of a tag).
snapshots = st.dictionaries(
    st.sampled_from(["zlib", "cmake", "py-jax", "hdf5"]),
    st.lists(specs, max_size=5),
    min_size=1,
    max_size=4,
).map(lambda pages: unique(pages))


def unique(pages: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    seen: set[str] = set()
    out = {}
    for name in sorted(pages):
        kept = []
        for entry in pages[name]:
            if entry["hash"] not in seen:
                seen.add(entry["hash"])
                kept.append(entry)
        out[name] = kept or [spec(f"{name}-only", "1.0")]
    return out


def write(root: Path, pages: dict[str, list[dict[str, Any]]], reverse: bool = False) -> str:
    for name in sorted(pages, reverse=reverse):
        path = root / "_cache" / "develop" / name / "specs.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page_text(name, "develop", pages[name]))
    return str(root)
