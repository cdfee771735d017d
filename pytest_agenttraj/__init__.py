"""pytest-agenttraj: test AI-agent trajectories like ordinary code.

The public API is openevals-compatible (switch by changing an import) and light to import: it
never loads langchain-core or langsmith, and each name is imported when first used (pytest loads
the plugin in every run, and most runs use little of the package).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from ._version import __version__ as __version__

# The public names, each listed once: type checkers read them here, and the lazy table,
# ``__all__`` and ``dir()`` are derived from this block (see ``_lazy``).
if TYPE_CHECKING:
    from .assertions.base import (
        AgentTrajAssertionError as AgentTrajAssertionError,
    )
    from .assertions.conversation import (
        ConversationMismatch as ConversationMismatch,
        assert_conversation as assert_conversation,
    )
    from .assertions.graded import (
        GradedMismatch as GradedMismatch,
        assert_tool_call_accuracy as assert_tool_call_accuracy,
        assert_tool_call_f1 as assert_tool_call_f1,
    )
    from .assertions.graph import (
        GraphTrajectoryMismatch as GraphTrajectoryMismatch,
        assert_graph_trajectory as assert_graph_trajectory,
    )
    from .assertions.replay import (
        ReplayMismatch as ReplayMismatch,
    )
    from .assertions.scenario import (
        TurnCheckFailed as TurnCheckFailed,
        run_scenario as run_scenario,
        run_scenario_async as run_scenario_async,
    )
    from .assertions.trajectory import (
        TrajectoryMismatch as TrajectoryMismatch,
        assert_trajectory as assert_trajectory,
    )
    from .assertions.usage import (
        ToolUsageViolation as ToolUsageViolation,
        assert_tool_usage as assert_tool_usage,
    )
    from .core.graph import (
        GraphMatchMode as GraphMatchMode,
        GraphMatchReport as GraphMatchReport,
        match_graph_trajectories as match_graph_trajectories,
    )
    from .core.matchers import (
        ANY as ANY,
        Approx as Approx,
        Contains as Contains,
        Matcher as Matcher,
        OneOf as OneOf,
        Regex as Regex,
    )
    from .core.matching import (
        match_trajectories as match_trajectories,
    )
    from .core.matching.conversation import (
        ConversationReport as ConversationReport,
        match_conversations as match_conversations,
    )
    from .core.matching.report import (
        MatchReport as MatchReport,
    )
    from .core.matching.rules import (
        ToolArgsMatchMode as ToolArgsMatchMode,
        ToolArgsMatchOverrides as ToolArgsMatchOverrides,
        TrajectoryMatchMode as TrajectoryMatchMode,
    )
    from .core.model import (
        Conversation as Conversation,
        GraphTrajectory as GraphTrajectory,
        Message as Message,
        ToolCall as ToolCall,
        Trajectory as Trajectory,
        Turn as Turn,
    )
    from .core.normalize import (
        to_conversation as to_conversation,
        to_trajectory as to_trajectory,
    )
    from .core.usage import (
        UsageReport as UsageReport,
        UsageRules as UsageRules,
        UsageViolation as UsageViolation,
        check_usage as check_usage,
        make_usage_rules as make_usage_rules,
    )
    from .errors import (
        AgentTrajError as AgentTrajError,
        BudgetError as BudgetError,
        CassetteError as CassetteError,
        GraphTrajectoryFormatError as GraphTrajectoryFormatError,
        InvalidMatcherError as InvalidMatcherError,
        JudgeCacheWarning as JudgeCacheWarning,
        JudgeError as JudgeError,
        ReferenceFileError as ReferenceFileError,
        ScriptedReplyError as ScriptedReplyError,
        ScriptError as ScriptError,
        ScriptExhaustedError as ScriptExhaustedError,
        SimulationError as SimulationError,
        TrajectoryFormatError as TrajectoryFormatError,
    )
    from .evaluators.exact import (
        exact_match as exact_match,
        exact_match_async as exact_match_async,
    )
    from .evaluators.graded import (
        create_async_tool_call_accuracy_evaluator as create_async_tool_call_accuracy_evaluator,
        create_async_tool_call_f1_evaluator as create_async_tool_call_f1_evaluator,
        create_tool_call_accuracy_evaluator as create_tool_call_accuracy_evaluator,
        create_tool_call_f1_evaluator as create_tool_call_f1_evaluator,
    )
    from .evaluators.graph import (
        create_async_graph_trajectory_match_evaluator as create_async_graph_trajectory_match_evaluator,
        create_graph_trajectory_match_evaluator as create_graph_trajectory_match_evaluator,
        graph_trajectory_strict_match as graph_trajectory_strict_match,
        graph_trajectory_strict_match_async as graph_trajectory_strict_match_async,
    )
    from .evaluators.judges import (
        AGENT_GOAL_ACCURACY_PROMPT as AGENT_GOAL_ACCURACY_PROMPT,
        AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE as AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE,
        GRAPH_TRAJECTORY_ACCURACY_PROMPT as GRAPH_TRAJECTORY_ACCURACY_PROMPT,
        TOPIC_ADHERENCE_PROMPT as TOPIC_ADHERENCE_PROMPT,
        TRAJECTORY_ACCURACY_PROMPT as TRAJECTORY_ACCURACY_PROMPT,
        TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE as TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
        JudgeCache as JudgeCache,
        create_agent_goal_accuracy_evaluator as create_agent_goal_accuracy_evaluator,
        create_async_agent_goal_accuracy_evaluator as create_async_agent_goal_accuracy_evaluator,
        create_async_graph_trajectory_llm_as_judge as create_async_graph_trajectory_llm_as_judge,
        create_async_topic_adherence_evaluator as create_async_topic_adherence_evaluator,
        create_async_trajectory_llm_as_judge as create_async_trajectory_llm_as_judge,
        create_graph_trajectory_llm_as_judge as create_graph_trajectory_llm_as_judge,
        create_topic_adherence_evaluator as create_topic_adherence_evaluator,
        create_trajectory_llm_as_judge as create_trajectory_llm_as_judge,
    )
    from .evaluators.result import (
        EvaluatorResult as EvaluatorResult,
    )
    from .evaluators.scenario import (
        agent_turn as agent_turn,
        check_turn as check_turn,
        user_turn as user_turn,
    )
    from .evaluators.simulated_user import (
        create_async_llm_simulated_user as create_async_llm_simulated_user,
        create_llm_simulated_user as create_llm_simulated_user,
    )
    from .evaluators.simulation import (
        MultiturnSimulationResult as MultiturnSimulationResult,
        TurnContext as TurnContext,
        run_multiturn_simulation as run_multiturn_simulation,
        run_multiturn_simulation_async as run_multiturn_simulation_async,
    )
    from .evaluators.trajectory import (
        create_async_trajectory_match_evaluator as create_async_trajectory_match_evaluator,
        create_trajectory_match_evaluator as create_trajectory_match_evaluator,
    )
    from .evaluators.usage import (
        create_async_tool_usage_evaluator as create_async_tool_usage_evaluator,
        create_tool_usage_evaluator as create_tool_usage_evaluator,
    )

# ``__all__`` too: "__version__", then the names of the block above
__getattr__, __dir__ = lazy_exports(__name__, __file__, eager=("__version__",))
