"""Parallel tool calls: one model step asks for the weather and the time at once.

Calls inside one message have no order, so the reference may list them either way round.
"""

from __future__ import annotations

import pytest
from scripted_agents import PARALLEL_QUESTION, parallel_agent

from pytest_agenttraj import assert_trajectory


def _call(name: str, **args: str) -> dict[str, object]:
    return {"name": name, "args": args}


REFERENCE = [
    {"role": "user", "content": PARALLEL_QUESTION},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [_call("look_up_location_code", city="San Francisco")],
    },
    {"role": "tool", "content": "location-415"},
    {
        "role": "assistant",
        "content": "",
        # the agent called get_weather first; the reference lists get_time first on purpose
        "tool_calls": [
            _call("get_time", location_code="location-415"),
            _call("get_weather", location_code="location-415"),
        ],
    },
    {"role": "tool", "content": "23:30 (UTC-7)"},
    {"role": "tool", "content": "Foggy, 15°C"},
    {"role": "assistant", "content": "..."},
]


def test_parallel_calls_match_in_any_order(ask):
    assert_trajectory(ask(parallel_agent(), PARALLEL_QUESTION), REFERENCE)


@pytest.mark.trajectory(mode="unordered")
def test_unordered_ignores_message_structure(ask, trajectory_evaluator):
    """Unordered mode compares only the multiset of tool calls, wherever they were made."""
    flat_reference = [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                _call("get_weather", location_code="location-415"),
                _call("look_up_location_code", city="San Francisco"),
                _call("get_time", location_code="location-415"),
            ],
        }
    ]
    result = trajectory_evaluator(
        outputs=ask(parallel_agent(), PARALLEL_QUESTION), reference_outputs=flat_reference
    )
    assert result["key"] == "trajectory_unordered_match"
    assert result["score"]
