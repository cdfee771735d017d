"""Graded scores and LLM judges for the weather agent.

Tool-call accuracy and F1 say how close the agent came, and a test passes at the marker's
``min_score``. An LLM judge grades a trajectory that has no single right answer; here the judge
is a scripted chat model so the example runs without an API key. Swap in a real one
(``judge=ChatOpenAI(model="gpt-4o-mini")`` or ``model="openai:gpt-4o-mini"``) and the test reads
the same. Judges made through the ``trajectory_judge`` fixture cache their answers in pytest's
cache directory: running the tests again unchanged costs no model calls.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage
from scripted_agents import (
    WEATHER_QUESTION,
    WEATHER_REFERENCE,
    ScriptedChatModel,
    call,
    weather_agent,
)

from pytest_agenttraj import (
    TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
    assert_tool_call_accuracy,
    assert_tool_call_f1,
    create_agent_goal_accuracy_evaluator,
)

EXPECTED_CALLS = [
    {"name": "look_up_location_code", "args": {"city": "苏州"}},
    {"name": "get_weather", "args": {"location_code": "location-123"}},
]


def scripted_judge(**answer: object) -> ScriptedChatModel:
    """A judge model that answers once, through a tool call to the judge's schema (``score``),
    as a chat model with structured output does."""
    reply = AIMessage(
        content="",
        tool_calls=[call("score", **answer)],
        usage_metadata={"input_tokens": 420, "output_tokens": 60, "total_tokens": 480},
    )
    return ScriptedChatModel([reply])


def test_tool_calls_are_accurate(ask):
    messages = ask(weather_agent(), WEATHER_QUESTION)
    assert assert_tool_call_accuracy(messages, EXPECTED_CALLS)["score"] == 1.0
    assert_tool_call_f1(messages, EXPECTED_CALLS)


@pytest.mark.trajectory(min_score=0.5)
def test_a_regressed_agent_still_scores_half(ask):
    """The regressed agent asks for the wrong location: one of two calls loses its points,
    which the marker's threshold allows."""
    messages = ask(weather_agent(wrong_code=True), WEATHER_QUESTION)
    result = assert_tool_call_accuracy(messages, EXPECTED_CALLS)
    assert result["score"] == 0.5
    assert result["metadata"]["calls"][1]["differing_args"] == ["location_code"]


def test_judge_grades_the_trajectory(ask, trajectory_judge):
    messages = ask(weather_agent(), WEATHER_QUESTION)
    judge = trajectory_judge(
        judge=scripted_judge(
            reasoning="It looked up the code, fetched the weather for it and answered. "
            "Thus, the score should be: true.",
            score=True,
        )
    )
    result = judge(outputs=messages)
    assert result["score"], result["comment"]


@pytest.mark.trajectory(min_score=0.8)
def test_judge_against_the_reference_with_a_continuous_score(ask, trajectory_judge):
    messages = ask(weather_agent(), WEATHER_QUESTION)
    judge = trajectory_judge(
        judge=scripted_judge(reasoning="Same steps as the reference.", score=0.9),
        prompt=TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
        continuous=True,
    )
    result = judge(outputs=messages, reference_outputs=WEATHER_REFERENCE)
    assert result["score"] >= 0.8, result["comment"]


def test_the_agent_reached_the_users_goal(ask):
    messages = ask(weather_agent(), WEATHER_QUESTION)
    model = ScriptedChatModel(
        [
            AIMessage(
                content="",
                tool_calls=[
                    call(
                        "agent_goal_accuracy",
                        reasoning="The user asked for the weather in 苏州 and got it.",
                        user_goal="Know the weather in 苏州",
                        end_state="The agent said it is sunny, 22°C",
                        achieved=True,
                    )
                ],
            )
        ]
    )
    goal = create_agent_goal_accuracy_evaluator(judge=model, cache=True)
    result = goal(outputs=messages, reference_outputs="The user learns the weather in 苏州")
    assert result["score"] == 1.0, result["comment"]
