"""``create_tool_usage_evaluator``: whether a trajectory follows tool-usage rules (required,
forbidden, per-tool and total call budgets, a turn budget), key ``tool_usage``. One synchronous
core, sync and async faces."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, cast

from ..core.compare import collector_paused
from ..core.normalize import to_trajectory
from ..core.usage import UsageReport, UsageRules, check_usage, make_usage_rules
from .result import EvaluatorResult
from .scope import announce, announce_error

__all__ = [
    "AsyncToolUsageEvaluator",
    "ToolUsageEvaluator",
    "create_async_tool_usage_evaluator",
    "create_tool_usage_evaluator",
    "evaluate_usage",
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
        report = check_usage(to_trajectory(outputs, side="outputs"), rules)
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
    """Tell the running test about a usage check; a failure's record carries its explanation."""
    extra: dict[str, Any] = {"usage_rules": report.rules.as_json()}
    if not report.passed:
        extra["diff"] = "\n".join(report.lines())
    announce(
        result,
        outputs=outputs,
        reference_outputs=None,
        inputs=inputs,
        started=started,
        origin=origin,
        extra=extra,
    )


class ToolUsageEvaluator:
    """A configured usage evaluator: call it with ``outputs`` (other keyword arguments, such as
    ``reference_outputs``, are accepted and ignored, so it fits wherever trajectory evaluators
    do)."""

    def __init__(self, rules: UsageRules, *, origin: str = "tool_usage") -> None:
        self.rules = rules
        self._origin = origin

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.rules.describe()})"

    def _evaluate(self, outputs: Any, inputs: Any) -> EvaluatorResult:
        started = time.perf_counter()
        try:
            result, report = evaluate_usage(outputs, self.rules)
        except Exception as error:
            announce_error(
                error,
                KEY,
                outputs=outputs,
                reference_outputs=None,
                inputs=inputs,
                started=started,
                origin=self._origin,
            )
            raise
        announce_usage(
            result, report, outputs=outputs, started=started, origin=self._origin, inputs=inputs
        )
        return result

    def __call__(
        self,
        *,
        outputs: Any,
        inputs: Any = None,
        **kwargs: Any,
    ) -> EvaluatorResult:
        return self._evaluate(outputs, inputs)


class AsyncToolUsageEvaluator(Protocol):
    """The awaitable face of a usage evaluator: a coroutine function (``inspect.
    iscoroutinefunction`` is true, as langsmith's ``aevaluate`` requires) over the same
    synchronous check, since checking does no I/O. ``rules`` are its rules."""

    rules: UsageRules

    async def __call__(
        self, *, outputs: Any, inputs: Any = None, **kwargs: Any
    ) -> EvaluatorResult: ...


def _async_face(evaluator: ToolUsageEvaluator) -> AsyncToolUsageEvaluator:
    async def tool_usage(*, outputs: Any, inputs: Any = None, **kwargs: Any) -> EvaluatorResult:
        return evaluator._evaluate(outputs, inputs)

    tool_usage.rules = evaluator.rules  # type: ignore[attr-defined]
    return cast("AsyncToolUsageEvaluator", tool_usage)


def create_tool_usage_evaluator(
    *,
    required: Iterable[str] = (),
    forbidden: Iterable[str] = (),
    max_calls: Mapping[str, int] | None = None,
    max_total_calls: int | None = None,
    max_steps: int | None = None,
) -> ToolUsageEvaluator:
    """An evaluator of tool usage (key ``tool_usage``): ``required`` tools must be called,
    ``forbidden`` ones must not, ``max_calls`` caps calls per tool (``{"search": 3}``),
    ``max_total_calls`` all calls, ``max_steps`` assistant turns. Bad values raise
    ``ValueError`` now; a failing result's comment names the rule and the offending calls.

    Example::

        evaluator = create_tool_usage_evaluator(required=["search"], forbidden=["delete"])
        result = evaluator(outputs=result["messages"])
        assert result["score"], result["comment"]
    """
    return ToolUsageEvaluator(
        make_usage_rules(
            required=required,
            forbidden=forbidden,
            max_calls=max_calls,
            max_total_calls=max_total_calls,
            max_steps=max_steps,
        )
    )


def create_async_tool_usage_evaluator(
    *,
    required: Iterable[str] = (),
    forbidden: Iterable[str] = (),
    max_calls: Mapping[str, int] | None = None,
    max_total_calls: int | None = None,
    max_steps: int | None = None,
) -> AsyncToolUsageEvaluator:
    """The async twin of ``create_tool_usage_evaluator``: a coroutine function."""
    return _async_face(
        create_tool_usage_evaluator(
            required=required,
            forbidden=forbidden,
            max_calls=max_calls,
            max_total_calls=max_total_calls,
            max_steps=max_steps,
        )
    )
