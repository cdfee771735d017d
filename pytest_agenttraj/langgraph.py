"""Graph trajectories from LangGraph graphs (needs the ``langgraph`` extra).

``record_graph_trajectory`` / ``arecord_graph_trajectory`` run a compiled graph and record its
path with supersteps; ``graph_trajectory_from_history`` rebuilds it from a thread's checkpoints;
``extract_langgraph_trajectory_from_thread`` / ``..._from_snapshots`` are agentevals' extractors
with agentevals' return shape.
"""

from __future__ import annotations

from .integrations.langgraph import (
    ExtractedLangGraphThreadTrajectory,
    aextract_langgraph_trajectory_from_thread,
    agraph_trajectory_from_history,
    arecord_graph_trajectory,
    extract_langgraph_trajectory_from_snapshots,
    extract_langgraph_trajectory_from_thread,
    graph_trajectory_from_history,
    record_graph_trajectory,
)

__all__ = [
    "ExtractedLangGraphThreadTrajectory",
    "aextract_langgraph_trajectory_from_thread",
    "agraph_trajectory_from_history",
    "arecord_graph_trajectory",
    "extract_langgraph_trajectory_from_snapshots",
    "extract_langgraph_trajectory_from_thread",
    "graph_trajectory_from_history",
    "record_graph_trajectory",
]
