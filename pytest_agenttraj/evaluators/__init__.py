"""Evaluators: openevals/agentevals-compatible factories and result dicts, one implementation
with sync and async faces, and the evaluation scope through which the running test hears of each
evaluation (:mod:`.scope`)."""

from __future__ import annotations

from .exact import exact_match, exact_match_async
from .graph import graph_trajectory_strict_match, graph_trajectory_strict_match_async
from .result import EvaluatorResult, result_passed
from .trajectory import (
    AsyncTrajectoryMatchEvaluator,
    TrajectoryMatchEvaluator,
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
    evaluate_trajectory,
)
from .usage import (
    AsyncToolUsageEvaluator,
    ToolUsageEvaluator,
    create_async_tool_usage_evaluator,
    create_tool_usage_evaluator,
)

__all__ = [
    "AsyncToolUsageEvaluator",
    "AsyncTrajectoryMatchEvaluator",
    "EvaluatorResult",
    "ToolUsageEvaluator",
    "TrajectoryMatchEvaluator",
    "create_async_tool_usage_evaluator",
    "create_async_trajectory_match_evaluator",
    "create_tool_usage_evaluator",
    "create_trajectory_match_evaluator",
    "evaluate_trajectory",
    "exact_match",
    "exact_match_async",
    "graph_trajectory_strict_match",
    "graph_trajectory_strict_match_async",
    "result_passed",
]
