"""The marker's expectations in real pytest runs: ``ignore_keys``
(marker, command line, ini), ``allow_empty``, ``in_order``, the tool-usage rules (``required``,
``forbidden``, ``max_calls``, ``max_total_calls``, ``max_steps``), and evaluations that raise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import PROJECT_INI, SERIAL_ONLY


def _results(path: Path) -> list[dict[str, Any]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    results: list[dict[str, Any]] = document["results"]
    return results


def _by_test(results: list[dict[str, Any]]) -> dict[str, list[tuple[str, bool, str]]]:
    found: dict[str, list[tuple[str, bool, str]]] = {}
    for record in results:
        name = record["nodeid"].split("::")[-1]
        found.setdefault(name, []).append((record["key"], record["passed"], record["origin"]))
    return found


def _glob(lines: list[str]) -> list[str]:
    """``fnmatch_lines`` patterns: ``*`` stays a wildcard, brackets are literal."""
    return [line.replace("[", "[[]") for line in lines]


def _ini(project: pytest.Pytester, lines: str) -> None:
    """The project's ini file (which wins over any other) with ``lines`` added."""
    project.makefile(".ini", pytest=f"{PROJECT_INI}\n{lines}\n")


IGNORE_KEYS = """
import copy
import json
import pytest
from pytest_agenttraj import assert_trajectory

def with_request_id(messages, rid):
    out = copy.deepcopy(messages)
    call = out[3]["tool_calls"][0]["function"]
    call["arguments"] = json.dumps({**json.loads(call["arguments"]), "request_id": rid})
    return out

@pytest.mark.trajectory(ignore_keys=["request_id"])
def test_marker(reference, trajectory_evaluator, trajectory_config):
    assert trajectory_config.ignore_keys == ("request_id",)
    assert trajectory_config.sources["ignore_keys"] == "marker"
    out = with_request_id(reference, "r-2")
    before = with_request_id(reference, "r-1")
    assert trajectory_evaluator(outputs=out, reference_outputs=before)["score"]
    assert_trajectory(out, reference)

def test_session_default(reference, trajectory_config):
    source = trajectory_config.sources.get("ignore_keys", "default")
    print("SOURCE", source, trajectory_config.ignore_keys)
    assert_trajectory(with_request_id(reference, "r-2"), reference)

@pytest.mark.trajectory(ignore_keys=[])
def test_marker_clears(reference):
    assert_trajectory(with_request_id(reference, "r-2"), with_request_id(reference, "r-1"))
"""


def test_ignore_keys_from_marker_command_line_and_ini(project: pytest.Pytester) -> None:
    project.makepyfile(IGNORE_KEYS)
    result = project.runpytest("-s")
    result.assert_outcomes(passed=1, failed=2)  # nothing ignored outside the marker
    result = project.runpytest("-s", "--trajectory-ignore-keys=request_id,meta.ts")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        _glob(
            [
                "agenttraj: mode=strict, tool_args=exact, ignore_keys=[request_id, meta.ts] "
                "(command line)"
            ]
        )
    )
    result.stdout.fnmatch_lines(_glob(["*SOURCE command line ('request_id', 'meta.ts')"]))
    _ini(project, "trajectory_ignore_keys =\n    request_id\n    meta.ts")
    result = project.runpytest("-s")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(_glob(["agenttraj: *ignore_keys=[request_id, meta.ts] (ini)"]))
    result = project.runpytest("-s", "--trajectory-ignore-keys=other")
    result.assert_outcomes(passed=1, failed=2)  # the command line beats the ini


