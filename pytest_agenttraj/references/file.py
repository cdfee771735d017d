"""What a reference file holds once read: a message trajectory (its messages, as plain dicts
with value matchers read) or a graph path (its ``steps``), and an optional header."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .suffixes import REFERENCE_SUFFIXES

__all__ = ["GRAPH_KEYS", "HEADER_KEYS", "REFERENCE_SUFFIXES", "TURNS_KEYS", "ReferenceFile"]

HEADER_KEYS = ("mode", "tool_args", "overrides")
GRAPH_KEYS = ("mode", "steps")
"""The keys of a graph reference file: its header (``mode``) and its path (``steps``)."""
TURNS_KEYS = (*HEADER_KEYS, "turns")
"""The keys of a conversation reference file: the header and its ``turns``."""


@dataclass(frozen=True)
class ReferenceFile:
    """A reference from a file: a message trajectory (``messages``), or, when ``steps`` is set,
    a graph path (one list of nodes per invocation, a nested list per superstep), or, when
    ``turns`` is set, a conversation (one list of messages per turn); and the
    optional header (``mode``; for messages also ``tool_args`` and ``overrides``).

    ``exists`` is false for a file that is still to be written (``--trajectory-update``).
    """

    path: Path
    messages: list[dict[str, Any]] = field(default_factory=list)
    mode: str | None = None
    tool_args: str | None = None
    overrides: Mapping[str, Any] | None = None
    exists: bool = True
    steps: list[Any] | None = None
    turns: list[list[dict[str, Any]]] | None = None

    @property
    def is_conversation(self) -> bool:
        """Whether the file holds a conversation (``turns``, each a list of messages)."""
        return self.turns is not None

    def conversation_document(self) -> dict[str, Any]:
        """The conversation as the conversation evaluators take it (``{"turns": ...}``)."""
        return {"turns": [list(turn) for turn in self.turns or []]}

    @property
    def is_graph(self) -> bool:
        """Whether the file holds a graph path (``steps``) rather than messages."""
        return self.steps is not None

    def header(self) -> dict[str, Any]:
        """The header's settings, in file order (``mode``, ``tool_args``, ``overrides``)."""
        values = {"mode": self.mode, "tool_args": self.tool_args, "overrides": self.overrides}
        return {key: values[key] for key in HEADER_KEYS if values[key] is not None}

    def graph_document(self) -> dict[str, Any]:
        """The graph path as a reference document for the graph evaluators (``{"steps": ...}``;
        the mode is chosen by the caller, from the header among others)."""
        return {"steps": list(self.steps or [])}
