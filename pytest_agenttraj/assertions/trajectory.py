"""``assert_trajectory``: a match, or a ``TrajectoryMismatch`` whose text is the whole diff.

Inside a pytest test, settings the caller leaves out come from the test's marker, the reference
file's header, the command line and the ini file.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.matching.rules import MatchConfig, make_config
from ..evaluators.result import EvaluatorResult
from ..evaluators.scope import TestScope, announce, announce_error, current_scope
from ..evaluators.trajectory import evaluate_trajectory
from ..references import evaluate_reference_file, resolve_reference
from .base import AgentTrajAssertionError

__all__ = ["TrajectoryMismatch", "assert_trajectory", "refuse_keywords"]

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


class TrajectoryMismatch(AgentTrajAssertionError):
    """A trajectory did not match its reference; ``report`` holds what matched and what did not."""

    __module__ = "pytest_agenttraj"


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
