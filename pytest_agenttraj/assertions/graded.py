"""``assert_tool_call_accuracy`` and ``assert_tool_call_f1``: a graded score of at least
``min_score``, or a ``GradedMismatch`` whose text lists the calls that lost points and why.

Inside a pytest test, ``min_score``, ``tool_args`` and ``overrides`` left out come from the
test's ``trajectory`` marker, the command line and the ini file; outside, or where none of them
sets it, from the defaults (``min_score=1.0``; Ragas' argument rule: ``ragas`` args for
accuracy, ``exact`` for F1).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..core.metrics import GradedReport
from ..evaluators.graded import (
    accuracy_rules,
    evaluate_tool_call_accuracy,
    evaluate_tool_call_f1,
    graded_config,
    graded_record,
)
from ..evaluators.result import EvaluatorResult, check_min_score
from ..evaluators.scope import TestScope, announce, current_scope
from .base import AgentTrajAssertionError

__all__ = ["GradedMismatch", "assert_tool_call_accuracy", "assert_tool_call_f1"]


class GradedMismatch(AgentTrajAssertionError):
    """A graded score below its threshold (``min_score``); ``report`` says, call by call, what
    lost points."""

    __module__ = "pytest_agenttraj"


def _defaults(
    scope: TestScope | None,
    min_score: float | None,
    tool_args: str | None,
    overrides: Mapping[str, Any] | None,
) -> tuple[float, str | None, Mapping[str, Any] | None]:
    if min_score is None:
        min_score = scope.min_score if scope is not None and scope.min_score is not None else 1.0
    if tool_args is None and scope is not None:
        tool_args = scope.tool_args  # None when nothing set it: the metric's default
    if overrides is None and scope is not None:
        overrides = scope.overrides
    return check_min_score(min_score), tool_args, overrides


def _check(
    result: EvaluatorResult,
    report: GradedReport,
    *,
    outputs: Any,
    reference: Any,
    started: float,
    origin: str,
    min_score: float,
    scope: TestScope | None,
) -> EvaluatorResult:
    __tracebackhide__ = True
    announce(
        result,
        outputs=outputs,
        reference_outputs=reference,
        started=started,
        origin=origin,
        report=report,
        extra={**graded_record(report), "min_score": min_score},
    )
    if report.score < min_score:
        verbose = scope.verbose if scope is not None else 0
        raise GradedMismatch(report, result, min_score=min_score, verbose=verbose)
    return result


def assert_tool_call_accuracy(
    outputs: Any,
    reference: Any,
    *,
    strict_order: bool = True,
    min_score: float | None = None,
    tool_args: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    allow_extra_calls: bool = False,
    best_pairing: bool = False,
) -> EvaluatorResult:
    """Return the ``tool_call_accuracy`` result if its score is at least ``min_score`` (default:
    the marker's ``min_score=``, else 1.0), else raise ``GradedMismatch`` listing the calls
    that lost points. ``reference`` is a list of ``{"name", "args"}`` calls or a trajectory;
    ``strict_order``, ``allow_extra_calls`` and ``best_pairing`` work as in
    ``create_tool_call_accuracy_evaluator``.

    Example::

        assert_tool_call_accuracy(result["messages"], [
            {"name": "get_weather", "args": {"city": "SF"}}], min_score=0.8)
    """
    __tracebackhide__ = True
    scope = current_scope()
    threshold, args_mode, per_tool = _defaults(scope, min_score, tool_args, overrides)
    config = graded_config(args_mode, per_tool, metric="tool_call_accuracy")
    rules = accuracy_rules(strict_order, allow_extra_calls, best_pairing)
    started = time.perf_counter()
    result, report = evaluate_tool_call_accuracy(outputs, reference, config, rules)
    return _check(
        result,
        report,
        outputs=outputs,
        reference=reference,
        started=started,
        origin="assert_tool_call_accuracy",
        min_score=threshold,
        scope=scope,
    )


def assert_tool_call_f1(
    outputs: Any,
    reference: Any,
    *,
    min_score: float | None = None,
    tool_args: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> EvaluatorResult:
    """Return the ``tool_call_f1`` result if its score is at least ``min_score`` (default: the
    marker's ``min_score=``, else 1.0), else raise ``GradedMismatch`` listing the missing
    and extra calls.

    Example::

        assert_tool_call_f1(result["messages"], reference, min_score=0.8, tool_args="subset")
    """
    __tracebackhide__ = True
    scope = current_scope()
    threshold, args_mode, rules = _defaults(scope, min_score, tool_args, overrides)
    config = graded_config(args_mode, rules)
    started = time.perf_counter()
    result, report = evaluate_tool_call_f1(outputs, reference, config)
    return _check(
        result,
        report,
        outputs=outputs,
        reference=reference,
        started=started,
        origin="assert_tool_call_f1",
        min_score=threshold,
        scope=scope,
    )
