"""Graded evaluators: tool-call accuracy and tool-call F1 (the Ragas metrics) as
openevals-style result dicts with a float score in [0, 1], a ``comment`` saying what lost points
and ``metadata`` holding the details, call by call.

Every args mode and override is validated when the evaluator is built. The async factories
return real coroutine functions (``inspect.iscoroutinefunction`` is true), as LangSmith's
``evaluate`` / ``aevaluate`` require; scoring does no I/O, so both faces run the same core.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..core.matching.rules import (
    MatchConfig,
    ToolArgsMatchMode,
    ToolArgsMatchOverrides,
    make_config,
)
from ..core.metrics import AccuracyReport, F1Report, GradedReport, tool_call_accuracy, tool_call_f1
from .result import EvaluatorResult
from .scope import announce

__all__ = [
    "AsyncGradedEvaluator",
    "GradedEvaluator",
    "create_async_tool_call_accuracy_evaluator",
    "create_async_tool_call_f1_evaluator",
    "create_tool_call_accuracy_evaluator",
    "create_tool_call_f1_evaluator",
    "evaluate_tool_call_accuracy",
    "evaluate_tool_call_f1",
    "graded_config",
    "graded_record",
]

GradedEvaluator = Callable[..., EvaluatorResult]
"""``evaluator(*, outputs, reference_outputs, inputs=None, **kwargs) -> EvaluatorResult``."""
AsyncGradedEvaluator = Callable[..., Awaitable[EvaluatorResult]]


def graded_config(tool_args: object = "exact", overrides: Any = None) -> MatchConfig:
    """The args rules of a graded metric, validated (``ValueError`` listing the valid modes)."""
    return make_config("unordered", tool_args, overrides)


def _check_order(strict_order: object) -> bool:
    if not isinstance(strict_order, bool):
        raise ValueError(f"invalid strict_order {strict_order!r}: must be True or False")
    return strict_order


def _result(report: GradedReport) -> EvaluatorResult:
    return {
        "key": report.key,
        "score": report.score,
        "comment": report.comment(),
        "metadata": report.metadata(),
    }


def evaluate_tool_call_accuracy(
    outputs: Any, reference_outputs: Any, config: MatchConfig, *, strict_order: bool = True
) -> tuple[EvaluatorResult, AccuracyReport]:
    """Score both sides and build the result dict (no reporting)."""
    report = tool_call_accuracy(outputs, reference_outputs, config, strict_order=strict_order)
    return _result(report), report


def evaluate_tool_call_f1(
    outputs: Any, reference_outputs: Any, config: MatchConfig
) -> tuple[EvaluatorResult, F1Report]:
    """Score both sides and build the result dict (no reporting)."""
    report = tool_call_f1(outputs, reference_outputs, config)
    return _result(report), report


def graded_record(report: GradedReport) -> dict[str, Any]:
    """What a graded evaluation adds to its record: the settings it ran with."""
    if isinstance(report, AccuracyReport):
        mode = "strict_order" if report.strict_order else "any_order"
    else:
        mode = "unordered"
    return {"mode": mode, "tool_args_mode": report.config.tool_args}


def graded_evaluation(
    kind: str, config: MatchConfig, strict_order: bool, origin: str
) -> Callable[[Any, Any, Any], EvaluatorResult]:
    """The one implementation behind both faces: score, announce to the running test, return."""

    def evaluate(outputs: Any, reference_outputs: Any, inputs: Any) -> EvaluatorResult:
        started = time.perf_counter()
        report: GradedReport
        if kind == "tool_call_accuracy":
            result, report = evaluate_tool_call_accuracy(
                outputs, reference_outputs, config, strict_order=strict_order
            )
        else:
            result, report = evaluate_tool_call_f1(outputs, reference_outputs, config)
        announce(
            result,
            outputs=outputs,
            reference_outputs=reference_outputs,
            inputs=inputs,
            started=started,
            origin=origin,
            extra=graded_record(report),
            graded=report,
        )
        return result

    return evaluate


def sync_face(evaluate: Callable[[Any, Any, Any], EvaluatorResult], name: str) -> GradedEvaluator:
    def evaluator(
        *, outputs: Any, reference_outputs: Any, inputs: Any = None, **kwargs: Any
    ) -> EvaluatorResult:
        return evaluate(outputs, reference_outputs, inputs)

    evaluator.__name__ = evaluator.__qualname__ = name
    return evaluator


def async_face(
    evaluate: Callable[[Any, Any, Any], EvaluatorResult], name: str
) -> AsyncGradedEvaluator:
    async def evaluator(
        *, outputs: Any, reference_outputs: Any, inputs: Any = None, **kwargs: Any
    ) -> EvaluatorResult:
        return evaluate(outputs, reference_outputs, inputs)

    evaluator.__name__ = evaluator.__qualname__ = name
    return evaluator


def create_tool_call_accuracy_evaluator(
    *,
    strict_order: bool = True,
    tool_args: ToolArgsMatchMode = "exact",
    overrides: ToolArgsMatchOverrides | None = None,
) -> GradedEvaluator:
    """An evaluator scoring how accurately an agent made the reference's tool calls (key
    ``tool_call_accuracy``, score in [0, 1]).

    The score is the mean argument accuracy of the paired calls (the share of the keys the args
    rule compares whose values match) when the call sequences align, else 0. ``strict_order``:
    the reference's calls must appear in the output in order (other calls may come between);
    ``False``: in any order. Extra calls lose no points (``create_tool_call_f1_evaluator``
    counts them). ``reference_outputs`` is a list of ``{"name", "args"}`` calls or a reference
    trajectory. ``tool_args="superset"`` scores as Ragas does (extra output args are free).

    Example::

        evaluator = create_tool_call_accuracy_evaluator(strict_order=False)
        result = evaluator(outputs=messages, reference_outputs=[
            {"name": "get_weather", "args": {"city": "SF"}}])
        assert result["score"] >= 0.8, result["comment"]
    """
    config = graded_config(tool_args, overrides)
    evaluate = graded_evaluation(
        "tool_call_accuracy", config, _check_order(strict_order), "tool_call_accuracy"
    )
    return sync_face(evaluate, "tool_call_accuracy")


def create_async_tool_call_accuracy_evaluator(
    *,
    strict_order: bool = True,
    tool_args: ToolArgsMatchMode = "exact",
    overrides: ToolArgsMatchOverrides | None = None,
) -> AsyncGradedEvaluator:
    """The async twin of ``create_tool_call_accuracy_evaluator`` (same checks, same scores)."""
    config = graded_config(tool_args, overrides)
    evaluate = graded_evaluation(
        "tool_call_accuracy", config, _check_order(strict_order), "tool_call_accuracy"
    )
    return async_face(evaluate, "tool_call_accuracy")


def create_tool_call_f1_evaluator(
    *,
    tool_args: ToolArgsMatchMode = "exact",
    overrides: ToolArgsMatchOverrides | None = None,
) -> GradedEvaluator:
    """An evaluator scoring the F1 of an agent's tool calls against the reference's (key
    ``tool_call_f1``): order is ignored, a call counts as right when a reference call of the
    same name has matching args (under ``tool_args`` and ``overrides``), each reference call
    pairing with one output call. ``metadata`` holds precision, recall and the matched,
    missing and extra calls.

    Example::

        evaluator = create_tool_call_f1_evaluator(tool_args="subset")
        result = evaluator(outputs=messages, reference_outputs=reference)
        print(result["score"], result["metadata"]["precision"], result["metadata"]["recall"])
    """
    evaluate = graded_evaluation(
        "tool_call_f1", graded_config(tool_args, overrides), False, "tool_call_f1"
    )
    return sync_face(evaluate, "tool_call_f1")


def create_async_tool_call_f1_evaluator(
    *,
    tool_args: ToolArgsMatchMode = "exact",
    overrides: ToolArgsMatchOverrides | None = None,
) -> AsyncGradedEvaluator:
    """The async twin of ``create_tool_call_f1_evaluator`` (same checks, same scores)."""
    evaluate = graded_evaluation(
        "tool_call_f1", graded_config(tool_args, overrides), False, "tool_call_f1"
    )
    return async_face(evaluate, "tool_call_f1")
