"""Graded evaluators: tool-call accuracy and tool-call F1 (the Ragas metrics) as
openevals-style result dicts with a float score in [0, 1], a ``comment`` saying what lost points
and ``metadata`` holding the details, call by call. With their defaults they give Ragas' scores
(docs/differences.md lists where, and why, they deliberately do not).

Every args mode and override is validated when the evaluator is built. The async factories
return real coroutine functions (``inspect.iscoroutinefunction`` is true), as LangSmith's
``evaluate`` / ``aevaluate`` require; scoring does no I/O, so both faces run the same core.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from typing import Any, Literal

from ..core.compare import collector_paused
from ..core.matching.rules import (
    GRADED_ARGS_MODES,
    MatchConfig,
    ToolArgsMatchMode,
    ToolArgsMatchOverrides,
    make_config,
)
from ..core.metrics import (
    AccuracyReport,
    F1Report,
    GradedReport,
    Rules,
    tool_call_accuracy,
    tool_call_f1,
)
from .faces import AsyncEvaluator, Evaluator, Score, async_face, sync_face
from .result import EvaluatorResult
from .scope import announce

__all__ = [
    "AccuracyArgsMode",
    "create_async_tool_call_accuracy_evaluator",
    "create_async_tool_call_f1_evaluator",
    "create_tool_call_accuracy_evaluator",
    "create_tool_call_f1_evaluator",
    "evaluate_tool_call_accuracy",
    "evaluate_tool_call_f1",
    "graded_config",
    "graded_faces",
    "graded_record",
]

AccuracyArgsMode = ToolArgsMatchMode | Literal["ragas"]
"""The args modes of tool-call accuracy: ``ragas`` (its default) or any matching mode."""


def graded_config(
    tool_args: object = None, overrides: Any = None, *, metric: str = "tool_call_f1"
) -> MatchConfig:
    """The args rules of a graded metric, validated (``ValueError`` listing the valid modes).

    ``tool_args=None`` is the metric's default, Ragas' rule: ``ragas`` for tool-call accuracy,
    ``exact`` for F1 (Ragas counts a call as right only when its arguments are equal).
    """
    accuracy = metric == "tool_call_accuracy"
    if tool_args is None:
        tool_args = "ragas" if accuracy else "exact"
    if tool_args == "ragas" and accuracy:  # a graded mode, which make_config does not know
        return dataclasses.replace(
            make_config("unordered", "superset", overrides), tool_args="ragas"
        )
    if accuracy and tool_args not in GRADED_ARGS_MODES:
        valid = ", ".join(repr(m) for m in GRADED_ARGS_MODES)
        raise ValueError(f"invalid tool_args {tool_args!r:.60}: must be one of {valid}")
    return make_config("unordered", tool_args, overrides)


def check_flag(value: object, name: str) -> bool:
    """``value`` if it is a bool, else a ``ValueError`` naming the option."""
    if not isinstance(value, bool):
        raise ValueError(f"invalid {name} {value!r}: must be True or False")
    return value


def accuracy_rules(strict_order: object, allow_extra_calls: object, best_pairing: object) -> Rules:
    """Tool-call accuracy's alignment options, validated."""
    return Rules(
        check_flag(strict_order, "strict_order"),
        check_flag(allow_extra_calls, "allow_extra_calls"),
        check_flag(best_pairing, "best_pairing"),
    )


_ANY_ORDER = Rules(strict_order=False)  # F1 has no order (the rules go unused)


def _result(report: GradedReport) -> EvaluatorResult:
    return {
        "key": report.key,
        "score": report.score,
        "comment": report.comment(),
        "metadata": report.metadata(),
    }


def evaluate_tool_call_accuracy(
    outputs: Any, reference_outputs: Any, config: MatchConfig, rules: Rules | None = None
) -> tuple[EvaluatorResult, AccuracyReport]:
    """Score both sides and build the result dict (no reporting); ``rules`` default to
    Ragas' strict order."""
    rules = rules or Rules()
    report = tool_call_accuracy(
        outputs,
        reference_outputs,
        config,
        strict_order=rules.strict_order,
        allow_extra_calls=rules.allow_extra_calls,
        best_pairing=rules.best_pairing,
    )
    return _result(report), report


def evaluate_tool_call_f1(
    outputs: Any, reference_outputs: Any, config: MatchConfig
) -> tuple[EvaluatorResult, F1Report]:
    """Score both sides and build the result dict (no reporting)."""
    report = tool_call_f1(outputs, reference_outputs, config)
    return _result(report), report


def graded_record(report: GradedReport) -> dict[str, Any]:
    """What a graded evaluation adds to its record: the settings it ran with."""
    return {"mode": report.mode, "tool_args_mode": report.config.tool_args}


