"""LangChain ``BaseMessage`` objects (``HumanMessage``, ``AIMessage`` with ``tool_calls`` or
``additional_kwargs["tool_calls"]``, ``ToolMessage``, chunks, ``ChatMessage``).

langchain-core is never imported here: a message is recognised through the module the caller
already imported to build it. Fields are read from the model's ``__dict__`` where it has one:
attribute access on a pydantic model that lacks the field raises inside pydantic, which costs
more than the rest of the reading.

``message`` reads one message; ``scan`` is the fast path's reader of the same messages, beside it
so that both agree on what a plain message is (see ``scan``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

from ...errors import TrajectoryFormatError
from ..model import Message, Role, ToolCall
from ..values import safe_repr
from . import anthropic
from .chat import dict_call
from .fields import Memo, Skeleton, call_name, opt_str, parse_args, role

__all__ = ["LANGCHAIN_ROLES", "is_message", "message", "optional_str", "scan", "scannable"]

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
    fields = _own_fields(value)
    if fields is not None:
        return fields
    return {name: getattr(value, name, None) for name in _FIELD_NAMES}


def _own_fields(value: Any) -> Mapping[str, Any] | None:
    """The message's ``__dict__``, where it has one (see the module docstring)."""
    fields = getattr(value, "__dict__", None)
    return fields if isinstance(fields, Mapping) else None


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


optional_str = opt_str
"""An optional field of a message or of one of its calls (``id``, ``name``, ``tool_call_id``):
kept if it is a ``str``, as ``message`` keeps it."""

_SCANNABLE: dict[type, bool] = {}
"""Classes seen in trajectories: whether they are LangChain messages with their own fields."""


def scannable(item: Any) -> bool:
    """Whether ``scan`` may read ``item``: a LangChain message whose fields are its ``__dict__``
    (answered once per class)."""
    kind = type(item)
    known = _SCANNABLE.get(kind)
    if known is None:
        known = _SCANNABLE[kind] = is_message(item) and _own_fields(item) is not None
    return known


def scan(items: list[Any], start: int, skeleton: Skeleton) -> int | None:
    """Record the LangChain messages of ``items`` from ``start`` on in ``skeleton``, while they
    are *plain messages*: what ``message`` reads from a known ``type`` (not ``chat``) and text
    content, whose ``tool_calls`` (only on AI messages) are a list of calls with a dict of
    arguments, and none kept aside in ``additional_kwargs``. Returns the index of the first item
    that is not such a message's class (``len(items)`` at the end), or ``None`` at a message
    that is not plain, which ``message`` reads or names the error of."""
    add_role, add_row, add_count = (
        skeleton.roles.append,
        skeleton.call_rows.append,
        skeleton.call_counts.append,
    )
    known_class = _SCANNABLE.get
    known_role: Callable[[Any], Role | None] = LANGCHAIN_ROLES.get  # any hashable: None if unknown
    call_lists: list[list[Any]] = []  # each message's calls, read after the messages
    add_calls = call_lists.append
    stop = len(items)
    # Every check inline, as in ``chat.scan``: anything unexpected raises.
    try:
        for index in range(start, stop):
            item = items[index]
            if not (known_class(type(item)) or scannable(item)):
                stop = index  # another form: its own scanner reads on
                break
            fields = item.__dict__
            role = known_role(fields["type"])
            if role is None or type(fields["content"]) is list:
                return None  # a chat message (its own role), or content blocks
            raw_calls = fields.get("tool_calls")
            if raw_calls:
                if role != "assistant" or type(raw_calls) is not list:
                    return None
                add_calls(raw_calls)
                add_row(index)
                add_count(len(raw_calls))
            elif fields.get("additional_kwargs", {}).get("tool_calls"):
                return None  # OpenAI-style calls kept aside: ``message`` reads them
            add_role(role)
    except (KeyError, TypeError, AttributeError):
        return None
    return stop if _scan_calls(call_lists, skeleton) else None


def _scan_calls(call_lists: list[list[Any]], skeleton: Skeleton) -> bool:
    """Record the tool name and arguments of every call in ``call_lists`` (one list per message,
    in order) in ``skeleton``: whether each is a call ``_call`` reads, with a name and a dict of
    arguments."""
    add_name, add_args = skeleton.names.append, skeleton.args.append
    try:
        for calls in call_lists:
            for raw in calls:
                name, call_args = raw["name"], raw["args"]
                if type(name) is not str or not name or type(call_args) is not dict:
                    return False
                add_name(name)
                add_args(call_args)
    except (KeyError, TypeError, AttributeError):  # a missing field, a call that is not a dict
        return False
    if call_lists:
        skeleton.texts_only = False
    return True
