"""Graded evaluators and assert helpers: result dicts like openevals', validation when built,
real coroutine functions for the async twins (checked through LangSmith's ``run_evaluator``),
and ``GradedMismatch`` below ``min_score`` with the graded diff as its text."""

from __future__ import annotations

import asyncio
import copy
import inspect
import pickle
import uuid
from datetime import datetime, timezone
from typing import Any

import pytest
from langsmith.evaluation.evaluator import run_evaluator
from langsmith.schemas import Example, Run

from pytest_agenttraj import (
    AgentTrajAssertionError,
    GradedMismatch,
    TrajectoryMismatch,
    assert_tool_call_accuracy,
    assert_tool_call_f1,
    create_async_tool_call_accuracy_evaluator,
    create_async_tool_call_f1_evaluator,
    create_tool_call_accuracy_evaluator,
    create_tool_call_f1_evaluator,
)
from pytest_agenttraj.evaluators import scope

RESULT_KEYS = {"key", "score", "comment", "metadata"}


def weather_run(code: str = "location-123") -> list[dict[str, Any]]:
    from scripted_agents import weather_reference

    return weather_reference(code)


EXPECTED = [
    {"name": "look_up_location_code", "args": {"city": "苏州"}},
    {"name": "get_weather", "args": {"location_code": "location-123"}},
]


