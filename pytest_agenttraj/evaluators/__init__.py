"""Evaluators: openevals/agentevals-compatible factories and result dicts, one implementation
with sync and async faces, and the evaluation scope through which the running test hears of each
evaluation (:mod:`.scope`). Each name is imported when first used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .exact import (
        exact_match,
        exact_match_async,
    )
    from .graded import (
        create_async_tool_call_accuracy_evaluator,
        create_async_tool_call_f1_evaluator,
        create_tool_call_accuracy_evaluator,
        create_tool_call_f1_evaluator,
    )
    from .graph import (
        create_async_graph_trajectory_match_evaluator,
        create_graph_trajectory_match_evaluator,
        graph_trajectory_strict_match,
        graph_trajectory_strict_match_async,
    )
    from .result import (
        EvaluatorResult,
        result_passed,
    )
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

_EXPORTS: dict[str, tuple[str, ...]] = {
    ".exact": (
        "exact_match",
        "exact_match_async",
    ),
    ".graded": (
        "create_async_tool_call_accuracy_evaluator",
        "create_async_tool_call_f1_evaluator",
        "create_tool_call_accuracy_evaluator",
        "create_tool_call_f1_evaluator",
    ),
    ".graph": (
        "create_async_graph_trajectory_match_evaluator",
        "create_graph_trajectory_match_evaluator",
        "graph_trajectory_strict_match",
        "graph_trajectory_strict_match_async",
    ),
    ".result": (
        "EvaluatorResult",
        "result_passed",
    ),
    ".trajectory": (
        "AsyncTrajectoryMatchEvaluator",
        "TrajectoryMatchEvaluator",
        "create_async_trajectory_match_evaluator",
        "create_trajectory_match_evaluator",
        "evaluate_trajectory",
    ),
    ".usage": (
        "AsyncToolUsageEvaluator",
        "ToolUsageEvaluator",
        "create_async_tool_usage_evaluator",
        "create_tool_usage_evaluator",
    ),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

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