def test_bad_ignore_keys_are_usage_errors(project: pytest.Pytester) -> None:
    project.makepyfile("def test_x():\n    pass\n")
    result = project.runpytest("--trajectory-ignore-keys=a,,b..c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(_glob(["ERROR: invalid --trajectory-ignore-keys *b..c*"]))


ALLOW_EMPTY = """
import pytest
from pytest_agenttraj import assert_trajectory

NO_CALLS = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]

def test_refused_by_the_assertion(reference, assert_trajectory):
    assert_trajectory(reference, NO_CALLS, mode="superset")

def test_refused_by_the_evaluator(reference, trajectory_evaluator):
    result = trajectory_evaluator(outputs=reference, reference_outputs=[])
    assert result["score"], result["comment"]

def test_empty_output(reference):
    assert_trajectory([], reference)

@pytest.mark.trajectory(allow_empty=True, mode="superset")
def test_allowed(reference, trajectory_evaluator, trajectory_config):
    assert trajectory_config.allow_empty is True
    assert_trajectory(reference, NO_CALLS)
    assert trajectory_evaluator(outputs=reference, reference_outputs=NO_CALLS)["score"]
"""


def test_allow_empty(project: pytest.Pytester) -> None:
    project.makepyfile(ALLOW_EMPTY)
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines_random(
        _glob(
            [
                "*the reference has no tool calls and superset mode compares only tool calls, so "
                "any output would pass; pass allow_empty=True if that is intended*",
                "*the reference is empty (no messages), so nothing would be checked*",
                "*the agent produced no messages (the reference has 6 messages)*",
            ]
        )
    )


IN_ORDER = """
import pytest
from pytest_agenttraj import assert_trajectory

def turn(name):
    return {"role": "assistant", "content": "", "tool_calls": [{"name": name, "args": {}}]}

REFERENCE = [{"role": "user", "content": "go"}, turn("validate"), turn("mutate")]
GOOD = [{"role": "user", "content": "go"}, turn("validate"), turn("log"), turn("mutate")]
BAD = [{"role": "user", "content": "go"}, turn("mutate"), turn("validate")]

@pytest.mark.trajectory(mode="in_order")
def test_marker(trajectory_evaluator):
    result = trajectory_evaluator(outputs=GOOD, reference_outputs=REFERENCE)
    assert result["key"] == "trajectory_in_order_match" and result["score"]

def test_session_mode():
    assert_trajectory(GOOD, REFERENCE)

@pytest.mark.trajectory(mode="in_order")
def test_out_of_order():
    assert_trajectory(BAD, REFERENCE)
"""


def test_in_order_from_marker_command_line_and_ini(project: pytest.Pytester) -> None:
    project.makepyfile(IN_ORDER)
    project.runpytest().assert_outcomes(passed=1, failed=2)
    result = project.runpytest("--trajectory-mode=in_order")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        _glob(
            [
                "agenttraj: mode=in_order (command line), tool_args=exact",
                "*reference message 2: tool call mutate() is out of order: the output makes it in "
                "message 1, before message 2*",
            ]
        )
    )
    _ini(project, "trajectory_mode = in_order")
    project.runpytest().assert_outcomes(passed=2, failed=1)


USAGE = """
import pytest
from pytest_agenttraj import assert_trajectory, create_trajectory_match_evaluator

@pytest.mark.trajectory(required=["get_weather"], forbidden=["delete_city"],
                        max_calls={"get_weather": 1}, max_total_calls=2, max_steps=3)
def test_rules_hold(reference, assert_trajectory):
    assert_trajectory(reference, reference)

@pytest.mark.trajectory(forbidden=["look_up_location_code"])
def test_forbidden_through_the_assertion(reference):
    assert_trajectory(reference, reference)

@pytest.mark.trajectory(required=["send_email"])
def test_required_through_the_fixture_evaluator(reference, trajectory_evaluator):
    assert trajectory_evaluator(outputs=reference, reference_outputs=reference)["score"]

@pytest.mark.trajectory(max_calls={"get_weather": 0})
def test_max_calls_through_a_public_evaluator(reference):
    evaluator = create_trajectory_match_evaluator()
    evaluator(outputs=reference, reference_outputs=reference)  # score not even asserted

@pytest.mark.trajectory(max_total_calls=1, max_steps=2)
def test_budgets(reference):
    assert_trajectory(reference, reference)

@pytest.mark.trajectory(required=["get_weather"])
def test_nothing_evaluated(reference):
    pass

@pytest.mark.trajectory(forbidden=["get_weather"])
def test_the_trajectory_mismatch_comes_first(reference):
    assert_trajectory(reference[:2], reference)
"""


def test_marker_usage_rules(project: pytest.Pytester) -> None:
    project.makepyfile(USAGE)
    result = project.runpytest("--trajectory-report=report.json")
    result.assert_outcomes(passed=1, failed=6)
    result.stdout.fnmatch_lines_random(
        _glob(
            [
                "*Tool usage breaks 1 rule (forbidden [look_up_location_code]):",
                "*  1. forbidden: tool 'look_up_location_code' was called once: message 1 "
                "look_up_location_code(city='苏州')",
                "*  1. required: tool 'send_email' was never called (the agent called "
                "look_up_location_code, get_weather)",
                "*  1. max_calls: tool 'get_weather' was called once, more than its budget of 0; "
                "beyond it: message 3 get_weather(location_code='location-123')",
                "*  1. max_total_calls: 2 tool calls, more than max_total_calls=1; beyond it: "
                "message 3 get_weather(location_code='location-123')",
                "*  2. max_steps: 3 assistant turns, more than max_steps=2; beyond it: message 5",
                "*the trajectory marker sets tool-usage rules (required [get_weather]), but the "
                "test evaluated no trajectory, so they checked nothing*",
                "*Trajectory does not match the reference (strict mode, exact args)*",
            ]
        )
    )
    results = _by_test(_results(project.path / "report.json"))
    assert results["test_rules_hold"] == [
        ("tool_usage", True, "marker"),
        ("trajectory_strict_match", True, "assert_trajectory"),
    ]
    assert results["test_forbidden_through_the_assertion"] == [
        ("tool_usage", False, "marker"),
        ("trajectory_strict_match", True, "assert_trajectory"),
    ]
    assert results["test_max_calls_through_a_public_evaluator"] == [
        ("tool_usage", False, "marker"),
        ("trajectory_strict_match", True, "evaluator"),
    ]
    assert "test_nothing_evaluated" not in results
    record = next(
        r
        for r in _results(project.path / "report.json")
        if r["nodeid"].endswith("test_budgets") and r["key"] == "tool_usage"
    )
    assert record["settings"]["usage"]["max_total_calls"] == 1
    assert record["diff"].startswith("Tool usage breaks 2 rules (max_total_calls 1, max_steps 2):")
    assert record["test_outcome"] == "failed"


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ("required=[3]", "invalid required [3]: tool names are non-empty strings"),
        ('required=["a"], forbidden=["a"]', "tool(s) a are both required and forbidden"),
        ('max_calls={"a": -1}', "invalid max_calls['a'] -1"),
        ("max_steps=1.5", "invalid max_steps 1.5"),
        ('allow_empty="yes"', "invalid allow_empty 'yes': must be True or False"),
        ('ignore_keys=["a..b"]', "invalid ignore_keys ['a..b']"),
    ],
)
def test_bad_marker_expectations_are_usage_errors(
    project: pytest.Pytester, marker: str, message: str
) -> None:
    project.makepyfile(
        f"""
        import pytest

        @pytest.mark.trajectory({marker})
        def test_x():
            pass
        """
    )
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(_glob([f"*test_x: {message}*"]))