def graded_scorer(kind: str, config: MatchConfig, rules: Rules, origin: str) -> Score:
    """The scorer behind both faces: score, announce to the running test, return."""

    def score(
        outputs: Any, reference_outputs: Any, inputs: Any, _extra: Mapping[str, Any]
    ) -> EvaluatorResult:
        # The collector stays paused until this call's report is dropped (see collector_paused).
        with collector_paused():
            return _scored(outputs, reference_outputs, inputs)

    def _scored(outputs: Any, reference_outputs: Any, inputs: Any) -> EvaluatorResult:
        started = time.perf_counter()
        report: GradedReport
        if kind == "tool_call_accuracy":
            result, report = evaluate_tool_call_accuracy(outputs, reference_outputs, config, rules)
        else:
            result, report = evaluate_tool_call_f1(outputs, reference_outputs, config)
        announce(
            result,
            report=report,
            outputs=outputs,
            reference_outputs=reference_outputs,
            inputs=inputs,
            started=started,
            origin=origin,
            extra=graded_record(report),
        )
        return result

    return score


def graded_faces(
    kind: str, config: MatchConfig, rules: Rules, origin: str
) -> tuple[Evaluator, AsyncEvaluator]:
    """Both faces of a graded evaluator (``evaluator.config``, ``evaluator.rules``)."""
    score = graded_scorer(kind, config, rules, origin)
    return (
        sync_face(score, name=kind, config=config, rules=rules),
        async_face(score, name=kind, config=config, rules=rules),
    )


def _accuracy_evaluation(
    strict_order: object,
    allow_extra_calls: object,
    best_pairing: object,
    tool_args: object,
    overrides: Any,
) -> tuple[Evaluator, AsyncEvaluator]:
    config = graded_config(tool_args, overrides, metric="tool_call_accuracy")
    rules = accuracy_rules(strict_order, allow_extra_calls, best_pairing)
    return graded_faces("tool_call_accuracy", config, rules, "tool_call_accuracy")


def create_tool_call_accuracy_evaluator(
    *,
    strict_order: bool = True,
    tool_args: AccuracyArgsMode = "ragas",
    overrides: ToolArgsMatchOverrides | None = None,
    allow_extra_calls: bool = False,
    best_pairing: bool = False,
) -> Evaluator:
    """An evaluator scoring how accurately an agent made the reference's tool calls (key
    ``tool_call_accuracy``, score in [0, 1]), by default as Ragas' ``ToolCallAccuracy`` does.

    The score is the mean argument accuracy of the paired calls (the share of the keys the args
    rule compares whose values match) when the call sequences align, else 0. They align when
    the output's tool names are the reference's: in the same order (``strict_order=True``,
    calls paired by position) or in any order (calls of one tool paired in the order of their
    arguments' text, as Ragas sorts them). ``tool_args="ragas"`` counts the reference's keys
    (extra output args are free; a call expected without arguments must be made without).
    ``allow_extra_calls=True``: the reference's calls need only appear in the output (in
    order, for strict order), extra calls losing no points (``create_tool_call_f1_evaluator``
    counts them), calls paired for the most argument accuracy. ``best_pairing=True``: in any
    order, same-named calls pair for the most argument accuracy. ``reference_outputs`` is a
    list of ``{"name", "args"}`` calls or a reference trajectory.

    Example::

        evaluator = create_tool_call_accuracy_evaluator(strict_order=False)
        result = evaluator(outputs=messages, reference_outputs=[
            {"name": "get_weather", "args": {"city": "SF"}}])
        assert result["score"] >= 0.8, result["comment"]
    """
    return _accuracy_evaluation(
        strict_order, allow_extra_calls, best_pairing, tool_args, overrides
    )[0]


def create_async_tool_call_accuracy_evaluator(
    *,
    strict_order: bool = True,
    tool_args: AccuracyArgsMode = "ragas",
    overrides: ToolArgsMatchOverrides | None = None,
    allow_extra_calls: bool = False,
    best_pairing: bool = False,
) -> AsyncEvaluator:
    """The async twin of ``create_tool_call_accuracy_evaluator`` (same checks, same scores)."""
    return _accuracy_evaluation(
        strict_order, allow_extra_calls, best_pairing, tool_args, overrides
    )[1]


def create_tool_call_f1_evaluator(
    *,
    tool_args: ToolArgsMatchMode = "exact",
    overrides: ToolArgsMatchOverrides | None = None,
) -> Evaluator:
    """An evaluator scoring the F1 of an agent's tool calls against the reference's (key
    ``tool_call_f1``, rounded to four places as Ragas' ``ToolCallF1``): order is ignored, a call
    counts as right when a reference call of the same name has matching args (under
    ``tool_args`` and ``overrides``), each reference call pairing with one output call (so
    repeated calls count as often as they are made, where Ragas counts a set). ``metadata``
    holds precision, recall and the matched, missing and extra calls.

    Example::

        evaluator = create_tool_call_f1_evaluator(tool_args="subset")
        result = evaluator(outputs=messages, reference_outputs=reference)
        print(result["score"], result["metadata"]["precision"], result["metadata"]["recall"])
    """
    config = graded_config(tool_args, overrides)
    return graded_faces("tool_call_f1", config, _ANY_ORDER, "tool_call_f1")[0]


def create_async_tool_call_f1_evaluator(
    *,
    tool_args: ToolArgsMatchMode = "exact",
    overrides: ToolArgsMatchOverrides | None = None,
) -> AsyncEvaluator:
    """The async twin of ``create_tool_call_f1_evaluator`` (same checks, same scores)."""
    config = graded_config(tool_args, overrides)
    return graded_faces("tool_call_f1", config, _ANY_ORDER, "tool_call_f1")[1]
