"""An expected failure, so you can see what a regression looks like: the agent asks for the
weather of the wrong location. ``make demo`` runs it with ``AGENTTRAJ_DEMO_FAILURE=1`` and
shows the diff; otherwise it is skipped so that ``pytest examples`` stays green."""

from __future__ import annotations

import os

import pytest
from scripted_agents import WEATHER_QUESTION, weather_agent
from test_weather_agent import REFERENCE

from pytest_agenttraj import assert_trajectory

pytestmark = pytest.mark.skipif(
    os.environ.get("AGENTTRAJ_DEMO_FAILURE") != "1",
    reason="an expected failure; set AGENTTRAJ_DEMO_FAILURE=1 (make demo does) to see its diff",
)


def test_regressed_weather_agent(ask):
    messages = ask(weather_agent(wrong_code=True), WEATHER_QUESTION)
    assert_trajectory(messages, REFERENCE)
