"""Shared fixtures for the test suite."""

from __future__ import annotations

import pytest

SEED_REFERENCE = [
    {"role": "user", "content": "What's the weather in 苏州?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"name": "look_up_location_code", "arguments": '{"city": "苏州"}'}}
        ],
    },
    {"role": "tool", "content": "location-123"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"name": "get_weather", "arguments": '{"location_code": "location-123"}'}}
        ],
    },
    {"role": "tool", "content": "Sunny, 22°C"},
    {"role": "assistant", "content": "It's sunny and 22°C in 苏州."},
]


@pytest.fixture
def seed_reference() -> list[dict[str, object]]:
    """The weather agent's reference trajectory (a fresh copy per test)."""
    import copy

    return copy.deepcopy(SEED_REFERENCE)
