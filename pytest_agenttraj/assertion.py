"""``assert_trajectory``: a match or an ``AssertionError`` whose text is the whole diff.

The text is the same everywhere (``--assert=plain``, JUnit XML, a LangSmith comment) because it is
the exception's own message. Inside a pytest test, settings the caller leaves out come from the
test's marker, the command line and the ini file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._observe import Evaluation, TestScope, current_scope, notify
from .config import MatchConfig, make_config
from .evaluators import EvaluatorResult, evaluate_trajectory
from .matching import MatchReport
from .normalize import to_trajectory
from .references import ReferenceFile, ReferenceFileError, load_reference, write_reference
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
    reference_file = _reference_file(reference_outputs, scope)
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
    update = bool(scope and scope.references and scope.references.update)
    extra: dict[str, Any] = {}
    if reference_file is not None:
        resolver = scope.references if scope else None
        extra["reference_file"] = (
            resolver.name_of(reference_file.path) if resolver else str(reference_file.path)
        )
        if not reference_file.exists and not update:
            raise ReferenceFileError(
                f"reference file {reference_file.path} does not exist; run pytest with "
                "--trajectory-update to write it from the agent's current trajectory"
            )
        reference_outputs = reference_file.messages
    started = time.perf_counter()
    if reference_file is not None and update and not reference_file.exists:
        result, report = _rewrite(outputs, reference_file, config, extra)
    else:
        result, report = evaluate_trajectory(outputs, reference_outputs, config)
        if not report.matched and reference_file is not None and update:
            result, report = _rewrite(outputs, reference_file, config, extra)
    notify(
        Evaluation(
            result=result,
            report=report,
            outputs=outputs,
            reference_outputs=reference_outputs,
            duration_s=time.perf_counter() - started,
            origin="assert_trajectory",
            extra=extra,
        )
    )
    if not report.matched:
        raise TrajectoryMismatch(report, result, verbose=scope.verbose if scope else 0)
    return result


def _reference_file(reference: Any, scope: TestScope | None) -> ReferenceFile | None:
    """The reference file meant by ``reference`` (a name, a path, a loaded file, or ``None``)."""
    if isinstance(reference, ReferenceFile):
        return reference
    if reference is None or isinstance(reference, str | os.PathLike):
        if scope is not None and scope.references is not None:
            return scope.references.resolve(None if reference is None else os.fspath(reference))
        if reference is None:
            raise ValueError("assert_trajectory needs reference_outputs outside a pytest test")
        path = Path(reference)
        return load_reference(path) if path.exists() else ReferenceFile(path, exists=False)
    return None


def _rewrite(
    outputs: Any, reference: ReferenceFile, config: MatchConfig, extra: dict[str, Any]
) -> tuple[EvaluatorResult, MatchReport]:
    """Write ``outputs`` as the reference, then evaluate against what was written, so that a
    file that does not read back to a match is a failure, not a silent pass."""
    write_reference(reference, to_trajectory(outputs, side="outputs"))
    extra["reference_written"] = True
    written = load_reference(reference.path)
    return evaluate_trajectory(outputs, written.messages, config)
