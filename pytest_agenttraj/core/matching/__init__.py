"""Pure trajectory matching: decides whether an output trajectory matches a reference, and why not.

Tool calls are paired one-to-one by maximum bipartite matching, so a match is found whenever one
exists (first-fit pairing misses some when argument matching is not plain equality). Modes and
argument rules live in :mod:`.rules`, strict mode in :mod:`.strict`, the call-only modes and the
pairing in :mod:`.calls`, explanations in :mod:`.explain`, the result in :mod:`.report`.
"""

from __future__ import annotations

from ..model import Trajectory
from .calls import match_calls
from .report import MatchReport
from .rules import MatchConfig
from .strict import match_strict

__all__ = ["MatchReport", "match_trajectories"]


def match_trajectories(
    output: Trajectory, reference: Trajectory, config: MatchConfig
) -> MatchReport:
    """Compare two normalised trajectories under ``config``."""
    if config.mode == "strict":
        return match_strict(output, reference, config)
    return match_calls(output, reference, config)
