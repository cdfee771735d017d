"""Reference trajectories kept in files next to the tests (YAML or JSON), read and written in the
plainest readable form: role, content, tool calls with name and args; no ids, no timestamps.

A file is either a list of messages or a mapping with ``messages`` and an optional header::

    mode: unordered            # how this reference is meant to be compared (optional)
    tool_args: exact
    overrides:
      get_weather: [location_code]
    messages:
      - role: user
        content: What's the weather in 苏州?
      - role: assistant
        tool_calls:
          - name: get_weather
            args: {location_code: location-123}

YAML is read with ``yaml.safe_load`` only (no Python tags); yaml is imported only here, when a
file is used.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from ._files import write_atomically
from .core.matching import MatchReport
from .core.matching.rules import (
    MatchConfig,
    check_tool_args_mode,
    check_trajectory_mode,
    make_config,
)
from .core.model import Trajectory
from .core.normalize import to_trajectory
from .errors import ReferenceFileError, TrajectoryFormatError
from .evaluators.result import EvaluatorResult
from .evaluators.scope import TestScope, current_scope
from .evaluators.trajectory import evaluate_trajectory

__all__ = [
    "REFERENCE_SUFFIXES",
    "ReferenceFile",
    "ReferenceFileError",
    "dump_reference",
    "evaluate_reference_file",
    "handle_file_reference",
    "load_reference",
    "resolve_reference",
    "write_reference",
]

REFERENCE_SUFFIXES = (".yaml", ".yml", ".json")
_HEADER_KEYS = ("mode", "tool_args", "overrides")


@dataclass(frozen=True)
class ReferenceFile:
    """A reference trajectory from a file: its messages (plain dicts) and optional header.

    ``exists`` is false for a file that is still to be written (``--trajectory-update``).
    """

    path: Path
    messages: list[dict[str, Any]] = field(default_factory=list)
    mode: str | None = None
    tool_args: str | None = None
    overrides: Mapping[str, Any] | None = None
    exists: bool = True

    def header(self) -> dict[str, Any]:
        return {
            key: value
            for key, value in (
                ("mode", self.mode),
                ("tool_args", self.tool_args),
                ("overrides", self.overrides),
            )
            if value is not None
        }


def _parse_yaml(path: Path, text: str) -> tuple[Any, list[int]]:
    """The document and, for each message, its line (1-based) where the file shows it."""
    import yaml

    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = error.problem or error.context or "invalid YAML"
        raise ReferenceFileError(f"{path}{line}: {problem}") from None
    except yaml.YAMLError as error:
        raise ReferenceFileError(f"{path}: {error}") from None
    return data, _message_lines(node)


def _message_lines(node: Any) -> list[int]:
    if node is None:
        return []
    if getattr(node, "id", None) == "mapping":
        for key, value in node.value:
            if getattr(key, "value", None) == "messages":
                node = value
                break
    if getattr(node, "id", None) != "sequence":
        return []
    return [item.start_mark.line + 1 for item in node.value]


def load_reference(path: Path) -> ReferenceFile:
    """Read and check a reference file; ``ReferenceFileError`` names the file, line and field."""
    data, lines = _parse(path, _read(path))
    messages, header = _split(path, data)
    try:
        to_trajectory(messages)
    except TrajectoryFormatError as error:
        known = error.index is not None and error.index < len(lines)
        line = f":{lines[error.index]}" if known and error.index is not None else ""
        raise ReferenceFileError(f"{path}{line}: {error}") from None
    _check_header(path, header)
    return ReferenceFile(
        path,
        messages,
        header.get("mode"),
        header.get("tool_args"),
        header.get("overrides"),
    )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReferenceFileError(
            f"reference file {path} does not exist; run pytest with --trajectory-update to "
            "write it from the agent's current trajectory"
        ) from None
    except OSError as error:
        raise ReferenceFileError(f"reference file {path} cannot be read: {error}") from None


def _parse(path: Path, text: str) -> tuple[Any, list[int]]:
    """The document and the line of each message (YAML only)."""
    if path.suffix != ".json":
        return _parse_yaml(path, text)
    try:
        return json.loads(text), []
    except json.JSONDecodeError as error:
        raise ReferenceFileError(f"{path}:{error.lineno}: {error.msg}") from None


def _split(path: Path, data: Any) -> tuple[list[Any], dict[str, Any]]:
    """The messages and the header of a document."""
    header: dict[str, Any] = {}
    if isinstance(data, Mapping):
        unknown = sorted(set(data) - {"messages", *_HEADER_KEYS})
        if unknown:
            raise ReferenceFileError(
                f"{path}: unknown key(s) {', '.join(map(str, unknown))}; a reference file "
                f"holds 'messages' and optionally {', '.join(_HEADER_KEYS)}"
            )
        header = {k: data[k] for k in _HEADER_KEYS if data.get(k) is not None}
        data = data.get("messages")
    if not isinstance(data, list):
        raise ReferenceFileError(
            f"{path}: expected a list of messages (or a mapping with 'messages'), "
            f"got {type(data).__name__}"
        )
    return data, header


def _check_header(path: Path, header: Mapping[str, Any]) -> None:
    try:
        if "mode" in header:
            check_trajectory_mode(header["mode"], where="mode")
        if "tool_args" in header:
            check_tool_args_mode(header["tool_args"], where="tool_args")
        if "overrides" in header:
            make_config(overrides=header["overrides"])
    except ValueError as error:
        raise ReferenceFileError(f"{path}: header: {error}") from None


def _plain(trajectory: Trajectory) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for message in trajectory:
        item: dict[str, Any] = {"role": message.role}
        text = message.text
        if text or not message.tool_calls:
            item["content"] = text
        if message.tool_calls:
            item["tool_calls"] = [
                {"name": call.name, "args": _jsonable(call.args)} for call in message.tool_calls
            ]
        messages.append(item)
    return messages


def _jsonable(value: Any) -> Any:
    """Arguments as plain JSON values, so the file reads back to what was compared."""
    return json.loads(json.dumps(value, default=str))


def dump_reference(trajectory: Trajectory, path: Path, header: Mapping[str, Any]) -> str:
    """The file text for ``trajectory``: stable and diff-friendly (sorted keys, no ids)."""
    document: Any = _plain(trajectory)
    if header:
        document = {**header, "messages": document}
    if path.suffix == ".json":
        return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    import yaml

    return str(
        yaml.safe_dump(
            document, sort_keys=True, allow_unicode=True, default_flow_style=False, width=100
        )
    )


def write_reference(reference: ReferenceFile, trajectory: Trajectory) -> None:
    """Write ``trajectory`` into ``reference.path``, keeping the file's header."""
    write_atomically(reference.path, dump_reference(trajectory, reference.path, reference.header()))


