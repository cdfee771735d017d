"""openevals-compatible evaluator factories and result dicts, over the one synchronous core.

Switching from openevals is a change of import: same factory names, keyword arguments, result keys
(``trajectory_<mode>_match``) and result shape. Unlike openevals every mode and override is
validated when the evaluator is built, and a mismatch comes with a ``comment`` saying why.
"""

from __future__ import annotations

import gc
import json
import os
import time
from collections.abc import Mapping
from typing import Any, TypedDict

from ._observe import TestScope, announce, current_scope
from ._values import canonical
from .config import (
    MatchConfig,
    ToolArgsMatchMode,
    ToolArgsMatchOverrides,
    TrajectoryMatchMode,
    make_config,
)
from .matching import MatchReport, match_skeletons, match_trajectories, skeletons_can_decide
from .normalize import DeferredSides, Memo, chat_skeleton, may_have_skeleton, to_trajectory
from .references import (
    ReferenceFile,
    ReferenceFileError,
    load_reference,
    resolve_reference,
    write_reference,
)

__all__ = [
    "AsyncTrajectoryMatchEvaluator",
    "EvaluatorResult",
    "TrajectoryMatchEvaluator",
    "create_async_trajectory_match_evaluator",
    "create_trajectory_match_evaluator",
    "evaluate_trajectory",
    "exact_match",
    "exact_match_async",
]


class _OptionalResultKeys(TypedDict, total=False):
    source_run_id: str | None


class EvaluatorResult(_OptionalResultKeys):
    """What every evaluator returns, as in openevals."""

    key: str
    score: bool | float
    comment: str | None
    metadata: dict[str, Any] | None


def evaluate_trajectory(
    outputs: Any, reference_outputs: Any, config: MatchConfig
) -> tuple[EvaluatorResult, MatchReport]:
    """Normalise both sides, match them, and build the result dict (no reporting)."""
    memo: Memo = {}
    # Matching builds many small acyclic objects that reference counting frees; pausing the
    # cyclic collector meanwhile saves it from scanning them again and again on long inputs.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        report = _verdict_from_skeletons(outputs, reference_outputs, config)
        if report is None:
            report = match_trajectories(
                to_trajectory(outputs, side="outputs", memo=memo),
                to_trajectory(reference_outputs, side="reference_outputs", memo=memo),
                config,
            )
    finally:
        if paused:
            gc.enable()
    result: EvaluatorResult = {
        "key": config.key,
        "score": report.matched,
        "comment": report.comment(),
        "metadata": None,
    }
    return result, report


def _verdict_from_skeletons(
    outputs: Any, reference_outputs: Any, config: MatchConfig
) -> MatchReport | None:
    """The passing common case without building either trajectory (see ``match_skeletons``);
    ``None`` when it does not apply."""
    if not (
        skeletons_can_decide(config)
        and may_have_skeleton(outputs)
        and may_have_skeleton(reference_outputs)
    ):
        return None
    valid: set[str] = set()
    # Read first the side whose calls may go unpaired; then every call of the other must pair,
    # so with exact arguments one whose text was not seen ends the walk before anything more
    # is parsed (with ignored arguments, texts need not be equal).
    known_only = config.tool_args == "exact"
    if config.mode == "subset":
        reference = chat_skeleton(reference_outputs, valid)
        if reference is None:
            return None
        output = chat_skeleton(outputs, valid, known_only=known_only)
    else:
        output = chat_skeleton(outputs, valid)
        if output is None:
            return None
        reference = chat_skeleton(reference_outputs, valid, known_only=known_only)
    if output is None or reference is None:
        return None
    return match_skeletons(output, reference, config, DeferredSides(outputs, reference_outputs))


def evaluate_reference_file(
    outputs: Any,
    reference: ReferenceFile,
    config: MatchConfig,
    scope: TestScope | None,
    extra: dict[str, Any],
) -> tuple[EvaluatorResult, MatchReport]:
    """Evaluate against a reference file. Under ``--trajectory-update`` a file that is missing or
    does not match is rewritten from ``outputs`` and the evaluation is made against what was
    written, so a file that does not read back to a match is a failure, not a silent pass.
    ``extra`` receives the file's name (and whether it was written) for the record."""
    resolver = scope.references if scope else None
    update = bool(resolver and resolver.update)
    extra["reference_file"] = resolver.name_of(reference.path) if resolver else str(reference.path)
    if not reference.exists and not update:
        raise ReferenceFileError(
            f"reference file {reference.path} does not exist; run pytest with "
            "--trajectory-update to write it from the agent's current trajectory"
        )
    if reference.exists:
        result, report = evaluate_trajectory(outputs, reference.messages, config)
        if report.matched or not update:
            return result, report
    write_reference(reference, to_trajectory(outputs, side="outputs"))
    extra["reference_written"] = True
    return evaluate_trajectory(outputs, load_reference(reference.path).messages, config)


