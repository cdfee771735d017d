"""LangGraph capture: a graph's path recorded from its public stream while it runs
(:mod:`.capture`), rebuilt from a thread's checkpoint history (:mod:`.history`), and agentevals'
extractors under their names (:mod:`.agentevals`). LangGraph is imported here and nowhere else;
without it, importing this package says which extra to install."""

from __future__ import annotations

try:
    import langgraph.types  # noqa: F401  (the one place the package needs LangGraph)
except ImportError as error:  # pragma: no cover - exercised in a subprocess without LangGraph
    raise ImportError(
        "pytest_agenttraj.langgraph needs LangGraph: install the 'langgraph' extra "
        "(pip install 'pytest-agenttraj[langgraph]')"
    ) from error

from .agentevals import (
    ExtractedLangGraphThreadTrajectory,
    aextract_langgraph_trajectory_from_thread,
    extract_langgraph_trajectory_from_snapshots,
    extract_langgraph_trajectory_from_thread,
)
from .capture import arecord_graph_trajectory, record_graph_trajectory
from .history import agraph_trajectory_from_history, graph_trajectory_from_history

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
