"""``assert_trajectory`` and ``assert_tool_usage``: a match or an ``AssertionError`` whose text
is the whole explanation.

The text is the same everywhere (``--assert=plain``, JUnit XML, a LangSmith comment) because it is
the exception's own message. Inside a pytest test, settings the caller leaves out come from the
test's marker, the command line and the ini file.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .core.graph import GraphMatchReport, check_graph_mode
from .core.matching.report import MatchReport
from .core.matching.rules import MatchConfig, make_config
from .core.usage import UsageReport, make_usage_rules
from .diff import Markup, render_report, render_text
from .evaluators.graph import evaluate_and_announce
from .evaluators.result import EvaluatorResult
from .evaluators.scope import TestScope, announce, announce_error, current_scope
from .evaluators.trajectory import evaluate_trajectory
from .evaluators.usage import announce_usage, evaluate_usage
from .references import (
    evaluate_graph_reference_file,
    evaluate_reference_file,
    names_a_file,
    resolve_reference,
)

__all__ = [
    "GraphTrajectoryMismatch",
    "ToolUsageViolation",
    "TrajectoryMismatch",
    "assert_graph_trajectory",
    "assert_tool_usage",
    "assert_trajectory",
    "refuse_keywords",
]

_KEYWORDS = ("mode", "tool_args", "overrides", "ignore_keys", "allow_empty")
_OPENEVALS_NAMES = {
    "trajectory_match_mode": "mode",
    "tool_args_match_mode": "tool_args",
    "tool_args_match_overrides": "overrides",
    "reference": "reference_outputs",
    "reference_trajectory": "reference_outputs",
    "outputs_trajectory": "outputs",
}


def refuse_keywords(function: str, unknown: Mapping[str, Any]) -> None:
    """A ``TypeError`` for keywords ``function`` does not take, naming the one that was meant
    (openevals' factory names, or the closest spelling)."""
    if not unknown:
        return
    import difflib

    hints = []
    for name in unknown:
        meant = _OPENEVALS_NAMES.get(name) or next(
            iter(difflib.get_close_matches(name, _KEYWORDS, n=1, cutoff=0.6)), None
        )
        hints.append(f"{name!r} (did you mean {meant!r}?)" if meant else repr(name))
    raise TypeError(
        f"{function}() got unexpected keyword argument(s) {', '.join(hints)}; "
        f"it takes outputs, reference_outputs, {', '.join(_KEYWORDS)}"
    )


class TrajectoryMismatch(AssertionError):
    """A trajectory did not match its reference; ``report`` holds what matched and what did not."""

    report: MatchReport | GraphMatchReport

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
    ignore_keys: Sequence[str] | None = None,
    allow_empty: bool | None = None,
    **unknown: Any,
) -> EvaluatorResult:
    """Return the evaluation result if ``outputs`` matches ``reference_outputs``, else raise
    ``TrajectoryMismatch`` with a readable diff.

    ``reference_outputs`` is a trajectory, or the name of a reference file (YAML or JSON) in the
    test file's ``trajectories/`` folder, or omitted for the test's own file (the marker's
    ``reference=``, else ``<test name>.yaml``). ``mode``, ``tool_args`` and ``overrides`` default
    to the running test's marker, then the file's header, then the command line and ini, and
    outside pytest to ``strict`` / ``exact`` / none; ``ignore_keys`` (dotted key paths left out
    of every tool's args) and ``allow_empty`` to the marker, command line and ini. An empty
    reference (without messages, or without tool calls where the mode compares only calls) and
    an output without messages fail unless ``allow_empty=True``. With ``--trajectory-update`` a
    file that is missing or no longer matches is rewritten from ``outputs`` instead of failing.

    Example::

        assert_trajectory(result["messages"], reference, mode="superset", tool_args="subset")
        assert_trajectory(result["messages"], "weather.yaml")
    """
    __tracebackhide__ = True
    refuse_keywords("assert_trajectory", unknown)
    scope = current_scope()
    started = time.perf_counter()
    config: MatchConfig | None = None
    extra: dict[str, Any] = {}
    try:
        reference_file = resolve_reference(reference_outputs, scope)
        header = reference_file.header() if reference_file is not None else {}
        config = _config(scope, header, mode, tool_args, overrides, ignore_keys, allow_empty)
        if reference_file is not None:
            result, report = evaluate_reference_file(outputs, reference_file, config, scope, extra)
            reference_outputs = reference_file.messages
        else:
            result, report = evaluate_trajectory(outputs, reference_outputs, config)
    except Exception as error:
        announce_error(
            error,
            config.key if config is not None else "trajectory_match",
            outputs=outputs,
            reference_outputs=reference_outputs,
            started=started,
            origin="assert_trajectory",
            extra=extra,
        )
        raise
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


