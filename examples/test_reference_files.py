"""References kept in files: ``trajectories/weather_agent.yaml`` beside this file.

Write or refresh them from the agent's current behaviour with ``pytest --trajectory-update``,
review the diff in version control, commit. The header of ``weather_agent.yaml`` may set how it
is compared (mode, tool_args, overrides by key list); a marker still wins.
"""

from __future__ import annotations

import pytest
from scripted_agents import PARALLEL_QUESTION, WEATHER_QUESTION, parallel_agent, weather_agent

from pytest_agenttraj import assert_trajectory


def test_weather_agent_against_its_file(ask):
    assert_trajectory(ask(weather_agent(), WEATHER_QUESTION), "weather_agent.yaml")


@pytest.mark.trajectory(reference="parallel_agent.yaml")
def test_parallel_agent_against_its_file(ask, trajectory_reference):
    assert_trajectory(ask(parallel_agent(), PARALLEL_QUESTION), trajectory_reference)
