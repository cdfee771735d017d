"""Turn any accepted trajectory input into a ``Trajectory``: the one place that knows formats.

Accepted: OpenAI chat-completion dicts (tool-call arguments as a JSON string or a dict, wrapped in
``function`` or flat ``name``/``args``), LangChain ``BaseMessage`` objects, a dict holding a
``messages`` list (LangGraph / agent state), a single message dict, OpenAI Responses API items
(``message``, ``function_call``, ``function_call_output``) and Anthropic Messages content blocks
(``tool_use`` in assistant content, ``tool_result`` in user content). Anything else raises
``TrajectoryFormatError`` naming the message index and the field.

langchain-core is never imported here: a LangChain message is recognised through the module the
caller already imported to build it.
"""

from __future__ import annotations

import json
import json.scanner
import sys
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from .errors import TrajectoryFormatError
from .model import Message, Role, ToolCall, Trajectory

__all__ = [
    "ChatSkeleton",
    "DeferredSides",
    "chat_skeleton",
    "may_have_skeleton",
    "to_trajectory",
]

_ROLE_ALIASES: dict[str, Role] = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "model": "assistant",
    "system": "system",
    "developer": "developer",
    "tool": "tool",
    "function": "function",
}
_RESPONSES_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "custom_tool_call",
        "custom_tool_call_output",
    }
)


# The JSON scanner json.loads runs, called directly: it skips the wrapper's per-call checks, which
# are a third of the cost for short argument texts. Anything it does not parse to the end (leading
# or trailing space, errors) goes through json.loads, so results and errors are the same.
_scan_json: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(
    json.JSONDecoder()  # type: ignore[arg-type]  # typeshed declares the class, not its context
)
# Building the named tuples with tuple.__new__ skips their Python-level __new__; every field is
# given, in order.
_new = tuple.__new__

Memo = dict[str, dict[str, Any]]
"""Arguments text -> parsed dict, shared by both sides of one evaluation so that each distinct
text is parsed once; calls whose text was identical then share one dict."""


def to_trajectory(value: Any, *, side: str | None = None, memo: Memo | None = None) -> Trajectory:
    """Normalise ``value`` (any accepted input) into a ``Trajectory``.

    ``side`` ("outputs" / "reference_outputs") is named in errors so the user knows which argument
    was wrong; ``memo`` lets the two sides of one evaluation share parsed arguments.
    """
    try:
        return _to_trajectory(value, {} if memo is None else memo)
    except TrajectoryFormatError as error:
        raise error.with_side(side) if side else error from None


def _to_trajectory(value: Any, memo: Memo) -> Trajectory:
    if type(value) is list:
        return Trajectory(tuple(_messages(value, memo)))
    if isinstance(value, Trajectory):
        return value
    if value is None:
        raise TrajectoryFormatError("expected a trajectory (a list of messages), got None")
    if isinstance(value, Message):
        return Trajectory((value,))
    if isinstance(value, Mapping):
        if "role" in value or ("type" in value and "messages" not in value):
            items: list[Any] = [value]
        elif "messages" in value:
            messages = value["messages"]
            if not isinstance(messages, list | tuple):
                raise TrajectoryFormatError(
                    f"'messages' must be a list of messages, got {type(messages).__name__}",
                    field="messages",
                )
            items = list(messages)
        else:
            keys = ", ".join(map(repr, list(value)[:8])) or "none"
            raise TrajectoryFormatError(
                "a dict trajectory must be a message (with 'role') or hold a 'messages' list; "
                f"got keys {keys}"
            )
    elif isinstance(value, list | tuple):
        items = list(value)
    elif _is_langchain_message(value):
        items = [value]
    else:
        raise TrajectoryFormatError(
            f"expected a list of messages or a dict with 'messages', got {type(value).__name__}"
        )
    return Trajectory(tuple(_messages(items, memo)))


