"""A user played by a chat model (openevals' ``create_llm_simulated_user``): it is shown the
conversation with the roles swapped (its own messages as the assistant's, the app's replies as
the user's; tool calls and tool results left out) under the persona's system prompt, and its
answer is the next user message. The model is asked through its ordinary ``invoke`` /
``ainvoke``, so whatever records or replays chat-model calls covers the simulated user too.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import SimulationError

__all__ = [
    "OPENING_REQUEST",
    "create_async_llm_simulated_user",
    "create_llm_simulated_user",
    "persona_messages",
]

OPENING_REQUEST = (
    "Write the first message of the conversation, as the user you are told to be. Reply with "
    "that message only."
)
"""What the persona's model is asked when the conversation has no message yet."""


def _make_model(model: Any, client: Any, where: str) -> Any:
    from langchain_core.language_models import BaseChatModel

    if model is None and client is None:
        raise SimulationError(
            "a simulated user needs a chat model: pass client= (a langchain-core chat model) or "
            "model= (a 'provider:model' string such as 'openai:gpt-4o-mini')",
            field=f"{where}.model",
        )
    if model is not None and client is not None:
        raise SimulationError(
            "pass either model= (a string) or client= (a chat model), not both",
            field=f"{where}.model",
        )
    if client is not None:
        if not isinstance(client, BaseChatModel):
            raise SimulationError(
                f"must be a langchain-core chat model (BaseChatModel), got {type(client).__name__}",
                field=f"{where}.client",
            )
        return client
    if not isinstance(model, str) or not model.strip():
        raise SimulationError(
            f"must be a 'provider:model' string, got {model!r}", field=f"{where}.model"
        )
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ImportError(
            f"model={model!r} needs the langchain package to make the chat model: "
            "pip install 'pytest-agenttraj[judges]', or pass client=<a langchain-core chat model>"
        ) from None
    return init_chat_model(model)


def _check_persona(system: Any, where: str) -> str:
    if not isinstance(system, str) or not system.strip():
        raise SimulationError(
            f"the persona's system prompt must be a non-empty str, got {system!r}",
            field=f"{where}.system",
        )
    return system


def persona_messages(system: str, trajectory: Sequence[Any]) -> list[dict[str, Any]]:
    """What the persona's model is shown: its system prompt, then the conversation's user and
    final assistant messages with their roles swapped (or ``OPENING_REQUEST`` when there are
    none)."""
    from langchain_core.messages import convert_to_openai_messages

    shown: list[dict[str, Any]] = []
    for message in convert_to_openai_messages(list(trajectory)):
        role = message.get("role")
        if role == "user":
            shown.append({"role": "assistant", "content": message.get("content", "")})
        elif role == "assistant" and not message.get("tool_calls"):
            shown.append({"role": "user", "content": message.get("content", "")})
    if not shown:
        shown = [{"role": "user", "content": OPENING_REQUEST}]
    return [{"role": "system", "content": system}, *shown]


def _fixed(fixed_responses: Sequence[Any] | None, turn_counter: int) -> Any:
    if fixed_responses and turn_counter < len(fixed_responses):
        reply = fixed_responses[turn_counter]
        if isinstance(reply, str):
            return {"role": "user", "content": reply, "id": str(uuid.uuid4())}
        return reply
    return None


def _as_user(reply: Any) -> dict[str, Any]:
    content = reply.content if hasattr(reply, "content") else reply
    return {
        "role": "user",
        "content": content,
        "id": getattr(reply, "id", None) or str(uuid.uuid4()),
    }


def _checked_fixed(fixed_responses: Any) -> list[Any] | None:
    if fixed_responses is None:
        return None
    if isinstance(fixed_responses, str | bytes | Mapping) or not isinstance(
        fixed_responses, Sequence
    ):
        raise SimulationError(
            "must be a list of replies (strings or messages), one per turn",
            field="fixed_responses",
        )
    return list(fixed_responses)


def create_llm_simulated_user(
    *,
    system: str,
    model: str | None = None,
    client: Any = None,
    fixed_responses: Sequence[Any] | None = None,
) -> Callable[..., dict[str, Any]]:
    """A user for ``run_multiturn_simulation`` played by a chat model under the persona
    ``system``: ``client`` (a langchain-core chat model) or ``model`` (a ``"provider:model"``
    string, made with langchain's ``init_chat_model``). ``fixed_responses`` are said first, one
    per turn; then the model speaks.

    Example::

        user = create_llm_simulated_user(
            system="You want a refund for a broken kettle.", client=model
        )
    """
    persona = _check_persona(system, "create_llm_simulated_user")
    chat = _make_model(model, client, "create_llm_simulated_user")
    fixed = _checked_fixed(fixed_responses)

    def simulated_user(
        trajectory: Sequence[Any], *, turn_counter: int = 0, **_ignored: Any
    ) -> dict[str, Any]:
        given = _fixed(fixed, turn_counter)
        if given is not None:
            return dict(given) if isinstance(given, Mapping) else given
        return _as_user(chat.invoke(persona_messages(persona, trajectory)))

    simulated_user.system = persona  # type: ignore[attr-defined]  # the persona, for reports
    return simulated_user


def create_async_llm_simulated_user(
    *,
    system: str,
    model: str | None = None,
    client: Any = None,
    fixed_responses: Sequence[Any] | None = None,
) -> Callable[..., Any]:
    """The async twin of ``create_llm_simulated_user`` (the model asked with ``ainvoke``), for
    ``run_multiturn_simulation_async``."""
    persona = _check_persona(system, "create_async_llm_simulated_user")
    chat = _make_model(model, client, "create_async_llm_simulated_user")
    fixed = _checked_fixed(fixed_responses)

    async def simulated_user(
        trajectory: Sequence[Any], *, turn_counter: int = 0, **_ignored: Any
    ) -> Any:
        given = _fixed(fixed, turn_counter)
        if given is not None:
            return dict(given) if isinstance(given, Mapping) else given
        return _as_user(await chat.ainvoke(persona_messages(persona, trajectory)))

    simulated_user.system = persona  # type: ignore[attr-defined]  # the persona, for reports
    return simulated_user