TOOL_USAGE = """
from pytest_agenttraj import assert_tool_usage, create_tool_usage_evaluator

def test_assertion(reference):
    assert_tool_usage(reference, required=["get_weather"], max_calls={"get_weather": 1})
    assert_tool_usage(reference, forbidden=["get_weather"])

def test_evaluator(reference):
    evaluator = create_tool_usage_evaluator(max_steps=1)
    assert evaluator(outputs=reference)["score"]
"""


@SERIAL_ONLY
def test_tool_usage_results_flow_into_the_report(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(TOOL_USAGE)
    result = project.runpytest("--trajectory-report=report.json", "-v", *plugin_args)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines_random(
        _glob(
            [
                "E   *Tool usage breaks 1 rule (forbidden [get_weather]):",
                "*agenttraj: trajectory mismatch*",
                "*max_steps: 3 assistant turns, more than max_steps=1; beyond it: messages 3, 5",
                "*3 trajectory evaluations in 2 tests: 1 passed, 2 failed",
            ]
        )
    )
    assert _by_test(_results(project.path / "report.json")) == {
        "test_assertion": [
            ("tool_usage", True, "assert_tool_usage"),
            ("tool_usage", False, "assert_tool_usage"),
        ],
        "test_evaluator": [("tool_usage", False, "tool_usage")],
    }


RAISING = """
import pytest
from pytest_agenttraj import assert_trajectory, create_trajectory_match_evaluator

def boom(output, reference):
    raise RuntimeError("the matcher broke")

def test_fixture_evaluator(reference, trajectory_evaluator):
    trajectory_evaluator(outputs=[{"role": "robot"}], reference_outputs=reference)

def test_callable_override(reference):
    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="unordered",
        tool_args_match_overrides={"get_weather": boom},
    )
    evaluator(outputs=reference, reference_outputs=reference)

def test_assertion_with_a_missing_file(reference):
    assert_trajectory(reference, "nowhere.yaml")

@pytest.fixture
def evaluated(reference, trajectory_evaluator):
    return trajectory_evaluator(outputs=reference, reference_outputs=None)

def test_in_setup(evaluated):
    pass
"""


@SERIAL_ONLY
def test_an_evaluation_that_raises_is_recorded_as_an_error(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(RAISING)
    result = project.runpytest("--trajectory-report=report.json", "-v", *plugin_args)
    result.assert_outcomes(failed=3, errors=1)
    result.stdout.fnmatch_lines_random(
        _glob(["*ERROR*", "*4 trajectory evaluations in 4 tests: 0 passed, 4 failed"])
    )
    records = {r["nodeid"].split("::")[-1]: r for r in _results(project.path / "report.json")}
    assert set(records) == {
        "test_fixture_evaluator",
        "test_callable_override",
        "test_assertion_with_a_missing_file",
        "test_in_setup",
    }
    fixture = records["test_fixture_evaluator"]
    assert fixture["error"].startswith("TrajectoryFormatError: outputs, message 0, field 'role'")
    assert (fixture["passed"], fixture["score"], fixture["test_outcome"]) == (
        False,
        False,
        "failed",
    )
    assert fixture["key"] == "trajectory_strict_match"
    assert fixture["mode"] == "strict"
    callable_record = records["test_callable_override"]
    assert callable_record["error"] == "RuntimeError: the matcher broke"
    assert callable_record["key"] == "trajectory_unordered_match"
    assert callable_record["comment"] == (
        "trajectory_unordered_match raised RuntimeError: the matcher broke"
    )
    assert records["test_assertion_with_a_missing_file"]["error"].startswith(
        "ReferenceFileError: reference file"
    )
    setup = records["test_in_setup"]
    assert setup["phase"] == "setup"
    assert setup["test_outcome"] == "failed"  # pytest's outcome of the setup report
    assert setup["error"].startswith("TrajectoryFormatError: reference_outputs")
