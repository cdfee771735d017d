"""No vacuous passes: an empty reference and an output without messages are refused where
``allow_empty`` is off (``assert_trajectory``, the plugin's fixtures, evaluators built with
``allow_empty=False``); the openevals-compatible factories keep openevals' answers by default."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from openevals.trajectory.match import create_trajectory_match_evaluator as oe_create

from pytest_agenttraj import (
    TrajectoryMismatch,
    assert_trajectory,
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)

MODES = ("strict", "unordered", "subset", "superset", "in_order")
OPENEVALS_MODES = ("strict", "unordered", "subset", "superset")

QUESTION = {"role": "user", "content": "Weather in SF?"}
ANSWER = {"role": "assistant", "content": "Sunny."}
CALL = {
    "role": "assistant",
    "content": "",
    "tool_calls": [{"function": {"name": "get_weather", "arguments": '{"city": "SF"}'}}],
}
RESULT = {"role": "tool", "content": "Sunny", "tool_call_id": "1"}
WITH_CALLS = [QUESTION, CALL, RESULT, ANSWER]
NO_CALLS = [QUESTION, ANSWER]


@pytest.mark.parametrize("mode", OPENEVALS_MODES)
@pytest.mark.parametrize(
    ("outputs", "reference"),
    [([], []), (WITH_CALLS, NO_CALLS), (NO_CALLS, NO_CALLS), ([], WITH_CALLS), ([], NO_CALLS)],
    ids=["both-empty", "no-reference-calls", "no-calls", "empty-output", "empty-output-no-calls"],
)
def test_the_public_factories_keep_openevals_answers(
    mode: str, outputs: list[Any], reference: list[Any]
) -> None:
    ours = create_trajectory_match_evaluator(trajectory_match_mode=mode)  # type: ignore[arg-type]
    theirs = oe_create(trajectory_match_mode=mode)  # type: ignore[arg-type]
    expected = theirs(outputs=outputs, reference_outputs=reference)["score"]
    assert ours(outputs=outputs, reference_outputs=reference)["score"] == expected


@pytest.mark.parametrize("mode", MODES)
def test_an_empty_reference_is_refused(mode: str) -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode, allow_empty=False)  # type: ignore[arg-type]
    result = evaluator(outputs=WITH_CALLS, reference_outputs=[])
    assert result["score"] is False
    assert result["comment"] == (
        f"Trajectory does not match the reference ({mode} mode, exact args): the reference is "
        "empty (no messages), so nothing would be checked; pass allow_empty=True if that is "
        "intended."
    )


@pytest.mark.parametrize("mode", ["unordered", "subset", "superset", "in_order"])
def test_a_reference_without_calls_is_refused_where_only_calls_count(mode: str) -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode, allow_empty=False)  # type: ignore[arg-type]
    result = evaluator(outputs=WITH_CALLS, reference_outputs=NO_CALLS)
    assert result["score"] is False
    assert "the reference has no tool calls and" in str(result["comment"])
    assert "max_total_calls=0" in str(result["comment"])
    effect = "any output would pass" if mode in ("superset", "in_order") else "calls no tool"
    assert effect in str(result["comment"])


def test_strict_mode_compares_messages_so_a_reference_without_calls_counts() -> None:
    evaluator = create_trajectory_match_evaluator(allow_empty=False)
    assert evaluator(outputs=NO_CALLS, reference_outputs=NO_CALLS)["score"] is True
    assert evaluator(outputs=WITH_CALLS, reference_outputs=NO_CALLS)["score"] is False


@pytest.mark.parametrize("mode", MODES)
def test_an_output_without_messages_fails_as_such(mode: str) -> None:
    evaluator = create_async_trajectory_match_evaluator(
        trajectory_match_mode=mode,  # type: ignore[arg-type]
        allow_empty=False,
    )
    result = asyncio.run(evaluator(outputs=[], reference_outputs=WITH_CALLS))
    assert result["score"] is False
    assert str(result["comment"]).endswith(
        ": the agent produced no messages (the reference has 4 messages)."
    )


def test_assert_trajectory_refuses_by_default_and_allows_on_request() -> None:
    with pytest.raises(TrajectoryMismatch, match="the reference is empty"):
        assert_trajectory(WITH_CALLS, [])
    with pytest.raises(TrajectoryMismatch, match="the agent produced no messages"):
        assert_trajectory({"messages": []}, NO_CALLS, mode="strict")
    with pytest.raises(TrajectoryMismatch, match="the reference has no tool calls"):
        assert_trajectory(WITH_CALLS, NO_CALLS, mode="superset")
    assert assert_trajectory(WITH_CALLS, NO_CALLS, mode="superset", allow_empty=True)["score"]
    assert assert_trajectory([], [], allow_empty=True)["score"]


def test_the_refusal_is_rendered_as_a_problem() -> None:
    with pytest.raises(TrajectoryMismatch) as info:
        assert_trajectory(WITH_CALLS, [], mode="superset")
    assert str(info.value).splitlines()[:2] == [
        "Trajectory does not match the reference (superset mode, exact args): 1 problem",
        "  1. the reference is empty (no messages), so nothing would be checked; pass "
        "allow_empty=True if that is intended",
    ]


def test_plain_chat_lists_that_would_pass_on_the_fast_path_are_refused_too() -> None:
    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="superset", allow_empty=False
    )
    assert evaluator(outputs=WITH_CALLS, reference_outputs=NO_CALLS)["score"] is False
    strict = create_trajectory_match_evaluator(allow_empty=False)
    assert strict(outputs=[], reference_outputs=[])["score"] is False
    assert strict(outputs=WITH_CALLS, reference_outputs=WITH_CALLS)["score"] is True


def test_allow_empty_must_be_a_bool() -> None:
    with pytest.raises(ValueError, match="invalid allow_empty 'no': must be True or False"):
        create_trajectory_match_evaluator(allow_empty="no")  # type: ignore[arg-type]
