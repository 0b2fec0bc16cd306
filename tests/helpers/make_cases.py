"""Write the inputs of the golden cases under tests/cases/ (run by hand; outputs are reviewed).

Real pages are copied byte for byte from tests/data/real/. Every other input is synthetic or a
real page with a stated modification; tests/cases/README.md says which is which.
Usage: python tests/make_cases.py, then SNAPDIFF_UPDATE_GOLDEN=1 pytest tests/test_golden.py
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pagegen import HISTORY, SEEDS, load_real, page_text, spec, write_page

CASES = Path(__file__).parents[1] / "cases"


def fresh(name: str) -> Path:
    root = CASES / name
    for side in ("old", "new"):
        shutil.rmtree(root / side, ignore_errors=True)
    return root


def copy_real(pages: list[Path], root: Path) -> None:
    for page in pages:
        title, tag, _, _ = load_real(page)
        target = root / "_cache" / tag / title / "specs.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page, target)


def rewrite_real(page: Path, root: Path, change: Any) -> None:
    """A real page with its spec_details passed through change(list) and meta re-derived."""
    title, tag, _, details = load_real(page)
    write_page(root, title, change(details), tag=tag)


def real_v1_v2() -> None:
    root = fresh("real-v1-v2")
    copy_real(HISTORY, root / "old")
    copy_real(SEEDS, root / "new")


def stack_order_only() -> None:
    root = fresh("stack-order-only")
    copy_real(SEEDS[:2], root / "old")
    for page in SEEDS[:2]:
        # the same specs, every stacks list reversed and every key order reversed
        text = page.read_text(encoding="utf-8").split("\n")
        details = json.loads(text[5][len("spec_details: ") :])
        noisy = [dict(reversed(list(d.items()))) | {"stacks": d["stacks"][::-1]} for d in details]
        text[5] = "spec_details: " + json.dumps(noisy)
        title = load_real(page)[0]
        target = root / "new" / "_cache" / "develop" / title / "specs.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(text), encoding="utf-8")


def joined_stack() -> None:
    root = fresh("joined-stack")
    build = SEEDS[4]
    copy_real([build], root / "old")

    def join(details: list[dict[str, Any]]) -> list[dict[str, Any]]:
        first = dict(details[0], stacks=[*details[0]["stacks"], "e4s"])
        last = dict(
            details[-1], stacks=[s for s in details[-1]["stacks"] if s != "ml-linux-x86_64-rocm"]
        )
        return [first, *details[1:-1], last]

    rewrite_real(build, root / "new", join)


def downgrade() -> None:
    root = fresh("downgrade")
    write_page(
        root / "old",
        "py-numpy",
        [spec("n1", "1.26.4", ("e4s", "root")), spec("n2", "2.0.1", ("ml-cpu", "root"))],
    )
    write_page(
        root / "new",
        "py-numpy",
        [spec("n1", "1.26.4", ("e4s", "root")), spec("n3", "1.26.5", ("ml-cpu", "root"))],
    )
    for side, version in (("old", "3.27.9"), ("new", "3.30.1")):
        write_page(root / side, "cmake", [spec("c" + version, version)])


def downgrade_stack_removed() -> None:
    """Downgrades whose old highest version was built only in stacks that no longer hold the
    package (a removed stack; a stack kept without it), and one built in a stack kept too."""
    root = fresh("downgrade-stack-removed")

    def vis(hash_: str, version: str) -> dict[str, Any]:  # stack data-vis-sdk's configuration
        return spec(
            hash_, version, ("data-vis-sdk", "root"), os="ubuntu20.04", compiler="gcc@11.1.0"
        )

    old = {
        "catalyst": [vis("c1", "0.7.9"), spec("c2", "0.7.8", ("e4s", "root"))],
        "paraview": [vis("p1", "5.12.0")],
        "hdf5": [spec("h1", "1.14.5", ("ml-cpu", "root")), spec("h2", "1.14.3", ("e4s", "root"))],
        "zlib": [
            spec("z1", "1.3.1", ("e4s", "ml-cpu", "root")),
            spec("z2", "1.3", ("e4s", "root")),
        ],
        "py-numpy": [spec("n1", "2.0.1", ("ml-cpu", "root"))],
    }
    new = {name: specs[-1:] for name, specs in old.items() if name != "paraview"}
    for side, pages in (("old", old), ("new", new)):
        for name, specs in pages.items():
            write_page(root / side, name, specs)


def appear_disappear() -> None:
    root = fresh("appear-disappear")
    write_page(root / "old", "zlib", [spec("z1", "1.3", ("e4s", "root"))])
    write_page(
        root / "old", "libxml2", [spec("x1", "2.10.3", ("e4s-power", "root"), target="ppc64le")]
    )
    write_page(root / "new", "zlib", [spec("z1", "1.3", ("e4s", "root"))])
    write_page(
        root / "new",
        "zstd",
        [spec("s1", "1.5.6", ("ml-linux-aarch64-cpu", "root"), target="aarch64", os="ubuntu24.04")],
    )


def release_to_release() -> None:
    root = fresh("release-to-release")
    write_page(root / "old", "py-ml-dtypes", [spec("m1", "0.3.1")], tag="v0.21.2")
    write_page(root / "new", "py-ml-dtypes", [spec("m2", "0.4.0")], tag="v0.22.0")
    write_page(root / "old", "hdf5", [spec("h1", "1.14.3")], tag="v0.21.2")
    write_page(root / "new", "hdf5", [spec("h1", "1.14.3")], tag="v0.22.0")


def many_packages() -> None:
    """Enough changes that long tables fold into <details>; two tags so labels carry the tag."""
    root = fresh("many-packages")
    for i in range(14):
        name = f"py-pkg{i:02d}"
        write_page(root / "old", name, [spec(f"o{i:02d}", f"1.{i}")])
        write_page(root / "new", name, [spec(f"n{i:02d}", f"1.{i + 1}")])
        write_page(root / "new", name, [spec(f"t{i:02d}", f"1.{i}")], tag="v1.0.0")


def hostile_names() -> None:
    """Names that would break a table, inject markup or mention someone if not escaped."""
    root = fresh("hostile-names")
    write_page(root / "old", "safe", [spec("s1", "1.0")])
    evil = "a|b`c<script>alert(1)</script>[x](javascript:alert(1))@someone_*~"
    write_page(root / "new", "safe", [spec("s1", "1.0", ("e4s", "root", evil))])
    (root / "new" / "_cache" / "develop" / "evil" / "specs.md").parent.mkdir(parents=True)
    (root / "new" / "_cache" / "develop" / "evil" / "specs.md").write_text(
        page_text(evil, "develop", [spec("e1", "<b>1</b>", (evil, "root"))]), encoding="utf-8"
    )


def stack_replaced() -> None:
    """Real pages: `e4s-oneapi` held only py-build before and only py-mpi4py after (issue 26)."""
    root = fresh("stack-replaced")
    copy_real([p for p in HISTORY if load_real(p)[0] == "py-build"], root / "old")
    copy_real([p for p in SEEDS if load_real(p)[0] == "py-mpi4py"], root / "new")


def root_partial() -> None:
    """The real py-build page; in `new` one spec left `root` (modified), and the same page under
    a new tag v0.23.0 (modified: its tag), whose `root` is no stack row."""
    root = fresh("root-partial")
    build = next(p for p in SEEDS if load_real(p)[0] == "py-build")
    copy_real([build], root / "old")

    def leave_root(details: list[dict[str, Any]]) -> list[dict[str, Any]]:
        first = dict(details[0], stacks=[s for s in details[0]["stacks"] if s != "root"])
        return [first, *details[1:]]

    rewrite_real(build, root / "new", leave_root)
    _, _, _, details = load_real(build)
    write_page(root / "new", "py-build", details, tag="v0.23.0")


def explanations() -> None:
    """Issue 26's sentences, synthetic: a compiled package moving to no compiler (as alpgen did),
    variant values gained and lost (as rocblas did), a cut list with one darwin configuration."""
    root = fresh("explanations")
    cmake = ("build_system=cmake", "build_type=Release", "patches:=5c7a3c0")
    write_page(root / "old", "alpgen", [spec("a1", "2.1.4", ("hep", "root"), variants=cmake)])
    write_page(
        root / "new",
        "alpgen",
        [spec("a2", "2.1.4", ("hep", "root"), compiler="none", variants=cmake)],
    )
    rocm = ("amdgpu_target:=gfx90a", "build_system=cmake")
    write_page(
        root / "old",
        "rocblas",
        [
            spec("r1", "6.1.2", variants=(*rocm, "patches:=a1b2c3d")),
            spec("r2", "6.1.2", variants=rocm),
        ],
    )
    write_page(
        root / "new",
        "rocblas",
        [
            spec("r3", "6.3.1", variants=(*rocm, "~asan", "amdgpu_target:=auto")),
            spec("r2", "6.1.2", variants=rocm),
        ],
    )
    targets = ("aarch64", "neoverse_v1", "neoverse_v2", "ppc64le", "x86_64", "x86_64_v3", "zen4")
    write_page(root / "old", "py-x", [spec("x0", "1.0", target="zen2")])
    write_page(
        root / "new",
        "py-x",
        [spec("x0", "1.0", target="zen2")]
        + [spec(f"x{t}", "1.1", target=t, os="ubuntu24.04") for t in targets]
        + [spec("xd", "1.1", target="aarch64", os="ventura")],
    )


INDEXES = Path(__file__).parents[1] / "data" / "spack-index"
GENINDEX = Path(__file__).parents[2] / "bench" / "genindex.py"
Edit = Callable[[dict[str, Any]], None]


def _rehashed(digest: str) -> str:
    """A new 32-character DAG hash for an edited record, in Spack's alphabet (base32)."""
    raw = hashlib.sha256(f"{digest}-edited".encode()).digest()
    return base64.b32encode(raw).decode().lower()[:32]


