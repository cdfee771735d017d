"""Writing reference files in the plainest readable form: role, content, tool calls with name and
args; no ids, no timestamps; keys sorted, the header first.

A file that exists is rewritten in place of its messages only: the header keeps its place, YAML
comments stay (a round-trip YAML writer, ruamel.yaml, imported only here), and a message that
still reads the same is left exactly as it was written, so the diff shows only what changed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._files import write_atomically
from ..core.model import Trajectory
from ..core.normalize import to_trajectory
from ..errors import TrajectoryFormatError
from .file import HEADER_KEYS, ReferenceFile

__all__ = ["dump_reference", "plain_messages", "write_reference"]


def plain_messages(trajectory: Trajectory) -> list[dict[str, Any]]:
    """The messages as a reference file writes them (keys sorted at every level)."""
    messages: list[dict[str, Any]] = []
    for message in trajectory:
        item: dict[str, Any] = {}
        text = message.text
        if text or not message.tool_calls:
            item["content"] = text
        item["role"] = message.role
        if message.tool_calls:
            item["tool_calls"] = [
                {"args": _jsonable(call.args), "name": call.name} for call in message.tool_calls
            ]
        messages.append(item)
    return messages


def _jsonable(value: Any) -> Any:
    """Arguments as plain JSON values with sorted keys, so the file reads back to what was
    compared."""
    return json.loads(json.dumps(value, default=str, sort_keys=True))


def _document(messages: list[dict[str, Any]], header: Mapping[str, Any]) -> Any:
    if not header:
        return messages
    ordered = {key: header[key] for key in HEADER_KEYS if key in header}
    return {**ordered, "messages": messages}


def dump_reference(trajectory: Trajectory, path: Path, header: Mapping[str, Any]) -> str:
    """The text of a new file for ``trajectory``: stable and diff-friendly."""
    document = _document(plain_messages(trajectory), header)
    if path.suffix == ".json":
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    import yaml

    return str(
        yaml.safe_dump(
            document, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
        )
    )


def write_reference(reference: ReferenceFile, trajectory: Trajectory) -> None:
    """Write ``trajectory`` into ``reference.path``: a new file, or the existing one rewritten
    where its messages changed (header and comments kept)."""
    path = reference.path
    text = _existing_text(path) if reference.exists else None
    if text is None:
        write_atomically(path, dump_reference(trajectory, path, reference.header()))
        return
    messages = plain_messages(trajectory)
    if path.suffix == ".json":
        write_atomically(path, _rewrite_json(text, messages))
    else:
        write_atomically(path, _rewrite_yaml(text, messages))


def _existing_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _merged(old: list[Any], new: list[dict[str, Any]]) -> list[Any]:
    """``new``, with each message that reads the same as the old one at its place kept as the
    old one (its spelling, its comments). When old messages do not map one to one onto
    normalised messages (several Anthropic tool results in one message, ...), ``new``."""
    try:
        old_plain = [plain_messages(to_trajectory([item])) for item in old]
    except TrajectoryFormatError:
        return list(new)
    if any(len(one) != 1 for one in old_plain):
        return list(new)
    return [
        old[i] if i < len(old) and old_plain[i][0] == message else message
        for i, message in enumerate(new)
    ]


def _rewrite_json(text: str, messages: list[dict[str, Any]]) -> str:
    document = json.loads(text)
    if isinstance(document, dict):
        document["messages"] = _merged(list(document.get("messages") or []), messages)
    else:
        document = _merged(list(document), messages)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _rewrite_yaml(text: str, messages: list[dict[str, Any]]) -> str:
    import io

    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.width = 100
    yaml.allow_unicode = True
    yaml.default_flow_style = False
    yaml.indent(mapping=2, sequence=2, offset=0)
    document = yaml.load(text)
    if isinstance(document, Mapping):
        old = document.get("messages") or []
        merged = _merged(list(old), messages)
        if old:
            old[:] = merged  # the same sequence: its comments stay
        else:
            document["messages"] = merged  # type: ignore[index]  # ruamel's CommentedMap
    else:
        document[:] = _merged(list(document), messages)
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()
