"""How a simulated conversation talks to the app and the user: every message in OpenAI's chat
format with an id (as openevals keeps them), and one way to call each kind of app: a function
``app(message, thread_id=...)``, a LangChain runnable (given the whole conversation), or a
compiled LangGraph graph (given the new message on the conversation's thread when it has a
checkpointer, else the whole conversation), whose answer is every message the turn added.

langchain-core is imported inside the functions that need it; LangGraph is recognised by what a
compiled graph has (``get_state``, ``invoke``, ``checkpointer``), never imported.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import SimulationError

__all__ = [
    "AppAdapter",
    "Call",
    "accepted_keywords",
    "chat_message",
    "chat_messages",
]

ChatMessage = dict[str, Any]


@dataclass(frozen=True)
class Call:
    """One call the conversation needs made: ``run`` for the synchronous driver, ``arun`` (when
    the callee has an async face) for the asynchronous one, which otherwise awaits whatever
    ``run`` returns if it is awaitable. ``field`` names the callee in errors."""

    run: Callable[[], Any]
    field: str
    arun: Callable[[], Awaitable[Any]] | None = None


def _describe(value: Any) -> str:
    if isinstance(value, Mapping):
        keys = ", ".join(map(repr, list(value)[:6])) or "no keys"
        return f"a dict with {keys}"
    return f"{type(value).__name__} {value!r}"[:120]


def chat_message(value: Any, *, text_role: str, turn: int, field: str) -> ChatMessage:
    """``value`` (a message dict, a LangChain message, a provider SDK's pydantic message, or a
    str said by ``text_role``) as an OpenAI chat dict with an id; anything else is a
    ``SimulationError`` naming turn and field."""
    from langchain_core.messages import BaseMessage, convert_to_openai_messages

    if isinstance(value, str):
        value = {"role": text_role, "content": value}
    elif not isinstance(value, BaseMessage | Mapping) and callable(
        getattr(value, "model_dump", None)
    ):
        value = value.model_dump(exclude_none=True)  # an SDK's message object (OpenAI's)
    if isinstance(value, BaseMessage):
        given_id = value.id
    elif isinstance(value, Mapping) and ("role" in value or "type" in value):
        given_id = value.get("id")
    else:
        raise SimulationError(
            f"returned {_describe(value)}, which is not a message: return a dict with 'role' "
            "and 'content', a LangChain message or a str",
            turn=turn,
            field=field,
        )
    try:
        converted = dict(convert_to_openai_messages([value])[0])
    except Exception as error:  # langchain-core's reasons vary: say which message it was
        raise SimulationError(
            f"returned a message that cannot be read ({type(error).__name__}: {error})",
            turn=turn,
            field=field,
        ) from error
    if converted.get("id") is None:
        converted["id"] = given_id if given_id is not None else str(uuid.uuid4())
    return converted


def chat_messages(value: Any, *, turn: int, field: str) -> list[ChatMessage]:
    """What an app returned (a message, a list of them, or a dict with ``messages``) as chat
    dicts; nothing at all is an error naming the turn, never an empty turn that passes."""
    if value is None:
        raise SimulationError(
            "returned nothing (None): an app returns its answer, a message, a list of messages "
            "or a dict with 'messages'",
            turn=turn,
            field=field,
        )
    items: Any = value
    if isinstance(value, Mapping) and "role" not in value and "type" not in value:
        if "messages" not in value:
            raise SimulationError(
                f"returned {_describe(value)}: a dict answer needs 'role' (one message) or "
                "'messages' (a list of them)",
                turn=turn,
                field=field,
            )
        items = value["messages"]
    if not isinstance(items, list | tuple):
        items = [items]
    if not items:
        raise SimulationError(
            "returned no messages: the app must answer each turn", turn=turn, field=field
        )
    return [
        chat_message(item, text_role="assistant", turn=turn, field=f"{field}[{index}]")
        if len(items) > 1
        else chat_message(item, text_role="assistant", turn=turn, field=field)
        for index, item in enumerate(items)
    ]


def accepted_keywords(function: Any, offered: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords of ``offered`` that ``function`` takes (all of them with ``**kwargs``), so
    that openevals-style callables keep working while newer ones ask for more."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a builtin or C callable: offer nothing extra
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return dict(offered)
    names = {
        p.name
        for p in parameters
        if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    }
    return {name: value for name, value in offered.items() if name in names}


def _is_graph(app: Any) -> bool:
    return callable(getattr(app, "get_state", None)) and callable(getattr(app, "invoke", None))


class AppAdapter:
    """Calls one kind of app for a turn; ``state`` gives a graph's ``get_state(config)`` (``None``
    for other apps), ``is_graph`` whether the conversation is also a graph trajectory."""

    def __init__(self, app: Any, thread_id: str) -> None:
        if not callable(app) and not callable(getattr(app, "invoke", None)):
            raise SimulationError(
                f"app must be a function, a LangChain runnable or a compiled LangGraph graph, "
                f"got {type(app).__name__}",
                field="app",
            )
        self.app = app
        self.thread_id = thread_id
        self.config: dict[str, Any] = {"configurable": {"thread_id": thread_id}}
        self.is_graph = _is_graph(app)
        self.threaded = self.is_graph and getattr(app, "checkpointer", None) not in (None, False)
        self.kind = (
            "graph" if self.threaded else "graph without checkpointer" if self.is_graph else None
        )
        if self.kind is None:
            self.kind = "runnable" if callable(getattr(app, "invoke", None)) else "function"

    def state(self) -> Any:
        """The graph's state on the conversation's thread (``graph.get_state(config)``)."""
        if not self.threaded:
            return None
        return self.app.get_state(self.config)

    def call(self, message: ChatMessage, history: Sequence[ChatMessage]) -> Call:
        """The call answering ``message`` (``history``: the conversation before it)."""
        app = self.app
        if self.threaded:
            return Call(
                lambda: self._graph_answer(app.invoke, message),
                "app",
                lambda: self._agraph_answer(message),
            )
        if self.is_graph:
            given = {"messages": [*history, message]}
            return Call(
                lambda: _tail(app.invoke(given), len(history) + 1),
                "app",
                lambda: _atail(app.ainvoke(given), len(history) + 1),
            )
        if self.kind == "runnable":
            conversation = [*history, message]
            return Call(lambda: app.invoke(conversation), "app", lambda: app.ainvoke(conversation))
        return Call(lambda: app(message, thread_id=self.thread_id), "app")

    def _known(self) -> int:
        values = getattr(self.app.get_state(self.config), "values", None) or {}
        return len(values.get("messages", ())) if isinstance(values, Mapping) else 0

    def _graph_answer(self, invoke: Callable[..., Any], message: ChatMessage) -> Any:
        known = self._known()
        return _tail(invoke({"messages": [message]}, config=self.config), known + 1)

    async def _agraph_answer(self, message: ChatMessage) -> Any:
        snapshot = await self.app.aget_state(self.config)
        values = getattr(snapshot, "values", None) or {}
        known = len(values.get("messages", ())) if isinstance(values, Mapping) else 0
        output = await self.app.ainvoke({"messages": [message]}, config=self.config)
        return _tail(output, known + 1)


def _tail(output: Any, start: int) -> Any:
    """The messages a graph's turn added (those after ``start`` in its state's ``messages``)."""
    if isinstance(output, Mapping) and isinstance(output.get("messages"), list | tuple):
        return list(output["messages"][start:])
    return output


async def _atail(output: Awaitable[Any], start: int) -> Any:
    return _tail(await output, start)
