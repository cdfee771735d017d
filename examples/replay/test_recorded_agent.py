"""An agent whose model calls were recorded once and are replayed in every run: no provider,
no network, the same trajectory each time. The model below stands in for a provider's
(``ChatOpenAI(model="gpt-4o")`` in a real project); the cassette beside this file,
``cassettes/test_recorded_weather_agent.yaml``, was recorded from it with::

    pytest examples/replay --trajectory-record=all

Replaying, the model is never asked (``calls_made`` stays 0). ``make demo`` also runs this
test with ``AGENTTRAJ_DEMO_PROMPT`` set to another system prompt: the request no longer matches
the recording, and the test fails with a diff of the request before any assertion sees an
answer the model never gave."""

from __future__ import annotations

import os

from langchain.agents import create_agent
from langchain_core.tools import tool

from pytest_agenttraj import assert_trajectory
from pytest_agenttraj.testing import ScriptedChatModel

SYSTEM_PROMPT = os.environ.get("AGENTTRAJ_DEMO_PROMPT", "You are a concise weather assistant.")


@tool
def get_weather(city: str) -> str:
    """Get the current weather in a city."""
    return {"San Francisco": "75F, sunny", "Paris": "18C, cloudy"}.get(city, "unknown")


@tool
def get_local_time(city: str) -> str:
    """Get the local time in a city."""
    return {"San Francisco": "09:00", "Paris": "18:00"}.get(city, "unknown")


def provider_model() -> ScriptedChatModel:
    """The stand-in for a provider: what it answered when the cassette was recorded."""
    return ScriptedChatModel(
        [
            {
                "tool_calls": [
                    {"name": "get_weather", "args": {"city": "Paris"}},
                    {"name": "get_local_time", "args": {"city": "Paris"}},
                ],
                "usage": {"input_tokens": 142, "output_tokens": 38},
            },
            {
                "content": "In Paris it is 18C and cloudy, and 18:00 local time.",
                "usage": {"input_tokens": 201, "output_tokens": 17},
            },
        ]
    )


REFERENCE = [
    {"role": "user", "content": "Weather and time in Paris?"},
    {
        "role": "assistant",
        "tool_calls": [
            {"name": "get_weather", "args": {"city": "Paris"}},
            {"name": "get_local_time", "args": {"city": "Paris"}},
        ],
    },
    {"role": "tool", "content": "18C, cloudy"},
    {"role": "tool", "content": "18:00"},
    {"role": "assistant", "content": "In Paris it is 18C and cloudy, and 18:00 local time."},
]


def test_recorded_weather_agent(agent_cassette):
    model = provider_model()
    agent = create_agent(model, [get_weather, get_local_time], system_prompt=SYSTEM_PROMPT)
    result = agent.invoke({"messages": [{"role": "user", "content": "Weather and time in Paris?"}]})
    assert_trajectory(result["messages"], REFERENCE)
    if not agent_cassette.recording:
        assert model.calls_made == 0  # every answer came from the cassette
