"""Reading a reference file, which is untrusted input: the bytes may not be UTF-8, the document
may be huge, deeply nested or an alias bomb. Every problem is a ``ReferenceFileError`` naming the
file (and line), raised before anything expensive happens to the data.

YAML is read with the safe loader only (no Python tags), libyaml's when it is installed, and
parsed once; anchors and aliases are refused (a few lines of them can stand for gigabytes).
yaml is imported only here, when a file is read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.matching.rules import check_tool_args_mode, check_trajectory_mode, make_config
from ..core.normalize import to_trajectory
from ..errors import ReferenceFileError, TrajectoryFormatError
from .file import HEADER_KEYS, ReferenceFile

__all__ = ["MAX_DEPTH", "load_reference"]

MAX_DEPTH = 100
"""How deep values may nest in a reference file (tool arguments included)."""


def load_reference(path: Path) -> ReferenceFile:
    """Read and check a reference file; ``ReferenceFileError`` names the file, line and field."""
    __tracebackhide__ = True
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
        path, messages, header.get("mode"), header.get("tool_args"), header.get("overrides")
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


def _parse(path: Path, text: str) -> tuple[Any, list[int]]:
    """The document and the line of each message (YAML only)."""
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
    return data, []


def _parse_yaml(path: Path, text: str) -> tuple[Any, list[int]]:
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
    return data, _message_lines(node)


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


def _message_lines(node: Any) -> list[int]:
    """The line (1-based) of each message, where the document shows it."""
    if node is None:
        return []
    if node.id == "mapping":
        for key, value in node.value:
            if getattr(key, "value", None) == "messages":
                node = value
                break
    if node.id != "sequence":
        return []
    return [item.start_mark.line + 1 for item in node.value]


def _split(path: Path, data: Any) -> tuple[list[Any], dict[str, Any]]:
    """The messages and the header of a document."""
    __tracebackhide__ = True
    header: dict[str, Any] = {}
    if isinstance(data, Mapping):
        unknown = sorted(map(str, set(data) - {"messages", *HEADER_KEYS}))
        if unknown:
            raise ReferenceFileError(
                f"{path}: unknown key(s) {', '.join(unknown)}; a reference file "
                f"holds 'messages' and optionally {', '.join(HEADER_KEYS)}"
            )
        header = {k: data[k] for k in HEADER_KEYS if data.get(k) is not None}
        data = data.get("messages")
    if not isinstance(data, list):
        raise ReferenceFileError(
            f"{path}: expected a list of messages (or a mapping with 'messages'), "
            f"got {type(data).__name__}"
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
