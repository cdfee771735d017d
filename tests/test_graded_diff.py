"""The graded diff: what lost points, call by call, checked against the expected text."""

from __future__ import annotations

from typing import Any

import pytest
from scripted_agents import weather_reference

from pytest_agenttraj.core.matching.rules import make_config
from pytest_agenttraj.core.metrics import tool_call_accuracy, tool_call_f1
from pytest_agenttraj.evaluators.graded import graded_config
from pytest_agenttraj.render import headline, render, render_text

EXACT = make_config("unordered")
EXPECTED = [
    {"name": "look_up_location_code", "args": {"city": "苏州"}},
    {"name": "get_weather", "args": {"location_code": "location-123"}},
    {"name": "get_time", "args": {"location_code": "location-123"}},
]


def wrong_code() -> list[dict[str, Any]]:
    return weather_reference("location-999")


def test_accuracy_diff_lists_the_calls_that_lost_points() -> None:
    report = tool_call_accuracy(wrong_code(), EXPECTED[:2], EXACT)
    assert render_text(report, min_score=0.8) == "\n".join(
        [
            "Tool-call accuracy 0.50 is below min_score 0.80 (strict order, exact args)",
            "  mean argument accuracy 0.50",
            "  1. reference call 1 'get_weather' vs output call 1 (message 3) "
            "get_weather(location_code='location-999'): args differ (location_code), "
            "scores 0.00",
            "       - location_code: 'location-123'",
            "       + location_code: 'location-999'",
            "  1 of 2 reference calls match fully",
        ]
    )


def test_accuracy_diff_says_why_the_sequence_does_not_align() -> None:
    report = tool_call_accuracy(weather_reference(), EXPECTED, EXACT)
    assert render_text(report) == "\n".join(
        [
            "Tool-call accuracy 0.00 (strict order, exact args)",
            "  the sequence does not align, so the score is 0: the output calls 'get_time' "
            "0 of 1 times",
            "  1. reference call 2 'get_time': missing (no output call pairs with it), scores 0",
            "  2 of 3 reference calls match fully",
        ]
    )


def test_accuracy_diff_mentions_extra_calls() -> None:
    made = [*weather_reference(), {"role": "assistant", "tool_calls": [{"name": "s", "args": {}}]}]
    report = tool_call_accuracy(made, EXPECTED[:2], EXACT, allow_extra_calls=True)
    lines = render(report, min_score=1.0)
    assert lines[0] == (
        "Tool-call accuracy 1.00 reaches min_score 1.00 (strict order, extra calls allowed, "
        "exact args)"
    )
    assert (
        lines[-1] == "  1 extra output call(s), which lose no points: output call 2 (message 6) s()"
    )


def test_accuracy_diff_says_an_extra_call_misaligns() -> None:
    made = [*weather_reference(), {"role": "assistant", "tool_calls": [{"name": "s", "args": {}}]}]
    lines = render(tool_call_accuracy(made, EXPECTED[:2], EXACT), min_score=1.0)
    assert lines[:2] == [
        "Tool-call accuracy 0.00 is below min_score 1.00 (strict order, exact args)",
        "  the sequence does not align, so the score is 0: the output makes extra calls ('s' 1 "
        "time for 0 in the reference), and the calls align only when they are the reference's",
    ]
    assert lines[-1] == "  1 extra output call(s): output call 2 (message 6) s()"


def test_accuracy_diff_of_a_call_expected_without_args() -> None:
    made = [{"role": "assistant", "tool_calls": [{"name": "refresh", "args": {"force": True}}]}]
    report = tool_call_accuracy(
        made, [{"name": "refresh", "args": {}}], graded_config(metric="tool_call_accuracy")
    )
    assert render(report)[1:] == [
        "  mean argument accuracy 0.00",
        "  1. reference call 0 'refresh' vs output call 0 (message 0) refresh(force=True): args "
        "differ (force), scores 0.00",
        "       + force: True",
        "         (force is not in the reference)",
    ]


def test_f1_diff_pairs_a_missing_call_with_its_near_miss() -> None:
    made = [
        *wrong_code(),
        {"role": "assistant", "tool_calls": [{"name": "search", "args": {"q": "苏州"}}]},
    ]
    report = tool_call_f1(made, EXPECTED, EXACT)
    assert render_text(report, min_score=0.8) == "\n".join(
        [
            "Tool-call F1 0.33 is below min_score 0.80 (exact args)",
            "  precision 0.33 (1 of 3 output calls expected), recall 0.33 (1 of 3 reference "
            "calls made)",
            "  1. args differ: reference call 1 get_weather(location_code='location-123') vs "
            "output call 1 (message 3) get_weather(location_code='location-999')",
            "       - location_code: 'location-123'",
            "       + location_code: 'location-999'",
            "  2. missing: reference call 2 get_time(location_code='location-123')",
            "       the output has no call to 'get_time'",
            "  3. extra: output call 2 (message 6) search(q='苏州')",
            "       the reference has no call to 'search'",
            "  1 call(s) match: look_up_location_code",
        ]
    )


def test_f1_diff_of_a_repeated_call() -> None:
    made = [
        {"role": "assistant", "tool_calls": [{"name": "f", "args": {"a": 1}}]},
        {"role": "assistant", "tool_calls": [{"name": "f", "args": {"a": 1}}]},
    ]
    lines = render(tool_call_f1(made, [{"name": "f", "args": {"a": 1}}], EXACT))
    assert lines[2:] == [
        "  1. extra: output call 1 (message 1) f(a=1)",
        "       closest reference call 0 f(a=1), already paired with another call",
        "       the exact rule refused these args",
        "  1 call(s) match: f",
    ]


def test_long_diffs_are_capped_unless_very_verbose() -> None:
    expected = [{"name": f"tool{n}", "args": {}} for n in range(15)]
    report = tool_call_f1([], expected, EXACT)
    assert render(report)[-1] == "  ... and 5 more calls (-vv shows all)"
    assert len(render(report, verbose=2)) == 2 + 2 * 15


def test_markup_colours_lines() -> None:
    report = tool_call_accuracy(wrong_code(), EXPECTED[:2], EXACT)
    lines = render(report, markup=lambda text, style: f"<{style}>{text}")
    assert lines[0].startswith("<bold>Tool-call accuracy 0.50")
    assert "<good>- location_code: 'location-123'" in lines[3]


def test_rendering_never_raises() -> None:
    report = tool_call_accuracy(wrong_code(), EXPECTED[:2], EXACT)

    def broken(text: str, style: str) -> str:
        raise RuntimeError(f"no terminal for {style} {text[:0]}")

    assert render(report, markup=broken) == [
        headline(report),
        "(could not render the accuracy diff: RuntimeError: no terminal for bold )",
    ]


@pytest.mark.parametrize(("score_min", "word"), [(0.4, "reaches"), (0.6, "is below")])
def test_headline(score_min: float, word: str) -> None:
    report = tool_call_accuracy(wrong_code(), EXPECTED[:2], EXACT)
    assert headline(report, min_score=score_min).startswith(f"Tool-call accuracy 0.50 {word}")