def resolve_reference(reference: Any, scope: TestScope | None) -> ReferenceFile | None:
    """The reference file meant by ``reference`` (a name, a path, a loaded file, or ``None``)."""
    if isinstance(reference, ReferenceFile):
        return reference
    if reference is None or isinstance(reference, str | os.PathLike):
        if scope is not None and scope.references is not None:
            name = None if reference is None else os.fspath(reference)
            return cast("ReferenceFile", scope.references.resolve(name))
        if reference is None:
            raise ValueError("assert_trajectory needs reference_outputs outside a pytest test")
        path = Path(reference)
        return load_reference(path) if path.exists() else ReferenceFile(path, exists=False)
    return None


def evaluate_reference_file(
    outputs: Any,
    reference: ReferenceFile,
    config: MatchConfig,
    scope: TestScope | None,
    extra: dict[str, Any],
) -> tuple[EvaluatorResult, MatchReport]:
    """Evaluate against a reference file. Under ``--trajectory-update`` a file that is missing or
    does not match is rewritten from ``outputs`` and the evaluation is made against what was
    written, so a file that does not read back to a match is a failure, not a silent pass.
    ``extra`` receives the file's name (and whether it was written) for the record."""
    resolver = scope.references if scope else None
    update = bool(resolver and resolver.update)
    extra["reference_file"] = resolver.name_of(reference.path) if resolver else str(reference.path)
    if not reference.exists and not update:
        raise ReferenceFileError(
            f"reference file {reference.path} does not exist; run pytest with "
            "--trajectory-update to write it from the agent's current trajectory"
        )
    if reference.exists:
        result, report = evaluate_trajectory(outputs, reference.messages, config)
        if report.matched or not update:
            return result, report
    write_reference(reference, to_trajectory(outputs, side="outputs"))
    extra["reference_written"] = True
    return evaluate_trajectory(outputs, load_reference(reference.path).messages, config)


def handle_file_reference(
    outputs: Any, reference_outputs: Any, config: MatchConfig, extra: dict[str, Any]
) -> tuple[EvaluatorResult, MatchReport, Any] | None:
    """The reference handler of the plugin's evaluators: ``reference_outputs`` given as a file
    name (or path, or a loaded ``ReferenceFile``) is read from the test's ``trajectories/``
    folder; anything else is left to the evaluator (``None``)."""
    if not isinstance(reference_outputs, str | os.PathLike | ReferenceFile):
        return None
    scope = current_scope()
    reference = resolve_reference(reference_outputs, scope)
    assert reference is not None
    result, report = evaluate_reference_file(outputs, reference, config, scope, extra)
    return result, report, reference.messages
