"""pytest-agenttraj: test AI-agent trajectories like ordinary code.

The public API is openevals-compatible (switch by changing an import) and light to import: it
never loads langchain-core or langsmith, and each name is imported when first used (pytest loads
the plugin in every run, and most runs use little of the package).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from ._version import __version__

if TYPE_CHECKING:
    from .assertion import (
        GraphTrajectoryMismatch,
        ToolUsageViolation,
        TrajectoryMismatch,
        assert_graph_trajectory,
        assert_tool_usage,
        assert_trajectory,
    )
    from .core.graph import (
        GraphMatchMode,
        GraphMatchReport,
        match_graph_trajectories,
    )
    from .core.matchers import (
        ANY,
        Approx,
        Contains,
        Matcher,
        OneOf,
        Regex,
    )
    from .core.matching import match_trajectories
    from .core.matching.report import MatchReport
    from .core.matching.rules import (
        ToolArgsMatchMode,
        ToolArgsMatchOverrides,
        TrajectoryMatchMode,
    )
    from .core.model import (
        GraphTrajectory,
        Message,
        ToolCall,
        Trajectory,
    )
    from .core.normalize import (
        to_trajectory,
    )
    from .core.usage import (
        UsageReport,
        UsageRules,
        UsageViolation,
        check_usage,
        make_usage_rules,
    )
    from .errors import (
        AgentTrajError,
        GraphTrajectoryFormatError,
        InvalidMatcherError,
        JudgeCacheWarning,
        JudgeError,
        ReferenceFileError,
        ScriptedReplyError,
        ScriptError,
        ScriptExhaustedError,
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
    from .graded_assertion import (
        assert_tool_call_accuracy,
        assert_tool_call_f1,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    ".assertion": (
        "GraphTrajectoryMismatch",
        "ToolUsageViolation",
        "TrajectoryMismatch",
        "assert_graph_trajectory",
        "assert_tool_usage",
        "assert_trajectory",
    ),
    ".core.graph": (
        "GraphMatchMode",
        "GraphMatchReport",
        "match_graph_trajectories",
    ),
    ".core.matchers": (
        "ANY",
        "Approx",
        "Contains",
        "Matcher",
        "OneOf",
        "Regex",
    ),
    ".core.matching": ("match_trajectories",),
    ".core.matching.report": ("MatchReport",),
    ".core.matching.rules": (
        "ToolArgsMatchMode",
        "ToolArgsMatchOverrides",
        "TrajectoryMatchMode",
    ),
    ".core.model": (
        "GraphTrajectory",
        "Message",
        "ToolCall",
        "Trajectory",
    ),
    ".core.normalize": ("to_trajectory",),
    ".core.usage": (
        "UsageReport",
        "UsageRules",
        "UsageViolation",
        "check_usage",
        "make_usage_rules",
    ),
    ".errors": (
        "AgentTrajError",
        "GraphTrajectoryFormatError",
        "InvalidMatcherError",
        "JudgeCacheWarning",
        "JudgeError",
        "ReferenceFileError",
        "ScriptError",
        "ScriptExhaustedError",
        "ScriptedReplyError",
        "TrajectoryFormatError",
    ),
    ".evaluators": (
        "EvaluatorResult",
        "create_async_graph_trajectory_match_evaluator",
        "create_async_tool_usage_evaluator",
        "create_async_trajectory_match_evaluator",
        "create_graph_trajectory_match_evaluator",
        "create_tool_usage_evaluator",
        "create_trajectory_match_evaluator",
        "exact_match",
        "exact_match_async",
        "graph_trajectory_strict_match",
        "graph_trajectory_strict_match_async",
    ),
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
        "JudgeCache",
        "TOPIC_ADHERENCE_PROMPT",
        "TRAJECTORY_ACCURACY_PROMPT",
        "TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE",
        "create_agent_goal_accuracy_evaluator",
        "create_async_agent_goal_accuracy_evaluator",
        "create_async_graph_trajectory_llm_as_judge",
        "create_async_topic_adherence_evaluator",
        "create_async_trajectory_llm_as_judge",
        "create_graph_trajectory_llm_as_judge",
        "create_topic_adherence_evaluator",
        "create_trajectory_llm_as_judge",
    ),
    ".graded_assertion": (
        "assert_tool_call_accuracy",
        "assert_tool_call_f1",
    ),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

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
    "JudgeCacheWarning",
    "JudgeError",
    "MatchReport",
    "Matcher",
    "Message",
    "OneOf",
    "ReferenceFileError",
    "Regex",
    "ScriptError",
    "ScriptExhaustedError",
    "ScriptedReplyError",
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
