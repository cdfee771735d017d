"""``assert_trajectory``: a match or an ``AssertionError`` whose text is the whole diff.

The text is the same everywhere (``--assert=plain``, JUnit XML, a LangSmith comment) because it is
the exception's own message. Inside a pytest test, settings the caller leaves out come from the
test's marker, the command line and the ini file.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ._observe import Evaluation, current_scope, notify
from .config import make_config
from .evaluators import EvaluatorResult, evaluate_trajectory
from .matching import MatchReport
from .render import render_text

__all__ = ["TrajectoryMismatch", "assert_trajectory"]


class TrajectoryMismatch(AssertionError):
    """A trajectory did not match its reference; ``report`` holds what matched and what did not."""

    def __init__(self, report: MatchReport, result: EvaluatorResult, *, verbose: int = 0) -> None:
        self.report = report
        self.result = result
        self.verbose = verbose
        super().__init__(report.comment())

    def __str__(self) -> str:
        return render_text(self.report, verbose=self.verbose)

    def __reduce__(self) -> tuple[Any, ...]:
        # ``args`` holds only the comment, which ``__init__`` cannot be called with: without this,
        # copy.copy() and pickling (process pools, multiprocessing) fail with a TypeError.
        return type(self), (self.report, self.result), {"verbose": self.verbose}


def assert_trajectory(
    outputs: Any,
    reference_outputs: Any,
    *,
    mode: str | None = None,
    tool_args: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> EvaluatorResult:
    """Return the evaluation result if ``outputs`` matches ``reference_outputs``, else raise
    ``TrajectoryMismatch`` with a readable diff.

    ``mode``, ``tool_args`` and ``overrides`` default to the running test's settings (marker,
    command line, ini) and outside pytest to ``strict`` / ``exact`` / none.

    Example::

        assert_trajectory(result["messages"], reference, mode="superset", tool_args="subset")
    """
    __tracebackhide__ = True
    scope = current_scope()
    config = make_config(
        mode if mode is not None else scope.mode if scope else "strict",
        tool_args if tool_args is not None else scope.tool_args if scope else "exact",
        overrides if overrides is not None else scope.overrides if scope else None,
    )
    started = time.perf_counter()
    result, report = evaluate_trajectory(outputs, reference_outputs, config)
    notify(
        Evaluation(
            result=result,
            report=report,
            outputs=outputs,
            reference_outputs=reference_outputs,
            duration_s=time.perf_counter() - started,
            origin="assert_trajectory",
        )
    )
    if not report.matched:
        raise TrajectoryMismatch(report, result, verbose=scope.verbose if scope else 0)
    return result
