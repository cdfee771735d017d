"""``ReplayMismatch``: a test's model calls did not replay from its cassette (a request that
differs from the recorded one, a call beyond the recording, recorded calls never made, no
cassette). Raised inside the model call, so the agent never runs on made-up answers."""

from __future__ import annotations

from ..core.replay import ReplayReport
from ..evaluators.result import EvaluatorResult
from .base import AgentTrajAssertionError

__all__ = ["ReplayMismatch", "replay_mismatch"]


class ReplayMismatch(AgentTrajAssertionError):
    """A model call that did not replay; ``report`` (a ``ReplayReport``) says which call, which
    message, field or tool schema differs, and the command that records the test again."""

    __module__ = "pytest_agenttraj"


def replay_mismatch(report: ReplayReport) -> ReplayMismatch:
    """The error for ``report``, with the evaluator-style result every assertion error has."""
    result = EvaluatorResult(
        key="agent_cassette",
        score=False,
        comment=report.comment(),
        metadata={"problems": report.problem_texts(), **report.settings()},
    )
    return ReplayMismatch(report, result)