def _messages(items: list[Any], memo: Memo) -> list[Message]:
    out = _chat_messages(items, memo)
    if len(out) == len(items):
        return out
    append = out.append
    pending: list[ToolCall] = []  # Responses function_call items waiting to become one message
    pending_text: Any = None
    for index in range(len(out), len(items)):
        item = items[index]
        if type(item) is dict and "role" in item and "type" not in item:
            if pending or pending_text is not None:
                append(Message("assistant", pending_text or "", tuple(pending)))
                pending, pending_text = [], None
            content = item.get("content")
            if type(content) is list and _has_tool_results(content):
                out.extend(_tool_results(item, content, index))
            else:
                append(_dict_message(item, index, memo))
        elif isinstance(item, Mapping):
            kind = item.get("type")
            if type(kind) is not str:
                kind = None  # only a string can name a Responses item type
            if ("role" not in item and kind in _RESPONSES_TYPES) or kind == "message":
                if kind in ("function_call", "custom_tool_call"):
                    pending.append(_responses_call(item, index, memo))
                    continue
                if kind == "reasoning":
                    continue
                if pending or pending_text is not None:
                    append(Message("assistant", pending_text or "", tuple(pending)))
                    pending, pending_text = [], None
                if kind in ("function_call_output", "custom_tool_call_output"):
                    append(_responses_output(item, index))
                    continue
                message = _dict_message(item, index, memo)
                if message.role == "assistant" and not message.tool_calls:
                    pending_text = message.content  # the same model turn may go on with calls
                    continue
                append(message)
                continue
            if pending or pending_text is not None:
                append(Message("assistant", pending_text or "", tuple(pending)))
                pending, pending_text = [], None
            content = item.get("content")
            if isinstance(content, list) and _has_tool_results(content):
                out.extend(_tool_results(item, content, index))
            else:
                append(_dict_message(item, index, memo))
        elif isinstance(item, Message):
            append(item)
        elif _is_langchain_message(item):
            append(_langchain_message(item, index, memo))
        else:
            raise TrajectoryFormatError(
                f"expected a message dict or a LangChain message, got {type(item).__name__}",
                index=index,
            )
    if pending or pending_text is not None:
        append(Message("assistant", pending_text or "", tuple(pending)))
    return out


def _chat_messages(items: list[Any], memo: Memo) -> list[Message]:
    """The leading run of plain chat dicts (the common case, kept short): a known role, text
    content, calls only on assistant messages. Stops at the first item that is anything else,
    for ``_messages`` to take over from there."""
    out: list[Message] = []
    append = out.append
    for index, item in enumerate(items):
        if type(item) is not dict or "type" in item:
            break
        raw_role = item.get("role")
        content = item.get("content")
        if type(raw_role) is not str or type(content) is list:
            break
        role = _ROLE_ALIASES.get(raw_role)
        raw_calls = item.get("tool_calls")
        if raw_calls:
            if type(raw_calls) is not list or role != "assistant":
                break
            calls = _chat_calls(raw_calls, index, memo)
        elif role is None or (raw_calls is not None and type(raw_calls) is not list):
            break
        else:
            calls = ()
        call_id, name, message_id = item.get("tool_call_id"), item.get("name"), item.get("id")
        append(
            _new(
                Message,
                (
                    role,
                    "" if content is None else content,
                    calls,
                    call_id if type(call_id) is str else None,
                    name if type(name) is str else None,
                    message_id if type(message_id) is str else None,
                ),
            )
        )
    return out


class ChatSkeleton(NamedTuple):
    """What a verdict on a passing trajectory needs, without building its messages: which
    messages make calls and how many, each call's tool name and arguments text (in call order),
    and the messages themselves for their roles (only strict mode asks)."""

    messages: list[dict[str, Any]]
    call_rows: list[int]
    call_counts: list[int]
    names: list[str]
    texts: list[str]

    def roles(self) -> list[Role | None]:
        known_role: Callable[[Any], Role | None] = _ROLE_ALIASES.get
        return [known_role(item.get("role")) for item in self.messages]


def chat_skeleton(value: Any, valid: set[str], *, known_only: bool = False) -> ChatSkeleton | None:
    """The skeleton of ``value`` when it is a list of plain chat dicts (a known role, text
    content, calls only on assistant messages, each in OpenAI's ``function`` form with arguments
    text that is one JSON object); else ``None``, and ``to_trajectory`` decides and explains.
    Each distinct arguments text is parsed once to check it, and remembered in ``valid``; the
    parsed value is dropped at once (keeping it would cost more than parsing again in the rare
    case the trajectory is built later). With ``known_only``, a text not in ``valid`` already
    ends the walk (``None``): the caller knows such a call could not pair."""
    if type(value) is not list:
        return None
    rows: list[int] = []
    counts: list[int] = []
    names: list[str] = []
    texts: list[str] = []
    add_row, add_count, add_name, add_text = rows.append, counts.append, names.append, texts.append
    known_role: Callable[[Any], Role | None] = _ROLE_ALIASES.get  # any hashable: None if unknown
    checked, check = valid.__contains__, valid.add
    # Anything unexpected (a missing key, a value of the wrong kind) raises KeyError or
    # TypeError below, and the full normaliser then decides: cheaper than testing each field.
    try:
        for index, item in enumerate(value):
            if type(item) is not dict or "type" in item or type(item.get("content")) is list:
                return None
            role = known_role(item.get("role"))
            raw_calls = item.get("tool_calls")
            if raw_calls:
                if role != "assistant" or type(raw_calls) is not list:
                    return None
                for raw in raw_calls:
                    function = raw["function"]
                    name = function["name"]
                    text = function["arguments"]
                    if type(name) is not str or not name or type(text) is not str:
                        return None
                    if not checked(text):
                        if known_only or _scan_object(text) is None:
                            return None
                        check(text)
                    add_name(name)
                    add_text(text)
                add_row(index)
                add_count(len(raw_calls))
            elif role is None or (raw_calls is not None and type(raw_calls) is not list):
                return None
    except (KeyError, TypeError):
        return None
    return ChatSkeleton(value, rows, counts, names, texts)


