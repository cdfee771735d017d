"""The graph match modes, validated when an evaluator is built.

Graph paths have one mode more than message trajectories' four: ``in_order``. For a path, the
order of what ran is part of ``subset`` and ``superset`` already, so ``in_order`` is the same
check as ``superset`` under the name message trajectories use for it; one
``--trajectory-mode`` then means the same kind of check for both.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["GRAPH_MATCH_MODES", "GraphMatchMode", "check_graph_mode", "graph_key"]

GraphMatchMode = Literal["strict", "unordered", "subset", "superset", "in_order"]
GRAPH_MATCH_MODES: tuple[str, ...] = get_args(GraphMatchMode)


def check_graph_mode(mode: object, *, where: str = "mode") -> str:
    """``mode`` if it is a graph match mode, else a ValueError listing the valid ones."""
    if not isinstance(mode, str) or mode not in GRAPH_MATCH_MODES:
        choices = ", ".join(repr(m) for m in GRAPH_MATCH_MODES)
        raise ValueError(f"invalid graph {where} {mode!r}: must be one of {choices}")
    return mode


def graph_key(mode: str) -> str:
    """The result key of a mode's evaluator, as in agentevals: ``graph_trajectory_<mode>_match``."""
    return f"graph_trajectory_{mode}_match"
