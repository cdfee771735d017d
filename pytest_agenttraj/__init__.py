"""pytest-agenttraj: test AI-agent trajectories like ordinary code.

The public API is openevals-compatible (switch by changing an import) and light to import: it
never loads langchain-core or langsmith.
"""

from ._version import __version__
from .assertion import (
    GraphTrajectoryMismatch,
    TrajectoryMismatch,
    assert_graph_trajectory,
    assert_trajectory,
)
from .core.graph import GraphMatchMode, GraphMatchReport, match_graph_trajectories
from .core.matching import MatchReport, match_trajectories
from .core.matching.rules import ToolArgsMatchMode, ToolArgsMatchOverrides, TrajectoryMatchMode
from .core.model import GraphTrajectory, Message, ToolCall, Trajectory
from .core.normalize import to_trajectory
from .errors import (
    AgentTrajError,
    GraphTrajectoryFormatError,
    ReferenceFileError,
    TrajectoryFormatError,
)
from .evaluators import (
    EvaluatorResult,
    create_async_graph_trajectory_match_evaluator,
    create_async_trajectory_match_evaluator,
    create_graph_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
    exact_match,
    exact_match_async,
    graph_trajectory_strict_match,
    graph_trajectory_strict_match_async,
)

__all__ = [
    "AgentTrajError",
    "EvaluatorResult",
    "GraphMatchMode",
    "GraphMatchReport",
    "GraphTrajectory",
    "GraphTrajectoryFormatError",
    "GraphTrajectoryMismatch",
    "MatchReport",
    "Message",
    "ReferenceFileError",
    "ToolArgsMatchMode",
    "ToolArgsMatchOverrides",
    "ToolCall",
    "Trajectory",
    "TrajectoryFormatError",
    "TrajectoryMatchMode",
    "TrajectoryMismatch",
    "__version__",
    "assert_graph_trajectory",
    "assert_trajectory",
    "create_async_graph_trajectory_match_evaluator",
    "create_async_trajectory_match_evaluator",
    "create_graph_trajectory_match_evaluator",
    "create_trajectory_match_evaluator",
    "exact_match",
    "exact_match_async",
    "graph_trajectory_strict_match",
    "graph_trajectory_strict_match_async",
    "match_graph_trajectories",
    "match_trajectories",
    "to_trajectory",
]
