"""How long LangSmith logging waits (:class:`Timeouts`): read when logging is on, so that a run
that logs nothing never loads it."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields

import pytest

__all__ = ["TIMEOUTS_ENV", "Timeouts"]

TIMEOUTS_ENV = "AGENTTRAJ_LANGSMITH_TIMEOUTS"


@dataclass(frozen=True)
class Timeouts:
    """How long LangSmith logging waits, in seconds: the reachability probe, each request's
    connect and read, and the uploads still pending when the tests end (``drain``).

    ``AGENTTRAJ_LANGSMITH_TIMEOUTS`` changes any of them, e.g. ``read=10,drain=20`` for a slow
    self-hosted server.
    """

    probe: float = 2.0
    connect: float = 3.0
    read: float = 5.0
    drain: float = 8.0

    @classmethod
    def from_env(cls) -> Timeouts:
        """The defaults, with what ``AGENTTRAJ_LANGSMITH_TIMEOUTS`` sets; a bad value is a
        usage error naming the variable."""
        text = os.environ.get(TIMEOUTS_ENV, "").strip()
        if not text:
            return cls()
        names = [f.name for f in fields(cls)]
        values: dict[str, float] = {}
        for part in text.split(","):
            name, _, raw = (piece.strip() for piece in part.partition("="))
            try:
                value = float(raw)
            except ValueError:
                value = -1.0
            if name not in names or not value > 0:
                raise pytest.UsageError(
                    f"invalid {TIMEOUTS_ENV} {text!r}: expected NAME=SECONDS pairs separated by "
                    f"commas, NAME one of {', '.join(names)}, SECONDS > 0 (e.g. read=10,drain=20)"
                )
            values[name] = value
        return cls(**values)
