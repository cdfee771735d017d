"""Evaluating against a reference file: resolving its name, applying its header, and, under
``--trajectory-update``, settling it once per run (written from the agent's trajectory, or kept)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from ..core.matching import MatchReport
from ..core.matching.rules import MatchConfig, make_config
from ..core.normalize import to_trajectory
from ..diff import render_text
from ..errors import ReferenceFileError
from ..evaluators.result import EvaluatorResult
from ..evaluators.scope import TestScope, current_scope
from ..evaluators.trajectory import evaluate_trajectory
from .file import ReferenceFile
from .reading import load_reference
from .writing import plain_messages, write_reference

__all__ = [
    "ReferenceConflict",
    "evaluate_reference_file",
    "handle_file_reference",
    "resolve_reference",
    "with_header",
]


class ReferenceConflict(AssertionError):
    """Under ``--trajectory-update``, a trajectory that disagrees with the file another test (or
    another attempt of this test) settled earlier in the run."""

    def __init__(self, report: MatchReport, *, name: str, writer: str, written: bool) -> None:
        self.report = report
        how = "written" if written else "kept as it was"
        self.head = (
            f"reference file {name} was settled earlier in this run by {writer} ({how}), and "
            "this trajectory does not match it. Tests that share a reference file, and the "
            "attempts of a repeated test, must agree; the differences (- the settled file, "
            "+ this trajectory):"
        )
        super().__init__(self.head)

    def __str__(self) -> str:
        return f"{self.head}\n{render_text(self.report)}"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt_conflict, (self.head, self.report))


def _rebuilt_conflict(head: str, report: MatchReport) -> ReferenceConflict:
    conflict = ReferenceConflict.__new__(ReferenceConflict)
    conflict.report, conflict.head = report, head
    AssertionError.__init__(conflict, head)
    return conflict


def with_header(
    config: MatchConfig, header: Mapping[str, Any], locked: frozenset[str]
) -> MatchConfig:
    """``config`` with the settings of a reference file's header, except those in ``locked``
    (set by the test's marker or by the call): marker > call > header > command line > ini."""
    chosen = {k: v for k, v in header.items() if k not in locked}
    if not chosen:
        return config
    overrides: Any = chosen.get("overrides")
    if "overrides" not in chosen and config.overrides is not None:
        overrides = {tool: rule.as_override() for tool, rule in config.overrides.items()}
    return make_config(
        chosen.get("mode", config.mode),
        chosen.get("tool_args", config.tool_args),
        overrides,
        ignore_keys=config.ignore_keys,
        allow_empty=config.allow_empty,
    )


def resolve_reference(reference: Any, scope: TestScope | None) -> ReferenceFile | None:
    """The reference file meant by ``reference`` (a name, a path, a loaded file, or ``None``)."""
    __tracebackhide__ = True
    if isinstance(reference, ReferenceFile):
        return reference
    if reference is None or isinstance(reference, str | os.PathLike):
        if scope is not None and scope.references is not None:
            name = None if reference is None else os.fspath(reference)
            return cast("ReferenceFile", scope.references.resolve(name))
        if reference is None:
            raise ValueError("assert_trajectory needs reference_outputs outside a pytest test")
        path = Path(reference)
        if path.exists():
            return load_reference(path)
        raise ReferenceFileError(
            f"reference file {path} does not exist. Outside a pytest run with this plugin "
            "(it may be disabled with -p no:agenttraj), a reference file is a path to an "
            "existing file; inside one, a name in the test's trajectories/ folder, which "
            "pytest --trajectory-update writes"
        )
    return None


def evaluate_reference_file(
    outputs: Any,
    reference: ReferenceFile,
    config: MatchConfig,
    scope: TestScope | None,
    extra: dict[str, Any],
) -> tuple[EvaluatorResult, MatchReport]:
    """Evaluate against a reference file. Under ``--trajectory-update`` a file that is missing or
    does not match is rewritten from ``outputs`` (once per run: see ``ledger``) and the
    evaluation is made against what was written, so a file that does not read back to a match
    is a failure, not a silent pass. ``extra`` receives the file's name (and whether it was
    written) for the record."""
    __tracebackhide__ = True
    resolver = scope.references if scope else None
    name = resolver.name_of(reference.path) if resolver else str(reference.path)
    extra["reference_file"] = name
    if resolver is None or not resolver.update:
        if not reference.exists:
            raise ReferenceFileError(
                f"reference file {reference.path} does not exist; run pytest with "
                "--trajectory-update to write it from the agent's current trajectory"
            )
        return evaluate_trajectory(outputs, reference.messages, config)
    matched: tuple[EvaluatorResult, MatchReport] | None = None
    if reference.exists:
        result, report = evaluate_trajectory(outputs, reference.messages, config)
        matched = (result, report) if report.matched else None
    trajectory = to_trajectory(outputs, side="outputs")
    settled = reference.messages if matched else plain_messages(trajectory)
    claim = resolver.claim(reference.path, written=matched is None, messages=settled)
    if not claim.first:
        result, report = evaluate_trajectory(outputs, claim.messages, config)
        if not report.matched:
            raise ReferenceConflict(report, name=name, writer=claim.writer, written=claim.written)
        return result, report
    if matched is not None:
        return matched
    write_reference(reference, trajectory)
    extra["reference_written"] = True
    return evaluate_trajectory(outputs, load_reference(reference.path).messages, config)


def handle_file_reference(
    outputs: Any, reference_outputs: Any, config: MatchConfig, extra: dict[str, Any]
) -> tuple[EvaluatorResult, MatchReport, Any] | None:
    """The reference handler of the plugin's evaluators: ``reference_outputs`` given as a file
    name (or path, or a loaded ``ReferenceFile``) is read from the test's ``trajectories/``
    folder, and its header applies unless the test's marker set that setting; anything else
    is left to the evaluator (``None``)."""
    __tracebackhide__ = True
    if not isinstance(reference_outputs, str | os.PathLike | ReferenceFile):
        return None
    scope = current_scope()
    reference = resolve_reference(reference_outputs, scope)
    assert reference is not None
    locked = scope.marker_keys if scope else frozenset()
    config = with_header(config, reference.header(), locked)
    result, report = evaluate_reference_file(outputs, reference, config, scope, extra)
    return result, report, reference.messages
