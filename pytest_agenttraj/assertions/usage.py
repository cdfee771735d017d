"""``assert_tool_usage``: a trajectory follows tool-usage rules, or a ``ToolUsageViolation``
naming each broken rule and the offending calls."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
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
    max_total_tokens: int | None = None,
    max_tokens: Mapping[str, int] | None = None,
    max_cost: float | None = None,
    prices: Mapping[str, tuple[float, float]] | None = None,
    max_tool_errors: int | None = None,
    max_duration_s: float | None = None,
    max_tool_duration_s: Mapping[str, float] | None = None,
    tool_error: Callable[[Any], bool] | None = None,
) -> EvaluatorResult:
    """Return the ``tool_usage`` result if ``outputs`` follows the rules, else raise
    ``ToolUsageViolation`` naming each broken rule and the offending calls with their message
    index. ``required`` tools must be called, ``forbidden`` ones must not, ``max_calls`` caps
    calls per tool (``{"search": 3}``), ``max_total_calls`` all calls, ``max_steps`` assistant
    turns. Run budgets: ``max_total_tokens``, ``max_tokens`` per model (from
    ``usage_metadata``), ``max_cost`` with ``prices={model: (input_per_million,
    output_per_million)}``, ``max_tool_errors`` (``status="error"`` tool messages, or what
    ``tool_error`` calls one), ``max_duration_s`` (a state dict's or traced run's ``duration_s``),
    ``max_tool_duration_s={tool: seconds}`` (each traced call of the tool). A budget that
    cannot be evaluated raises ``BudgetError``.

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
        max_total_tokens=max_total_tokens,
        max_tokens=max_tokens,
        max_cost=max_cost,
        prices=prices,
        max_tool_errors=max_tool_errors,
        max_duration_s=max_duration_s,
        max_tool_duration_s=max_tool_duration_s,
        tool_error=tool_error,
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
