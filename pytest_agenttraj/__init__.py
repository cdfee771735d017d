"""pytest-agenttraj: test AI-agent trajectories like ordinary code.

The public API is openevals-compatible (switch by changing an import) and light to import: it
never loads langchain-core or langsmith.
"""

from ._version import __version__
from .assertion import ToolUsageViolation, TrajectoryMismatch, assert_tool_usage, assert_trajectory
from .core.matchers import ANY, Approx, Contains, Matcher, OneOf, Regex
from .core.matching import MatchReport, match_trajectories
from .core.matching.rules import ToolArgsMatchMode, ToolArgsMatchOverrides, TrajectoryMatchMode
from .core.model import GraphTrajectory, Message, ToolCall, Trajectory
from .core.normalize import to_trajectory
from .core.usage import UsageReport, UsageRules, UsageViolation, check_usage, make_usage_rules
from .errors import AgentTrajError, InvalidMatcherError, ReferenceFileError, TrajectoryFormatError
from .evaluators import (
    EvaluatorResult,
    create_async_tool_usage_evaluator,
    create_async_trajectory_match_evaluator,
    create_tool_usage_evaluator,
    create_trajectory_match_evaluator,
    exact_match,
    exact_match_async,
    graph_trajectory_strict_match,
    graph_trajectory_strict_match_async,
)

__all__ = [
    "ANY",
    "AgentTrajError",
    "Approx",
    "Contains",
    "EvaluatorResult",
    "GraphTrajectory",
    "InvalidMatcherError",
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
    "assert_tool_usage",
    "assert_trajectory",
    "check_usage",
    "create_async_tool_usage_evaluator",
    "create_async_trajectory_match_evaluator",
    "create_tool_usage_evaluator",
    "create_trajectory_match_evaluator",
    "exact_match",
    "exact_match_async",
    "graph_trajectory_strict_match",
    "graph_trajectory_strict_match_async",
    "make_usage_rules",
    "match_trajectories",
    "to_trajectory",
]
