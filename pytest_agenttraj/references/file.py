"""What a reference file holds once read: its messages (plain dicts) and optional header."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["HEADER_KEYS", "REFERENCE_SUFFIXES", "ReferenceFile"]

REFERENCE_SUFFIXES = (".yaml", ".yml", ".json")
HEADER_KEYS = ("mode", "tool_args", "overrides")


@dataclass(frozen=True)
class ReferenceFile:
    """A reference trajectory from a file: its messages (plain dicts) and optional header.

    ``exists`` is false for a file that is still to be written (``--trajectory-update``).
    """

    path: Path
    messages: list[dict[str, Any]] = field(default_factory=list)
    mode: str | None = None
    tool_args: str | None = None
    overrides: Mapping[str, Any] | None = None
    exists: bool = True

    def header(self) -> dict[str, Any]:
        """The header's settings, in file order (``mode``, ``tool_args``, ``overrides``)."""
        values = {"mode": self.mode, "tool_args": self.tool_args, "overrides": self.overrides}
        return {key: values[key] for key in HEADER_KEYS if values[key] is not None}
