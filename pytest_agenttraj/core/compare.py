"""One comparison of two trajectory inputs, whatever their form: the fast path where it proves a
match, else normalisation and the general matcher."""

from __future__ import annotations

import gc
from typing import Any

from ..errors import TrajectoryFormatError
from . import fastpath
from .matching import match_trajectories
from .matching.report import MatchReport
from .matching.rules import MatchConfig
from .normalize import Memo, to_trajectory
from .values import nesting_place

__all__ = ["MAX_NESTING", "collector_paused", "compare_trajectories", "nesting_problem"]

MAX_NESTING = 100
"""Arguments nested deeper than this are not compared: Python's recursion limit is near."""


class collector_paused:
    """Pause the cyclic garbage collector for the block.

    Matching builds many small acyclic objects that reference counting frees; pausing the cyclic
    collector meanwhile saves it from scanning them again and again on long inputs. Callers keep
    it paused until the report is dropped: re-enabling it while the report is alive makes the
    next allocation scan all of it once more. (A class, not a generator: it is entered on every
    evaluation, and this costs a fraction.)
    """

    __slots__ = ("_paused",)

    def __enter__(self) -> None:
        self._paused = gc.isenabled()
        if self._paused:
            gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        if self._paused:
            gc.enable()


def compare_trajectories(outputs: Any, reference_outputs: Any, config: MatchConfig) -> MatchReport:
    """Compare ``outputs`` with ``reference_outputs`` (any accepted input forms) under ``config``.

    Raises ``TrajectoryFormatError`` naming the side, message and field of input that is not a
    trajectory.
    """
    __tracebackhide__ = True
    with collector_paused():
        try:
            walked = fastpath.decide(outputs, reference_outputs, config)
            if walked.report is not None:
                return walked.report
            lean = fastpath.failing_calls(outputs, reference_outputs, walked, config)
            if lean is not None:
                return lean
            memo: Memo = {}  # both sides share parsed arguments
            output = fastpath.build(outputs, walked.output, "outputs", memo)
            reference = fastpath.build(
                reference_outputs, walked.reference, "reference_outputs", memo
            )
            return match_trajectories(output, reference, config)
        except RecursionError:
            _refuse_nesting(outputs, reference_outputs)
            raise


def _refuse_nesting(outputs: Any, reference_outputs: Any) -> None:
    """After a ``RecursionError``: the call whose arguments nest too deep or refer to themselves,
    as a ``TrajectoryFormatError`` naming it (nothing when no call is to blame)."""
    __tracebackhide__ = True
    for side, value in (("outputs", outputs), ("reference_outputs", reference_outputs)):
        trajectory = to_trajectory(value, side=side)
        for m_index, position, call in trajectory.tool_calls():
            problem = nesting_problem(call.args)
            if problem is not None:
                raise TrajectoryFormatError(  # the RecursionError's frames would bury this
                    f"arguments of tool {call.name!r} {problem}",
                    index=m_index,
                    field=f"tool_calls[{position}].args",
                    side=side,
                ) from None


def nesting_problem(value: Any, limit: int = MAX_NESTING) -> str | None:
    """Why ``value`` (a call's arguments) cannot be compared (it refers to itself, or nests past
    ``limit``), found without recursion; ``None`` when it can."""
    place = nesting_place(value, limit)
    if place is None:
        return None
    if place[1] == "cycle":
        return "refer to themselves (a cycle): they cannot be compared"
    return f"nest more than {limit} levels deep: they cannot be compared"
