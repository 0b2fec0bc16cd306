"""Related builds (SPEC sections 2a and 6): platform, target family, compiler family."""

from __future__ import annotations

import pytest

from snapdiff.model import compiler_family, related, related_keys, target_family

LINUX = ("linux", "linux")


@pytest.mark.parametrize(
    ("target", "family"),
    [
        ("zen3", "x86_64"),
        ("x86_64_v3", "x86_64"),
        ("skylake_avx512", "x86_64"),
        ("neoverse_v2", "aarch64"),
        ("m1", "aarch64"),
        ("power9le", "ppc64le"),
        ("not-a-target", "not-a-target"),  # unknown to archspec: a family of its own
    ],
)
def test_target_families_are_archspecs(target: str, family: str) -> None:
    assert target_family(target) == family


@pytest.mark.parametrize(
    ("compiler", "family"),
    [
        ("gcc@7.5.0", "gcc"),
        ("gcc@=13.2.0", "gcc"),
        ("oneapi@2023.2.1", "intel-oneapi-compilers"),
        ("intel-oneapi-compilers@2024.0.2", "intel-oneapi-compilers"),
        ("intel@2021.10.0", "intel-oneapi-compilers-classic"),
        ("clang@16", "llvm"),
        ("none", "none"),
    ],
)
def test_compiler_families_are_spack_1_packages(compiler: str, family: str) -> None:
    assert compiler_family(compiler) == family


@pytest.mark.parametrize(
    ("platforms", "targets", "compilers", "expected"),
    [
        (LINUX, ("zen3", "x86_64_v3"), ("gcc@7.5.0", "gcc@10.4.0"), True),
        (("cray", "linux"), ("zen2", "zen2"), ("gcc@12", "gcc@12"), True),  # cray folded in
        (("linux", "darwin"), ("m1", "m1"), ("none", "none"), False),
        (LINUX, ("neoverse_v2", "x86_64_v3"), ("gcc@12", "gcc@12"), False),
        (LINUX, ("zen3", "zen3"), ("nvhpc@23.7", "oneapi@2023.2.1"), False),
        (LINUX, ("zen3", "zen3"), ("oneapi@2023.2.1", "intel-oneapi-compilers@2024.0.2"), True),
        (LINUX, ("zen3", "zen3"), ("intel@2021.10.0", "oneapi@2023.2.1"), False),
        (LINUX, ("zen3", "zen3"), ("gcc@12", "none"), True),
        (LINUX, ("zen3", "zen3"), ("none", "nvhpc@24.7"), True),
    ],
)
def test_related(
    platforms: tuple[str, str],
    targets: tuple[str, str],
    compilers: tuple[str, str],
    expected: bool,
) -> None:
    assert related(platforms, targets, compilers) is expected


def test_builds_share_a_key_exactly_when_they_are_related() -> None:
    """`related_keys` finds related builds by a dict (issue 47: never weighing every pair)."""
    platforms = ("linux", "cray", "darwin")
    targets = ("zen3", "x86_64_v3", "neoverse_v2", "m1", "power9le", "not-a-target")
    compilers: tuple[str, ...] = ("gcc@11.4.0", "gcc@=13.2.0", "none", "oneapi@2024.2.0")
    compilers += ("clang@17.0.6",)
    compilers += ("intel-oneapi-compilers@2025.1.0", "llvm@18.1.0", "intel@19.1.2")
    compilers += ("nvhpc@24.7",)
    compilers += ("none on the old side@1", "none on the new side@1")  # once the keys' markers
    builds = [(p, t, c) for p in platforms for t in targets for c in compilers]
    old_keys = {b: set(related_keys(*b, old=True)) for b in builds}
    new_keys = {b: set(related_keys(*b, old=False)) for b in builds}
    for a in builds:
        for b in builds:
            shared = bool(old_keys[a] & new_keys[b])
            assert shared == related((a[0], b[0]), (a[1], b[1]), (a[2], b[2])), (a, b)
