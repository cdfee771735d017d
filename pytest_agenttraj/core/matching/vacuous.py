"""No vacuous passes: a comparison that would pass on nothing is refused before it is made.

A reference without messages (or, where the mode compares only tool calls, without tool calls)
checks nothing, usually because a reference file was written from a run that did nothing; an
output without messages means the agent produced nothing at all. Used when ``allow_empty`` is
off (the plugin's fixtures and ``assert_trajectory``, and evaluators built with
``allow_empty=False``).
"""

from __future__ import annotations

from ..model import Trajectory
from .report import Problem

__all__ = ["vacuous_problems"]

_HINT = "pass allow_empty=True if that is intended"


def vacuous_problems(output: Trajectory, reference: Trajectory, mode: str) -> tuple[Problem, ...]:
    """Why comparing ``output`` with ``reference`` under ``mode`` would check nothing (empty
    when it would not)."""
    if not reference.messages:
        return (
            Problem(
                "empty_reference",
                f"the reference is empty (no messages), so nothing would be checked; {_HINT}",
            ),
        )
    if mode != "strict" and not any(message.tool_calls for message in reference):
        effect = (
            "any output would pass"
            if mode in ("superset", "in_order")
            else "it would only check that the agent calls no tool"
        )
        return (
            Problem(
                "empty_reference",
                f"the reference has no tool calls and {mode} mode compares only tool calls, so "
                f"{effect}; {_HINT} (or assert_tool_usage(outputs, max_total_calls=0) to require "
                "that no tool is called)",
            ),
        )
    if not output.messages:
        count = len(reference.messages)
        return (
            Problem(
                "empty_output",
                f"the agent produced no messages (the reference has {count} "
                f"message{'' if count == 1 else 's'})",
            ),
        )
    return ()
