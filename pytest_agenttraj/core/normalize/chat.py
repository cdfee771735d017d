"""OpenAI chat-completion message dicts (and dicts of the same shape: ``{"role", "content",
"tool_calls"}``), with tool calls in the ``function`` form (``{"function": {"name",
"arguments"}}``, arguments as JSON text or a dict) or flat (``{"name", "args"}``). Anthropic
content blocks inside such dicts are read too.

``dict_message`` reads one message; ``scan`` is the fast path's reader of the same dicts, beside
it so that both agree on what a plain message is (see ``scan``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...errors import TrajectoryFormatError
from ..model import Message, Role, ToolCall
from . import anthropic
from .fields import ROLE_ALIASES, Memo, Skeleton, call_name, memo_object, parse_args, role

__all__ = ["dict_message", "dict_messages", "optional_str", "scan", "scannable_calls"]


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


def optional_str(value: Any) -> str | None:
    """An optional field of a chat dict or of one of its calls (``id``, ``name``,
    ``tool_call_id``): kept if it is exactly a ``str``, as ``dict_message`` keeps it."""
    return value if type(value) is str else None


def scan(items: list[Any], start: int, skeleton: Skeleton) -> int | None:
    """Record the chat dicts of ``items`` from ``start`` on in ``skeleton``, while they are
    *plain messages*: what ``dict_message`` reads as one message of text content (no ``type``,
    no content blocks), of a known role, whose ``tool_calls`` (only on assistant messages) are a
    list in the ``function`` form with arguments text, or flat with arguments as a dict. Returns
    the index of the first item that is not a dict (``len(items)`` at the end), or ``None`` at a
    dict that is not plain, which ``dict_message`` reads or names the error of. Arguments texts
    are not parsed here."""
    add_role, add_row, add_count = (
        skeleton.roles.append,
        skeleton.call_rows.append,
        skeleton.call_counts.append,
    )
    known_role: Callable[[Any], Role | None] = ROLE_ALIASES.get  # any hashable: None if unknown
    call_lists: list[list[Any]] = []  # each message's calls, read after the messages
    add_calls = call_lists.append
    stop = len(items)
    # Every check inline: this loop is the cost of each passing evaluation. Anything unexpected
    # (a missing key, a value of the wrong kind) raises, cheaper than testing each field.
    try:
        for index in range(start, stop):
            item = items[index]
            if type(item) is not dict:
                stop = index  # another form: its own scanner reads on
                break
            if "type" in item or type(item.get("content")) is list:
                return None  # a role given as type, a Responses item, or content blocks
            role = known_role(item.get("role"))
            raw_calls = item.get("tool_calls")
            if raw_calls:
                if role != "assistant" or type(raw_calls) is not list:
                    return None
                add_calls(raw_calls)
                add_row(index)
                add_count(len(raw_calls))
            elif role is None or (raw_calls is not None and type(raw_calls) is not list):
                return None
            add_role(role)
    except (KeyError, TypeError, AttributeError):  # an unhashable role, say
        return None
    return stop if _scan_calls(call_lists, skeleton) else None


def _scan_calls(call_lists: list[list[Any]], skeleton: Skeleton) -> bool:
    """Record the tool name and arguments of every call in ``call_lists`` (one list per message,
    in order) in ``skeleton``: whether each is a call ``dict_call`` reads, in the ``function``
    form with arguments text, or flat with arguments as a dict."""
    add_name, add_args = skeleton.names.append, skeleton.args.append
    kind: type  # what the arguments must be: text in the function form, a dict if flat
    flat = False
    try:
        for calls in call_lists:
            for raw in calls:
                function = raw.get("function")
                if function is None:  # the flat form, as reference files are read
                    name, given, kind = raw["name"], raw["args"], dict
                    flat = True
                else:
                    name, given, kind = function["name"], function["arguments"], str
                if type(given) is not kind or type(name) is not str or not name:
                    return False
                add_name(name)
                add_args(given)
    except (KeyError, TypeError, AttributeError):  # a missing field, a call that is not a dict
        return False
    if flat:
        skeleton.texts_only = False
    return True


def scannable_calls(raw_calls: Any) -> bool:
    """A cheap look at a message's ``tool_calls``: whether ``scan`` could read the first call
    (so that a trajectory of another call form is not scanned in vain)."""
    first = raw_calls[0] if type(raw_calls) is list else None
    if type(first) is not dict:
        return False
    function = first.get("function")
    if function is None:
        return type(first.get("args")) is dict
    return type(function) is dict and type(function.get("arguments")) is str