class GraphTrajectoryMismatch(TrajectoryMismatch):
    """A graph trajectory did not take its reference's path; ``report`` says where not."""

    report: GraphMatchReport

    def __init__(
        self, report: GraphMatchReport, result: EvaluatorResult, *, verbose: int = 0
    ) -> None:
        self.report = report
        self.result = result
        self.verbose = verbose
        AssertionError.__init__(self, report.comment())


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


def _config(
    scope: TestScope | None,
    header: Mapping[str, Any],
    mode: str | None,
    tool_args: str | None,
    overrides: Mapping[str, Any] | None,
    ignore_keys: Sequence[str] | None,
    allow_empty: bool | None,
) -> MatchConfig:
    """The call's arguments, else the marker, else the reference file's header, else the
    session's settings (command line, ini), else the defaults."""
    marker = scope.marker_keys if scope else frozenset()

    def pick(explicit: Any, key: str, default: Any) -> Any:
        if explicit is not None:
            return explicit
        if key in header and key not in marker:
            return header[key]
        chosen = getattr(scope, key) if scope else None
        return default if chosen is None else chosen

    return make_config(
        pick(mode, "mode", "strict"),
        pick(tool_args, "tool_args", "exact"),
        pick(overrides, "overrides", None),
        ignore_keys=pick(ignore_keys, "ignore_keys", ()),
        allow_empty=pick(allow_empty, "allow_empty", False),
    )


class ToolUsageViolation(AssertionError):
    """A trajectory broke tool-usage rules; ``report`` names each rule and offending call."""

    def __init__(self, report: UsageReport, result: EvaluatorResult) -> None:
        self.report = report
        self.result = result
        super().__init__(report.comment())

    def __str__(self) -> str:
        return "\n".join(self.report.lines())

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.report, self.result)


def assert_tool_usage(
    outputs: Any,
    *,
    required: Iterable[str] = (),
    forbidden: Iterable[str] = (),
    max_calls: Mapping[str, int] | None = None,
    max_total_calls: int | None = None,
    max_steps: int | None = None,
) -> EvaluatorResult:
    """Return the ``tool_usage`` result if ``outputs`` follows the rules, else raise
    ``ToolUsageViolation`` naming each broken rule and the offending calls with their message
    index. ``required`` tools must be called, ``forbidden`` ones must not, ``max_calls`` caps
    calls per tool (``{"search": 3}``), ``max_total_calls`` all calls, ``max_steps`` assistant
    turns.

    Example::

        assert_tool_usage(result["messages"], required=["search"], max_calls={"search": 3})
    """
    __tracebackhide__ = True
    rules = make_usage_rules(
        required=required,
        forbidden=forbidden,
        max_calls=max_calls,
        max_total_calls=max_total_calls,
        max_steps=max_steps,
    )
    started = time.perf_counter()
    try:
        result, report = evaluate_usage(outputs, rules)
    except Exception as error:
        announce_error(
            error,
            "tool_usage",
            outputs=outputs,
            reference_outputs=None,
            started=started,
            origin="assert_tool_usage",
        )
        raise
    announce_usage(result, report, outputs=outputs, started=started, origin="assert_tool_usage")
    if not report.passed:
        raise ToolUsageViolation(report, result)
    return result
