"""The weather agent: look up a location code, then fetch the weather for it.

The agent is a real LangChain ``create_agent`` agent (only its chat model is scripted); the
reference is written by hand as OpenAI-style dicts, without ids, and compared with the agent's
LangChain messages directly.
"""

from __future__ import annotations

import pytest
from scripted_agents import WEATHER_QUESTION, WEATHER_REFERENCE, weather_agent

from pytest_agenttraj import assert_trajectory

# The reference: OpenAI-style dicts, written by hand (scripted_agents.WEATHER_REFERENCE):
#   user -> assistant calls look_up_location_code(city="苏州") -> tool -> assistant calls
#   get_weather(location_code="location-123") -> tool -> assistant answers
REFERENCE = WEATHER_REFERENCE


def test_weather_agent_follows_the_reference(ask):
    """Strict mode (the default): same messages, same roles, same tool calls and arguments."""
    messages = ask(weather_agent(), WEATHER_QUESTION)
    assert_trajectory(messages, REFERENCE)


def test_evaluator_result_for_langsmith_style_scoring(ask, trajectory_evaluator):
    """The openevals-compatible evaluator returns a result dict instead of raising."""
    messages = ask(weather_agent(), WEATHER_QUESTION)
    result = trajectory_evaluator(outputs=messages, reference_outputs=REFERENCE)
    assert result == {
        "key": "trajectory_strict_match",
        "score": True,
        "comment": None,
        "metadata": None,
    }


def test_a_regressed_agent_is_caught(ask, trajectory_evaluator):
    """The same agent asking for the wrong location fails, and the comment says where."""
    messages = ask(weather_agent(wrong_code=True), WEATHER_QUESTION)
    result = trajectory_evaluator(outputs=messages, reference_outputs=REFERENCE)
    assert result["score"] is False
    assert "get_weather" in result["comment"]
    assert "location_code" in result["comment"]


@pytest.mark.trajectory(mode="superset", tool_args="subset")
def test_only_the_calls_that_matter(ask, assert_trajectory):
    """Superset mode: the agent must make at least the reference's calls; the marker sets the
    mode for the ``assert_trajectory`` fixture (and for the importable function too)."""
    messages = ask(weather_agent(), WEATHER_QUESTION)
    must_call = [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"name": "get_weather", "args": {"location_code": "location-123"}}],
        }
    ]
    assert_trajectory(messages, must_call)
