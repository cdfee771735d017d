"""``assert_trajectory``: a match or an ``AssertionError`` whose text is the whole diff.

The text is the same everywhere (``--assert=plain``, JUnit XML, a LangSmith comment) because it is
the exception's own message. Inside a pytest test, settings the caller leaves out come from the
test's marker, the command line and the ini file.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from .core.matching import MatchReport
from .core.matching.rules import make_config
from .diff import Markup, render_report, render_text
from .evaluators.result import EvaluatorResult
from .evaluators.scope import announce, current_scope
from .evaluators.trajectory import evaluate_trajectory
from .references import evaluate_reference_file, resolve_reference

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

    def headline(self) -> str:
        """The failure in one sentence (the first line pytest shows)."""
        return self.report.comment() or "Trajectory does not match the reference."

    def render(self, *, width: int = 100, markup: Markup | None = None) -> list[str]:
        """The diff as lines, coloured by ``markup`` when given (the plugin's coloured view)."""
        return render_report(self.report, verbose=self.verbose, width=width, markup=markup)

    def __reduce__(self) -> tuple[Any, ...]:
        # ``args`` holds only the comment, which ``__init__`` cannot be called with: without this,
        # copy.copy() and pickling (process pools, multiprocessing) fail with a TypeError.
        return type(self), (self.report, self.result), {"verbose": self.verbose}


def assert_trajectory(
    outputs: Any,
    reference_outputs: Any = None,
    *,
    mode: str | None = None,
    tool_args: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> EvaluatorResult:
    """Return the evaluation result if ``outputs`` matches ``reference_outputs``, else raise
    ``TrajectoryMismatch`` with a readable diff.

    ``reference_outputs`` is a trajectory, or the name of a reference file (YAML or JSON) in the
    test file's ``trajectories/`` folder, or omitted for the test's own file (the marker's
    ``reference=``, else ``<test name>.yaml``). ``mode``, ``tool_args`` and ``overrides`` default
    to the running test's marker, then the file's header, then the command line and ini, and
    outside pytest to ``strict`` / ``exact`` / none. With ``--trajectory-update`` a file that
    is missing or no longer matches is rewritten from ``outputs`` instead of failing.

    Example::

        assert_trajectory(result["messages"], reference, mode="superset", tool_args="subset")
        assert_trajectory(result["messages"], "weather.yaml")
    """
    __tracebackhide__ = True
    scope = current_scope()
    reference_file = resolve_reference(reference_outputs, scope)
    marker = scope.marker_keys if scope else frozenset()
    header = reference_file.header() if reference_file is not None else {}

    def pick(explicit: Any, key: str, default: Any) -> Any:
        if explicit is not None:
            return explicit
        if key in header and key not in marker:
            return header[key]
        return getattr(scope, key) if scope else default

    config = make_config(
        pick(mode, "mode", "strict"),
        pick(tool_args, "tool_args", "exact"),
        pick(overrides, "overrides", None),
    )
    extra: dict[str, Any] = {}
    started = time.perf_counter()
    if reference_file is not None:
        result, report = evaluate_reference_file(outputs, reference_file, config, scope, extra)
        reference_outputs = reference_file.messages
    else:
        result, report = evaluate_trajectory(outputs, reference_outputs, config)
    announce(
        result,
        report=report,
        outputs=outputs,
        reference_outputs=reference_outputs,
        started=started,
        origin="assert_trajectory",
        extra=extra,
    )
    if not report.matched:
        raise TrajectoryMismatch(report, result, verbose=scope.verbose if scope else 0)
    return result
