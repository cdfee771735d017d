"""pytest-agenttraj: test AI-agent trajectories like ordinary code.

The public API is openevals-compatible (switch by changing an import) and light to import: it
never loads langchain-core or langsmith, and the graded metrics and LLM judges load when first
named (``from pytest_agenttraj import create_trajectory_llm_as_judge``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .assertion import (
    GraphTrajectoryMismatch,
    ToolUsageViolation,
    TrajectoryMismatch,
    assert_graph_trajectory,
    assert_tool_usage,
    assert_trajectory,
)
from .core.graph import GraphMatchMode, GraphMatchReport, match_graph_trajectories
from .core.matchers import ANY, Approx, Contains, Matcher, OneOf, Regex
from .core.matching import MatchReport, match_trajectories
from .core.matching.rules import ToolArgsMatchMode, ToolArgsMatchOverrides, TrajectoryMatchMode
from .core.model import GraphTrajectory, Message, ToolCall, Trajectory
from .core.normalize import to_trajectory
from .core.usage import UsageReport, UsageRules, UsageViolation, check_usage, make_usage_rules
from .errors import (
    AgentTrajError,
    GraphTrajectoryFormatError,
    InvalidMatcherError,
    JudgeError,
    ReferenceFileError,
    TrajectoryFormatError,
)
from .evaluators import (
    EvaluatorResult,
    create_async_graph_trajectory_match_evaluator,
    create_async_tool_usage_evaluator,
    create_async_trajectory_match_evaluator,
    create_graph_trajectory_match_evaluator,
    create_tool_usage_evaluator,
    create_trajectory_match_evaluator,
    exact_match,
    exact_match_async,
    graph_trajectory_strict_match,
    graph_trajectory_strict_match_async,
)

if TYPE_CHECKING:
    from .evaluators.graded import (
        create_async_tool_call_accuracy_evaluator,
        create_async_tool_call_f1_evaluator,
        create_tool_call_accuracy_evaluator,
        create_tool_call_f1_evaluator,
    )
    from .evaluators.judges import (
        AGENT_GOAL_ACCURACY_PROMPT,
        AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE,
        GRAPH_TRAJECTORY_ACCURACY_PROMPT,
        TOPIC_ADHERENCE_PROMPT,
        TRAJECTORY_ACCURACY_PROMPT,
        TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
        JudgeCache,
        create_agent_goal_accuracy_evaluator,
        create_async_agent_goal_accuracy_evaluator,
        create_async_graph_trajectory_llm_as_judge,
        create_async_topic_adherence_evaluator,
        create_async_trajectory_llm_as_judge,
        create_graph_trajectory_llm_as_judge,
        create_topic_adherence_evaluator,
        create_trajectory_llm_as_judge,
    )
    from .graded_assertion import assert_tool_call_accuracy, assert_tool_call_f1

_LAZY = {
    ".evaluators.graded": (
        "create_async_tool_call_accuracy_evaluator",
        "create_async_tool_call_f1_evaluator",
        "create_tool_call_accuracy_evaluator",
        "create_tool_call_f1_evaluator",
    ),
    ".evaluators.judges": (
        "AGENT_GOAL_ACCURACY_PROMPT",
        "AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE",
        "GRAPH_TRAJECTORY_ACCURACY_PROMPT",
        "TOPIC_ADHERENCE_PROMPT",
        "TRAJECTORY_ACCURACY_PROMPT",
        "TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE",
        "JudgeCache",
        "create_agent_goal_accuracy_evaluator",
        "create_async_agent_goal_accuracy_evaluator",
        "create_async_graph_trajectory_llm_as_judge",
        "create_async_topic_adherence_evaluator",
        "create_async_trajectory_llm_as_judge",
        "create_graph_trajectory_llm_as_judge",
        "create_topic_adherence_evaluator",
        "create_trajectory_llm_as_judge",
    ),
    ".graded_assertion": ("assert_tool_call_accuracy", "assert_tool_call_f1"),
}
_LAZY_NAMES = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> Any:
    """The graded metrics and judges, imported when first named."""
    module = _LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "AGENT_GOAL_ACCURACY_PROMPT",
    "AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE",
    "ANY",
    "GRAPH_TRAJECTORY_ACCURACY_PROMPT",
    "TOPIC_ADHERENCE_PROMPT",
    "TRAJECTORY_ACCURACY_PROMPT",
    "TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE",
    "AgentTrajError",
    "Approx",
    "Contains",
    "EvaluatorResult",
    "GraphMatchMode",
    "GraphMatchReport",
    "GraphTrajectory",
    "GraphTrajectoryFormatError",
    "GraphTrajectoryMismatch",
    "InvalidMatcherError",
    "JudgeCache",
    "JudgeError",
    "MatchReport",
    "Matcher",
    "Message",
    "OneOf",
    "ReferenceFileError",
    "Regex",
    "ToolArgsMatchMode",
    "ToolArgsMatchOverrides",
    "ToolCall",
    "ToolUsageViolation",
    "Trajectory",
    "TrajectoryFormatError",
    "TrajectoryMatchMode",
    "TrajectoryMismatch",
    "UsageReport",
    "UsageRules",
    "UsageViolation",
    "__version__",
    "assert_graph_trajectory",
    "assert_tool_call_accuracy",
    "assert_tool_call_f1",
    "assert_tool_usage",
    "assert_trajectory",
    "check_usage",
    "create_agent_goal_accuracy_evaluator",
    "create_async_agent_goal_accuracy_evaluator",
    "create_async_graph_trajectory_llm_as_judge",
    "create_async_graph_trajectory_match_evaluator",
    "create_async_tool_call_accuracy_evaluator",
    "create_async_tool_call_f1_evaluator",
    "create_async_tool_usage_evaluator",
    "create_async_topic_adherence_evaluator",
    "create_async_trajectory_llm_as_judge",
    "create_async_trajectory_match_evaluator",
    "create_graph_trajectory_llm_as_judge",
    "create_graph_trajectory_match_evaluator",
    "create_tool_call_accuracy_evaluator",
    "create_tool_call_f1_evaluator",
    "create_tool_usage_evaluator",
    "create_topic_adherence_evaluator",
    "create_trajectory_llm_as_judge",
    "create_trajectory_match_evaluator",
    "exact_match",
    "exact_match_async",
    "graph_trajectory_strict_match",
    "graph_trajectory_strict_match_async",
    "make_usage_rules",
    "match_graph_trajectories",
    "match_trajectories",
    "to_trajectory",
]
