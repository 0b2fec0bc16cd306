"""A report with hand-built rebuild causes (SPEC section 6), for the tests of what a reader sees.

Synthetic: the pages are made by pagegen, and the `Rebuilds` are written by hand with the causes
a cause analysis of their indexes would find, so rendering is tested apart from that analysis.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pagegen import spec, write_page

from snapdiff import diff_snapshots, load_pair
from snapdiff.report import Cascade, MissingDependency, Rebuilds, Report, Trigger


def h(name: str) -> str:
    """A spec's 32-character hash, as pagegen pads it."""
    return name.ljust(32, "a")


# package: (old version, new version, spec names): each old spec `<name>o`, new `<name>n`
PACKAGES = {
    "zlib-ng": ("2.2.1", "2.2.2", ("z1", "z2")),
    "cmake": ("3.30.5", "3.30.5", ("c1",)),
    "py-numpy": ("2.1.0", "2.1.0", ("n1", "n2", "n3")),
    "hdf5": ("1.14.5", "1.14.5", ("h1",)),
    "foo": ("1.0", "1.0", ("f1",)),
    "bar": ("1.0", "1.0", ("b1",)),
}


def _zlib(n: str, stack: str, cascade: tuple[str, ...], build: tuple[str, ...]) -> Trigger:
    return Trigger(
        h(f"{n}n"),
        "zlib-ng",
        h(f"{n}o"),
        ("version",),
        (("version", "2.2.1"),),
        (("version", "2.2.2"),),
        tuple(h(c) for c in cascade),
        tuple(h(c) for c in build),
        (stack, "root"),
    )


def _direct(n: str, name: str, causes: tuple[str, ...], build: tuple[str, ...]) -> Cascade:
    """A cascade spec whose edges name its causes directly (`build`: by build edges only)."""
    hashes, built = tuple(map(h, causes)), tuple(map(h, build))
    return Cascade(h(f"{n}n"), name, h(f"{n}o"), hashes, hashes, (), built)


# zlib-ng 2.2.1 → 2.2.2 in two specs, a cmake recipe change; n2 and h1 are reached from both
# causes (h1 and n2 through build edges only from every trigger reaching them), f1 rehashed
# with the scheme, b1 unexplained; cuda (new for n1) and mpi (new) are not in the cache.
REBUILDS = Rebuilds(
    triggers=(
        _zlib("z1", "e4s", ("n1n", "n2n", "h1n"), ("n2n", "h1n")),
        _zlib("z2", "ml", ("n2n", "n3n"), ("n2n",)),
        Trigger(
            h("c1n"),
            "cmake",
            h("c1o"),
            ("recipe",),
            (("recipe", "oldpackagehash"),),
            (("recipe", "newpackagehash"),),
            (h("h1n"), h("n2n")),
            (h("h1n"), h("n2n")),
            ("e4s",),
            version="3.30.5",
        ),
    ),
    cascades=(
        _direct("h1", "hdf5", ("c1n", "z1n"), ("c1n", "z1n")),
        _direct("n1", "py-numpy", ("z1n",), ()),
        _direct("n2", "py-numpy", ("c1n", "z1n", "z2n"), ("c1n", "z1n", "z2n")),
        _direct("n3", "py-numpy", ("z2n",), ()),
    ),
    hash_scheme=(h("f1n"),),
    unexplained=(h("b1n"),),
    missing_dependencies=(
        MissingDependency(h("h1n"), "hdf5", h("mpi"), "mpi", True),
        MissingDependency(h("n1n"), "py-numpy", h("cuda"), "cuda", True),
        MissingDependency(h("n3n"), "py-numpy", h("cuda"), "cuda", False),
    ),
)


def report(tmp_path: Path, rebuilds: Rebuilds | None = REBUILDS) -> Report:
    """The pages' report, carrying `rebuilds`."""
    for name, (old, new, specs) in PACKAGES.items():
        write_page(tmp_path / "old", name, [spec(f"{s}o", old) for s in specs])
        write_page(tmp_path / "new", name, [spec(f"{s}n", new) for s in specs])
    found = diff_snapshots(*load_pair(str(tmp_path / "old"), str(tmp_path / "new")))
    return dataclasses.replace(found, rebuilds=rebuilds)
