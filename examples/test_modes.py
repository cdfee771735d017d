"""Each match mode on an agent that handles two cities in the opposite order to the question.

``mode``: strict | unordered | subset | superset; ``tool_args``: exact | ignore | subset |
superset; ``overrides``: per tool, an args mode, a list of keys (dotted paths reach into nested
dicts) or a callable ``(output_args, reference_args) -> bool``.
"""

from __future__ import annotations

import pytest
from scripted_agents import TRAVEL_QUESTION, travel_agent

from pytest_agenttraj import create_trajectory_match_evaluator


def _step(name: str, **args: str) -> dict[str, object]:
    return {"role": "assistant", "content": "", "tool_calls": [{"name": name, "args": args}]}


SUZHOU_FIRST = [
    _step("look_up_location_code", city="苏州"),
    _step("get_weather", location_code="location-123"),
    _step("look_up_location_code", city="San Francisco"),
    _step("get_weather", location_code="location-415"),
]


@pytest.fixture
def travel_messages(ask):
    return ask(travel_agent(), TRAVEL_QUESTION)


def test_strict_notices_the_order(travel_messages):
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="strict")
    result = evaluator(outputs=travel_messages, reference_outputs=SUZHOU_FIRST)
    assert result["score"] is False
    assert result["comment"].startswith("Trajectory does not match the reference (strict mode")


@pytest.mark.trajectory(mode="unordered")
def test_unordered_accepts_any_order(travel_messages, assert_trajectory):
    assert_trajectory(travel_messages, SUZHOU_FIRST)


@pytest.mark.trajectory(mode="superset")
def test_superset_requires_at_least_these_calls(travel_messages, assert_trajectory):
    assert_trajectory(
        travel_messages,
        [
            _step("get_weather", location_code="location-123"),
            _step("get_weather", location_code="location-415"),
        ],
    )


@pytest.mark.trajectory(mode="subset")
def test_subset_allows_no_calls_beyond_these(travel_messages, assert_trajectory):
    allowed = [*SUZHOU_FIRST, _step("get_time", location_code="location-123")]
    assert_trajectory(travel_messages, allowed)


@pytest.mark.trajectory(mode="unordered", tool_args="ignore")
def test_ignore_arguments(travel_messages, assert_trajectory):
    assert_trajectory(
        travel_messages,
        [
            _step("look_up_location_code", city="?"),
            _step("get_weather", location_code="?"),
            _step("look_up_location_code", city="?"),
            _step("get_weather", location_code="?"),
        ],
    )


def _same_city(output_args: dict[str, str], reference_args: dict[str, str]) -> bool:
    return output_args["city"].casefold() == reference_args["city"].casefold()


@pytest.mark.trajectory(
    mode="unordered",
    overrides={"look_up_location_code": _same_city, "get_weather": ["location_code"]},
)
def test_per_tool_overrides(travel_messages, trajectory_evaluator):
    reference = [
        _step("look_up_location_code", city="SAN FRANCISCO"),
        _step("get_weather", location_code="location-415"),
        _step("look_up_location_code", city="苏州"),
        _step("get_weather", location_code="location-123"),
    ]
    result = trajectory_evaluator(outputs=travel_messages, reference_outputs=reference)
    assert result["score"], result["comment"]
