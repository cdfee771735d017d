"""--trajectory-baseline: a run compared with an earlier report fails on regressions."""

from __future__ import annotations

import json

import pytest

AGENT_TESTS = """
import os
import pytest
from pytest_agenttraj import create_trajectory_match_evaluator, exact_match
from conftest import REFERENCE, with_code

BROKEN = set(os.environ.get("BROKEN", "").split(","))

def test_weather():
    evaluator = create_trajectory_match_evaluator()
    code = "location-999" if "weather" in BROKEN else "location-123"
    evaluator(outputs=with_code(code), reference_outputs=REFERENCE)  # recorded, not asserted

def test_stable():
    exact_match(outputs=1, reference_outputs=1)

def test_was_failing():
    exact_match(outputs=1, reference_outputs=1 if "fixed" in BROKEN else 2)

@pytest.mark.skipif("gone" in BROKEN, reason="removed")
def test_might_vanish():
    exact_match(outputs=1, reference_outputs=1)

@pytest.mark.skipif("new" not in BROKEN, reason="not yet")
def test_new():
    exact_match(outputs=1, reference_outputs=1)
"""


@pytest.fixture
def baseline(project: pytest.Pytester) -> str:
    project.makepyfile(AGENT_TESTS)
    project.runpytest("--trajectory-report=main.json").assert_outcomes(passed=4, skipped=1)
    return "--trajectory-baseline=main.json"


def test_unchanged_run_passes(project: pytest.Pytester, baseline: str) -> None:
    result = project.runpytest(baseline)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*= trajectory baseline: */main.json =*",
            "baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 4 unchanged",
        ]
    )


def test_a_regression_fails_the_session_although_every_test_passes(
    project: pytest.Pytester, baseline: str, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROKEN", "weather,fixed,gone,new")
    result = project.runpytest(baseline, *plugin_args)
    result.assert_outcomes(passed=4, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "REGRESSED: test_a_regression_fails_the_session_although_every_test_passes.py::"
            "test_weather trajectory_strict_match: passed -> failed",
            "VANISHED: *::test_might_vanish exact_match: was passed, now absent",
            "improved: *::test_was_failing exact_match: failed -> passed",
            "new: *::test_new exact_match: not in the baseline (passed)",
            "baseline: 1 regressed, 1 improved, 1 new, 1 vanished (1 had passed), 1 unchanged",
            "agenttraj: 2 result(s) regressed, failed new or vanished against the baseline: "
            "the session fails",
        ]
    )


def _report(results: list[dict[str, object]], **extra: object) -> str:
    return json.dumps({"version": 1, "results": results, "summary": {}, **extra})


