"""Pure trajectory matching: decides whether an output trajectory matches a reference, and why not.

Tool calls are paired one-to-one by maximum bipartite matching, so a match is found whenever one
exists (first-fit pairing misses some when argument matching is not plain equality). Modes and
argument rules live in :mod:`.rules`, strict mode in :mod:`.strict`, the call-only modes and the
pairing in :mod:`.calls` (with :mod:`.matcher_pairing` for reference args holding matchers),
``in_order`` in :mod:`.in_order`, what refuses a comparison that would pass on nothing in
:mod:`.vacuous`, explanations in :mod:`.explain`, the result in :mod:`.report`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the package loads with its rules at start-up; the report with a comparison
    from ..model import Trajectory
    from .report import MatchReport
    from .rules import MatchConfig

__all__ = ["match_trajectories"]


def match_trajectories(
    output: Trajectory, reference: Trajectory, config: MatchConfig
) -> MatchReport:
    """Compare two normalised trajectories under ``config``."""
    # The matchers load on the first comparison, not when the plugin starts.
    from .calls import match_calls
    from .in_order import match_in_order
    from .report import GivenSides, MatchReport
    from .strict import match_strict
    from .vacuous import vacuous_problems

    if not config.allow_empty:
        refused = vacuous_problems(output, reference, config.mode)
        if refused:
            return MatchReport(config, GivenSides(output, reference), False, refused)
    if config.mode == "strict":
        return match_strict(output, reference, config)
    if config.mode == "in_order":
        return match_in_order(output, reference, config)
    return match_calls(output, reference, config)
