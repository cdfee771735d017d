"""Scripted scenarios: user messages (fixed, a function of the conversation, the simulated
user's), agent turns and checks at any turn that see the turn, the conversation and the
LangGraph state; a failing check fails there, naming the turn; bad steps are refused before
anything runs."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import MemorySaver

from pytest_agenttraj import (
    SimulationError,
    TurnCheckFailed,
    agent_turn,
    assert_graph_trajectory,
    assert_tool_usage,
    assert_trajectory,
    check_turn,
    create_llm_simulated_user,
    create_trajectory_match_evaluator,
    run_scenario,
    run_scenario_async,
    user_turn,
)
from pytest_agenttraj.langgraph import graph_trajectory_from_history
from pytest_agenttraj.testing import ScriptedChatModel, tool_call


def look_up_order(order: str) -> str:
    """Look an order up."""
    return f"order {order}: a kettle, bought 40 days ago"


def give_refund(order: str) -> str:
    """Refund an order."""
    return f"order {order} refunded"


LOOKUP = {"tool_calls": [tool_call("look_up_order", order="7")]}
REFUND = {"tool_calls": [tool_call("give_refund", order="7")]}


def support_agent(*script: Any) -> Any:
    return create_agent(
        ScriptedChatModel(list(script)),
        tools=[look_up_order, give_refund],
        system_prompt="Never refund an order older than 30 days.",
        checkpointer=MemorySaver(),
    )


def test_checks_see_the_turn_the_conversation_and_the_graph_state() -> None:
    agent = support_agent(LOOKUP, "That order is 40 days old: no refund.", "Still no refund.")
    seen: dict[str, Any] = {}

    def remember(context: Any) -> None:
        seen["turn"] = context.number
        seen["state"] = len(context.state.values["messages"])
        seen["turns"] = len(context.conversation)

    result = run_scenario(
        app=agent,
        steps=[
            user_turn("Refund order 7, please."),
            agent_turn(),
            check_turn(assert_tool_usage, on="turn", required=["look_up_order"]),
            check_turn(
                assert_trajectory,
                [
                    {"role": "user"},
                    {
                        "role": "assistant",
                        "tool_calls": [{"name": "look_up_order", "args": {"order": "7"}}],
                    },
                ],
                on="turn",
                mode="superset",
            ),
            user_turn(lambda context: f"You said: {context.messages[-1]['content']} Why?"),
            agent_turn(),
            check_turn(remember),
            check_turn(assert_tool_usage, on="conversation", forbidden=["give_refund"]),
        ],
    )
    assert seen == {"turn": 2, "state": 6, "turns": 2}
    assert result["stop_reason"] == "user_ended"
    assert result["trajectory"][4]["content"] == (
        "You said: That order is 40 days old: no refund. Why?"
    )
    # the same conversation as a graph trajectory: one invocation per turn
    config = {"configurable": {"thread_id": result["thread_id"]}}
    assert_graph_trajectory(
        graph_trajectory_from_history(agent, config),
        {"steps": [["__start__", "model", "tools", "model"], ["__start__", "model"]]},
    )


def test_a_failing_check_fails_at_its_turn_with_the_helpers_diff() -> None:
    agent = support_agent("Let me look.", REFUND, "Refunded!")
    with pytest.raises(TurnCheckFailed) as caught:
        run_scenario(
            app=agent,
            steps=[
                user_turn("Refund order 7."),
                agent_turn(),
                check_turn(assert_tool_usage, on="turn", forbidden=["give_refund"]),
                user_turn("Please!"),
                agent_turn(),
                check_turn(assert_tool_usage, on="turn", forbidden=["give_refund"]),
                user_turn("never reached"),
                agent_turn(),
            ],
        )
    failed = caught.value
    assert (failed.turn, failed.step, failed.check) == (2, 5, "assert_tool_usage")
    assert str(failed).splitlines() == [
        "turn 2, steps[5] (assert_tool_usage) failed: Tool usage breaks 1 rule "
        "(forbidden [give_refund]):",
        "  1. forbidden: tool 'give_refund' was called once: message 1 give_refund(order='7')",
    ]
    assert failed.report is not None
    assert failed.report.kind == "usage"
    assert len(failed.conversation["conversation"]) == 2  # what happened up to the failure


def test_a_check_returning_false_or_a_failing_result() -> None:
    agent = support_agent("No.", "No.")
    with pytest.raises(TurnCheckFailed, match=r"^turn 1, steps\[2\] \(<lambda>\) failed: returned"):
        run_scenario(
            app=agent,
            steps=[user_turn("hi"), agent_turn(), check_turn(lambda c: "yes" in str(c.messages))],
        )
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="superset")
    reference = [{"role": "assistant", "tool_calls": [{"name": "look_up_order", "args": {}}]}]
    with pytest.raises(TurnCheckFailed) as caught:
        run_scenario(
            app=support_agent("No."),
            steps=[
                user_turn("hi"),
                agent_turn(),
                check_turn(evaluator, on="conversation", reference_outputs=reference),
            ],
        )
    assert caught.value.problem.startswith("trajectory_superset_match scored False: ")


def test_the_simulated_user_plays_the_empty_user_turns() -> None:
    persona = ScriptedChatModel(["And my other order?"])
    user = create_llm_simulated_user(system="You want refunds.", client=persona)
    result = run_scenario(
        app=support_agent("No refund.", "No refund either."),
        user=user,
        steps=[user_turn("Refund order 7"), agent_turn(), user_turn(), agent_turn()],
    )
    assert result["trajectory"][2]["content"] == "And my other order?"


def test_max_turns_and_stopping_condition_end_a_scenario_early() -> None:
    steps = [user_turn("a"), agent_turn(), user_turn("b"), agent_turn()]
    result = run_scenario(app=support_agent("x", "y"), steps=steps, max_turns=1)
    assert (result["stop_reason"], len(result["trajectory"])) == ("max_turns", 2)
    result = run_scenario(
        app=support_agent("x", "y"), steps=steps, stopping_condition=lambda _trajectory, **_: True
    )
    assert result["stop_reason"] == "stopping_condition"


@pytest.mark.asyncio
async def test_an_async_scenario() -> None:
    async def polite(context: Any) -> bool:
        return context.messages[-1]["content"].startswith("Sorry")

    result = await run_scenario_async(
        app=support_agent("Sorry, no refund."),
        steps=[user_turn("Refund?"), agent_turn(), check_turn(polite)],
    )
    assert result["conversation"][0].agent[0].text == "Sorry, no refund."


@pytest.mark.parametrize(
    ("steps", "text"),
    [
        ("hello", "steps: must be a list of steps"),
        ([user_turn("a"), "b"], "steps[1]: is str, not a step"),
        ([user_turn("a"), user_turn("b")], "steps[1]: a second user message before the agent"),
        ([agent_turn()], "steps[0]: an agent turn with no user message before it"),
        ([user_turn("a"), agent_turn(), user_turn("b")], "steps[2]: the last user message"),
        ([user_turn(), agent_turn()], "turn 1, steps[0]: the simulated user's turn needs user="),
        ([user_turn(42), agent_turn()], "turn 1, steps[0]: returned int 42, which is not a"),
    ],
)
def test_bad_steps_name_the_step(steps: Any, text: str) -> None:
    with pytest.raises(SimulationError) as caught:
        run_scenario(app=support_agent("x"), steps=steps)
    assert str(caught.value).startswith(text)


def test_a_check_that_raises_something_else_is_an_error_of_the_run() -> None:
    def broken(_context: Any) -> None:
        raise KeyError("messages")

    with pytest.raises(SimulationError, match=r"^turn 1, steps\[2\]: raised KeyError"):
        run_scenario(
            app=support_agent("x"), steps=[user_turn("a"), agent_turn(), check_turn(broken)]
        )


def test_a_judge_as_a_check_on_the_conversation() -> None:
    from judge_models import RecordingModel, score_call

    from pytest_agenttraj import create_trajectory_llm_as_judge

    judge = create_trajectory_llm_as_judge(
        judge=RecordingModel([score_call(reasoning="it gave in", score=False)])
    )
    with pytest.raises(TurnCheckFailed) as caught:
        run_scenario(
            app=support_agent("No.", REFUND, "Refunded."),
            steps=[
                user_turn("Refund?"),
                agent_turn(),
                user_turn("Please!"),
                agent_turn(),
                check_turn(judge, on="conversation"),
            ],
        )
    assert caught.value.turn == 2
    assert caught.value.problem.startswith("trajectory_accuracy scored False")
