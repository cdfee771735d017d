"""OpenAI chat-completion message dicts (and dicts of the same shape: ``{"role", "content",
"tool_calls"}``), with tool calls in the ``function`` form (``{"function": {"name",
"arguments"}}``, arguments as JSON text or a dict) or flat (``{"name", "args"}``). Anthropic
content blocks inside such dicts are read too."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import TrajectoryFormatError
from ..model import Message, ToolCall
from . import anthropic
from .fields import ROLE_ALIASES, Memo, call_name, memo_object, parse_args, role

__all__ = ["dict_message", "dict_messages"]


def dict_messages(item: Mapping[str, Any], index: int, memo: Memo) -> list[Message]:
    """One message dict as messages: one, or several when its content holds tool results."""
    content = item.get("content")
    if type(content) is list and anthropic.has_tool_results(content):
        return anthropic.tool_results(item, content, index)
    return [dict_message(item, index, memo)]


_new = tuple.__new__  # builds named tuples without their Python-level __new__ (every field given)


def dict_message(item: Mapping[str, Any], index: int, memo: Memo) -> Message:
    """One message dict as a ``Message``; its role may be given as ``type`` (LangChain dumps)."""
    raw_role = item.get("role")
    role_field = "role"
    if raw_role is None and item.get("type") not in (None, "message"):
        raw_role, role_field = item.get("type"), "type"
    found = ROLE_ALIASES.get(raw_role) if type(raw_role) is str else None
    message_role = found if found is not None else role(raw_role, index, role_field)
    content = item.get("content")
    if content is None:
        content = ""
    raw_calls = item.get("tool_calls")
    if raw_calls is not None and not isinstance(raw_calls, list | tuple):
        raise TrajectoryFormatError(
            f"'tool_calls' must be a list, got {type(raw_calls).__name__}",
            index=index,
            field="tool_calls",
        )
    calls: tuple[ToolCall, ...] = ()
    if raw_calls:
        calls = tuple([dict_call(c, index, i, memo) for i, c in enumerate(raw_calls)])
    elif type(content) is list:
        calls, content = anthropic.tool_use_calls(content, index, memo)
    if calls and message_role != "assistant":
        raise TrajectoryFormatError(
            f"a {message_role!r} message has tool calls; only assistant messages make tool calls "
            "(is the role right?)",
            index=index,
            field="tool_calls",
        )
    call_id, name, message_id = item.get("tool_call_id"), item.get("name"), item.get("id")
    fields = (
        message_role,
        content,
        calls,
        call_id if type(call_id) is str else None,
        name if type(name) is str else None,
        message_id if type(message_id) is str else None,
    )
    return _new(Message, fields)


def dict_call(raw: Any, index: int, position: int, memo: Memo) -> ToolCall:
    """One entry of a message's ``tool_calls``: ``function``-wrapped or flat."""
    if type(raw) is not dict and not isinstance(raw, Mapping):
        raise TrajectoryFormatError(
            f"a tool call must be a dict, got {type(raw).__name__}",
            index=index,
            field=f"tool_calls[{position}]",
        )
    function = raw.get("function")
    if function is not None:
        if type(function) is not dict and not isinstance(function, Mapping):
            raise TrajectoryFormatError(
                f"'function' must be a dict, got {type(function).__name__}",
                index=index,
                field=f"tool_calls[{position}].function",
            )
        raw_name, raw_args = function.get("name"), function.get("arguments")
        name_field, args_field = "function.name", "function.arguments"
    else:
        args_field = "args" if "args" in raw else "arguments"
        raw_name, raw_args = raw.get("name"), raw.get(args_field)
        name_field = "name"
    name = (
        raw_name
        if type(raw_name) is str and raw_name
        else call_name(raw_name, index, f"tool_calls[{position}].{name_field}")
    )
    args = None
    if type(raw_args) is str:  # the common case: a text seen before, or one JSON object
        args = memo_object(raw_args, memo)
    if args is None:  # other forms, and texts json.loads must decide (or name the error of)
        args = parse_args(raw_args, name, index, f"tool_calls[{position}].{args_field}", memo)
    call_id = raw.get("id")
    return _new(ToolCall, (name, args, call_id if type(call_id) is str else None))