def may_have_skeleton(value: Any) -> bool:
    """A cheap look at ``value`` up to its first tool call: whether ``chat_skeleton`` could get
    past it, so that a trajectory of another form is not walked in vain."""
    if type(value) is not list:
        return False
    for item in value:
        if type(item) is not dict:
            return False
        calls = item.get("tool_calls")
        if calls:
            first = calls[0] if type(calls) is list else None
            function = first.get("function") if type(first) is dict else None
            return type(function) is dict and type(function.get("arguments")) is str
    return True


class DeferredSides:
    """The two trajectories of one evaluation, normalised when first read: a verdict reached
    from skeletons does not need them, a diff or a caller inspecting the report does. The message
    lists are copied now; their dicts are read when the trajectories are built."""

    __slots__ = ("_built", "_items")

    def __init__(self, outputs: list[Any], reference_outputs: list[Any]) -> None:
        self._items = (list(outputs), list(reference_outputs))
        self._built: tuple[Trajectory, Trajectory] | None = None

    def _trajectories(self) -> tuple[Trajectory, Trajectory]:
        if self._built is None:
            outputs, reference = self._items
            memo: Memo = {}
            self._built = (
                to_trajectory(outputs, side="outputs", memo=memo),
                to_trajectory(reference, side="reference_outputs", memo=memo),
            )
        return self._built

    @property
    def output(self) -> Trajectory:
        return self._trajectories()[0]

    @property
    def reference(self) -> Trajectory:
        return self._trajectories()[1]

    def __getstate__(self) -> tuple[Trajectory, Trajectory]:
        return self._trajectories()

    def __setstate__(self, state: tuple[Trajectory, Trajectory]) -> None:
        self._items = ([], [])
        self._built = state


def _role(raw: Any, index: int, field: str = "role") -> Role:
    if raw is None:
        raise TrajectoryFormatError("the message has no role", index=index, field=field)
    role = _ROLE_ALIASES.get(raw) if isinstance(raw, str) else None
    if role is None:
        raise TrajectoryFormatError(
            f"unknown role {raw!r}; expected one of user, assistant, system, developer, tool, "
            "function (or the aliases human, ai)",
            index=index,
            field=field,
        )
    return role


def _has_tool_results(content: list[Any]) -> bool:
    return any(isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content)


def _tool_results(item: Mapping[str, Any], content: list[Any], index: int) -> list[Message]:
    """Anthropic ``tool_result`` blocks of a user message become tool messages; other blocks
    stay in a message of the original role after them."""
    role = _role(item.get("role", item.get("type")), index)
    messages = []
    rest = []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "tool_result":
            call_id = block.get("tool_use_id")
            messages.append(
                Message(
                    "tool",
                    block.get("content", ""),
                    tool_call_id=call_id if isinstance(call_id, str) else None,
                )
            )
        else:
            rest.append(block)
    if rest:
        messages.append(Message(role, rest, id=_opt_str(item.get("id"))))
    return messages


