"""Graph trajectory evaluators: whether a LangGraph run took the reference's path, per invocation,
in one of five modes (agentevals' keys: ``graph_trajectory_<mode>_match``).

``create_graph_trajectory_match_evaluator(mode=...)`` builds one (the mode is checked then), and
``graph_trajectory_strict_match`` is the strict one ready-made, as in agentevals. The async faces
are real coroutine functions around the same synchronous core.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from ..core.graph import (
    GraphMatchMode,
    GraphMatchReport,
    check_graph_mode,
    graph_key,
    match_graph_trajectories,
)
from ..errors import GraphTrajectoryFormatError
from .faces import AsyncEvaluator, Evaluator, async_face, sync_face
from .result import EvaluatorResult
from .scope import announce, announce_error

__all__ = [
    "GraphReferenceHandler",
    "create_async_graph_trajectory_match_evaluator",
    "create_graph_trajectory_match_evaluator",
    "evaluate_and_announce",
    "evaluate_graph_trajectory",
    "graph_faces",
    "graph_trajectory_strict_match",
    "graph_trajectory_strict_match_async",
]

GraphReferenceHandler = Callable[
    [Any, Any, str, dict[str, Any]], "tuple[EvaluatorResult, GraphMatchReport, Any] | None"
]
"""``handler(outputs, reference_outputs, mode, extra)``: when ``reference_outputs`` names a graph
reference file, the evaluation against it, its report and the reference document compared (and
notes for the record in ``extra``); ``None`` when it is a graph trajectory or document."""


def evaluate_graph_trajectory(
    outputs: Any, reference_outputs: Any, mode: str
) -> tuple[EvaluatorResult, GraphMatchReport]:
    """Compare both sides in ``mode`` and build the result dict (no reporting)."""
    key = graph_key(mode)
    if outputs is None or reference_outputs is None:
        side = "outputs" if outputs is None else "reference_outputs"
        raise GraphTrajectoryFormatError(
            f"{key} requires outputs and reference_outputs ({side} is None)", side=side
        )
    report = match_graph_trajectories(outputs, reference_outputs, mode=mode)
    result: EvaluatorResult = {
        "key": key,
        "score": report.matched,
        "comment": report.comment(),
        "metadata": None,
    }
    return result, report


def evaluate_and_announce(
    outputs: Any,
    reference_outputs: Any,
    mode: str,
    origin: str,
    references: GraphReferenceHandler | None = None,
) -> tuple[EvaluatorResult, GraphMatchReport]:
    """Evaluate and tell the running test; an evaluation that raises is recorded as a failed one
    carrying its error before the error propagates. ``references`` reads reference files."""
    __tracebackhide__ = True
    started = time.perf_counter()
    extra: dict[str, Any] = {}
    try:
        handled = references(outputs, reference_outputs, mode, extra) if references else None
        if handled is not None:
            result, report, reference_outputs = handled
        else:
            result, report = evaluate_graph_trajectory(outputs, reference_outputs, mode)
    except Exception as error:
        announce_error(
            error,
            graph_key(mode),
            outputs=outputs,
            reference_outputs=reference_outputs,
            started=started,
            origin=origin,
            extra={**extra, "mode": mode},
        )
        raise
    announce(
        result,
        report=report,
        outputs=outputs,
        reference_outputs=reference_outputs,
        started=started,
        origin=origin,
        extra=extra,
    )
    return result, report


def _mode(mode: str, trajectory_match_mode: str | None) -> str:
    if trajectory_match_mode is not None:
        if mode != "strict" and mode != trajectory_match_mode:
            raise ValueError(
                f"mode={mode!r} and trajectory_match_mode={trajectory_match_mode!r} disagree: "
                "give one of them"
            )
        mode = trajectory_match_mode
    return check_graph_mode(mode)


def graph_faces(
    mode: str, *, origin: str | None = None, references: GraphReferenceHandler | None = None
) -> tuple[Evaluator, AsyncEvaluator]:
    """Both faces of a graph evaluator for ``mode`` (already checked) reporting as ``origin``;
    the plugin's also take reference files, through ``references``."""
    key = graph_key(mode)

    def score(
        outputs: Any, reference_outputs: Any, _inputs: Any, _extra: Mapping[str, Any]
    ) -> EvaluatorResult:
        __tracebackhide__ = True
        return evaluate_and_announce(outputs, reference_outputs, mode, origin or key, references)[0]

    return sync_face(score, name=key, mode=mode), async_face(score, name=key, mode=mode)


def create_graph_trajectory_match_evaluator(
    *, mode: GraphMatchMode = "strict", trajectory_match_mode: GraphMatchMode | None = None
) -> Evaluator:
    """An evaluator comparing a graph trajectory's path with a reference's, per invocation.

    On the 7-node workflow (``node1`` -> ``node3`` -> ``node4`` and ``node5`` in one superstep ->
    ``node6`` -> ``node7``; reference ``["node1", "node3", ["node4", "node5"], "node6",
    "node7"]``): ``strict`` needs those supersteps in that order (node4 and node5 either way
    round); ``unordered`` the same nodes in any order; ``superset`` (and ``in_order``) the
    reference's nodes in its order with others allowed between (``node8`` after ``node6`` is
    fine); ``subset`` only the reference's nodes, in its order (``node1, node2`` fails). Every
    mode needs the same number of invocations. An unknown mode raises ``ValueError`` now.
    ``trajectory_match_mode`` is agentevals' name for ``mode``.

    Example::

        evaluator = create_graph_trajectory_match_evaluator(mode="superset")
        result = evaluator(outputs=trajectory, reference_outputs={"steps": [["node1", "node7"]]})
        assert result["score"], result["comment"]
    """
    return graph_faces(_mode(mode, trajectory_match_mode))[0]


def create_async_graph_trajectory_match_evaluator(
    *, mode: GraphMatchMode = "strict", trajectory_match_mode: GraphMatchMode | None = None
) -> AsyncEvaluator:
    """The async twin of ``create_graph_trajectory_match_evaluator``: an ``async def`` function
    (same checks, same answers)."""
    return graph_faces(_mode(mode, trajectory_match_mode))[1]


def graph_trajectory_strict_match(
    *, outputs: Any, reference_outputs: Any, **kwargs: Any
) -> EvaluatorResult:
    """Whether each invocation ran the reference's nodes in order (supersteps in any order)."""
    __tracebackhide__ = True
    return evaluate_and_announce(outputs, reference_outputs, "strict", graph_key("strict"))[0]


async def graph_trajectory_strict_match_async(
    *, outputs: Any, reference_outputs: Any, **kwargs: Any
) -> EvaluatorResult:
    """The async twin of ``graph_trajectory_strict_match``."""
    __tracebackhide__ = True
    return evaluate_and_announce(outputs, reference_outputs, "strict", graph_key("strict"))[0]
