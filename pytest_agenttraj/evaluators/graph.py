"""``graph_trajectory_strict_match``: whether a LangGraph run took the reference's path, per
invocation (agentevals' key ``graph_trajectory_strict_match``)."""

from __future__ import annotations

import time
from typing import Any

from ..core.graph import graph_steps, graph_steps_match
from .result import EvaluatorResult
from .scope import announce

__all__ = ["graph_trajectory_strict_match", "graph_trajectory_strict_match_async"]

_KEY = "graph_trajectory_strict_match"


def _graph_result(outputs: Any, reference_outputs: Any) -> EvaluatorResult:
    started = time.perf_counter()
    if outputs is None or reference_outputs is None:
        raise ValueError("graph_trajectory_strict_match requires outputs and reference_outputs")
    problem = graph_steps_match(
        graph_steps(outputs, "outputs"), graph_steps(reference_outputs, "reference_outputs")
    )
    result: EvaluatorResult = {
        "key": _KEY,
        "score": problem is None,
        "comment": None if problem is None else f"Graph trajectory differs: {problem}.",
        "metadata": None,
    }
    announce(
        result,
        outputs=outputs,
        reference_outputs=reference_outputs,
        started=started,
        origin=_KEY,
    )
    return result


def graph_trajectory_strict_match(
    *, outputs: Any, reference_outputs: Any, **kwargs: Any
) -> EvaluatorResult:
    """Whether each invocation ran the reference's nodes in order (supersteps in any order)."""
    return _graph_result(outputs, reference_outputs)


async def graph_trajectory_strict_match_async(
    *, outputs: Any, reference_outputs: Any, **kwargs: Any
) -> EvaluatorResult:
    """The async twin of ``graph_trajectory_strict_match``."""
    return _graph_result(outputs, reference_outputs)
