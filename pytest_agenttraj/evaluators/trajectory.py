"""openevals-compatible trajectory match evaluators, over the one synchronous core.

Switching from openevals is a change of import: same factory names, keyword arguments, result keys
(``trajectory_<mode>_match``) and result shape. Unlike openevals every mode and override is
validated when the evaluator is built, and a mismatch comes with a ``comment`` saying why.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, cast

from ..core.compare import collector_paused, compare_trajectories
from ..core.matching.report import MatchReport
from ..core.matching.rules import (
    MatchConfig,
    ToolArgsMatchMode,
    ToolArgsMatchOverrides,
    TrajectoryMatchMode,
    make_config,
)
from .result import EvaluatorResult
from .scope import announce, announce_error

__all__ = [
    "AsyncTrajectoryMatchEvaluator",
    "ReferenceHandler",
    "TrajectoryMatchEvaluator",
    "async_face",
    "create_async_trajectory_match_evaluator",
    "create_trajectory_match_evaluator",
    "evaluate_trajectory",
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


class TrajectoryMatchEvaluator:
    """A configured trajectory evaluator: call it with ``outputs`` and ``reference_outputs``.

    Evaluators made by the plugin's fixtures also take the name of a reference file in the
    test's ``trajectories/`` folder as ``reference_outputs`` (their ``references`` handler).
    """

    def __init__(
        self,
        config: MatchConfig,
        *,
        origin: str = "evaluator",
        references: ReferenceHandler | None = None,
    ) -> None:
        self.config = config
        self._origin = origin
        self._references = references

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(trajectory_match_mode={self.config.mode!r}, "
            f"tool_args_match_mode={self.config.tool_args!r})"
        )

    def _evaluate(self, outputs: Any, reference_outputs: Any, inputs: Any) -> EvaluatorResult:
        # The collector stays paused until this call's report is dropped (see collector_paused).
        __tracebackhide__ = True
        with collector_paused():
            return self._evaluate_now(outputs, reference_outputs, inputs)

    def _evaluate_now(self, outputs: Any, reference_outputs: Any, inputs: Any) -> EvaluatorResult:
        __tracebackhide__ = True
        started = time.perf_counter()
        extra: dict[str, Any] = {}
        try:
            handled = (
                self._references(outputs, reference_outputs, self.config, extra)
                if self._references is not None
                else None
            )
            if handled is not None:
                result, report, reference_outputs = handled
            else:
                result, report = evaluate_trajectory(outputs, reference_outputs, self.config)
        except Exception as error:
            announce_error(
                error,
                self.config.key,
                outputs=outputs,
                reference_outputs=reference_outputs,
                inputs=inputs,
                started=started,
                origin=self._origin,
                extra={"mode": self.config.mode, "tool_args_mode": self.config.tool_args},
            )
            raise
        announce(
            result,
            report=report,
            outputs=outputs,
            reference_outputs=reference_outputs,
            inputs=inputs,
            started=started,
            origin=self._origin,
            extra=extra,
        )
        return result

    def __call__(
        self,
        *,
        outputs: Any,
        reference_outputs: Any,
        inputs: Any = None,
        **kwargs: Any,  # accepted and ignored, as openevals does, so call sites stay compatible
    ) -> EvaluatorResult:
        __tracebackhide__ = True
        return self._evaluate(outputs, reference_outputs, inputs)


class AsyncTrajectoryMatchEvaluator(Protocol):
    """The awaitable face of a trajectory evaluator: a coroutine function (so that
    ``inspect.iscoroutinefunction`` is true, as langsmith's ``aevaluate`` requires) over the same
    synchronous core, since matching does no I/O. ``config`` is its settings."""

    config: MatchConfig

    async def __call__(
        self, *, outputs: Any, reference_outputs: Any, inputs: Any = None, **kwargs: Any
    ) -> EvaluatorResult: ...


def async_face(evaluator: TrajectoryMatchEvaluator) -> AsyncTrajectoryMatchEvaluator:
    """``evaluator`` as a coroutine function."""

    async def trajectory_match(
        *, outputs: Any, reference_outputs: Any, inputs: Any = None, **kwargs: Any
    ) -> EvaluatorResult:
        __tracebackhide__ = True
        return evaluator._evaluate(outputs, reference_outputs, inputs)

    trajectory_match.config = evaluator.config  # type: ignore[attr-defined]
    trajectory_match.__qualname__ = f"async_{evaluator.config.key}"
    return cast("AsyncTrajectoryMatchEvaluator", trajectory_match)


def create_trajectory_match_evaluator(
    *,
    trajectory_match_mode: TrajectoryMatchMode = "strict",
    tool_args_match_mode: ToolArgsMatchMode = "exact",
    tool_args_match_overrides: ToolArgsMatchOverrides | None = None,
    ignore_keys: Sequence[str] | None = None,
    allow_empty: bool = True,
) -> TrajectoryMatchEvaluator:
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
    return TrajectoryMatchEvaluator(config)


def create_async_trajectory_match_evaluator(
    *,
    trajectory_match_mode: TrajectoryMatchMode = "strict",
    tool_args_match_mode: ToolArgsMatchMode = "exact",
    tool_args_match_overrides: ToolArgsMatchOverrides | None = None,
    ignore_keys: Sequence[str] | None = None,
    allow_empty: bool = True,
) -> AsyncTrajectoryMatchEvaluator:
    """The async twin of ``create_trajectory_match_evaluator`` (same checks, same answers): a
    coroutine function, as langsmith's ``aevaluate`` expects."""
    config = make_config(
        trajectory_match_mode,
        tool_args_match_mode,
        tool_args_match_overrides,
        ignore_keys=ignore_keys,
        allow_empty=allow_empty,
    )
    return async_face(TrajectoryMatchEvaluator(config))
