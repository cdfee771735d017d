"""Evaluating against a reference file: resolving its name, applying its header, and, under
``--trajectory-update``, settling it once per run (written from the agent's trajectory, or kept).

Message files and graph files go through the same steps (:func:`_settle`); what differs (how to
compare, what to write, how the run's ledger keeps it) is a :class:`_Kind`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, cast

from .._files import folder_problem
from ..core.graph import GraphMatchReport, graph_reference_document
from ..core.matching.conversation import ConversationReport
from ..core.matching.report import MatchReport
from ..core.matching.rules import MatchConfig, make_config
from ..core.normalize import to_trajectory
from ..core.spelled import messages_from_spelled, messages_to_spelled
from ..errors import ReferenceFileError
from ..evaluators.conversation import conversation_of, evaluate_conversation
from ..evaluators.graph import evaluate_graph_trajectory
from ..evaluators.result import EvaluatorResult
from ..evaluators.scope import ReferenceResolver, TestScope, current_scope
from ..evaluators.trajectory import evaluate_trajectory
from ..render import render_text
from .file import ReferenceFile
from .reading import load_reference
from .writing import (
    conversation_turns,
    updated_messages,
    write_conversation,
    write_graph_reference,
    write_messages,
)

__all__ = [
    "ReferenceConflict",
    "evaluate_conversation_reference_file",
    "evaluate_graph_reference_file",
    "evaluate_reference_file",
    "handle_file_reference",
    "handle_graph_file_reference",
    "names_a_file",
    "resolve_reference",
    "with_header",
]

Report = MatchReport | GraphMatchReport | ConversationReport


class ReferenceConflict(AssertionError):
    """Under ``--trajectory-update``, a trajectory that disagrees with the file another test (or
    another attempt of this test) settled earlier in the run."""

    def __init__(self, report: Report, *, name: str, writer: str, written: bool) -> None:
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


def _rebuilt_conflict(head: str, report: Report) -> ReferenceConflict:
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


def names_a_file(reference: Any) -> bool:
    """Whether ``reference`` names a reference file (a name, a path, or a file already read)."""
    return isinstance(reference, str | os.PathLike | ReferenceFile)


def resolve_reference(
    reference: Any, scope: TestScope | None, *, function: str = "assert_trajectory"
) -> ReferenceFile | None:
    """The reference file meant by ``reference`` (a name, a path, a loaded file, or ``None``
    for the running test's own); ``function`` names the caller in the error for ``None``
    outside a test."""
    __tracebackhide__ = True
    if isinstance(reference, ReferenceFile):
        return reference
    if reference is None or isinstance(reference, str | os.PathLike):
        if scope is not None and scope.references is not None:
            name = None if reference is None else os.fspath(reference)
            return cast("ReferenceFile", scope.references.resolve(name))
        if reference is None:
            raise ValueError(f"{function} needs a reference outside a pytest test")
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


class _Kind(Protocol):
    """What differs between message files and graph files on the way to a verdict."""

    def check(self, reference: ReferenceFile, name: str) -> None:
        """Refuse a file of the other kind."""

    def content(self, reference: ReferenceFile) -> Any:
        """What the file holds, as the evaluators take it."""

    def compare(self, outputs: Any, content: Any) -> tuple[EvaluatorResult, Report]:
        """Evaluate ``outputs`` against ``content``."""

    def fresh(self, outputs: Any, reference: ReferenceFile) -> Any:
        """What ``--trajectory-update`` writes for ``outputs``."""

    def write(self, reference: ReferenceFile, content: Any) -> None:
        """Write ``content`` (from ``fresh``) into the file."""

    def to_ledger(self, content: Any) -> Any:
        """``content`` as JSON values, for the run's ledger."""

    def from_ledger(self, data: Any) -> Any:
        """The inverse of ``to_ledger``."""


class _Messages:
    """Message trajectory files: compared with a ``MatchConfig``; matchers kept on update."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config

    def check(self, reference: ReferenceFile, name: str) -> None:
        if reference.is_conversation:
            raise ReferenceFileError(
                f"reference file {name} holds a conversation (turns): compare a conversation "
                "with it through assert_conversation or the simulate fixture"
            )
        if reference.is_graph:
            raise ReferenceFileError(
                f"reference file {name} holds a graph path (steps): compare a graph trajectory "
                "with it through assert_graph_trajectory or the graph_trajectory_evaluator "
                "fixture, or give assert_trajectory a file of messages"
            )

    def content(self, reference: ReferenceFile) -> Any:
        return reference.messages

    def compare(self, outputs: Any, content: Any) -> tuple[EvaluatorResult, Report]:
        return evaluate_trajectory(outputs, content, self.config)

    def fresh(self, outputs: Any, reference: ReferenceFile) -> Any:
        return updated_messages(reference, to_trajectory(outputs, side="outputs"))

    def write(self, reference: ReferenceFile, content: Any) -> None:
        write_messages(reference, content)

    def to_ledger(self, content: Any) -> Any:
        return messages_to_spelled(content)

    def from_ledger(self, data: Any) -> Any:
        return messages_from_spelled(data if isinstance(data, list) else [])


class _Graph:
    """Graph reference files: compared in a graph mode; written from the recorded path."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def check(self, reference: ReferenceFile, name: str) -> None:
        if reference.exists and not reference.is_graph:
            raise ReferenceFileError(
                f"reference file {name} holds messages, not a graph path (steps): compare a "
                "message trajectory with it through assert_trajectory or the "
                "trajectory_evaluator fixture, or give assert_graph_trajectory a file with "
                "'steps'"
            )

    def content(self, reference: ReferenceFile) -> Any:
        return reference.graph_document()

    def compare(self, outputs: Any, content: Any) -> tuple[EvaluatorResult, Report]:
        return evaluate_graph_trajectory(outputs, content, self.mode)

    def fresh(self, outputs: Any, reference: ReferenceFile) -> Any:  # noqa: ARG002
        return graph_reference_document(outputs)

    def write(self, reference: ReferenceFile, content: Any) -> None:
        write_graph_reference(reference, content)

    def to_ledger(self, content: Any) -> Any:
        return content

    def from_ledger(self, data: Any) -> Any:
        return data if isinstance(data, Mapping) else {"steps": []}


class _Conversation:
    """Conversation reference files: compared turn by turn with a ``MatchConfig``."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config

    def check(self, reference: ReferenceFile, name: str) -> None:
        if reference.exists and not reference.is_conversation:
            raise ReferenceFileError(
                f"reference file {name} holds a single trajectory or a graph path, not a "
                "conversation (turns): give assert_conversation a file with 'turns' (written "
                "by pytest --trajectory-update when it is missing)"
            )

    def content(self, reference: ReferenceFile) -> Any:
        return reference.conversation_document()

    def compare(self, outputs: Any, content: Any) -> tuple[EvaluatorResult, Report]:
        return evaluate_conversation(outputs, content, self.config)

    def fresh(self, outputs: Any, reference: ReferenceFile) -> Any:  # noqa: ARG002
        return {"turns": conversation_turns(conversation_of(outputs, side="outputs"))}

    def write(self, reference: ReferenceFile, content: Any) -> None:
        write_conversation(reference, content["turns"])

    def to_ledger(self, content: Any) -> Any:
        return {"turns": [messages_to_spelled(turn) for turn in content["turns"]]}

    def from_ledger(self, data: Any) -> Any:
        turns = data.get("turns", []) if isinstance(data, Mapping) else []
        return {"turns": [messages_from_spelled(turn) for turn in turns]}


def _settle(
    outputs: Any,
    reference: ReferenceFile,
    kind: _Kind,
    scope: TestScope | None,
    extra: dict[str, Any],
) -> tuple[EvaluatorResult, Report, Any]:
    """Evaluate against a reference file; the result, its report and the content compared.
    Under ``--trajectory-update`` a file that is missing or does not match is rewritten from
    ``outputs`` (once per run: see ``ledger``) and the evaluation is made against what was
    written, so a file that does not read back to a match is a failure, not a silent pass.
    ``extra`` receives the file's name (and whether it was written) for the record."""
    __tracebackhide__ = True
    resolver = scope.references if scope else None
    name = resolver.name_of(reference.path) if resolver else str(reference.path)
    extra["reference_file"] = name
    kind.check(reference, name)
    if resolver is None or not resolver.update:
        if not reference.exists:
            raise ReferenceFileError(
                f"reference file {reference.path} does not exist; run pytest with "
                "--trajectory-update to write it from the agent's current trajectory"
            )
        content = kind.content(reference)
        return (*kind.compare(outputs, content), content)
    return _update(outputs, reference, kind, resolver, name, extra)


def _update(
    outputs: Any,
    reference: ReferenceFile,
    kind: _Kind,
    resolver: ReferenceResolver,
    name: str,
    extra: dict[str, Any],
) -> tuple[EvaluatorResult, Report, Any]:
    """``_settle`` under ``--trajectory-update``: the first evaluation of the run keeps the
    file (it matched) or writes it; later ones must match what it settled on."""
    __tracebackhide__ = True
    matched: tuple[EvaluatorResult, Report] | None = None
    if reference.exists:
        result, report = kind.compare(outputs, kind.content(reference))
        matched = (result, report) if report.matched else None
    settled = kind.content(reference) if matched else kind.fresh(outputs, reference)
    claim = resolver.claim(reference.path, written=matched is None, content=kind.to_ledger(settled))
    if not claim.first:
        earlier = kind.from_ledger(claim.content)
        result, report = kind.compare(outputs, earlier)
        if not report.matched:
            raise ReferenceConflict(report, name=name, writer=claim.writer, written=claim.written)
        return result, report, earlier
    if matched is not None:
        return (*matched, settled)
    _write(kind, reference, settled, name)
    extra["reference_written"] = True
    written = kind.content(load_reference(reference.path))
    return (*kind.compare(outputs, written), written)


def _write(kind: _Kind, reference: ReferenceFile, content: Any, name: str) -> None:
    """Write a reference file, or say what is wrong with its folder (or the write)."""
    __tracebackhide__ = True
    try:
        kind.write(reference, content)
    except OSError as error:
        folder = reference.path.parent
        problem = folder_problem(folder)
        why = f"its folder {folder} {problem}" if problem else (error.strerror or str(error))
        raise ReferenceFileError(f"reference file {name} cannot be written: {why}") from None


def evaluate_reference_file(
    outputs: Any,
    reference: ReferenceFile,
    config: MatchConfig,
    scope: TestScope | None,
    extra: dict[str, Any],
) -> tuple[EvaluatorResult, MatchReport]:
    """Evaluate a message trajectory against a reference file of messages (see ``_settle``)."""
    __tracebackhide__ = True
    result, report, _ = _settle(outputs, reference, _Messages(config), scope, extra)
    return result, cast("MatchReport", report)


def handle_file_reference(
    outputs: Any, reference_outputs: Any, config: MatchConfig, extra: dict[str, Any]
) -> tuple[EvaluatorResult, MatchReport, Any] | None:
    """The reference handler of the plugin's evaluators: ``reference_outputs`` given as a file
    name (or path, or a loaded ``ReferenceFile``) is read from the test's ``trajectories/``
    folder, and its header applies unless the test's marker set that setting; anything else
    is left to the evaluator (``None``)."""
    __tracebackhide__ = True
    if not names_a_file(reference_outputs):
        return None
    scope = current_scope()
    reference = resolve_reference(reference_outputs, scope)
    assert reference is not None
    locked = scope.marker_keys if scope else frozenset()
    config = with_header(config, reference.header(), locked)
    result, report = evaluate_reference_file(outputs, reference, config, scope, extra)
    return result, report, reference.messages


def evaluate_graph_reference_file(
    outputs: Any,
    reference_outputs: Any,
    mode: str,
    extra: dict[str, Any],
    *,
    locked: frozenset[str],
    function: str,
) -> tuple[EvaluatorResult, GraphMatchReport, Any]:
    """Evaluate a graph trajectory against a graph reference file (a name, a path, a loaded
    file, or ``None`` for the test's own): in the file's ``mode`` unless ``locked`` holds
    ``mode`` (the marker or the call set it), else in ``mode``. Returns the result, its report
    and the reference document compared."""
    __tracebackhide__ = True
    scope = current_scope()
    reference = resolve_reference(reference_outputs, scope, function=function)
    assert reference is not None
    if reference.mode is not None and reference.is_graph and "mode" not in locked:
        mode = reference.mode
    result, report, document = _settle(outputs, reference, _Graph(mode), scope, extra)
    return result, cast("GraphMatchReport", report), document


def handle_graph_file_reference(
    outputs: Any, reference_outputs: Any, mode: str, extra: dict[str, Any]
) -> tuple[EvaluatorResult, GraphMatchReport, Any] | None:
    """The reference handler of the plugin's graph evaluator: a file name (or path, or loaded
    file) is a graph reference file in the test's ``trajectories/`` folder, whose ``mode``
    applies unless the test's marker set one; anything else is left to the evaluator."""
    __tracebackhide__ = True
    if not names_a_file(reference_outputs):
        return None
    scope = current_scope()
    locked = scope.marker_keys if scope else frozenset()
    return evaluate_graph_reference_file(
        outputs,
        reference_outputs,
        mode,
        extra,
        locked=locked,
        function="graph_trajectory_evaluator",
    )


def evaluate_conversation_reference_file(
    outputs: Any,
    reference: ReferenceFile,
    config: MatchConfig,
    scope: TestScope | None,
    extra: dict[str, Any],
) -> tuple[EvaluatorResult, ConversationReport, Any]:
    """Evaluate a conversation against a conversation reference file (see ``_settle``); the
    result, its report and the reference document compared."""
    __tracebackhide__ = True
    result, report, document = _settle(outputs, reference, _Conversation(config), scope, extra)
    return result, cast("ConversationReport", report), document
