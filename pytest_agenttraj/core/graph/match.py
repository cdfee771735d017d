"""Compare two graph trajectories in one mode, invocation by invocation.

Every mode compares invocation ``k`` of the output with invocation ``k`` of the reference and
needs the same number of invocations. Within an invocation (a list is a superstep whose nodes
ran in no particular order, on either side):

- ``strict``: the same nodes in the same order, superstep order ignored inside a list;
- ``unordered``: the same nodes the same number of times, in any order;
- ``superset`` (and ``in_order``, the same check): the reference's nodes all ran, in the
  reference's order; other nodes may run before, between and after them;
- ``subset``: the output ran only the reference's nodes, in the reference's order (some may be
  left out).

Each check is linear in the number of nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..compare import collector_paused
from .modes import check_graph_mode
from .order import order_differences, unordered_differences
from .path import GraphPath, read_graph_steps
from .report import GraphDifference, GraphMatchReport
from .strict import strict_differences

__all__ = ["compare_graph_paths", "graph_steps_match", "match_graph_trajectories"]

_Check = Callable[[int, GraphPath, GraphPath], "tuple[list[GraphDifference], str | None]"]


def _superset(invocation: int, output: GraphPath, reference: GraphPath) -> Any:
    return order_differences(invocation, output, reference, superset=True)


def _subset(invocation: int, output: GraphPath, reference: GraphPath) -> Any:
    return order_differences(invocation, output, reference, superset=False)


_CHECKS: dict[str, _Check] = {
    "strict": strict_differences,
    "unordered": unordered_differences,
    "superset": _superset,
    "in_order": _superset,
    "subset": _subset,
}


def compare_graph_paths(
    output: tuple[GraphPath, ...], reference: tuple[GraphPath, ...], mode: str
) -> GraphMatchReport:
    """Compare paths already read (``read_graph_steps``) in ``mode``."""
    check = _CHECKS[check_graph_mode(mode)]
    if len(output) != len(reference):
        count = len(reference)
        what = f"expected {count} invocation{'' if count == 1 else 's'}, got {len(output)}"
        difference = GraphDifference("invocations", what)
        return GraphMatchReport(mode, False, output, reference, (difference,), what)
    differences: list[GraphDifference] = []
    summary = None
    for invocation, (out, ref) in enumerate(zip(output, reference, strict=True)):
        found, sentence = check(invocation, out, ref)
        differences += found
        summary = summary or sentence
    return GraphMatchReport(mode, summary is None, output, reference, tuple(differences), summary)


def match_graph_trajectories(
    outputs: Any, reference_outputs: Any, *, mode: str = "strict"
) -> GraphMatchReport:
    """Compare two ``GraphTrajectory`` dicts in ``mode``; bad input raises
    ``GraphTrajectoryFormatError`` (a ``TrajectoryFormatError``) naming side, invocation and step.

    Example::

        >>> report = match_graph_trajectories(
        ...     {"steps": [["node1", "node3", ["node5", "node4"], "node6"]]},
        ...     {"steps": [["node1", "node3", ["node4", "node5"], "node6"]]},
        ... )
        >>> report.matched
        True
    """
    check_graph_mode(mode)
    with collector_paused():  # everything built here is acyclic: reference counting frees it
        return compare_graph_paths(
            read_graph_steps(outputs, "outputs"),
            read_graph_steps(reference_outputs, "reference_outputs"),
            mode,
        )


def graph_steps_match(output_steps: list[Any], reference_steps: list[Any]) -> str | None:
    """``None`` when the steps match strictly, else a sentence naming the first difference."""
    return compare_graph_paths(
        read_graph_steps({"steps": output_steps}, "outputs"),
        read_graph_steps({"steps": reference_steps}, "reference_outputs"),
        "strict",
    ).summary
