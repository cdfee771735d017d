"""Settings from the command line: this test has no marker, so ``--trajectory-mode`` and
``--tool-args-mode`` (or the ini keys ``trajectory_mode`` / ``trajectory_tool_args_mode``)
decide how it matches. ``make demo`` runs it with ``--trajectory-mode=unordered
--tool-args-mode=ignore``."""

from __future__ import annotations

import pytest
from scripted_agents import TRAVEL_QUESTION, travel_agent

from pytest_agenttraj import assert_trajectory


def test_loosened_from_the_command_line(ask, trajectory_config):
    if (trajectory_config.mode, trajectory_config.tool_args) != ("unordered", "ignore"):
        pytest.skip("run with --trajectory-mode=unordered --tool-args-mode=ignore")
    messages = ask(travel_agent(), TRAVEL_QUESTION)
    assert_trajectory(
        messages,
        [
            {"role": "assistant", "content": "", "tool_calls": [{"name": name, "args": {}}]}
            for name in ["get_weather", "look_up_location_code"] * 2
        ],
    )