def edit_index(source: Path, target: Path, edits: dict[str, Edit]) -> None:
    """A real index with some records' specs edited (`edits`, by hash) and every record that
    depends on an edited one, at any depth, rehashed with its edges: as Spack would write it."""
    data = json.loads(source.read_text())
    installs: dict[str, Any] = data["database"]["installs"]
    for digest, edit in edits.items():
        edit(installs[digest]["spec"])
    renamed = {digest: _rehashed(digest) for digest in edits}
    while True:  # every dependent of a renamed record is renamed too, until none is left
        more = {
            digest: _rehashed(digest)
            for digest, install in installs.items()
            if digest not in renamed
            and any(e["hash"] in renamed for e in install["spec"].get("dependencies", []))
        }
        if not more:
            break
        renamed.update(more)
    rewritten = {}
    for digest, install in installs.items():
        for edge in install["spec"].get("dependencies", []):
            edge["hash"] = renamed.get(edge["hash"], edge["hash"])
        if "hash" in install["spec"]:
            install["spec"]["hash"] = renamed.get(digest, digest)
        rewritten[renamed.get(digest, digest)] = install
    data["database"]["installs"] = rewritten
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, indent=1) + "\n")


def _real_index_case(name: str, index: str, edits: dict[str, Edit]) -> None:
    root = fresh(name)
    old = root / "old" / "build_cache" / "index.json"
    old.parent.mkdir(parents=True)
    shutil.copyfile(INDEXES / index, old)
    edit_index(INDEXES / index, root / "new" / "build_cache" / "index.json", edits)


