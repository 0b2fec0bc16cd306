"""What the tests of forked children share: the children forked, and whether any is left."""

from __future__ import annotations

import os


def no_child_left() -> bool:
    """Whether every child of this process has been reaped."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False
