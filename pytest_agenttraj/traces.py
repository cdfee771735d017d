"""Trajectories from traces: OpenTelemetry spans and LangSmith run trees.

An agent that is traced rather than returning messages (an OpenAI-SDK loop under ``@traceable``,
a framework instrumented with OpenTelemetry) is tested from its trace: each reader returns a
``TraceTrajectory``, a dict whose ``messages`` every matcher, usage rule, graded metric and judge
reads, and whose ``graph`` (when the trace named nodes or agents) ``assert_graph_trajectory``
reads. Tool messages carry ``status`` (``"success"`` / ``"error"``) and, like assistant messages,
``duration`` in seconds.
"""

from __future__ import annotations

from .core.normalize.run_trees import trajectory_from_run_tree
from .core.normalize.spans import trajectory_from_spans
from .core.normalize.steps import TraceTrajectory

__all__ = ["TraceTrajectory", "trajectory_from_run_tree", "trajectory_from_spans"]
