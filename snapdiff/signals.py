"""SIGINT and SIGTERM held back while a step must not be cut in two (a child forked, a temporary
file made and recorded), then let through: the signal lands after, where cleanup knows."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

__all__ = ["STOPS", "signals_held"]

STOPS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back (where the platform can), then let through."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