class TrajectoryMatchEvaluator:
    """A configured trajectory evaluator: call it with ``outputs`` and ``reference_outputs``.

    Evaluators made by the plugin's fixtures (``reference_files=True``) also take the name of a
    reference file in the test's ``trajectories/`` folder as ``reference_outputs``.
    """

    def __init__(
        self, config: MatchConfig, *, origin: str = "evaluator", reference_files: bool = False
    ) -> None:
        self.config = config
        self._origin = origin
        self._reference_files = reference_files

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(trajectory_match_mode={self.config.mode!r}, "
            f"tool_args_match_mode={self.config.tool_args!r})"
        )

    def _evaluate(self, outputs: Any, reference_outputs: Any, inputs: Any) -> EvaluatorResult:
        # As in evaluate_trajectory, but until this call's report is dropped: re-enabling the
        # collector while it is alive makes the next allocation scan all of it once more.
        paused = gc.isenabled()
        if paused:
            gc.disable()
        try:
            return self._evaluate_now(outputs, reference_outputs, inputs)
        finally:
            if paused:
                gc.enable()

    def _evaluate_now(self, outputs: Any, reference_outputs: Any, inputs: Any) -> EvaluatorResult:
        started = time.perf_counter()
        scope = current_scope()
        extra: dict[str, Any] = {}
        reference = (
            resolve_reference(reference_outputs, scope)
            if self._reference_files
            and isinstance(reference_outputs, str | os.PathLike | ReferenceFile)
            else None
        )
        if reference is not None:
            result, report = evaluate_reference_file(outputs, reference, self.config, scope, extra)
            reference_outputs = reference.messages
        else:
            result, report = evaluate_trajectory(outputs, reference_outputs, self.config)
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
        return self._evaluate(outputs, reference_outputs, inputs)


class AsyncTrajectoryMatchEvaluator(TrajectoryMatchEvaluator):
    """The same evaluator, awaitable; matching does no I/O, so it runs the same core."""

    async def __call__(  # type: ignore[override]
        self,
        *,
        outputs: Any,
        reference_outputs: Any,
        inputs: Any = None,
        **kwargs: Any,
    ) -> EvaluatorResult:
        return self._evaluate(outputs, reference_outputs, inputs)


def create_trajectory_match_evaluator(
    *,
    trajectory_match_mode: TrajectoryMatchMode = "strict",
    tool_args_match_mode: ToolArgsMatchMode = "exact",
    tool_args_match_overrides: ToolArgsMatchOverrides | None = None,
) -> TrajectoryMatchEvaluator:
    """An evaluator comparing an agent's trajectory with a reference trajectory.

    Modes: ``strict`` (same messages in order), ``unordered`` (same tool calls in any order),
    ``subset`` (no call beyond the reference's), ``superset`` (at least the reference's calls).
    ``tool_args_match_mode`` and per-tool ``tool_args_match_overrides`` (a mode, a list of keys
    with dotted paths, or a callable ``(output_args, reference_args) -> bool``) say how arguments
    compare. Every value is checked now: an unknown one raises ``ValueError``.

    Example::

        evaluator = create_trajectory_match_evaluator(trajectory_match_mode="superset")
        result = evaluator(outputs=result["messages"], reference_outputs=reference)
        assert result["score"], result["comment"]
    """
    config = make_config(trajectory_match_mode, tool_args_match_mode, tool_args_match_overrides)
    return TrajectoryMatchEvaluator(config)


def create_async_trajectory_match_evaluator(
    *,
    trajectory_match_mode: TrajectoryMatchMode = "strict",
    tool_args_match_mode: ToolArgsMatchMode = "exact",
    tool_args_match_overrides: ToolArgsMatchOverrides | None = None,
) -> AsyncTrajectoryMatchEvaluator:
    """The async twin of ``create_trajectory_match_evaluator`` (same checks, same answers)."""
    config = make_config(trajectory_match_mode, tool_args_match_mode, tool_args_match_overrides)
    return AsyncTrajectoryMatchEvaluator(config)


def _exact_score(outputs: Any, reference_outputs: Any) -> bool:
    if outputs is None or reference_outputs is None:
        raise ValueError("exact_match requires both outputs and reference_outputs")
    try:
        return json.dumps(outputs, sort_keys=True) == json.dumps(reference_outputs, sort_keys=True)
    except (TypeError, ValueError):  # not JSON-encodable: compare as JSON-like values instead
        return canonical(outputs) == canonical(reference_outputs)


def _exact_result(outputs: Any, reference_outputs: Any, inputs: Any) -> EvaluatorResult:
    started = time.perf_counter()
    score = _exact_score(outputs, reference_outputs)
    result: EvaluatorResult = {
        "key": "exact_match",
        "score": score,
        "comment": None if score else "outputs differ from reference_outputs",
        "metadata": None,
    }
    announce(
        result,
        outputs=outputs,
        reference_outputs=reference_outputs,
        inputs=inputs,
        started=started,
        origin="exact_match",
    )
    return result


def exact_match(
    *, outputs: Any, reference_outputs: Any, inputs: Any = None, **kwargs: Any
) -> EvaluatorResult:
    """Whether outputs equal reference_outputs as JSON (key ``exact_match``)."""
    return _exact_result(outputs, reference_outputs, inputs)


async def exact_match_async(
    *, outputs: Any, reference_outputs: Any, inputs: Any = None, **kwargs: Any
) -> EvaluatorResult:
    """The async twin of ``exact_match``."""
    return _exact_result(outputs, reference_outputs, inputs)


def result_passed(result: Mapping[str, Any]) -> bool:
    """Whether a result counts as passing: a true bool score, or a numeric score of 1."""
    score = result.get("score")
    if isinstance(score, bool):
        return score
    if isinstance(score, int | float):
        return bool(score >= 1)
    return False
