"""Reading a reference file, which is untrusted input: the bytes may not be UTF-8, the document
may be huge, deeply nested or an alias bomb. Every problem is a ``ReferenceFileError`` naming the
file (and line), raised before anything expensive happens to the data.

A file holds a message trajectory (a list of messages, or a mapping with ``messages``), whose
tool calls' arguments may spell value matchers (``{"$regex": "^SF"}``, read here into matcher
objects), or a graph path (a mapping with ``steps``: one list of nodes per invocation, a nested
list per superstep). Either may have a header (``mode``, and for messages ``tool_args`` and
``overrides``).

YAML is read with the safe loader only (no Python tags), libyaml's when it is installed, and
parsed once; anchors and aliases are refused (a few lines of them can stand for gigabytes).
yaml is imported only here, when a file is read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.graph import check_graph_mode, check_graph_reference
from ..core.matching.rules import check_tool_args_mode, check_trajectory_mode, make_config
from ..core.normalize import to_trajectory
from ..core.spelled import messages_from_spelled
from ..errors import (
    GraphTrajectoryFormatError,
    InvalidMatcherError,
    ReferenceFileError,
    TrajectoryFormatError,
)
from .file import GRAPH_KEYS, HEADER_KEYS, TURNS_KEYS, ReferenceFile
from .positions import JsonPositions, Positions, YamlPositions

__all__ = ["MAX_DEPTH", "load_reference"]

MAX_DEPTH = 100
"""How deep values may nest in a reference file (tool arguments included)."""


def load_reference(path: Path) -> ReferenceFile:
    """Read and check a reference file; ``ReferenceFileError`` names the file, line and field."""
    __tracebackhide__ = True
    data, positions = _parse(path, _read(path))
    if isinstance(data, Mapping) and "steps" in data:
        return _graph_file(path, data, positions)
    if isinstance(data, Mapping) and "turns" in data:
        return _conversation_file(path, data, positions)
    return _message_file(path, data, positions)


def _conversation_file(path: Path, data: Mapping[str, Any], positions: Positions) -> ReferenceFile:
    """A conversation reference file: ``turns`` (each a list of messages, or a mapping with
    ``messages``) and the header of a message file, checked to the message."""
    __tracebackhide__ = True
    unknown = sorted(str(key) for key in data if key not in TURNS_KEYS)
    if unknown:
        raise ReferenceFileError(
            f"{path}: unknown key(s) {', '.join(unknown)}; a conversation reference file holds "
            f"'turns' and optionally {', '.join(HEADER_KEYS)}"
        )
    turns = data["turns"]
    if not isinstance(turns, list):
        raise ReferenceFileError(
            f"{_where(path, positions.line(['turns']))}: 'turns' must be a list of turns, got "
            f"{type(turns).__name__}"
        )
    read: list[list[dict[str, Any]]] = []
    for number, turn in enumerate(turns, start=1):
        root: list[str | int] = ["turns", number - 1]
        items = turn.get("messages") if isinstance(turn, Mapping) else turn
        if isinstance(turn, Mapping):
            root.append("messages")
        if not isinstance(items, list):
            raise ReferenceFileError(
                f"{_where(path, positions.line(root))}: turn {number} must be a list of "
                "messages (or a mapping with 'messages')"
            )
        read.append(_turn_messages(path, items, positions, root, number))
    header = {k: data[k] for k in HEADER_KEYS if data.get(k) is not None}
    _check_header(path, header)
    return ReferenceFile(
        path,
        mode=header.get("mode"),
        tool_args=header.get("tool_args"),
        overrides=header.get("overrides"),
        turns=read,
    )


def _turn_messages(
    path: Path, items: list[Any], positions: Positions, root: list[str | int], number: int
) -> list[dict[str, Any]]:
    __tracebackhide__ = True
    try:
        messages = messages_from_spelled(items)
    except InvalidMatcherError as error:
        steps = root if error.index is None else [*root, error.index]
        line = positions.line(steps, error.path)
        raise ReferenceFileError(f"{_where(path, line)}: turn {number}: {error}") from None
    try:
        to_trajectory(messages)
    except TrajectoryFormatError as error:
        line = None if error.index is None else positions.line([*root, error.index])
        raise ReferenceFileError(f"{_where(path, line)}: turn {number}, {error}") from None
    return messages


def _where(path: Path, line: int | None) -> str:
    return f"{path}:{line}" if line else str(path)


def _message_file(path: Path, data: Any, positions: Positions) -> ReferenceFile:
    __tracebackhide__ = True
    messages, header = _split(path, data)
    root: list[str | int] = ["messages"] if isinstance(data, Mapping) else []
    try:
        messages = messages_from_spelled(messages)
    except InvalidMatcherError as error:
        steps = root if error.index is None else [*root, error.index]
        line = positions.line(steps, error.path)
        raise ReferenceFileError(f"{_where(path, line)}: {error}") from None
    try:
        to_trajectory(messages)
    except TrajectoryFormatError as error:
        line = None if error.index is None else positions.line([*root, error.index])
        raise ReferenceFileError(f"{_where(path, line)}: {error}") from None
    _check_header(path, header)
    return ReferenceFile(
        path, messages, header.get("mode"), header.get("tool_args"), header.get("overrides")
    )


def _graph_file(path: Path, data: Mapping[str, Any], positions: Positions) -> ReferenceFile:
    """A graph reference file: ``steps`` and an optional ``mode``, checked to the node."""
    __tracebackhide__ = True
    if "messages" in data:
        raise ReferenceFileError(
            f"{_where(path, positions.line(['steps']))}: holds both 'messages' and 'steps'; a "
            "reference file is either a message trajectory (messages) or a graph path (steps): "
            "put each in a file of its own"
        )
    unknown = sorted(str(key) for key in data if key not in GRAPH_KEYS)
    if unknown:
        raise ReferenceFileError(
            f"{path}: unknown key(s) {', '.join(unknown)}; a graph reference file holds "
            "'steps' and optionally 'mode'"
        )
    mode = data.get("mode")
    if mode is not None:
        try:
            check_graph_mode(mode, where="mode")
        except ValueError as error:
            raise ReferenceFileError(f"{path}: header: {error}") from None
    try:
        steps = check_graph_reference({"steps": data["steps"]}, source=path.name)["steps"]
    except GraphTrajectoryFormatError as error:
        place = [s for s in ("steps", error.invocation, error.step) if s is not None]
        hint = _step_hint(path, data["steps"], error)
        raise ReferenceFileError(f"{_where(path, positions.line(place))}: {error}{hint}") from None
    _check_node_names(path, steps, positions)
    return ReferenceFile(path, mode=mode, steps=steps)


_NOT_NAMES = (bool, int, float, type(None))


def _step_hint(path: Path, steps: Any, error: GraphTrajectoryFormatError) -> str:
    """A hint for the usual causes of a bad step: a list nested in a superstep, or (in YAML) a
    node name read as a boolean, a number or null (``on``, ``no``, ``1``, ``~``)."""
    if error.invocation is None or error.step is None:
        return ""
    entry = steps[error.invocation][error.step]
    values = entry if isinstance(entry, list) else [entry]
    if any(isinstance(value, list) for value in values):
        return "; supersteps do not nest: a step is a node name or one list of names"
    if path.suffix == ".json" or not any(isinstance(value, _NOT_NAMES) for value in values):
        return ""
    return (
        "; YAML reads yes, no, on, off, null, ~ and numbers as such, not as text: quote a node "
        "name like these ('on')"
    )


def _check_node_names(path: Path, steps: list[Any], positions: Positions) -> None:
    __tracebackhide__ = True
    for invocation, entries in enumerate(steps):
        for step, entry in enumerate(entries):
            names = entry if isinstance(entry, list) else [entry]
            if "" in names:
                line = positions.line(["steps", invocation, step])
                raise ReferenceFileError(
                    f"{_where(path, line)}: steps[{invocation}][{step}] (invocation "
                    f"{invocation}, step {step}) holds an empty node name"
                )


def _read(path: Path) -> str:
    __tracebackhide__ = True
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ReferenceFileError(
            f"reference file {path} does not exist; run pytest with --trajectory-update to "
            "write it from the agent's current trajectory"
        ) from None
    except OSError as error:
        raise ReferenceFileError(f"reference file {path} cannot be read: {error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        byte = raw[error.start : error.start + 1]
        raise ReferenceFileError(
            f"{path}:{line}: not UTF-8 text (byte {error.start}: {byte!r}); "
            "reference files are UTF-8"
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def _parse(path: Path, text: str) -> tuple[Any, Positions]:
    """The document, and where its values are (for errors that name a line)."""
    __tracebackhide__ = True
    if path.suffix != ".json":
        return _parse_yaml(path, text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReferenceFileError(f"{path}:{error.lineno}: {error.msg}") from None
    except RecursionError:
        raise ReferenceFileError(_too_deep(path, None)) from None
    _check_depth(path, data)
    return data, JsonPositions(text)


def _parse_yaml(path: Path, text: str) -> tuple[Any, Positions]:
    __tracebackhide__ = True
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        _check_nodes(path, node)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = error.problem or error.context or "invalid YAML"
        if "nesting depth" in problem:
            raise ReferenceFileError(_too_deep(path, mark.line + 1 if mark else None)) from None
        raise ReferenceFileError(f"{path}{line}: {problem}") from None
    except yaml.YAMLError as error:
        raise ReferenceFileError(f"{path}: {error}") from None
    except RecursionError:
        raise ReferenceFileError(_too_deep(path, None)) from None
    finally:
        loader.dispose()
    return data, YamlPositions(node)


def _check_nodes(path: Path, root: Any) -> None:
    """Refuse aliases (a node reached twice) and nesting past ``MAX_DEPTH``, without recursion."""
    __tracebackhide__ = True
    if root is None:
        return
    seen: set[int] = set()
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            raise ReferenceFileError(
                f"{path}:{node.start_mark.line + 1}: anchors and aliases (&name, *name) are not "
                "allowed in reference files; write the value out"
            )
        seen.add(id(node))
        if depth > MAX_DEPTH:
            raise ReferenceFileError(_too_deep(path, node.start_mark.line + 1))
        if node.id == "mapping":
            for key, value in node.value:
                stack.append((key, depth + 1))
                stack.append((value, depth + 1))
        elif node.id == "sequence":
            stack.extend((item, depth + 1) for item in node.value)


def _check_depth(path: Path, data: Any) -> None:
    __tracebackhide__ = True
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ReferenceFileError(_too_deep(path, None))
        if isinstance(value, dict):
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)


def _too_deep(path: Path, line: int | None) -> str:
    where = f"{path}:{line}" if line else str(path)
    return f"{where}: values nest more than {MAX_DEPTH} levels deep; a reference file cannot"


def _split(path: Path, data: Any) -> tuple[list[Any], dict[str, Any]]:
    """The messages and the header of a document."""
    __tracebackhide__ = True
    header: dict[str, Any] = {}
    if isinstance(data, Mapping):
        unknown = sorted(map(str, set(data) - {"messages", *HEADER_KEYS}))
        if unknown:
            raise ReferenceFileError(
                f"{path}: unknown key(s) {', '.join(unknown)}; a reference file holds "
                f"'messages' and optionally {', '.join(HEADER_KEYS)} (a graph reference file: "
                "'steps' and optionally 'mode')"
            )
        header = {k: data[k] for k in HEADER_KEYS if data.get(k) is not None}
        data = data.get("messages")
    if not isinstance(data, list):
        raise ReferenceFileError(
            f"{path}: expected a list of messages (or a mapping with 'messages', or one "
            f"with 'steps' for a graph path), got {type(data).__name__}"
        )
    return data, header


def _check_header(path: Path, header: Mapping[str, Any]) -> None:
    __tracebackhide__ = True
    try:
        if "mode" in header:
            check_trajectory_mode(header["mode"], where="mode")
        if "tool_args" in header:
            check_tool_args_mode(header["tool_args"], where="tool_args")
        if "overrides" in header:
            make_config(overrides=header["overrides"])
    except ValueError as error:
        raise ReferenceFileError(f"{path}: header: {error}") from None
