"""LangChain ``BaseMessage`` objects (``HumanMessage``, ``AIMessage`` with ``tool_calls`` or
``additional_kwargs["tool_calls"]``, ``ToolMessage``, chunks, ``ChatMessage``).

langchain-core is never imported here: a message is recognised through the module the caller
already imported to build it. Fields are read from the model's ``__dict__`` where it has one:
attribute access on a pydantic model that lacks the field raises inside pydantic, which costs
more than the rest of the reading.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from ...errors import TrajectoryFormatError
from ..model import Message, Role, ToolCall
from ..values import safe_repr
from . import anthropic
from .chat import dict_call
from .fields import Memo, call_name, opt_str, parse_args, role

__all__ = ["LANGCHAIN_ROLES", "is_message", "message"]

LANGCHAIN_ROLES: dict[str, Role] = {
    "human": "user",
    "ai": "assistant",
    "AIMessageChunk": "assistant",
    "HumanMessageChunk": "user",
    "system": "system",
    "SystemMessageChunk": "system",
    "tool": "tool",
    "ToolMessageChunk": "tool",
    "function": "function",
    "FunctionMessageChunk": "function",
}
"""The role of each LangChain message ``type`` (``chat`` messages carry their own)."""


def is_message(value: Any) -> bool:
    """Whether ``value`` is a LangChain message (only if langchain-core is already imported)."""
    module = sys.modules.get("langchain_core.messages")
    return module is not None and isinstance(value, module.BaseMessage)


def _fields(value: Any) -> Mapping[str, Any]:
    fields = getattr(value, "__dict__", None)
    if isinstance(fields, Mapping):
        return fields
    return {name: getattr(value, name, None) for name in _FIELD_NAMES}


_FIELD_NAMES = (
    "type",
    "role",
    "content",
    "tool_calls",
    "additional_kwargs",
    "tool_call_id",
    "name",
    "id",
)


def message(value: Any, index: int, memo: Memo) -> Message:
    """One LangChain message as a ``Message``."""
    fields = _fields(value)
    kind = fields.get("type")
    if kind in ("chat", "ChatMessageChunk"):
        message_role = role(fields.get("role"), index)
    else:
        found = LANGCHAIN_ROLES.get(kind) if isinstance(kind, str) else None
        if found is None:
            raise TrajectoryFormatError(
                f"unsupported LangChain message type {safe_repr(kind, 60)} "
                f"({type(value).__name__})",
                index=index,
                field="type",
            )
        message_role = found
    content = fields.get("content")
    calls: tuple[ToolCall, ...] = ()
    structured = fields.get("tool_calls") or ()
    if structured:
        if not isinstance(structured, list | tuple):
            raise TrajectoryFormatError(
                f"'tool_calls' must be a list, got {type(structured).__name__}",
                index=index,
                field="tool_calls",
            )
        calls = tuple([_call(c, index, i, memo) for i, c in enumerate(structured)])
        if isinstance(content, list):
            content = [
                b for b in content if not (isinstance(b, Mapping) and b.get("type") == "tool_use")
            ] or ""
    else:
        kwargs = fields.get("additional_kwargs")
        extra = kwargs.get("tool_calls") if isinstance(kwargs, Mapping) else None
        if extra:
            calls = _extra_calls(extra, index, memo)
        elif isinstance(content, list):
            calls, content = anthropic.tool_use_calls(content, index, memo)
    return Message(
        message_role,
        content if content is not None else "",
        calls,
        opt_str(fields.get("tool_call_id")),
        opt_str(fields.get("name")),
        opt_str(fields.get("id")),
    )


def _call(raw: Any, index: int, position: int, memo: Memo) -> ToolCall:
    """One entry of ``AIMessage.tool_calls``: ``{"name", "args", "id"}``."""
    field = f"tool_calls[{position}]"
    if not isinstance(raw, Mapping):
        raise TrajectoryFormatError(
            f"a tool call must be a dict, got {type(raw).__name__}", index=index, field=field
        )
    name = call_name(raw.get("name"), index, f"{field}.name")
    args = parse_args(raw.get("args"), name, index, f"{field}.args", memo)
    return ToolCall(name, args, opt_str(raw.get("id")))


def _extra_calls(extra: Any, index: int, memo: Memo) -> tuple[ToolCall, ...]:
    """OpenAI-style calls kept in ``additional_kwargs["tool_calls"]``."""
    if not isinstance(extra, list | tuple):
        raise TrajectoryFormatError(
            f"'tool_calls' must be a list, got {type(extra).__name__}",
            index=index,
            field="tool_calls",
        )
    return tuple([dict_call(c, index, i, memo) for i, c in enumerate(extra)])
