"""``assert_graph_trajectory``: a LangGraph run took its reference's path, or a
``GraphTrajectoryMismatch`` whose text says where it parted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.graph import GraphMatchReport, check_graph_mode
from ..evaluators.graph import evaluate_and_announce
from ..evaluators.result import EvaluatorResult
from ..evaluators.scope import current_scope
from ..references import evaluate_graph_reference_file, names_a_file
from .trajectory import TrajectoryMismatch

__all__ = ["GraphTrajectoryMismatch", "assert_graph_trajectory"]


class GraphTrajectoryMismatch(TrajectoryMismatch):
    """A graph trajectory did not take its reference's path; ``report`` says where not. It is a
    ``TrajectoryMismatch`` (the trajectory of a graph), so ``except TrajectoryMismatch`` takes
    both."""

    __module__ = "pytest_agenttraj"


def _graph_mode(explicit: str | None, reference: Any) -> str:
    """The mode: ``explicit``, else the test's marker, else the reference document's ``mode``,
    else the command line / ini, else strict (outside pytest: the reference's, else strict).
    A reference file's own ``mode`` is applied later, once the file is read."""
    if explicit is not None:
        return check_graph_mode(explicit, where="mode")
    scope = current_scope()
    document = reference.get("mode") if isinstance(reference, Mapping) else None
    if scope is not None and "mode" in scope.marker_keys:
        return check_graph_mode(scope.mode, where="mode")
    if document is not None:
        return check_graph_mode(document, where="mode")
    return check_graph_mode(scope.mode if scope else "strict", where="mode")


def assert_graph_trajectory(
    outputs: Any, reference: Any = None, *, mode: str | None = None
) -> EvaluatorResult:
    """Return the evaluation result if the graph trajectory ``outputs`` took ``reference``'s path,
    else raise ``GraphTrajectoryMismatch`` (an ``AssertionError``) whose text is the diff.

    ``reference`` is a ``GraphTrajectory``, a graph reference document (``{"steps": [...],
    "mode": ...}``), the name of a graph reference file (YAML or JSON with ``steps``) in the test
    file's ``trajectories/`` folder, or omitted for the test's own file (the marker's
    ``reference=``, else ``<test name>.yaml``). The mode defaults to the running test's marker,
    then the reference's own ``mode``, then ``--trajectory-mode`` / the ini, then ``strict``.
    With ``--trajectory-update`` a file that is missing or no longer matches is rewritten from
    ``outputs`` instead of failing.

    Example::

        state, trajectory = record_graph_trajectory(graph, {"shortcut": False})
        assert_graph_trajectory(
            trajectory, {"steps": [["__start__", "node1", "node3", ["node4", "node5"], "node6"]]}
        )
        assert_graph_trajectory(trajectory, "long_path.yaml")
    """
    __tracebackhide__ = True
    chosen = _graph_mode(mode, reference)
    scope = current_scope()
    locked = scope.marker_keys if scope else frozenset()
    if mode is not None:
        locked |= {"mode"}

    def files(
        outputs: Any, reference_outputs: Any, mode: str, extra: dict[str, Any]
    ) -> tuple[EvaluatorResult, GraphMatchReport, Any] | None:
        __tracebackhide__ = True
        if reference_outputs is not None and not names_a_file(reference_outputs):
            return None
        return evaluate_graph_reference_file(
            outputs,
            reference_outputs,
            mode,
            extra,
            locked=locked,
            function="assert_graph_trajectory",
        )

    result, report = evaluate_and_announce(
        outputs, reference, chosen, "assert_graph_trajectory", files
    )
    if not report.matched:
        raise GraphTrajectoryMismatch(report, result, verbose=scope.verbose if scope else 0)
    return result
