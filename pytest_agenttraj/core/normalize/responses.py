"""OpenAI Responses API items: ``message``, ``function_call`` (and ``custom_tool_call``),
``function_call_output``, ``reasoning``. Consecutive items of one model turn (its text and its
calls) become one assistant message."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import TrajectoryFormatError
from ..model import Message, ToolCall
from .chat import dict_message
from .fields import Memo, call_name, opt_str, parse_args

__all__ = ["RESPONSES_TYPES", "Turn", "item_type"]

RESPONSES_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "custom_tool_call",
        "custom_tool_call_output",
    }
)
_CALLS = ("function_call", "custom_tool_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def item_type(item: Any) -> str | None:
    """The Responses item type of ``item``, or ``None`` when it is not a Responses item."""
    if type(item) is not dict and not isinstance(item, Mapping):
        return None
    kind = item.get("type")
    if type(kind) is not str:
        return None  # only a string can name a Responses item type
    if kind == "message" or ("role" not in item and kind in RESPONSES_TYPES):
        return kind
    return None


class Turn:
    """The model turn being read: its text and calls wait until an item of another turn (or the
    end of the list) closes them into one assistant message."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []
        self.text: Any = None

    @property
    def open(self) -> bool:
        """Whether a turn's text or calls wait to be closed."""
        return bool(self.calls) or self.text is not None

    def close(self, out: list[Message]) -> None:
        """Append the pending assistant message, if any."""
        if self.calls or self.text is not None:
            out.append(Message("assistant", self.text or "", tuple(self.calls)))
            self.calls, self.text = [], None

    def take(
        self, item: Mapping[str, Any], kind: str, index: int, memo: Memo, out: list[Message]
    ) -> None:
        """Read one Responses item into ``out`` (or into the pending turn)."""
        if kind in _CALLS:
            self.calls.append(_call(item, index, memo))
            return
        if kind == "reasoning":
            return
        self.close(out)
        if kind in _OUTPUTS:
            out.append(_output(item, index))
            return
        message = dict_message(item, index, memo)
        if message.role == "assistant" and not message.tool_calls:
            self.text = message.content  # the same model turn may go on with calls
        else:
            out.append(message)


def _call(item: Mapping[str, Any], index: int, memo: Memo) -> ToolCall:
    name = call_name(item.get("name"), index, "name")
    if item.get("type") == "custom_tool_call" and isinstance(item.get("input"), str):
        args: dict[str, Any] = {"input": item["input"]}  # free-form text input, not JSON
    else:
        args = parse_args(item.get("arguments", item.get("input")), name, index, "arguments", memo)
    return ToolCall(name, args, opt_str(item.get("call_id") or item.get("id")))


def _output(item: Mapping[str, Any], index: int) -> Message:
    call_id = item.get("call_id")
    if not isinstance(call_id, str):
        raise TrajectoryFormatError(
            f"a {item.get('type')} item needs a 'call_id' string", index=index, field="call_id"
        )
    return Message("tool", item.get("output", ""), tool_call_id=call_id)