def _dict_message(item: Mapping[str, Any], index: int, memo: Memo) -> Message:
    raw_role = item.get("role")
    role_field = "role"
    if raw_role is None and item.get("type") not in (None, "message"):
        raw_role, role_field = item.get("type"), "type"
    role = _ROLE_ALIASES.get(raw_role) if type(raw_role) is str else None
    if role is None:
        role = _role(raw_role, index, role_field)
    content = item.get("content")
    if content is None:
        content = ""
    calls: tuple[ToolCall, ...] = ()
    raw_calls = item.get("tool_calls")
    if raw_calls:
        if not isinstance(raw_calls, list | tuple):
            raise TrajectoryFormatError(
                f"'tool_calls' must be a list, got {type(raw_calls).__name__}",
                index=index,
                field="tool_calls",
            )
        calls = tuple([_dict_call(c, index, i, memo) for i, c in enumerate(raw_calls)])
    elif raw_calls is not None and not isinstance(raw_calls, list | tuple):
        raise TrajectoryFormatError(
            f"'tool_calls' must be a list, got {type(raw_calls).__name__}",
            index=index,
            field="tool_calls",
        )
    elif type(content) is list:
        calls, content = _anthropic_tool_use(content, index, memo)
    if calls and role != "assistant":
        raise TrajectoryFormatError(
            f"a {role!r} message has tool calls; only assistant messages make tool calls "
            "(is the role right?)",
            index=index,
            field="tool_calls",
        )
    call_id, name, message_id = item.get("tool_call_id"), item.get("name"), item.get("id")
    return Message(
        role,
        content,
        calls,
        call_id if type(call_id) is str else None,
        name if type(name) is str else None,
        message_id if type(message_id) is str else None,
    )


def _chat_calls(raw_calls: list[Any], index: int, memo: Memo) -> tuple[ToolCall, ...]:
    """The calls of one chat message; OpenAI's ``function``-wrapped form with text arguments
    already parsed (the common case) is handled inline, anything else by ``_dict_call``."""
    calls: list[ToolCall] = []
    append = calls.append
    for position, raw in enumerate(raw_calls):
        function = raw.get("function") if type(raw) is dict else None
        if type(function) is dict:
            name = function.get("name")
            text = function.get("arguments")
            if type(name) is str and name and type(text) is str:
                args = memo.get(text)
                if args is None:
                    args = _scan_object(text)
                    if args is None:
                        append(_dict_call(raw, index, position, memo))  # says what is wrong
                        continue
                    memo[text] = args
                call_id = raw.get("id")
                append(_new(ToolCall, (name, args, call_id if type(call_id) is str else None)))
                continue
        append(_dict_call(raw, index, position, memo))
    return tuple(calls)


def _dict_call(raw: Any, index: int, position: int, memo: Memo) -> ToolCall:
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
        raw_name = function.get("name")
        raw_args = function.get("arguments")
        field = "function.arguments"
        name_field = "function.name"
    else:
        raw_name = raw.get("name")
        field = "args" if "args" in raw else "arguments"
        raw_args = raw.get(field)
        name_field = "name"
    name: str = (
        raw_name
        if type(raw_name) is str and raw_name
        else _call_name(raw_name, index, f"tool_calls[{position}].{name_field}")
    )
    if type(raw_args) is str and raw_args:
        args = memo.get(raw_args)
        if args is None:
            args = _scan_object(raw_args)
            if args is None:
                # json.loads decides (surrounding space is fine) and _parse_args names any error
                args = _parse_args(raw_args, name, index, f"tool_calls[{position}].{field}")
            memo[raw_args] = args
    else:
        args = _parse_args(raw_args, name, index, f"tool_calls[{position}].{field}")
    call_id = raw.get("id")
    return _new(ToolCall, (name, args, call_id if type(call_id) is str else None))


def _scan_object(text: str) -> dict[str, Any] | None:
    """``text`` parsed by the JSON scanner if it is exactly one JSON object, else ``None``."""
    try:
        value, end = _scan_json(text, 0)
    except (StopIteration, ValueError):
        return None
    return value if end == len(text) and type(value) is dict else None


def _call_name(raw: Any, index: int, field: str) -> str:
    if not isinstance(raw, str) or not raw:
        got = "nothing" if raw is None else repr(raw)
        raise TrajectoryFormatError(
            f"a tool call needs a name (a non-empty string), got {got}", index=index, field=field
        )
    return raw


