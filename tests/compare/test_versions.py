"""Spack version order: every example of SPEC section 3, as tables."""

from __future__ import annotations

import itertools
import random

import pytest

from snapdiff.versions import bump_kind, highest, sort_versions, version_key

# SPEC section 3, "Examples, ascending", verbatim.
ASCENDING = [
    "v1.0",
    "0.1",
    "1.0",
    "1.2alpha1",
    "1.2rc1",
    "1.2",
    "1.2.0",
    "1.2.3",
    "1.2.3a",
    "1.2.3.1",
    "1.9",
    "1.10",
    "2024.6.1",
    "20130729",
    "stable",
    "nightly",
    "trunk",
    "head",
    "master",
    "main",
    "develop",
]

LESS = [
    ("1.2", "1.2.0"),  # a shorter prefix is smaller
    ("1.2.0", "1.2.1"),
    ("1.9", "1.10"),  # numbers compare as integers
    ("1.2alpha1", "1.2beta1"),
    ("1.2beta1", "1.2rc1"),
    ("1.2rc1", "1.2"),  # pre-releases come before the release
    ("1.2alpha", "1.2alpha1"),
    ("1.2rc1", "1.2rc2"),
    ("1.2.3", "1.2.3a"),  # other suffixes are ordinary strings
    ("1.2.3a", "1.2.3.1"),  # numbers beat strings
    ("2.0.0", "2.0.0-dev"),
    ("1.2", "abc123=1.2"),  # a git ref orders just above its version
    ("abc123=1.2", "1.2.0"),
    ("0.11.0", "20130729"),  # dates are numbers
    ("0.1", "nightly"),  # `nightly` is an infinity word since Spack 1.0 (spack/spack#49098)
    ("stable", "nightly"),
    ("nightly", "trunk"),
    ("20130729", "nightly"),
    ("999999", "stable"),  # infinity words beat every number
    ("1.2.3", "1.2.develop"),
    # Spack's own implementation (lib/spack/spack/version/version_types.py):
    ("1.2rc", "1.2rc0"),  # a bare pre-release word is below the same word numbered 0
    ("1.2alpha", "1.2alpha0"),
    ("1.2beta", "1.2beta0"),
    ("1.2rc0", "1.2rc1"),
    ("1.2", "1.2final1"),  # `final` with a number is above the release
    ("abc=1.2", "abd=1.2"),  # equal versions of git refs order by ref
    ("git.abc=1.2", "abd=1.2"),  # ... the `git.` prefix stripped
    ("git.zzz=1.2", "git.abc=1.2.0"),  # the version first, then the ref
]

EQUAL = [
    ("1.2-3", "1.2.3"),
    ("2024.06", "2024.6"),
    ("1_2_3", "1.2.3"),
    ("1.2-rc1", "1.2rc1"),
    ("1.2final", "1.2"),  # a trailing `final` is the release itself
    ("1.2.final", "1.2"),
    ("git.abc=1.2", "abc=1.2"),  # `git.` is how Spack spells a ref, not part of it
]


@pytest.mark.parametrize(("low", "high"), list(itertools.pairwise(ASCENDING)))
def test_spec_examples_ascend(low: str, high: str) -> None:
    assert version_key(low) < version_key(high)


@pytest.mark.parametrize(("low", "high"), LESS)
def test_less(low: str, high: str) -> None:
    assert version_key(low) < version_key(high)
    assert version_key(high) > version_key(low)


@pytest.mark.parametrize(("a", "b"), EQUAL)
def test_equal_versions(a: str, b: str) -> None:
    assert version_key(a) == version_key(b)


def test_sort_restores_spec_order_from_any_shuffle() -> None:
    shuffled = list(ASCENDING)
    random.Random(7).shuffle(shuffled)
    assert sort_versions(shuffled) == ASCENDING


def test_sort_keeps_the_original_spelling() -> None:
    assert sort_versions(["2024.6", "2024.05", "2024.10"]) == ["2024.05", "2024.6", "2024.10"]


def test_highest() -> None:
    assert highest(["0.4.4", "0.4.23", "0.4.31"]) == "0.4.31"
    assert highest(["3.1.0", "3.9.2", "2.14.0"]) == "3.9.2"
    assert highest([]) is None


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [
        ("1.2.3", "2.0.0", "major"),
        ("0.3.1", "0.4.0", "minor"),
        ("1.2.1", "1.2.2", "patch"),
        ("1.2.3", "1.2.3.1", "other"),
        ("1.2", "1.2.0", "patch"),
        ("1.3", "1.3.1", "patch"),
        ("2024.6.1", "20130729", "major"),
        ("1.2rc1", "1.2", "other"),
        ("1.2", "develop", "other"),  # not a numeric component
    ],
)
def test_bump_kind(old: str, new: str, kind: str) -> None:
    assert bump_kind(old, new) == kind
