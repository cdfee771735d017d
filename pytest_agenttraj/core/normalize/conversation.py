"""Read a conversation with turns: a ``Conversation``, a mapping with ``turns`` (each turn a list
of messages or a mapping with ``messages``, as reference files write them), or any trajectory,
split into turns where the user speaks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import TrajectoryFormatError
from ..model import Conversation, Message, Trajectory, Turn

__all__ = ["is_turns_document", "split_turns", "turns_document"]


def is_turns_document(value: Any) -> bool:
    """Whether ``value`` is a mapping holding a conversation's ``turns``."""
    return isinstance(value, Mapping) and "turns" in value and "messages" not in value


def turns_document(value: Mapping[str, Any], read: Any) -> Conversation:
    """The conversation of a ``{"turns": [...]}`` mapping; ``read`` turns one turn's messages
    into a ``Trajectory``. Errors name the turn (from 1) and the message index inside it."""
    turns = value["turns"]
    if not isinstance(turns, list | tuple):
        raise TrajectoryFormatError(
            f"'turns' must be a list of turns, got {type(turns).__name__}", field="turns"
        )
    out: list[Turn] = []
    for number, turn in enumerate(turns, start=1):
        items = turn.get("messages") if isinstance(turn, Mapping) else turn
        if not isinstance(items, list | tuple):
            raise TrajectoryFormatError(
                "a turn is a list of messages or a mapping with 'messages', "
                f"got {type(turn).__name__}",
                turn=number,
            )
        try:
            trajectory = read(list(items))
        except TrajectoryFormatError as error:
            raise TrajectoryFormatError(
                error.problem, index=error.index, field=error.field, turn=number
            ) from None
        out.append(Turn(number, trajectory, _leading_user(trajectory.messages)))
    return Conversation(tuple(out))


def split_turns(trajectory: Trajectory) -> Conversation:
    """``trajectory`` cut into turns, each beginning where the user speaks after the agent has
    (messages before the first user message, a system prompt say, open the first turn)."""
    turns: list[list[Message]] = []
    agent_spoke = True
    for message in trajectory.messages:
        if message.role == "user" and agent_spoke:
            turns.append([])
            agent_spoke = False
        elif message.role != "user":
            agent_spoke = True
            if not turns:
                turns.append([])
        turns[-1].append(message)
    return Conversation(
        tuple(
            Turn(number, Trajectory(tuple(messages)), _leading_user(messages))
            for number, messages in enumerate(turns, start=1)
        )
    )


def _leading_user(messages: Sequence[Message]) -> int:
    count = 0
    for message in messages:
        if message.role not in ("user", "system", "developer"):
            break
        count += 1
    return count