def _parse_args(raw: Any, tool: str, index: int, field: str) -> dict[str, Any]:
    """Arguments as a dict: JSON text is parsed once; ``""`` and ``None`` mean no arguments."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError as error:
            raise TrajectoryFormatError(
                f"arguments of tool {tool!r} are not valid JSON ({error}): {raw[:80]!r}",
                index=index,
                field=field,
            ) from None
    elif isinstance(raw, Mapping):
        return dict(raw)
    else:
        raise TrajectoryFormatError(
            f"arguments of tool {tool!r} must be a JSON object or its text, "
            f"got {type(raw).__name__}",
            index=index,
            field=field,
        )
    if not isinstance(parsed, dict):
        raise TrajectoryFormatError(
            f"arguments of tool {tool!r} must be a JSON object, got {type(parsed).__name__}",
            index=index,
            field=field,
        )
    return parsed


def _anthropic_tool_use(
    content: list[Any], index: int, memo: Memo
) -> tuple[tuple[ToolCall, ...], Any]:
    """Anthropic ``tool_use`` blocks become tool calls; other blocks (text, thinking) stay."""
    calls = []
    rest = []
    for position, block in enumerate(content):
        if isinstance(block, Mapping) and block.get("type") == "tool_use":
            field = f"content[{position}]"
            name = _call_name(block.get("name"), index, f"{field}.name")
            args = _parse_args(block.get("input"), name, index, f"{field}.input")
            calls.append(ToolCall(name, args, _opt_str(block.get("id"))))
        else:
            rest.append(block)
    if not calls:
        return (), content
    return tuple(calls), rest if rest else ""


def _responses_call(item: Mapping[str, Any], index: int, memo: Memo) -> ToolCall:
    name = _call_name(item.get("name"), index, "name")
    if item.get("type") == "custom_tool_call" and isinstance(item.get("input"), str):
        args: dict[str, Any] = {"input": item["input"]}  # free-form text input, not JSON
    else:
        raw_args = item.get("arguments", item.get("input"))
        args = _parse_args(raw_args, name, index, "arguments")
    return ToolCall(name, args, _opt_str(item.get("call_id") or item.get("id")))


def _responses_output(item: Mapping[str, Any], index: int) -> Message:
    call_id = item.get("call_id")
    if not isinstance(call_id, str):
        raise TrajectoryFormatError(
            f"a {item.get('type')} item needs a 'call_id' string", index=index, field="call_id"
        )
    return Message("tool", item.get("output", ""), tool_call_id=call_id)


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _is_langchain_message(value: Any) -> bool:
    module = sys.modules.get("langchain_core.messages")
    return module is not None and isinstance(value, module.BaseMessage)


_LANGCHAIN_TYPES: dict[str, Role] = {
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


def _langchain_call(raw: Any, index: int, position: int) -> ToolCall:
    """One entry of ``AIMessage.tool_calls``: ``{"name", "args", "id"}``."""
    field = f"tool_calls[{position}]"
    if not isinstance(raw, Mapping):
        raise TrajectoryFormatError(
            f"a tool call must be a dict, got {type(raw).__name__}", index=index, field=field
        )
    name = _call_name(raw.get("name"), index, f"{field}.name")
    args = _parse_args(raw.get("args"), name, index, f"{field}.args")
    return ToolCall(name, args, _opt_str(raw.get("id")))


def _langchain_message(message: Any, index: int, memo: Memo) -> Message:
    kind = getattr(message, "type", None)
    if kind in ("chat", "ChatMessageChunk"):
        role = _role(getattr(message, "role", None), index)
    else:
        role_or_none = _LANGCHAIN_TYPES.get(kind) if isinstance(kind, str) else None
        if role_or_none is None:
            raise TrajectoryFormatError(
                f"unsupported LangChain message type {kind!r} ({type(message).__name__})",
                index=index,
                field="type",
            )
        role = role_or_none
    content = message.content
    calls: tuple[ToolCall, ...] = ()
    structured = getattr(message, "tool_calls", None) or []
    if structured:
        if not isinstance(structured, list | tuple):
            raise TrajectoryFormatError(
                f"'tool_calls' must be a list, got {type(structured).__name__}",
                index=index,
                field="tool_calls",
            )
        calls = tuple(_langchain_call(c, index, i) for i, c in enumerate(structured))
        if isinstance(content, list):
            content = [
                b for b in content if not (isinstance(b, Mapping) and b.get("type") == "tool_use")
            ] or ""
    else:
        kwargs = getattr(message, "additional_kwargs", None)
        extra = kwargs.get("tool_calls") if isinstance(kwargs, Mapping) else None
        if extra:
            calls = _dict_message(
                {"role": "assistant", "tool_calls": extra}, index, memo
            ).tool_calls
        elif isinstance(content, list):
            calls, content = _anthropic_tool_use(content, index, memo)
    return Message(
        role,
        content if content is not None else "",
        calls,
        tool_call_id=_opt_str(getattr(message, "tool_call_id", None)),
        name=_opt_str(getattr(message, "name", None)),
        id=_opt_str(getattr(message, "id", None)),
    )