@pytest.fixture(autouse=True)
def no_tracing(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_API_KEY"):
        monkeypatch.delenv(name, raising=False)


# ---------------------------------------------------------------- factories


def test_accuracy_evaluator_result() -> None:
    evaluator = create_tool_call_accuracy_evaluator()
    right = evaluator(outputs=weather_run(), reference_outputs=EXPECTED)
    assert set(right) == RESULT_KEYS
    assert right["key"] == "tool_call_accuracy"
    assert right["score"] == 1.0
    assert isinstance(right["score"], float)
    assert right["comment"] is None
    wrong = evaluator(outputs=weather_run("location-999"), reference_outputs=EXPECTED)
    assert wrong["score"] == 0.5
    assert wrong["comment"] == (
        "Tool-call accuracy 0.50 (strict order, ragas args): reference call 1 'get_weather': "
        "args differ (location_code), scoring 0.00."
    )
    assert wrong["metadata"]["calls"][1]["differing_args"] == ["location_code"]


def test_accuracy_options_keep_the_package_s_own_rules() -> None:
    made = [
        *weather_run(),
        {
            "role": "assistant",
            "tool_calls": [{"name": "get_weather", "args": {"location_code": "x"}}],
        },
    ]
    ragas = create_tool_call_accuracy_evaluator()(outputs=made, reference_outputs=EXPECTED)
    assert ragas["score"] == 0.0  # one call more than the reference: Ragas does not align them
    assert ragas["metadata"]["alignment_problem"].startswith("the output makes extra calls")
    assert ragas["comment"].startswith("Tool-call accuracy 0.00 (strict order, ragas args): ")
    forgiving = create_tool_call_accuracy_evaluator(allow_extra_calls=True, tool_args="exact")
    result = forgiving(outputs=made, reference_outputs=EXPECTED)
    assert result["score"] == 1.0
    assert (result["metadata"]["allow_extra_calls"], result["metadata"]["tool_args"]) == (
        True,
        "exact",
    )
    assert assert_tool_call_accuracy(made, EXPECTED, allow_extra_calls=True)["score"] == 1.0
    with pytest.raises(GradedMismatch, match="strict order, ragas args"):
        assert_tool_call_accuracy(made, EXPECTED)
    with pytest.raises(ValueError, match="best_pairing 'yes'"):
        assert_tool_call_accuracy(made, EXPECTED, best_pairing="yes")  # type: ignore[arg-type]


def test_accuracy_reference_may_be_a_trajectory() -> None:
    evaluator = create_tool_call_accuracy_evaluator(strict_order=False)
    result = evaluator(outputs=weather_run(), reference_outputs=weather_run(), inputs={"q": 1})
    assert result["score"] == 1.0


def test_f1_evaluator_result() -> None:
    evaluator = create_tool_call_f1_evaluator(tool_args="ignore")
    result = evaluator(outputs=weather_run("location-999"), reference_outputs=EXPECTED, x=1)
    assert set(result) == RESULT_KEYS
    assert (result["key"], result["score"]) == ("tool_call_f1", 1.0)
    strict = create_tool_call_f1_evaluator()(
        outputs=weather_run("location-999"), reference_outputs=EXPECTED
    )
    assert strict["score"] == pytest.approx(0.5)
    assert strict["metadata"]["precision"] == 0.5
    assert strict["metadata"]["recall"] == 0.5


@pytest.mark.parametrize(
    ("factory", "options", "message"),
    [
        (create_tool_call_accuracy_evaluator, {"tool_args": "loose"}, "'exact', 'ignore'"),
        (create_tool_call_accuracy_evaluator, {"strict_order": "yes"}, "True or False"),
        (create_tool_call_accuracy_evaluator, {"allow_extra_calls": 1}, "allow_extra_calls 1"),
        (create_async_tool_call_accuracy_evaluator, {"best_pairing": None}, "best_pairing None"),
        (create_tool_call_f1_evaluator, {"tool_args": "ragas"}, "tool_args_match_mode 'ragas'"),
        (
            create_async_tool_call_accuracy_evaluator,
            {"overrides": {"f": "nope"}},
            r"overrides\['f'\]",
        ),
        (create_tool_call_f1_evaluator, {"overrides": ["f"]}, "must be a dict"),
        (create_async_tool_call_f1_evaluator, {"tool_args": 3}, "tool_args_match_mode 3"),
    ],
)
def test_factories_validate_when_built(factory: Any, options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        factory(**options)


def test_async_twins_are_coroutine_functions_with_the_same_answers() -> None:
    pairs = [
        (create_tool_call_accuracy_evaluator(), create_async_tool_call_accuracy_evaluator()),
        (create_tool_call_f1_evaluator(), create_async_tool_call_f1_evaluator()),
    ]
    for sync, asynchronous in pairs:
        assert not inspect.iscoroutinefunction(sync)
        assert inspect.iscoroutinefunction(asynchronous)
        for code in ("location-123", "location-999"):
            awaited = asyncio.run(
                asynchronous(outputs=weather_run(code), reference_outputs=EXPECTED)
            )
            assert awaited == sync(outputs=weather_run(code), reference_outputs=EXPECTED)


def _run_and_example(code: str) -> tuple[Run, Example]:
    now = datetime.now(timezone.utc)
    run = Run(
        id=uuid.uuid4(),
        trace_id=uuid.uuid4(),
        name="weather agent",
        run_type="chain",
        start_time=now,
        inputs={"question": "weather?"},
        outputs={"messages": weather_run(code)},
    )
    example = Example(
        id=uuid.uuid4(),
        dataset_id=uuid.uuid4(),
        created_at=now,
        inputs={"question": "weather?"},
        outputs={"tool_calls": EXPECTED},
    )
    return run, example


@pytest.mark.parametrize(
    ("factory", "key", "score"),
    [
        (create_tool_call_accuracy_evaluator, "tool_call_accuracy", 0.5),
        (create_tool_call_f1_evaluator, "tool_call_f1", 0.5),
    ],
)
def test_through_langsmith_run_evaluator(factory: Any, key: str, score: float) -> None:
    run, example = _run_and_example("location-999")
    result = run_evaluator(factory()).evaluate_run(run, example)
    assert (result.key, result.score) == (key, pytest.approx(score))
    assert result.comment
    assert result.metadata


@pytest.mark.parametrize(
    ("factory", "key"),
    [
        (create_async_tool_call_accuracy_evaluator, "tool_call_accuracy"),
        (create_async_tool_call_f1_evaluator, "tool_call_f1"),
    ],
)
def test_async_through_langsmith_run_evaluator(factory: Any, key: str) -> None:
    run, example = _run_and_example("location-123")
    evaluator = run_evaluator(factory())
    result = asyncio.run(evaluator.aevaluate_run(run, example))
    assert (result.key, result.score) == (key, 1.0)


def test_evaluations_are_announced_with_their_report() -> None:
    seen: list[scope.Evaluation] = []
    with scope.test_scope(scope.TestScope(on_evaluation=seen.append)):
        create_tool_call_f1_evaluator()(outputs=weather_run(), reference_outputs=EXPECTED)
        asyncio.run(
            create_async_tool_call_accuracy_evaluator(strict_order=False)(
                outputs=weather_run(), reference_outputs=EXPECTED
            )
        )
    assert [e.origin for e in seen] == ["tool_call_f1", "tool_call_accuracy"]
    assert [e.extra["mode"] for e in seen] == ["unordered", "any_order"]
    assert [e.report.kind for e in seen if e.report is not None] == ["f1", "accuracy"]


def test_the_forgiving_accuracy_rules_are_part_of_the_recorded_mode() -> None:
    """A baseline compares results judged alike: switching to the package's more forgiving
    accuracy rules changes the recorded mode, so the gate sees the check was loosened."""
    seen: list[scope.Evaluation] = []
    with scope.test_scope(scope.TestScope(on_evaluation=seen.append)):
        for options in ({}, {"allow_extra_calls": True}, {"strict_order": False}):
            create_tool_call_accuracy_evaluator(**options)(
                outputs=weather_run(), reference_outputs=EXPECTED
            )
        create_tool_call_accuracy_evaluator(strict_order=False, best_pairing=True)(
            outputs=weather_run(), reference_outputs=EXPECTED
        )
    assert [e.extra["mode"] for e in seen] == [
        "strict_order",
        "strict_order, allow_extra_calls",
        "any_order",
        "any_order, best_pairing",
    ]


# ---------------------------------------------------------------- assert helpers


def test_assert_helpers_return_the_result_at_or_above_min_score() -> None:
    result = assert_tool_call_accuracy(weather_run("location-999"), EXPECTED, min_score=0.5)
    assert result["score"] == 0.5
    assert assert_tool_call_f1(weather_run(), EXPECTED)["score"] == 1.0


def test_assert_tool_call_accuracy_below_min_score_raises_the_diff() -> None:
    with pytest.raises(GradedMismatch) as raised:
        assert_tool_call_accuracy(weather_run("location-999"), EXPECTED, min_score=0.9)
    error = raised.value
    assert isinstance(error, AssertionError)
    assert error.result["score"] == 0.5
    assert str(error).splitlines()[0] == (
        "Tool-call accuracy 0.50 is below min_score 0.90 (strict order, ragas args)"
    )
    assert "- location_code: 'location-123'" in str(error)
    assert "+ location_code: 'location-999'" in str(error)


def test_assert_tool_call_f1_below_min_score_raises() -> None:
    with pytest.raises(GradedMismatch, match=r"Tool-call F1 0\.50 is below min_score 1\.00"):
        assert_tool_call_f1(weather_run("location-999"), EXPECTED)


def test_assert_helpers_take_their_defaults_from_the_scope() -> None:
    seen: list[scope.Evaluation] = []
    ignoring = scope.TestScope(on_evaluation=seen.append, tool_args="ignore", min_score=0.4)
    with scope.test_scope(ignoring):
        assert assert_tool_call_f1(weather_run("location-999"), EXPECTED)["score"] == 1.0
        with scope.test_scope(scope.TestScope(on_evaluation=seen.append, min_score=0.4)):
            assert_tool_call_accuracy(weather_run("location-999"), EXPECTED)  # 0.5 >= 0.4
    assert [e.extra["min_score"] for e in seen] == [0.4, 0.4]
    assert [e.extra["tool_args_mode"] for e in seen] == ["ignore", "ragas"]


@pytest.mark.parametrize("bad", [1.5, -0.1, "0.8", True])
def test_assert_helpers_check_min_score(bad: Any) -> None:
    with pytest.raises(ValueError, match="must be a number from 0 to 1"):
        assert_tool_call_f1(weather_run(), EXPECTED, min_score=bad)


def test_a_graded_mismatch_is_of_the_family_but_not_a_trajectory_mismatch() -> None:
    """``except AgentTrajAssertionError`` takes every kind of failure; a low score is no
    trajectory mismatch."""
    with pytest.raises(GradedMismatch) as raised:
        assert_tool_call_f1(weather_run("location-999"), EXPECTED, min_score=0.9)
    assert isinstance(raised.value, AgentTrajAssertionError)
    assert isinstance(raised.value, AssertionError)
    assert not isinstance(raised.value, TrajectoryMismatch)
    assert type(raised.value).__mro__.index(AgentTrajAssertionError) == 1


def test_graded_mismatch_survives_copy_and_pickle() -> None:
    with pytest.raises(GradedMismatch) as raised:
        assert_tool_call_accuracy(weather_run("location-999"), EXPECTED, min_score=0.9)
    for clone in (copy.copy(raised.value), pickle.loads(pickle.dumps(raised.value))):
        assert str(clone) == str(raised.value)
