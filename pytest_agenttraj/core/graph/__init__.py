"""Graph (LangGraph) trajectories: which nodes ran, per invocation, compared in five modes. Pure.

A step entry may be a list of node names that ran in one superstep; their order is then ignored,
since LangGraph gives no order inside a superstep. Flat lists of names compare as agentevals
compares them. :mod:`.path` reads and checks the input, :mod:`.strict` and :mod:`.order` compare
one invocation, :mod:`.match` a whole trajectory, :mod:`.report` says what differs and
:mod:`.document` turns references into plain documents and back.
"""

from __future__ import annotations

from .document import check_graph_reference, graph_reference_document
from .match import compare_graph_paths, graph_steps_match, match_graph_trajectories
from .modes import GRAPH_MATCH_MODES, GraphMatchMode, check_graph_mode, graph_key
from .path import GraphPath, Superstep, graph_steps, read_graph_steps
from .report import GraphDifference, GraphMatchReport

__all__ = [
    "GRAPH_MATCH_MODES",
    "GraphDifference",
    "GraphMatchMode",
    "GraphMatchReport",
    "GraphPath",
    "Superstep",
    "check_graph_mode",
    "check_graph_reference",
    "compare_graph_paths",
    "graph_key",
    "graph_reference_document",
    "graph_steps",
    "graph_steps_match",
    "match_graph_trajectories",
    "read_graph_steps",
]
