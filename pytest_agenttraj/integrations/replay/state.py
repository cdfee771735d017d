"""What a test's cassette holds while it runs: its state across attempts, and what the
``agent_cassette`` fixture gives the test. Loaded with the first test that uses a cassette."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...errors import CassetteError
    from ...references.cassette import CassetteFile
    from .recorder import Recorder

__all__ = ["AgentCassette", "TestCassette"]


@dataclass
class TestCassette:
    """One test's cassette across its attempts: the file as read, and each attempt's calls."""

    path: Path
    name: str
    mode: str
    file: CassetteFile | None
    error: CassetteError | None = None
    attempts: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    new_calls: int = 0
    recorder: Recorder | None = None


@dataclass(frozen=True)
class AgentCassette:
    """What the ``agent_cassette`` fixture gives a test: the cassette's ``path``, the record
    ``mode`` (``none``, ``new`` or ``all``) and the ``calls`` made so far (each
    ``{"model", "request", "response"}``, builtins)."""

    path: Path
    mode: str
    _recorder: Any = field(repr=False)

    @property
    def calls(self) -> list[dict[str, Any]]:
        return list(self._recorder.made)

    @property
    def recorded_duration_s(self) -> float | None:
        """How long the model took, in seconds, for the calls made so far: as recorded for a
        replayed call, as measured for one recorded now. ``None`` when a call has no timing
        (cassettes recorded before timings were kept) or no call was made; a budget given
        ``None`` is an error, never a pass."""
        calls = self.calls
        seconds = [s for c in calls if isinstance(s := c.get("duration_s"), int | float)]
        if not calls or len(seconds) < len(calls):
            return None
        return float(sum(seconds))

    @property
    def recording(self) -> bool:
        """Whether calls this cassette lacks reach the real model (modes ``new`` and ``all``)."""
        return self.mode != "none"
