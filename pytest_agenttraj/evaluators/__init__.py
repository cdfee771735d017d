"""Evaluators: openevals/agentevals-compatible factories and result dicts, one implementation
with sync and async faces, and the evaluation scope through which the running test hears of each
evaluation (:mod:`.scope`)."""

from __future__ import annotations

from .exact import exact_match, exact_match_async
from .graded import (
    create_async_tool_call_accuracy_evaluator,
    create_async_tool_call_f1_evaluator,
    create_tool_call_accuracy_evaluator,
    create_tool_call_f1_evaluator,
)
from .graph import graph_trajectory_strict_match, graph_trajectory_strict_match_async
from .result import EvaluatorResult, result_passed
from .trajectory import (
    AsyncTrajectoryMatchEvaluator,
    TrajectoryMatchEvaluator,
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
    evaluate_trajectory,
)

__all__ = [
    "AsyncTrajectoryMatchEvaluator",
    "EvaluatorResult",
    "TrajectoryMatchEvaluator",
    "create_async_tool_call_accuracy_evaluator",
    "create_async_tool_call_f1_evaluator",
    "create_async_trajectory_match_evaluator",
    "create_tool_call_accuracy_evaluator",
    "create_tool_call_f1_evaluator",
    "create_trajectory_match_evaluator",
    "evaluate_trajectory",
    "exact_match",
    "exact_match_async",
    "graph_trajectory_strict_match",
    "graph_trajectory_strict_match_async",
    "result_passed",
]
