"""Anthropic Messages content blocks: ``tool_use`` in assistant content becomes tool calls,
``tool_result`` in user content becomes tool messages. Thinking blocks stay content."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model import Message, ToolCall
from .fields import Memo, call_name, opt_str, parse_args, role

__all__ = ["has_tool_results", "tool_results", "tool_use_calls"]


def has_tool_results(content: list[Any]) -> bool:
    """Whether a content block list holds ``tool_result`` blocks."""
    return any(isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content)


def tool_results(item: Mapping[str, Any], content: list[Any], index: int) -> list[Message]:
    """The ``tool_result`` blocks of a message as tool messages; other blocks stay in a message
    of the original role after them."""
    original = role(item.get("role", item.get("type")), index)
    messages = []
    rest = []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "tool_result":
            messages.append(
                Message(
                    "tool",
                    block.get("content", ""),
                    tool_call_id=opt_str(block.get("tool_use_id")),
                )
            )
        else:
            rest.append(block)
    if rest:
        messages.append(Message(original, rest, id=opt_str(item.get("id"))))
    return messages


def tool_use_calls(content: list[Any], index: int, memo: Memo) -> tuple[tuple[ToolCall, ...], Any]:
    """The ``tool_use`` blocks of a content list as tool calls, and the content without them."""
    calls = []
    rest = []
    for position, block in enumerate(content):
        if isinstance(block, Mapping) and block.get("type") == "tool_use":
            field = f"content[{position}]"
            name = call_name(block.get("name"), index, f"{field}.name")
            args = parse_args(block.get("input"), name, index, f"{field}.input", memo)
            calls.append(ToolCall(name, args, opt_str(block.get("id"))))
        else:
            rest.append(block)
    if not calls:
        return (), content
    return tuple(calls), rest if rest else ""
