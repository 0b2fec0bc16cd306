"""Shared test settings: hypothesis profiles (SNAPDIFF_HYPOTHESIS=thorough for a long run)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, settings

# The tests start snapdiff in many processes of its own; where the environment forbids cached
# bytecode (PYTHONDONTWRITEBYTECODE), each would compile every module it imports again.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Property tests write and load small snapshots: each example costs milliseconds, so the
# default keeps the suite quick and `thorough` is for a deliberate, longer search.
settings.register_profile(
    "default", max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("SNAPDIFF_HYPOTHESIS", "default"))


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's snapdiff keeps its tallies in a folder of its own, never in the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The children forked (their pids), `os.fork` otherwise unchanged."""
    made: list[int] = []
    fork: Callable[[], int] = os.fork

    def counted() -> int:
        pid = fork()
        if pid:
            made.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counted)
    return made
