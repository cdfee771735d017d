"""An async agent run, scored with the async evaluator fixture (pytest-asyncio)."""

from __future__ import annotations

import pytest
from scripted_agents import WEATHER_QUESTION, weather_agent
from test_weather_agent import REFERENCE


@pytest.mark.asyncio
async def test_async_weather_agent(async_trajectory_evaluator):
    result = await weather_agent().ainvoke(
        {"messages": [{"role": "user", "content": WEATHER_QUESTION}]}
    )
    evaluation = await async_trajectory_evaluator(
        outputs=result,
        reference_outputs=REFERENCE,  # the agent state dict works as is
    )
    assert evaluation["score"], evaluation["comment"]
