"""openevals-compatible trajectory match evaluators, over the one synchronous core.

Switching from openevals is a change of import: same factory names, keyword arguments, result keys
(``trajectory_<mode>_match``) and result shape. Unlike openevals every mode and override is
validated when the evaluator is built, and a mismatch comes with a ``comment`` saying why.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.compare import collector_paused, compare_trajectories
from ..core.matching.report import MatchReport
from ..core.matching.rules import (
    MatchConfig,
    ToolArgsMatchMode,
    ToolArgsMatchOverrides,
    TrajectoryMatchMode,
    make_config,
)
from .faces import AsyncEvaluator, Evaluator, Score, async_face, sync_face
from .result import EvaluatorResult
from .scope import announce, announce_error

__all__ = [
    "ReferenceHandler",
    "create_async_trajectory_match_evaluator",
    "create_trajectory_match_evaluator",
    "evaluate_trajectory",
    "trajectory_faces",
    "trajectory_scorer",
]

ReferenceHandler = Callable[
    [Any, Any, MatchConfig, dict[str, Any]], "tuple[EvaluatorResult, MatchReport, Any] | None"
]
"""``handler(outputs, reference_outputs, config, extra)``: when ``reference_outputs`` names a
reference file, the evaluation against it, its report and the reference messages compared (and
notes for the record in ``extra``); ``None`` when it is a trajectory."""


def evaluate_trajectory(
    outputs: Any, reference_outputs: Any, config: MatchConfig
) -> tuple[EvaluatorResult, MatchReport]:
    """Compare both sides and build the result dict (no reporting)."""
    __tracebackhide__ = True
    report = compare_trajectories(outputs, reference_outputs, config)
    result: EvaluatorResult = {
        "key": config.key,
        "score": report.matched,
        "comment": report.comment(),
        "metadata": None,
    }
    return result, report


def trajectory_scorer(
    config: MatchConfig, *, origin: str = "evaluator", references: ReferenceHandler | None = None
) -> Score:
    """The scorer behind both faces of a trajectory evaluator. Evaluators made by the plugin's
    fixtures also take the name of a reference file in the test's ``trajectories/`` folder as
    ``reference_outputs`` (their ``references`` handler)."""

    def score(
        outputs: Any, reference_outputs: Any, inputs: Any, _extra: Mapping[str, Any]
    ) -> EvaluatorResult:
        # The collector stays paused until this call's report is dropped (see collector_paused).
        __tracebackhide__ = True
        with collector_paused():
            return _evaluate(config, origin, references, outputs, reference_outputs, inputs)

    return score


def _evaluate(
    config: MatchConfig,
    origin: str,
    references: ReferenceHandler | None,
    outputs: Any,
    reference_outputs: Any,
    inputs: Any,
) -> EvaluatorResult:
    __tracebackhide__ = True
    started = time.perf_counter()
    extra: dict[str, Any] = {}
    try:
        handled = (
            references(outputs, reference_outputs, config, extra)
            if references is not None
            else None
        )
        if handled is not None:
            result, report, reference_outputs = handled
        else:
            result, report = evaluate_trajectory(outputs, reference_outputs, config)
    except Exception as error:
        announce_error(
            error,
            config.key,
            outputs=outputs,
            reference_outputs=reference_outputs,
            inputs=inputs,
            started=started,
            origin=origin,
            extra={"mode": config.mode, "tool_args_mode": config.tool_args},
        )
        raise
    announce(
        result,
        report=report,
        outputs=outputs,
        reference_outputs=reference_outputs,
        inputs=inputs,
        started=started,
        origin=origin,
        extra=extra,
    )
    return result


def trajectory_faces(
    config: MatchConfig, *, origin: str = "evaluator", references: ReferenceHandler | None = None
) -> tuple[Evaluator, AsyncEvaluator]:
    """Both faces of a trajectory evaluator under ``config`` (``evaluator.config``)."""
    score = trajectory_scorer(config, origin=origin, references=references)
    shown = (
        f"TrajectoryMatchEvaluator(trajectory_match_mode={config.mode!r}, "
        f"tool_args_match_mode={config.tool_args!r})"
    )
    return (
        sync_face(score, name=config.key, shown=shown, config=config),
        async_face(score, name=f"async_{config.key}", config=config),
    )


def create_trajectory_match_evaluator(
    *,
    trajectory_match_mode: TrajectoryMatchMode = "strict",
    tool_args_match_mode: ToolArgsMatchMode = "exact",
    tool_args_match_overrides: ToolArgsMatchOverrides | None = None,
    ignore_keys: Sequence[str] | None = None,
    allow_empty: bool = True,
) -> Evaluator:
    """An evaluator comparing an agent's trajectory with a reference trajectory.

    Modes: ``strict`` (same messages in order), ``unordered`` (same tool calls in any order),
    ``subset`` (no call beyond the reference's), ``superset`` (at least the reference's calls),
    ``in_order`` (the reference's calls in order, anything else in between).
    ``tool_args_match_mode`` and per-tool ``tool_args_match_overrides`` (a mode, a list of keys
    with dotted paths, ``{"ignore_keys": [...]}``, or a callable ``(output_args,
    reference_args) -> bool | (bool, reason)``) say how arguments compare; ``ignore_keys``
    leaves dotted key paths out of every tool's comparison. ``allow_empty=False`` refuses an
    empty reference and an output without messages (openevals' answers are kept by default).
    Every value is checked now: an unknown one raises ``ValueError``.

    Example::

        evaluator = create_trajectory_match_evaluator(trajectory_match_mode="superset")
        result = evaluator(outputs=result["messages"], reference_outputs=reference)
        assert result["score"], result["comment"]
    """
    config = make_config(
        trajectory_match_mode,
        tool_args_match_mode,
        tool_args_match_overrides,
        ignore_keys=ignore_keys,
        allow_empty=allow_empty,
    )
    return trajectory_faces(config)[0]


def create_async_trajectory_match_evaluator(
    *,
    trajectory_match_mode: TrajectoryMatchMode = "strict",
    tool_args_match_mode: ToolArgsMatchMode = "exact",
    tool_args_match_overrides: ToolArgsMatchOverrides | None = None,
    ignore_keys: Sequence[str] | None = None,
    allow_empty: bool = True,
) -> AsyncEvaluator:
    """The async twin of ``create_trajectory_match_evaluator`` (same checks, same answers): a
    coroutine function, as langsmith's ``aevaluate`` expects."""
    config = make_config(
        trajectory_match_mode,
        tool_args_match_mode,
        tool_args_match_overrides,
        ignore_keys=ignore_keys,
        allow_empty=allow_empty,
    )
    return trajectory_faces(config)[1]
