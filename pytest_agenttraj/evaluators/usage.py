"""``create_tool_usage_evaluator``: whether a trajectory follows tool-usage rules (required,
forbidden, per-tool and total call budgets, a turn budget), key ``tool_usage``. One synchronous
core, sync and async faces."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..core.compare import collector_paused
from ..core.normalize import to_trajectory
from ..core.usage import UsageReport, UsageRules, check_usage, make_usage_rules
from .faces import AsyncEvaluator, Evaluator, async_face, sync_face
from .result import EvaluatorResult
from .scope import announce, announce_error

__all__ = [
    "announce_usage",
    "create_async_tool_usage_evaluator",
    "create_tool_usage_evaluator",
    "evaluate_usage",
    "usage_faces",
    "usage_result",
]

KEY = "tool_usage"


def usage_result(report: UsageReport) -> EvaluatorResult:
    """The result dict of a usage check: violations in ``metadata`` when any."""
    violations = [v.as_json() for v in report.violations]
    return {
        "key": KEY,
        "score": report.passed,
        "comment": report.comment(),
        "metadata": {"violations": violations} if violations else None,
    }


def evaluate_usage(outputs: Any, rules: UsageRules) -> tuple[EvaluatorResult, UsageReport]:
    """Check ``outputs`` (any accepted trajectory input) against ``rules`` (no reporting)."""
    with collector_paused():
        facts = None
        if rules.budgets:
            from ..core.run_facts import run_facts

            facts = run_facts(outputs, tool_error=rules.tool_error)
        report = check_usage(to_trajectory(outputs, side="outputs"), rules, facts)
    return usage_result(report), report


def announce_usage(
    result: EvaluatorResult,
    report: UsageReport,
    *,
    outputs: Any,
    started: float,
    origin: str,
    inputs: Any = None,
) -> None:
    """Tell the running test about a usage check."""
    announce(
        result,
        report=report,
        outputs=outputs,
        reference_outputs=None,
        inputs=inputs,
        started=started,
        origin=origin,
    )


def usage_faces(
    rules: UsageRules, *, origin: str = "tool_usage"
) -> tuple[Evaluator, AsyncEvaluator]:
    """Both faces of a usage evaluator (``evaluator.rules``). It reads only ``outputs``; other
    keyword arguments, such as ``reference_outputs``, are accepted and ignored, so it fits
    wherever trajectory evaluators do."""

    def score(
        outputs: Any, _reference_outputs: Any, inputs: Any, _extra: Mapping[str, Any]
    ) -> EvaluatorResult:
        started = time.perf_counter()
        try:
            result, report = evaluate_usage(outputs, rules)
        except Exception as error:
            announce_error(
                error,
                KEY,
                outputs=outputs,
                reference_outputs=None,
                inputs=inputs,
                started=started,
                origin=origin,
            )
            raise
        announce_usage(
            result, report, outputs=outputs, started=started, origin=origin, inputs=inputs
        )
        return result

    shown = f"ToolUsageEvaluator({rules.describe()})"
    return (
        sync_face(score, name=KEY, shown=shown, needs_reference=False, rules=rules),
        async_face(score, name=KEY, needs_reference=False, rules=rules),
    )


def create_tool_usage_evaluator(
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
) -> Evaluator:
    """An evaluator of tool usage (key ``tool_usage``): ``required`` tools must be called,
    ``forbidden`` ones must not, ``max_calls`` caps calls per tool (``{"search": 3}``),
    ``max_total_calls`` all calls, ``max_steps`` assistant turns; run budgets:
    ``max_total_tokens``, ``max_tokens`` per model, ``max_cost`` with ``prices`` per model
    (input, output per million tokens), ``max_tool_errors`` (``tool_error`` a predicate of a
    tool message), ``max_duration_s`` (the ``duration_s`` of a state dict or traced run),
    ``max_tool_duration_s={tool: seconds}`` (each traced call of the tool). Bad values raise
    ``ValueError`` now; a failing result's comment names the rule and the offending calls.

    Example::

        evaluator = create_tool_usage_evaluator(required=["search"], forbidden=["delete"])
        result = evaluator(outputs=result["messages"])
        assert result["score"], result["comment"]
    """
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
    return usage_faces(rules)[0]


def create_async_tool_usage_evaluator(
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
) -> AsyncEvaluator:
    """The async twin of ``create_tool_usage_evaluator``: a coroutine function."""
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
    return usage_faces(rules)[1]
