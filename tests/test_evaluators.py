"""The openevals-compatible evaluators: result shape, comments, async twins, ``exact_match`` and
``assert_trajectory``.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import pickle
import re
from datetime import date
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from pytest_agenttraj import (
    EvaluatorResult,
    TrajectoryFormatError,
    TrajectoryMismatch,
    assert_trajectory,
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
    exact_match,
    exact_match_async,
)
from pytest_agenttraj.render import render_text

RESULT_KEYS = {"key", "score", "comment", "metadata"}
MODES = ("strict", "unordered", "subset", "superset")


def weather_run(location_code: str) -> list[BaseMessage]:
    """What a weather agent returns: LangChain messages with tool calls and ids."""
    return [
        HumanMessage("What's the weather in Suzhou?"),
        AIMessage(
            "",
            tool_calls=[{"name": "look_up_location_code", "args": {"city": "Suzhou"}, "id": "1"}],
        ),
        ToolMessage("location-123", tool_call_id="1"),
        AIMessage(
            "",
            tool_calls=[
                {"name": "get_weather", "args": {"location_code": location_code}, "id": "2"}
            ],
        ),
        ToolMessage("Sunny, 22C", tool_call_id="2"),
        AIMessage("It's sunny and 22C in Suzhou."),
    ]


REFERENCE: list[dict[str, Any]] = [
    {"role": "user", "content": "What's the weather in Suzhou?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"name": "look_up_location_code", "arguments": '{"city": "Suzhou"}'}}
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
    {"role": "tool", "content": "Sunny, 22C"},
    {"role": "assistant", "content": "Sunny and 22C."},
]


def sentences(text: str) -> int:
    """Sentence ends: a period followed by a space or the end (values here hold no periods)."""
    return len(re.findall(r"\.(?:\s|$)", text))


# ---------------------------------------------------------------- result shape


@pytest.mark.parametrize("mode", MODES)
def test_result_on_a_match(mode: str) -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode)  # type: ignore[arg-type]
    result = evaluator(outputs=weather_run("location-123"), reference_outputs=REFERENCE)
    assert set(result) == RESULT_KEYS
    assert result == {
        "key": f"trajectory_{mode}_match",
        "score": True,
        "comment": None,
        "metadata": None,
    }
    assert result["score"] is True


@pytest.mark.parametrize("mode", MODES)
def test_result_on_a_mismatch(mode: str) -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode)  # type: ignore[arg-type]
    result = evaluator(outputs=weather_run("location-999"), reference_outputs=REFERENCE)
    assert set(result) == RESULT_KEYS
    assert result["key"] == f"trajectory_{mode}_match"
    assert result["score"] is False
    assert result["metadata"] is None
    comment = result["comment"]
    assert comment == (
        f"Trajectory does not match the reference ({mode} mode, exact args): message 3: tool call "
        "'get_weather' args differ (exact): location_code expected 'location-123', got "
        "'location-999'."
    )
    assert sentences(comment) == 1


def test_mismatch_comment_is_at_most_two_sentences() -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    output = [{"role": "assistant", "tool_calls": [{"name": n, "args": {}} for n in "abc"]}]
    result = evaluator(outputs=output, reference_outputs=[{"role": "user", "content": "q"}])
    assert result["comment"] == (
        "Trajectory does not match the reference (unordered mode, exact args): message 0: "
        "unexpected tool call a(); the reference has no call to 'a'. 2 more problems not shown."
    )
    assert sentences(result["comment"]) == 2


def test_comment_names_the_tool_and_the_key_under_each_args_mode() -> None:
    output = [{"role": "assistant", "tool_calls": [{"name": "search", "args": {"city": "SF"}}]}]
    reference = [
        {"role": "assistant", "tool_calls": [{"name": "search", "args": {"city": "NYC", "n": 1}}]}
    ]
    for args_mode in ("exact", "subset", "superset"):
        evaluator = create_trajectory_match_evaluator(tool_args_match_mode=args_mode)
        result = evaluator(outputs=output, reference_outputs=reference)
        comment = result["comment"]
        assert comment is not None
        assert "'search'" in comment
        assert "city expected 'NYC', got 'SF'" in comment
        assert sentences(comment) == 1


def test_args_modes_and_overrides_through_the_evaluator() -> None:
    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="superset",
        tool_args_match_mode="subset",
        tool_args_match_overrides={"get_weather": ["location_code"]},
    )
    run = weather_run("location-123")
    assert evaluator(outputs=run, reference_outputs=REFERENCE)["score"] is True
    result = evaluator(outputs=weather_run("location-999"), reference_outputs=REFERENCE)
    assert result["key"] == "trajectory_superset_match"
    assert result["score"] is False
    assert "keys [location_code]" in (result["comment"] or "")


def test_evaluator_accepts_inputs_and_extra_kwargs() -> None:
    evaluator = create_trajectory_match_evaluator()
    result = evaluator(
        outputs=weather_run("location-123"),
        reference_outputs=REFERENCE,
        inputs={"messages": [{"role": "user", "content": "q"}]},
        run_id="r1",
        metadata={"x": 1},
    )
    assert result["score"] is True


def test_evaluator_is_keyword_only_and_needs_both_sides() -> None:
    evaluator = create_trajectory_match_evaluator()
    with pytest.raises(TypeError):
        evaluator(weather_run("location-123"), REFERENCE)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        evaluator(outputs=REFERENCE)  # type: ignore[call-arg]


def test_evaluator_accepts_state_dicts_on_both_sides() -> None:
    evaluator = create_trajectory_match_evaluator()
    result = evaluator(
        outputs={"messages": weather_run("location-123")},
        reference_outputs={"messages": REFERENCE},
    )
    assert result["score"] is True


def test_evaluator_raises_on_bad_input_instead_of_scoring_it() -> None:
    evaluator = create_trajectory_match_evaluator()
    with pytest.raises(TrajectoryFormatError, match=r"^outputs: expected a trajectory"):
        evaluator(outputs=None, reference_outputs=REFERENCE)


def test_evaluator_is_reusable_and_stateless() -> None:
    evaluator = create_trajectory_match_evaluator()
    good, bad = weather_run("location-123"), weather_run("location-999")
    scores = [evaluator(outputs=o, reference_outputs=REFERENCE)["score"] for o in (good, bad, good)]
    assert scores == [True, False, True]


# ---------------------------------------------------------------- async


def test_async_evaluator_gives_the_same_results() -> None:
    async_evaluator = create_async_trajectory_match_evaluator(trajectory_match_mode="unordered")
    sync_evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    assert inspect.iscoroutinefunction(async_evaluator)  # what langsmith checks
    for code in ("location-123", "location-999"):
        awaited = asyncio.run(
            async_evaluator(outputs=weather_run(code), reference_outputs=REFERENCE, inputs=None)
        )
        assert awaited == sync_evaluator(outputs=weather_run(code), reference_outputs=REFERENCE)


def test_async_evaluators_run_concurrently() -> None:
    evaluator = create_async_trajectory_match_evaluator()

    async def main() -> list[EvaluatorResult]:
        return list(
            await asyncio.gather(
                *(
                    evaluator(outputs=weather_run(code), reference_outputs=REFERENCE, extra=1)
                    for code in ("location-123", "location-999", "location-123")
                )
            )
        )

    assert [r["score"] for r in asyncio.run(main())] == [True, False, True]


def test_async_factory_validates_at_build_time() -> None:
    with pytest.raises(ValueError, match="'strict', 'unordered', 'subset', 'superset'"):
        create_async_trajectory_match_evaluator(trajectory_match_mode="nope")  # type: ignore[arg-type]


# ---------------------------------------------------------------- exact_match


@pytest.mark.parametrize(
    ("outputs", "reference_outputs", "score"),
    [
        ({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}, True),
        ({"a": 1}, {"a": 2}, False),
        ({"a": True}, {"a": 1}, False),
        ([1, 2], [2, 1], False),
        ("text", "text", True),
        ((1, "x"), [1, "x"], True),
        ({"nested": {"k": None}}, {"nested": {"k": None}}, True),
        ({"d": date(2024, 1, 1)}, {"d": date(2024, 1, 1)}, True),  # not JSON: still compared
        ({"d": date(2024, 1, 1)}, {"d": date(2024, 1, 2)}, False),
    ],
)
def test_exact_match(outputs: Any, reference_outputs: Any, score: bool) -> None:
    result = exact_match(outputs=outputs, reference_outputs=reference_outputs)
    assert set(result) == RESULT_KEYS
    assert result["key"] == "exact_match"
    assert result["score"] is score
    assert (result["comment"] is None) is score
    awaited = asyncio.run(exact_match_async(outputs=outputs, reference_outputs=reference_outputs))
    assert awaited == result


def test_exact_match_accepts_inputs_and_kwargs() -> None:
    result = exact_match(outputs=1, reference_outputs=1, inputs="q", run_id="r")
    assert result["score"] is True
    awaited = asyncio.run(exact_match_async(outputs=1, reference_outputs=2, inputs="q", extra=1))
    assert awaited["score"] is False


@pytest.mark.parametrize(("outputs", "reference_outputs"), [(None, 1), (1, None)])
def test_exact_match_requires_both_sides(outputs: Any, reference_outputs: Any) -> None:
    with pytest.raises(ValueError, match="requires both outputs and reference_outputs"):
        exact_match(outputs=outputs, reference_outputs=reference_outputs)
    with pytest.raises(ValueError, match="requires both outputs and reference_outputs"):
        asyncio.run(exact_match_async(outputs=outputs, reference_outputs=reference_outputs))


# ---------------------------------------------------------------- assert_trajectory


def test_assert_trajectory_returns_the_result_on_a_match() -> None:
    result = assert_trajectory(weather_run("location-123"), REFERENCE, mode="strict")
    assert result == {
        "key": "trajectory_strict_match",
        "score": True,
        "comment": None,
        "metadata": None,
    }


def test_assert_trajectory_with_mode_args_and_overrides() -> None:
    result = assert_trajectory(
        weather_run("location-999"),
        REFERENCE,
        mode="superset",
        tool_args="exact",
        overrides={"get_weather": "ignore"},
    )
    assert result["key"] == "trajectory_superset_match"
    assert result["score"] is True


def test_assert_trajectory_raises_a_mismatch_with_the_diff() -> None:
    with pytest.raises(TrajectoryMismatch) as info:
        assert_trajectory(weather_run("location-999"), REFERENCE, mode="strict", tool_args="exact")
    error = info.value
    assert isinstance(error, AssertionError)
    assert error.result["score"] is False
    assert error.result["key"] == "trajectory_strict_match"
    assert error.report.matched is False
    text = str(error)
    assert text == render_text(error.report, verbose=error.verbose)
    lines = text.splitlines()
    assert len(lines) > 5
    assert lines[0] == (
        "Trajectory does not match the reference (strict mode, exact args): 1 problem"
    )
    assert lines[1:4] == [
        "  1. message 3: tool call 'get_weather' args differ (exact)",
        "       - location_code: 'location-123'",
        "       + location_code: 'location-999'",
    ]
    # the exception's args hold the one-line comment (what a plain repr shows)
    assert error.args == (error.result["comment"],)


def test_assert_trajectory_mismatch_fails_a_plain_assertion_handler() -> None:
    with pytest.raises(AssertionError, match="message 0: expected role 'tool', got 'user'"):
        assert_trajectory([{"role": "user", "content": "q"}], [{"role": "tool"}], mode="strict")


def test_assert_trajectory_bad_input_is_a_format_error_not_a_mismatch() -> None:
    with pytest.raises(TrajectoryFormatError, match=r"^reference_outputs"):
        assert_trajectory(weather_run("location-123"), 42, mode="strict")


def test_trajectory_mismatch_survives_copy_and_pickle() -> None:
    # process pools and multiprocessing send exceptions back pickled
    with pytest.raises(TrajectoryMismatch) as info:
        assert_trajectory(
            weather_run("location-999"), REFERENCE, mode="unordered", tool_args="exact"
        )
    error = info.value
    for clone in (copy.copy(error), pickle.loads(pickle.dumps(error))):
        assert type(clone) is TrajectoryMismatch
        assert str(clone) == str(error)
        assert clone.args == error.args
        assert clone.result == error.result
        assert clone.verbose == error.verbose
        assert clone.report.matched is False


def test_the_garbage_collector_is_left_as_it_was() -> None:
    import gc

    evaluator = create_trajectory_match_evaluator()
    trajectory = [{"role": "user", "content": "hi"}]
    assert gc.isenabled()
    evaluator(outputs=trajectory, reference_outputs=trajectory)
    assert gc.isenabled()
    with pytest.raises(TrajectoryFormatError):
        evaluator(outputs=[{"role": "robot"}], reference_outputs=trajectory)
    assert gc.isenabled()
    gc.disable()
    try:
        evaluator(outputs=trajectory, reference_outputs=trajectory)
        assert not gc.isenabled()
    finally:
        gc.enable()


# ---------------------------------------------------------------- verdicts from skeletons
#
# A passing evaluation of plain chat dicts is decided without building the trajectories; these
# pin that it accepts nothing the full normaliser refuses and that the report stays complete.


def _chat_run(arguments: str, *, role: str = "assistant") -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Weather in Suzhou?"},
        {
            "role": role,
            "content": "",
            "tool_calls": [
                {"id": "c1", "function": {"name": "get_weather", "arguments": arguments}}
            ],
        },
        {"role": "tool", "content": "sunny", "tool_call_id": "c1"},
        {"role": "assistant", "content": "Sunny."},
    ]


@pytest.mark.parametrize("mode", ["strict", "unordered", "subset", "superset"])
@pytest.mark.parametrize(
    ("arguments", "role", "field", "text"),
    [
        ("{city: SZ}", "assistant", "tool_calls[0].function.arguments", "not valid JSON"),
        ("[1]", "assistant", "tool_calls[0].function.arguments", "must be a JSON object"),
        ('{"city": "SZ"}', "robot", "role", "unknown role"),
        ('{"city": "SZ"}', "user", "tool_calls", "only assistant messages make tool calls"),
    ],
)
def test_identical_bad_sides_are_refused_not_passed(
    mode: str, arguments: str, role: str, field: str, text: str
) -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode)  # type: ignore[arg-type]
    with pytest.raises(TrajectoryFormatError, match=text) as info:
        evaluator(
            outputs=_chat_run(arguments, role=role),
            reference_outputs=_chat_run(arguments, role=role),
        )
    assert (info.value.side, info.value.index, info.value.field) == ("outputs", 1, field)


def _langchain_calls_elsewhere() -> list[Any]:
    """LangChain messages whose calls are not in ``tool_calls``: OpenAI-style ones kept in
    ``additional_kwargs``, and Anthropic ``tool_use`` blocks in the content."""
    from langchain_core.messages import AIMessage, HumanMessage

    openai_call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "SZ"}'},
    }
    tool_use = {"type": "tool_use", "id": "c2", "name": "get_weather", "input": {"city": "SZ"}}
    return [
        HumanMessage("Weather in Suzhou?"),
        AIMessage(content="", additional_kwargs={"tool_calls": [openai_call]}),
        AIMessage(content=[tool_use]),
    ]


@pytest.mark.parametrize("mode", ["strict", "unordered", "subset", "superset"])
def test_langchain_calls_outside_tool_calls_are_read_not_skipped(mode: str) -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode)  # type: ignore[arg-type]
    without_calls = [
        {"role": "user", "content": "Weather in Suzhou?"},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": ""},
    ]
    with_calls = _langchain_calls_elsewhere()
    calls = {"name": "get_weather", "args": {"city": "SZ"}}
    as_dicts = [
        without_calls[0],
        {"role": "assistant", "content": "", "tool_calls": [calls]},
        {"role": "assistant", "content": "", "tool_calls": [calls]},
    ]
    assert evaluator(outputs=with_calls, reference_outputs=as_dicts)["score"] is True
    assert evaluator(outputs=with_calls, reference_outputs=with_calls)["score"] is True
    if mode != "superset":  # the output makes two calls the reference lacks
        assert evaluator(outputs=with_calls, reference_outputs=without_calls)["score"] is False


def test_a_passing_report_builds_its_trajectories_from_what_was_evaluated() -> None:
    from pytest_agenttraj import to_trajectory
    from pytest_agenttraj.core.matching.rules import make_config
    from pytest_agenttraj.evaluators.trajectory import evaluate_trajectory

    outputs = _chat_run('{"city": "SZ"}')
    reference = _chat_run('{"city": "SZ"}')
    result, report = evaluate_trajectory(outputs, reference, make_config("unordered"))
    assert result["score"] is True
    outputs.append({"role": "user", "content": "and tomorrow?"})  # after the evaluation
    assert report.output == to_trajectory(outputs[:-1])
    assert report.reference == to_trajectory(reference)
    [(out, ref)] = report.pairs
    assert (out.message, out.position, ref.message, ref.position) == (1, 0, 1, 0)
    assert out.call.args == ref.call.args == {"city": "SZ"}
    clone = pickle.loads(pickle.dumps(report))
    assert clone.matched is True
    assert clone.output == report.output
    assert clone.reference == report.reference
    assert [(o.call, r.call) for o, r in clone.pairs] == [(out.call, ref.call)]


@pytest.mark.parametrize(
    ("mode", "tool_args", "output_arguments"),
    [
        ("strict", "exact", '{"city": "SZ"}'),
        ("unordered", "exact", '{"city": "SZ"}'),
        ("subset", "exact", '{"city": "SZ"}'),
        ("superset", "exact", '{"city": "SZ"}'),
        # ignored arguments: the tools pair up whatever the texts say
        ("strict", "ignore", '{"city": "Suzhou"}'),
        ("unordered", "ignore", '{"city": "Suzhou"}'),
        ("subset", "ignore", '{"city": "Suzhou"}'),
        ("superset", "ignore", '{"city": "Suzhou"}'),
        # texts differ but values are equal
        ("unordered", "exact", '{"city":"SZ"}'),
        ("unordered", "subset", '{"city": "SZ"}'),
        ("strict", "superset", '{"city": "SZ", "unit": "C"}'),
    ],
)
def test_passing_evaluations_report_what_they_compared(
    mode: str, tool_args: str, output_arguments: str
) -> None:
    from pytest_agenttraj.core.matching.rules import make_config
    from pytest_agenttraj.evaluators.trajectory import evaluate_trajectory

    outputs, reference = _chat_run(output_arguments), _chat_run('{"city": "SZ"}')
    result, report = evaluate_trajectory(outputs, reference, make_config(mode, tool_args))
    assert result["score"] is True
    outputs.append({"role": "user", "content": "and tomorrow?"})
    [(out, ref)] = report.pairs
    assert (out.message, out.position, ref.message, ref.position) == (1, 0, 1, 0)
    assert (out.call.name, ref.call.name) == ("get_weather", "get_weather")
    assert len(report.output) == len(report.reference) == 4


@pytest.mark.parametrize(
    ("keyword", "meant"),
    [
        ("trajectory_match_mode", "mode"),
        ("tool_args_match_mode", "tool_args"),
        ("tool_args_match_overrides", "overrides"),
        ("tool_arg", "tool_args"),
        ("modes", "mode"),
    ],
)
def test_a_wrong_keyword_names_the_right_one(keyword: str, meant: str) -> None:
    from pytest_agenttraj import assert_trajectory

    trajectory = [{"role": "user", "content": "q"}]
    with pytest.raises(TypeError, match=rf"'{keyword}' \(did you mean '{meant}'\?\)"):
        assert_trajectory(trajectory, trajectory, **{keyword: "strict"})
