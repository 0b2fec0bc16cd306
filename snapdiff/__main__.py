"""`python -m snapdiff` and the `snapdiff` command."""

from __future__ import annotations

import os


def run() -> None:
    """Load the command line and run it: Ctrl-C while it is still loading ends the process as
    Ctrl-C ends the command (exit 130, no traceback; nothing is written yet)."""
    try:
        from .cli import console
    except KeyboardInterrupt:
        os._exit(130)
    console()


if __name__ == "__main__":
    run()