def _set(field: str, value: str) -> Edit:
    def edit(spec: dict[str, Any]) -> None:
        spec[field] = value

    return edit


def causes_real_v7() -> None:
    """DB v7: `libelf` bumped 0.8.13 -> 0.8.14, so `libdwarf` is rebuilt (link)."""
    _real_index_case("causes-real-v7", "db-v7-index.json", {LIBELF_V7: _set("version", "0.8.14")})


def causes_real_v8() -> None:
    """DB v8: `compiler-wrapper`'s recipe changed (a build edge of the native nodes) and the
    upgraded `libelf` bumped 0.8.13 -> 0.8.14."""
    edits = {
        WRAPPER_V8: _set("package_hash", "x" * 32 + "===="),
        LIBELF_V7: _set("version", "0.8.14"),
    }
    _real_index_case("causes-real-v8", "db-v8-index.json", edits)


LIBELF_V7 = "rqh2vuf6fqwkmipzgi2wjx352mq7y7ez"
WRAPPER_V8 = "qeehcxyvluwnihsc2qxstmpomtxo3lrc"


def _generated_case(name: str, args: list[str], events: str) -> None:
    """A SYNTHETIC pair from bench/genindex.py (seeded, small), its sidecar kept as the label."""
    root = fresh(name)
    run = [sys.executable, str(GENINDEX)]
    subprocess.run([*run, str(root / "old"), *args], check=True)
    evolve = ["--evolve-from", str(root / "old"), "--seed", "22", "--events", events]
    evolve += [arg for arg in args if arg == "--single"]  # not replayed from the sidecar
    subprocess.run([*run, str(root / "new"), *evolve], check=True)


def causes_generated() -> None:
    events = (
        "version=1,build-tool=1,recipe=1,variant=1,target=1,compiler=1,new=1,removed=1,missing=1"
    )
    _generated_case(
        "causes-generated",
        ["--records", "60", "--configs", "1", "--stacks", "2", "--seed", "21"],
        events,
    )


def causes_hash_scheme() -> None:
    args = ["--records", "60", "--configs", "1", "--single", "--seed", "31"]
    _generated_case("causes-hash-scheme", args, "hash-scheme=1")


if __name__ == "__main__":
    for make in (
        real_v1_v2,
        stack_order_only,
        joined_stack,
        downgrade,
        downgrade_stack_removed,
        appear_disappear,
        release_to_release,
        many_packages,
        hostile_names,
        stack_replaced,
        root_partial,
        explanations,
        causes_real_v7,
        causes_real_v8,
        causes_generated,
        causes_hash_scheme,
    ):
        make()
