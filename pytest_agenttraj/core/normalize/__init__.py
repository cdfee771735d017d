"""Turn any accepted trajectory input into a ``Trajectory``: the one place that knows formats.

Accepted: OpenAI chat-completion dicts (:mod:`.chat`), LangChain ``BaseMessage`` objects
(:mod:`.langchain`), a dict holding a ``messages`` list (LangGraph / agent state), a single message
dict, OpenAI Responses API items (:mod:`.responses`) and Anthropic Messages content blocks
(:mod:`.anthropic`), mixed freely; a conversation with turns (a ``Conversation`` or a mapping with
``turns``, :mod:`.conversation`) stands for all its messages in order. Anything else raises ``TrajectoryFormatError`` naming the
message index and the field.

Beside the readers of chat dicts and LangChain messages are the fast path's scanners of the same
forms (``chat.scan``, ``langchain.scan``, recording a ``fields.Skeleton``), so that what the fast
path takes for a plain message is decided next to the code that reads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import TrajectoryFormatError
from ..model import Conversation, Message, Trajectory
from . import chat, langchain, responses
from .conversation import is_turns_document, split_turns, turns_document
from .fields import Memo

__all__ = ["Memo", "to_conversation", "to_trajectory"]


def to_trajectory(value: Any, *, side: str | None = None, memo: Memo | None = None) -> Trajectory:
    """Normalise ``value`` (any accepted input) into a ``Trajectory``.

    ``side`` ("outputs" / "reference_outputs") is named in errors so the user knows which argument
    was wrong; ``memo`` lets the two sides of one evaluation share parsed arguments.
    """
    __tracebackhide__ = True
    try:
        return _to_trajectory(value, {} if memo is None else memo)
    except TrajectoryFormatError as error:
        raise error.with_side(side) if side else error from None


def to_conversation(value: Any, *, side: str | None = None) -> Conversation:
    """Normalise ``value`` into a ``Conversation``: a conversation as is, a ``{"turns": [...]}``
    mapping turn by turn, any other trajectory cut into turns where the user speaks."""
    __tracebackhide__ = True
    try:
        if isinstance(value, Conversation):
            return value
        memo: Memo = {}
        if is_turns_document(value):
            return turns_document(value, lambda items: _to_trajectory(items, memo))
        return split_turns(_to_trajectory(value, memo))
    except TrajectoryFormatError as error:
        raise error.with_side(side) if side else error from None


def _to_trajectory(value: Any, memo: Memo) -> Trajectory:
    if isinstance(value, Trajectory):
        return value
    if isinstance(value, Conversation):
        return value.trajectory
    if is_turns_document(value):
        return turns_document(value, lambda items: _to_trajectory(items, memo)).trajectory
    return Trajectory(tuple(_messages(_items(value), memo)))


def _items(value: Any) -> Sequence[Any]:
    """The list of message-like items ``value`` stands for."""
    if isinstance(value, Message) or langchain.is_message(value):
        return [value]
    if isinstance(value, list | tuple):
        return value
    if value is None:
        raise TrajectoryFormatError("expected a trajectory (a list of messages), got None")
    if not isinstance(value, Mapping):
        raise TrajectoryFormatError(
            f"expected a list of messages or a dict with 'messages', got {type(value).__name__}"
        )
    if "role" in value or ("type" in value and "messages" not in value):
        return [value]
    if "messages" not in value:
        keys = ", ".join(map(repr, list(value)[:8])) or "none"
        raise TrajectoryFormatError(
            "a dict trajectory must be a message (with 'role') or hold a 'messages' list; "
            f"got keys {keys}"
        )
    messages = value["messages"]
    if not isinstance(messages, list | tuple):
        raise TrajectoryFormatError(
            f"'messages' must be a list of messages, got {type(messages).__name__}",
            field="messages",
        )
    return messages


def _messages(items: Sequence[Any], memo: Memo) -> list[Message]:
    out: list[Message] = []
    turn = responses.Turn()
    for index, item in enumerate(items):
        if type(item) is dict and "type" not in item:  # a chat message dict: the common case
            if turn.open:
                turn.close(out)
            if type(item.get("content")) is list:  # content blocks, maybe tool results
                out.extend(chat.dict_messages(item, index, memo))
            else:
                out.append(chat.dict_message(item, index, memo))
            continue
        kind = responses.item_type(item)
        if kind is not None:
            turn.take(item, kind, index, memo, out)
            continue
        turn.close(out)
        if isinstance(item, Mapping):
            out.extend(chat.dict_messages(item, index, memo))
        elif isinstance(item, Message):
            out.append(item)
        elif langchain.is_message(item):
            out.append(langchain.message(item, index, memo))
        else:
            raise TrajectoryFormatError(
                f"expected a message dict or a LangChain message, got {type(item).__name__}",
                index=index,
            )
    turn.close(out)
    return out
