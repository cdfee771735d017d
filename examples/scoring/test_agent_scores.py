"""An evaluation suite that records scores without asserting them, as teams do for agents whose
behaviour drifts: every test passes, and ``--trajectory-baseline`` decides whether the agent got
worse than on main. ``make demo`` makes a baseline, then runs again with the weather agent
regressed (``AGENTTRAJ_DEMO_REGRESSED=1``): the tests still pass, the session fails."""

from __future__ import annotations

import os

import pytest
from scripted_agents import (
    PARALLEL_QUESTION,
    TRAVEL_QUESTION,
    WEATHER_QUESTION,
    parallel_agent,
    travel_agent,
    weather_agent,
)

REGRESSED = os.environ.get("AGENTTRAJ_DEMO_REGRESSED") == "1"


def test_weather_agent_score(ask, trajectory_evaluator):
    messages = ask(weather_agent(wrong_code=REGRESSED), WEATHER_QUESTION)
    trajectory_evaluator(outputs=messages, reference_outputs="weather_agent.yaml")


@pytest.mark.trajectory(mode="unordered", tool_args="ignore")
def test_travel_agent_score(ask, trajectory_evaluator):
    messages = ask(travel_agent(), TRAVEL_QUESTION)
    trajectory_evaluator(outputs=messages, reference_outputs="travel_agent.yaml")


def test_parallel_agent_score(ask, trajectory_evaluator):
    messages = ask(parallel_agent(), PARALLEL_QUESTION)
    trajectory_evaluator(outputs=messages, reference_outputs="parallel_agent.yaml")
