"""``assert_tool_usage``: a trajectory follows tool-usage rules, or a ``ToolUsageViolation``
naming each broken rule and the offending calls."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.usage import make_usage_rules
from ..evaluators.result import EvaluatorResult
from ..evaluators.scope import announce_error
from ..evaluators.usage import announce_usage, evaluate_usage
from .base import AgentTrajAssertionError

__all__ = ["ToolUsageViolation", "assert_tool_usage"]


class ToolUsageViolation(AgentTrajAssertionError):
    """A trajectory broke tool-usage rules; ``report`` names each rule and offending call."""

    __module__ = "pytest_agenttraj"


def assert_tool_usage(
    outputs: Any,
    *,
    required: Iterable[str] = (),
    forbidden: Iterable[str] = (),
    max_calls: Mapping[str, int] | None = None,
    max_total_calls: int | None = None,
    max_steps: int | None = None,
) -> EvaluatorResult:
    """Return the ``tool_usage`` result if ``outputs`` follows the rules, else raise
    ``ToolUsageViolation`` naming each broken rule and the offending calls with their message
    index. ``required`` tools must be called, ``forbidden`` ones must not, ``max_calls`` caps
    calls per tool (``{"search": 3}``), ``max_total_calls`` all calls, ``max_steps`` assistant
    turns.

    Example::

        assert_tool_usage(result["messages"], required=["search"], max_calls={"search": 3})
    """
    __tracebackhide__ = True
    rules = make_usage_rules(
        required=required,
        forbidden=forbidden,
        max_calls=max_calls,
        max_total_calls=max_total_calls,
        max_steps=max_steps,
    )
    started = time.perf_counter()
    try:
        result, report = evaluate_usage(outputs, rules)
    except Exception as error:
        announce_error(
            error,
            "tool_usage",
            outputs=outputs,
            reference_outputs=None,
            started=started,
            origin="assert_tool_usage",
        )
        raise
    announce_usage(result, report, outputs=outputs, started=started, origin="assert_tool_usage")
    if not report.passed:
        raise ToolUsageViolation(report, result)
    return result
