"""Graded scores in pytest: the marker's ``min_score``, the terminal summary, the JSON report,
JUnit properties, baseline gating on a score that fell, and the graded diff of a failure."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from .conftest import SERIAL_ONLY

GRADED_TESTS = """
import os
import pytest
from pytest_agenttraj import assert_tool_call_accuracy, assert_tool_call_f1
from conftest import with_code

CODE = "location-999" if os.environ.get("BROKEN") else "location-123"
EXPECTED = [
    {"name": "look_up_location_code", "args": {"city": "苏州"}},
    {"name": "get_weather", "args": {"location_code": "location-123"}},
]

@pytest.mark.trajectory(min_score=0.5)
def test_accuracy():
    assert_tool_call_accuracy(with_code(CODE), EXPECTED)

def test_f1_recorded(tool_call_f1_evaluator):
    tool_call_f1_evaluator(outputs=with_code(CODE), reference_outputs=EXPECTED)
"""


@SERIAL_ONLY
def test_graded_results_in_summary_report_and_junit(
    project: pytest.Pytester, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROKEN", "1")
    project.makepyfile(test_scored=GRADED_TESTS)
    result = project.runpytest(
        "--trajectory-report=report.json", "--junitxml=junit.xml", *plugin_args
    )
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*= trajectory results =*",
            "test *key *mode *score *result",
            "test_scored.py::test_f1_recorded *tool_call_f1 *unordered/exact *0.5 *FAIL",
            "test_scored.py::test_accuracy *tool_call_accuracy *strict_order/ragas *0.5 *PASS",
            "2 trajectory evaluations in 2 tests: 1 passed, 1 failed",
        ]
    )
    document = json.loads((project.path / "report.json").read_text(encoding="utf-8"))
    by_key = {r["key"]: r for r in document["results"]}
    accuracy, f1 = by_key["tool_call_accuracy"], by_key["tool_call_f1"]
    assert (accuracy["score"], accuracy["passed"], accuracy["min_score"]) == (0.5, True, 0.5)
    assert (accuracy["mode"], accuracy["tool_args_mode"]) == ("strict_order", "ragas")
    assert accuracy["origin"] == "assert_tool_call_accuracy"
    assert (f1["score"], f1["passed"], f1["origin"]) == (0.5, False, "tool_call_f1_evaluator")
    assert "min_score" not in f1  # no threshold: a graded score passes at 1
    assert f1["diff"].splitlines()[:2] == [
        "Tool-call F1 0.50 (exact args)",
        "  precision 0.50 (1 of 2 output calls expected), recall 0.50 (1 of 2 reference calls "
        "made)",
    ]
    properties = {
        p.get("name"): p.get("value")
        for p in ET.parse(project.path / "junit.xml").getroot().iter("property")
    }
    assert properties["agenttraj.tool_call_accuracy.score"] == "0.5"
    assert properties["agenttraj.tool_call_accuracy.passed"] == "true"
    assert properties["agenttraj.tool_call_accuracy.mode"] == "strict_order"
    assert properties["agenttraj.tool_call_f1.passed"] == "false"


def test_graded_failure_shows_what_lost_points(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import pytest
        from pytest_agenttraj import assert_tool_call_accuracy
        from conftest import with_code

        @pytest.mark.trajectory(min_score=0.9)
        def test_agent():
            assert_tool_call_accuracy(with_code("location-999"), [
                {"name": "look_up_location_code", "args": {"city": "苏州"}},
                {"name": "get_weather", "args": {"location_code": "location-123"}},
            ])
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E   *GradedMismatch: Tool-call accuracy 0.50 is below min_score 0.90 (strict order, "
            "ragas args)",
            "E *  mean argument accuracy 0.50",
            "E *  1. reference call 1 'get_weather' vs output call 1 (message 3) *: args differ "
            "(location_code), scores 0.00",
            "E *       - location_code: 'location-123'",
            "E *       + location_code: 'location-999'",
            "E *  1 of 2 reference calls match fully",
        ]
    )


def test_coloured_graded_failure(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PY_COLORS", "1")
    project.makepyfile(
        """
        from pytest_agenttraj import assert_tool_call_f1

        def test_agent():
            assert_tool_call_f1([], [{"name": "get_weather", "args": {}}])
        """
    )
    result = project.runpytest("--color=yes")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "E   GradedMismatch: Tool-call F1 0.00 is below min_score 1.00 (exact args)" in output
    assert "\x1b[31m  1. missing: reference call 0 get_weather()" in output


def test_asserted_score_without_the_helper_gets_the_diff_section(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_agenttraj import create_tool_call_f1_evaluator

        def test_agent():
            evaluator = create_tool_call_f1_evaluator()
            result = evaluator(outputs=[], reference_outputs=[{"name": "f", "args": {}}])
            assert result["score"] > 0.5
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*- agenttraj: trajectory mismatch -*",
            "tool_call_f1 [[]0[]]",
            "Tool-call F1 0.00 (exact args)",
            "  1. missing: reference call 0 f()",
        ]
    )


def test_a_graded_score_that_fell_is_a_regression(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_scored=GRADED_TESTS)
    project.runpytest("--trajectory-report=main.json").assert_outcomes(passed=2)
    monkeypatch.setenv("BROKEN", "1")
    result = project.runpytest("--trajectory-baseline=main.json", "--trajectory-tolerance=0.1")
    result.assert_outcomes(passed=2)  # every test passes (0.5 reaches min_score 0.5) ...
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # ... but the scores fell
    result.stdout.fnmatch_lines(
        [
            "REGRESSED: test_scored.py::test_accuracy tool_call_accuracy: score 1.0 -> score 0.5",
            "REGRESSED: test_scored.py::test_f1_recorded tool_call_f1: score 1.0 -> score 0.5",
            "baseline: 2 regressed, 0 improved, 0 new, 0 vanished, 0 unchanged",
        ]
    )


def test_a_fall_within_the_tolerance_is_not_a_regression(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(
        test_scored=GRADED_TESTS.replace(
            "def test_f1_recorded(tool_call_f1_evaluator):",
            "@pytest.mark.trajectory(min_score=0.5)\ndef test_f1_recorded(tool_call_f1_evaluator):",
        )
    )
    project.runpytest("--trajectory-report=main.json").assert_outcomes(passed=2)
    monkeypatch.setenv("BROKEN", "1")
    result = project.runpytest("--trajectory-baseline=main.json", "--trajectory-tolerance=0.5")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 2 unchanged"]
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2", "invalid min_score 2: must be a number from 0 to 1 (e.g. 0.8)"),
        ("'0.5'", "invalid min_score '0.5': must be a number from 0 to 1 (e.g. 0.8)"),
        ("True", "invalid min_score True: must be a number from 0 to 1 (e.g. 0.8)"),
    ],
)
def test_bad_min_score_is_a_usage_error_naming_the_test(
    project: pytest.Pytester, value: str, message: str
) -> None:
    project.makepyfile(
        f"""
        import pytest

        @pytest.mark.trajectory(min_score={value})
        def test_bad():
            pass
        """
    )
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: *::test_bad: {message}"])


def test_min_score_is_in_the_marker_help(project: pytest.Pytester) -> None:
    result = project.runpytest("--markers")
    result.stdout.fnmatch_lines(["*min_score: the score 0..1 a graded result needs to pass*"])


def test_min_score_applies_to_a_judges_continuous_score(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import pytest
        from pytest_agenttraj.evaluators.scope import announce

        @pytest.mark.trajectory(min_score=0.7)
        @pytest.mark.parametrize("score", [0.75, 0.6])
        def test_scored(score):
            announce({"key": "judged", "score": score, "comment": None, "metadata": None},
                     outputs=None, reference_outputs=None, started=0.0, origin="custom")
        """
    )
    result = project.runpytest("--trajectory-report=r.json")
    result.assert_outcomes(passed=2)
    records = json.loads((project.path / "r.json").read_text(encoding="utf-8"))["results"]
    assert [(r["score"], r["passed"], r["min_score"]) for r in records] == [
        (0.6, False, 0.7),
        (0.75, True, 0.7),
    ]