def test_graded_scores_and_tolerance(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        from pytest_agenttraj.evaluators.scope import Evaluation, notify

        def score(value):
            notify(Evaluation(result={"key": "accuracy", "score": value, "comment": None,
                                      "metadata": None},
                              report=None, outputs=None, reference_outputs=None))
        """
    )
    project.makepyfile(
        """
        from conftest import score

        def test_graded():
            score(0.70)
        """
    )
    nodeid = "test_graded_scores_and_tolerance.py::test_graded"
    old = {"nodeid": nodeid, "key": "accuracy", "index": 0, "score": 0.80, "passed": False}
    (project.path / "old.json").write_text(_report([old]), encoding="utf-8")
    within = project.runpytest("--trajectory-baseline=old.json", "--trajectory-tolerance=0.1")
    assert within.ret == pytest.ExitCode.OK
    within.stdout.fnmatch_lines(
        ["baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 1 unchanged"]
    )
    beyond = project.runpytest("--trajectory-baseline=old.json", "--trajectory-tolerance=0.05")
    assert beyond.ret == pytest.ExitCode.TESTS_FAILED
    beyond.stdout.fnmatch_lines(["REGRESSED: *test_graded accuracy: score 0.8 -> score 0.7"])
    exact = project.runpytest("--trajectory-baseline=old.json")
    assert exact.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            None,
            "ERROR: baseline */missing.json does not exist; create one with --trajectory-report=*",
        ),
        ("", "ERROR: baseline */base.json is empty; it must be a --trajectory-report file"),
        ("{not json", "ERROR: baseline */base.json is not valid JSON (line 1, column 2: *"),
        ("[]", "ERROR: baseline */base.json is not a trajectory report: *"),
        (
            '{"version": 2, "results": []}',
            "ERROR: baseline */base.json has report version 2; "
            "this pytest-agenttraj reads version 1*",
        ),
        (
            '{"version": true, "results": []}',
            "ERROR: baseline */base.json: field 'version': expected a whole number, got True",
        ),
        (
            '{"version": 1, "complete": "yes", "results": []}',
            "ERROR: baseline */base.json: field 'complete': expected true or false, got 'yes'",
        ),
        (
            '{"version": 1, "results": [{"key": "k"}]}',
            "ERROR: baseline */base.json: result 0, field 'nodeid': expected a string, got None",
        ),
    ],
)
def test_bad_baseline_is_a_usage_error(
    project: pytest.Pytester, content: str | None, message: str
) -> None:
    project.makepyfile("def test_x(): pass")
    name = "missing.json" if content is None else "base.json"
    if content is not None:
        (project.path / name).write_text(content, encoding="utf-8")
    result = project.runpytest(f"--trajectory-baseline={name}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("value", ["-0.1", "lots", "nan"])
def test_bad_tolerance_is_a_usage_error(project: pytest.Pytester, value: str) -> None:
    project.makepyfile("def test_x(): pass")
    (project.path / "base.json").write_text(_report([]), encoding="utf-8")
    result = project.runpytest("--trajectory-baseline=base.json", f"--trajectory-tolerance={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: invalid --trajectory-tolerance '{value}': must be a number >= 0*"]
    )


def test_baseline_made_with_other_settings_is_flagged(project: pytest.Pytester) -> None:
    project.makepyfile(
        "from pytest_agenttraj import exact_match\n"
        "def test_x():\n    exact_match(outputs=1, reference_outputs=1)\n"
    )
    project.runpytest("--trajectory-report=main.json", "--trajectory-mode=unordered")
    result = project.runpytest("--trajectory-baseline=main.json")
    result.stdout.fnmatch_lines(
        [
            "baseline was made with other settings (mode=unordered, tool_args=exact; now "
            "mode=strict, tool_args=exact): results may differ for that reason"
        ]
    )
    assert result.ret == pytest.ExitCode.OK


def test_collect_only_is_not_judged(
    project: pytest.Pytester, baseline: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROKEN", "weather")
    result = project.runpytest(baseline, "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert "trajectory baseline" not in result.stdout.str()


def test_another_mode_on_a_branch_cannot_turn_a_regression_green(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pull request that loosens the mode meets its baseline result by result: a regression
    stays a regression (it used to become a "new" failure plus a "vanished" pass, exit 0)."""
    project.makepyfile(
        test_fixture="""
import os
from conftest import REFERENCE, with_code

def test_weather(trajectory_evaluator):
    code = "location-999" if os.environ.get("BROKEN") else "location-123"
    trajectory_evaluator(outputs=with_code(code), reference_outputs=REFERENCE)
"""
    )
    project.runpytest("--trajectory-report=main.json").assert_outcomes(passed=1)
    monkeypatch.setenv("BROKEN", "1")
    result = project.runpytest("--trajectory-baseline=main.json", "--trajectory-mode=unordered")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*baseline was made with other settings*",
            "REGRESSED: *::test_weather trajectory_unordered_match: passed -> failed "
            "(mode strict/exact -> unordered/exact)",
        ]
    )


def test_a_vanished_pass_fails_unless_allowed(
    project: pytest.Pytester, baseline: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROKEN", "gone")
    failing = project.runpytest(baseline)
    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(["VANISHED: *::test_might_vanish exact_match: was passed*"])
    allowed = project.runpytest(baseline, "--trajectory-allow-vanished")
    assert allowed.ret == pytest.ExitCode.OK
    allowed.stdout.fnmatch_lines(["vanished: *::test_might_vanish exact_match: was passed*"])


def test_a_failing_new_result_fails_unless_allowed(project: pytest.Pytester, baseline: str) -> None:
    project.makepyfile(
        test_fresh="from pytest_agenttraj import exact_match\n"
        "def test_fresh():\n    exact_match(outputs=1, reference_outputs=2)\n"
    )
    failing = project.runpytest(baseline)
    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(["NEW FAILURE: test_fresh.py::test_fresh exact_match: *"])
    allowed = project.runpytest(baseline, "--trajectory-allow-new-failures")
    assert allowed.ret == pytest.ExitCode.OK


def test_no_test_collected_against_a_baseline_fails(
    project: pytest.Pytester, baseline: str
) -> None:
    result = project.runpytest(baseline, "-k", "nothing_matches_this")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["baseline: 0 regressed, 0 improved, 0 new, 4 vanished (3 had passed)*"]
    )
