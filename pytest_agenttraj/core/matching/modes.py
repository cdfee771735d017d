"""The names of the match modes, apart from the rules that apply them (:mod:`.rules`): the
plugin's options list them in every run, before any comparison is made."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "TOOL_ARGS_MATCH_MODES",
    "TRAJECTORY_MATCH_MODES",
    "ToolArgsMatchMode",
    "TrajectoryMatchMode",
]

TrajectoryMatchMode = Literal["strict", "unordered", "subset", "superset", "in_order"]
ToolArgsMatchMode = Literal["exact", "ignore", "subset", "superset"]

TRAJECTORY_MATCH_MODES: tuple[str, ...] = get_args(TrajectoryMatchMode)
TOOL_ARGS_MATCH_MODES: tuple[str, ...] = get_args(ToolArgsMatchMode)