ARGS_DEFAULT_TESTS = """
import pytest
from pytest_agenttraj import assert_tool_call_accuracy

MADE = [{"role": "assistant", "tool_calls": [{"name": "search", "args": {"q": "x", "limit": 5}}]}]
EXPECTED = [{"name": "search", "args": {"q": "x"}}]

def test_helper():
    assert_tool_call_accuracy(MADE, EXPECTED)

def test_fixture(tool_call_accuracy_evaluator):
    assert tool_call_accuracy_evaluator(outputs=MADE, reference_outputs=EXPECTED)["score"] == 1.0

@pytest.mark.trajectory(tool_args="exact")
def test_marked():
    assert_tool_call_accuracy(MADE, EXPECTED, min_score=0.5)
"""


def test_graded_accuracy_scores_args_as_ragas_unless_a_mode_is_chosen(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(test_args=ARGS_DEFAULT_TESTS)
    result = project.runpytest()
    result.assert_outcomes(passed=3)  # an extra argument is free under Ragas' rule
    result.stdout.fnmatch_lines(["test_args.py::test_marked *strict_order/exact *0.5 *PASS"])
    chosen = project.runpytest("--tool-args-mode=exact")
    chosen.assert_outcomes(passed=1, failed=2)  # exact counts the extra key: 0.5
    chosen.stdout.fnmatch_lines(["*GradedMismatch: Tool-call accuracy 0.50 is below min_score*"])
