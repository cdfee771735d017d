"""Evaluators: openevals/agentevals-compatible factories and result dicts, one implementation
with sync and async faces, and the evaluation scope through which the running test hears of each
evaluation (:mod:`.scope`)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .exact import exact_match, exact_match_async
from .graph import (
    create_async_graph_trajectory_match_evaluator,
    create_graph_trajectory_match_evaluator,
    graph_trajectory_strict_match,
    graph_trajectory_strict_match_async,
)
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

if TYPE_CHECKING:
    from .graded import (
        create_async_tool_call_accuracy_evaluator,
        create_async_tool_call_f1_evaluator,
        create_tool_call_accuracy_evaluator,
        create_tool_call_f1_evaluator,
    )

_GRADED = (
    "create_async_tool_call_accuracy_evaluator",
    "create_async_tool_call_f1_evaluator",
    "create_tool_call_accuracy_evaluator",
    "create_tool_call_f1_evaluator",
)


def __getattr__(name: str) -> Any:
    """The graded evaluators (:mod:`.graded`), imported when first named."""
    if name not in _GRADED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(".graded", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "AsyncToolUsageEvaluator",
    "AsyncTrajectoryMatchEvaluator",
    "EvaluatorResult",
    "ToolUsageEvaluator",
    "TrajectoryMatchEvaluator",
    "create_async_graph_trajectory_match_evaluator",
    "create_async_tool_call_accuracy_evaluator",
    "create_async_tool_call_f1_evaluator",
    "create_async_tool_usage_evaluator",
    "create_async_trajectory_match_evaluator",
    "create_graph_trajectory_match_evaluator",
    "create_tool_call_accuracy_evaluator",
    "create_tool_call_f1_evaluator",
    "create_tool_usage_evaluator",
    "create_trajectory_match_evaluator",
    "evaluate_trajectory",
    "exact_match",
    "exact_match_async",
    "graph_trajectory_strict_match",
    "graph_trajectory_strict_match_async",
    "result_passed",
]
