"""The multi-turn loop beyond openevals' own tests: each kind of app (a function, a runnable, a
``create_agent`` agent with and without a checkpointer), stopping conditions that see the
graph's state, stop reasons, and every error naming the turn and the field."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import MemorySaver

from pytest_agenttraj import (
    SimulationError,
    assert_tool_usage,
    create_async_llm_simulated_user,
    create_llm_simulated_user,
    run_multiturn_simulation,
    run_multiturn_simulation_async,
    to_trajectory,
)
from pytest_agenttraj.testing import ScriptedChatModel, tool_call


def look_up_order(order: str) -> str:
    """Look an order up."""
    return f"order {order}: a kettle, bought 40 days ago"


def refund_agent(script: list[Any], *, checkpointer: bool = True) -> Any:
    return create_agent(
        ScriptedChatModel(script),
        tools=[look_up_order],
        system_prompt="Refunds are never granted after 30 days.",
        checkpointer=MemorySaver() if checkpointer else None,
    )


LOOKUP = {"tool_calls": [tool_call("look_up_order", order="7")]}


def test_a_graph_app_answers_on_one_thread_with_every_message_of_its_turn() -> None:
    agent = refund_agent([LOOKUP, "That order is past 30 days: no refund.", "Still no."])
    seen: list[int] = []

    def stop(_trajectory: list[Any], *, state: Any, turn_counter: int) -> bool:
        seen.append(len(state.values["messages"]))
        return turn_counter == 2

    result = run_multiturn_simulation(
        app=agent, user=["Refund order 7", "Please!", "never said"], stopping_condition=stop
    )
    assert result["stop_reason"] == "stopping_condition"
    assert [m["role"] for m in result["trajectory"]] == [
        "user", "assistant", "tool", "assistant", "user", "assistant",
    ]  # fmt: skip
    assert seen == [4, 6]  # the graph's own state, after each turn
    conversation = result["conversation"]
    assert [len(turn.messages) for turn in conversation] == [4, 2]
    assert_tool_usage(conversation[0].messages, required=["look_up_order"])
    assert agent.get_state({"configurable": {"thread_id": result["thread_id"]}}).values


def test_a_graph_without_checkpointer_is_given_the_whole_conversation() -> None:
    model = ScriptedChatModel(["Hello.", "No refund."])
    agent = create_agent(model, tools=[look_up_order])
    result = run_multiturn_simulation(app=agent, user=["Hi", "Refund?"], max_turns=2)
    assert [m["content"] for m in result["trajectory"]] == ["Hi", "Hello.", "Refund?", "No refund."]
    assert [m.content for m in model.requests[1].messages] == ["Hi", "Hello.", "Refund?"]


def test_a_runnable_app_is_given_the_whole_conversation() -> None:
    model = ScriptedChatModel(["one", "two"])
    result = run_multiturn_simulation(app=model, user=["a", "b"], max_turns=2)
    assert result["stop_reason"] == "max_turns"
    assert [m["content"] for m in result["trajectory"]] == ["a", "one", "b", "two"]
    assert len(model.requests[1].messages) == 3


def test_a_user_returning_none_ends_the_conversation() -> None:
    def user(_trajectory: list[Any], *, turn_counter: int, **_: Any) -> Any:
        return None if turn_counter == 1 else "hello"

    result = run_multiturn_simulation(app=lambda _message, **_: "hi", user=user, max_turns=5)
    assert result["stop_reason"] == "user_ended"
    assert len(result["trajectory"]) == 2


def test_the_persona_model_speaks_after_the_fixed_replies_with_roles_swapped() -> None:
    persona = ScriptedChatModel(["But I really want it back."])
    user = create_llm_simulated_user(
        system="You want a refund.", client=persona, fixed_responses=["Refund please"]
    )
    result = run_multiturn_simulation(
        app=lambda _message, **_: AIMessage("No."), user=user, max_turns=2
    )
    assert result["trajectory"][2]["content"] == "But I really want it back."
    shown = persona.requests[0].messages
    assert [(m.type, m.content) for m in shown] == [
        ("system", "You want a refund."),
        ("ai", "Refund please"),
        ("human", "No."),
    ]


@pytest.mark.asyncio
async def test_async_graph_app_and_async_persona() -> None:
    agent = refund_agent(["No refunds after 30 days.", "No."])
    persona = ScriptedChatModel(["Why not?"])
    user = create_async_llm_simulated_user(system="Angry", client=persona, fixed_responses=["Hi"])

    async def stop(_trajectory: list[Any], **kwargs: Any) -> bool:
        return kwargs["turn_counter"] >= 2

    result = await run_multiturn_simulation_async(app=agent, user=user, stopping_condition=stop)
    assert result["stop_reason"] == "stopping_condition"
    assert [m["content"] for m in result["trajectory"]] == [
        "Hi", "No refunds after 30 days.", "Why not?", "No.",
    ]  # fmt: skip


# ------------------------------------------------------------------ errors name turn and field


def _error(**arguments: Any) -> SimulationError:
    arguments.setdefault("app", lambda _message, **_: "ok")
    arguments.setdefault("user", ["a", "b", "c"])
    with pytest.raises(SimulationError) as caught:
        run_multiturn_simulation(**arguments)
    return caught.value


def test_an_app_that_raises_is_the_runs_error_in_its_turn() -> None:
    def app(message: Any, **_: Any) -> str:
        if message["content"] == "b":
            raise ConnectionError("database down")
        return "fine"

    error = _error(app=app, max_turns=3)
    assert str(error) == "turn 2, app: raised ConnectionError: database down"
    assert isinstance(error.__cause__, ConnectionError)
    assert error.result["stop_reason"] == "error"
    assert len(error.result["trajectory"]) == 3  # the conversation up to the failing message


def test_an_evaluator_that_raises_is_an_error_not_a_dropped_result() -> None:
    def broken(**_: Any) -> Any:
        raise KeyError("score")

    error = _error(max_turns=1, trajectory_evaluators=[broken])
    assert str(error) == "turn 1, trajectory_evaluators[0]: raised KeyError: 'score'"


def test_a_user_returning_a_non_message() -> None:
    error = _error(user=lambda _trajectory, **_: 42, max_turns=2)
    assert error.turn == 1
    assert error.field == "user"
    assert "returned int 42, which is not a message" in str(error)


def test_an_app_returning_nothing() -> None:
    error = _error(app=lambda _message, **_: None, max_turns=1)
    assert str(error).startswith("turn 1, app: returned nothing (None)")
    error = _error(app=lambda _message, **_: {"answer": "x"}, max_turns=1)
    assert "a dict answer needs 'role'" in str(error)
    error = _error(app=lambda _message, **_: [], max_turns=1)
    assert "returned no messages" in str(error)


@pytest.mark.parametrize("max_turns", [0, -1, 1.5, True])
def test_max_turns_below_one_or_not_a_number(max_turns: Any) -> None:
    error = _error(max_turns=max_turns)
    assert error.field == "max_turns"
    assert str(error) == f"max_turns: must be a whole number >= 1, got {max_turns!r}"


def test_no_limit_at_all() -> None:
    assert "give max_turns or a stopping_condition" in str(_error())


def test_too_few_fixed_replies() -> None:
    error = _error(user=["only one"], max_turns=2)
    assert str(error) == (
        "turn 2, user: the list of user replies has 1; turn 2 needs another: give more replies "
        "or lower max_turns"
    )


def test_a_persona_without_a_model() -> None:
    with pytest.raises(SimulationError, match=r"^create_llm_simulated_user\.model: a simulated"):
        create_llm_simulated_user(system="angry")
    with pytest.raises(SimulationError, match=r"client: must be a langchain-core chat model"):
        create_async_llm_simulated_user(system="angry", client=object())
    with pytest.raises(SimulationError, match=r"system: the persona's system prompt"):
        create_llm_simulated_user(system="", client=ScriptedChatModel([]))


def test_an_async_app_in_the_sync_loop() -> None:
    async def app(_message: Any, **_: Any) -> str:
        return "hi"

    error = _error(app=app, max_turns=1)
    assert "app returned an awaitable: use run_multiturn_simulation_async" in str(error)


# ------------------------------------------------------------------ properties of the loop

_replies = st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=5)
_answers = st.lists(st.integers(min_value=0, max_value=2), min_size=5, max_size=5)


def _app(tool_rounds: list[int]) -> Any:
    """An app answering turn n with ``tool_rounds[n]`` tool call and result pairs, then text."""

    def app(message: Any, **_: Any) -> list[Any]:
        n = int(message["content"].split("|")[0])
        out: list[Any] = []
        for k in range(tool_rounds[n]):
            call_id = f"c{n}_{k}"
            out.append(
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": call_id, "type": "function",
                     "function": {"name": f"tool{k}", "arguments": "{}"}}]}
            )  # fmt: skip
            out.append({"role": "tool", "content": "r", "tool_call_id": call_id})
        out.append({"role": "assistant", "content": f"answer {n}"})
        return out

    return app


@settings(max_examples=30, deadline=None)
@given(_replies, _answers)
def test_every_turn_keeps_its_messages_and_both_drivers_agree(
    replies: list[str], tool_rounds: list[int]
) -> None:
    user = [f"{n}|{text}" for n, text in enumerate(replies)]
    result = run_multiturn_simulation(app=_app(tool_rounds), user=user, max_turns=len(user))
    again = asyncio.run(
        run_multiturn_simulation_async(app=_app(tool_rounds), user=user, max_turns=len(user))
    )
    conversation = result["conversation"]
    assert len(conversation) == len(user)
    assert [turn.user[0].text for turn in conversation] == user
    assert [len(turn.messages) for turn in conversation] == [
        2 + 2 * tool_rounds[n] for n in range(len(user))
    ]
    assert conversation.trajectory == to_trajectory(result["trajectory"])
    strip = [{k: v for k, v in m.items() if k != "id"} for m in result["trajectory"]]
    assert strip == [{k: v for k, v in m.items() if k != "id"} for m in again["trajectory"]]
    assert result["stop_reason"] == again["stop_reason"] == "max_turns"
