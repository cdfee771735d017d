"""Small immutable value types: what a trajectory is once its source format is forgotten."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, TypedDict

__all__ = [
    "ROLES",
    "Conversation",
    "GraphTrajectory",
    "Message",
    "Role",
    "ToolCall",
    "Trajectory",
    "Turn",
]

Role = Literal["user", "assistant", "system", "developer", "tool", "function"]
ROLES: tuple[Role, ...] = ("user", "assistant", "system", "developer", "tool", "function")


_NO_ARGS: Mapping[str, Any] = MappingProxyType({})


class ToolCall(NamedTuple):
    """One tool call: the tool's name and its parsed arguments; the id is kept but never matched.

    Calls whose arguments came from the same JSON text in one evaluation share one parsed dict.
    """

    name: str
    args: Mapping[str, Any] = _NO_ARGS
    id: str | None = None


class Message(NamedTuple):
    """One chat message; ``content`` is a string or a list of content blocks, as given."""

    role: Role
    content: Any = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    id: str | None = None

    @property
    def text(self) -> str:
        """The message's text: the content string, or its text blocks joined."""
        return content_text(self.content)


@dataclass(frozen=True, slots=True)
class Trajectory:
    """An ordered sequence of messages, the unit every matcher compares."""

    messages: tuple[Message, ...] = ()

    def __len__(self) -> int:
        return len(self.messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __getitem__(self, index: int) -> Message:
        return self.messages[index]

    def tool_calls(self) -> Iterator[tuple[int, int, ToolCall]]:
        """Every tool call with its message index and its index inside that message."""
        for m_index, message in enumerate(self.messages):
            for c_index, call in enumerate(message.tool_calls):
                yield m_index, c_index, call


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a conversation: the user's message(s), then everything the agent produced in
    answer (tool calls, tool results, its reply). ``number`` counts from 1, as people do."""

    number: int
    messages: Trajectory
    user_messages: int = 1

    @property
    def user(self) -> Trajectory:
        """What the user said in this turn."""
        return Trajectory(self.messages.messages[: self.user_messages])

    @property
    def agent(self) -> Trajectory:
        """What the agent produced in this turn."""
        return Trajectory(self.messages.messages[self.user_messages :])


@dataclass(frozen=True, slots=True)
class Conversation:
    """A conversation of several turns. Every matcher, usage rule, graded metric and judge takes
    it as the one trajectory of all its messages (``trajectory``); the turns say where each
    began, so a report can name the turn a difference falls in."""

    turns: tuple[Turn, ...] = ()

    def __len__(self) -> int:
        return len(self.turns)

    def __iter__(self) -> Iterator[Turn]:
        return iter(self.turns)

    def __getitem__(self, index: int) -> Turn:
        return self.turns[index]

    @property
    def trajectory(self) -> Trajectory:
        """Every message of every turn, in order."""
        return Trajectory(tuple(m for turn in self.turns for m in turn.messages.messages))

    @property
    def starts(self) -> tuple[int, ...]:
        """The index in ``trajectory`` of each turn's first message."""
        starts: list[int] = []
        position = 0
        for turn in self.turns:
            starts.append(position)
            position += len(turn.messages)
        return tuple(starts)

    def turn_of(self, index: int) -> int | None:
        """The number of the turn holding message ``index`` of ``trajectory`` (``None`` when
        out of range)."""
        position = 0
        for turn in self.turns:
            position += len(turn.messages)
            if index < position:
                return turn.number
        return None


class GraphTrajectory(TypedDict):
    """A LangGraph run: per invocation of a thread, its inputs, its result and the nodes it ran.

    Each entry of ``steps`` lists node names in order; an entry may itself be a list of nodes that
    ran in the same superstep, whose order is then ignored.
    """

    inputs: list[Any] | None
    results: list[Any]
    steps: list[list[Any]]


def content_text(content: Any) -> str:
    """Text of a content value: a string as is, text blocks of a block list joined by newlines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text for text in map(_block_text, content) if text is not None)
    try:
        return str(content)
    except Exception:  # content is never matched: a broken __str__ must not break a comparison
        return f"<unprintable {type(content).__name__}>"


def _block_text(block: Any) -> str | None:
    """The text of one content block (thinking marked as such), ``None`` for other blocks."""
    if isinstance(block, str):
        return block
    if not isinstance(block, Mapping):
        return None
    text = block.get("text")
    if isinstance(text, str):
        return text
    if block.get("type") in ("thinking", "reasoning"):
        thought = block.get("thinking") or block.get("reasoning")
        if isinstance(thought, str):
            return f"[thinking] {thought}"
    return None
