"""Errors snapdiff reports to its user: each names the file or revision at fault and the fix."""

from __future__ import annotations

__all__ = ["InputError", "SnapdiffError", "TemplateError", "UsageError"]


class SnapdiffError(Exception):
    """Base of every error the CLI turns into a one-line message and exit code 2."""

    def __init__(self, where: str, what: str, fix: str = "") -> None:
        self.where = where
        self.what = what
        self.fix = fix
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """`<where>: <what> (<fix>)` on a single line."""
        text = f"{self.where}: {self.what}" if self.where else self.what
        if self.fix:
            text += f" ({self.fix})"
        return " ".join(text.split("\n"))


class InputError(SnapdiffError):
    """A snapshot, page or revision that cannot be read as a catalogue."""


class UsageError(SnapdiffError):
    """An option or argument that does not make sense."""


class TemplateError(SnapdiffError):
    """A Markdown template that does not load or render."""
