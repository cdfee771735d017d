"""--trajectory-baseline: a run compared with an earlier report fails on regressions."""

from __future__ import annotations

import json

import pytest

from .conftest import SERIAL_ONLY

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
            "agenttraj: 2 result(s) regressed, failed new, vanished or are not comparable "
            "against the baseline: the session fails",
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
    old = {
        "nodeid": nodeid,
        "key": "accuracy",
        "index": 0,
        "score": 0.80,
        "passed": False,
        "settings": {"kind": "value"},
    }
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
    """A pull request that changes the mode meets its baseline result by result (it used to
    become a "new" failure plus a "vanished" pass, exit 0): not comparable, and with the changed
    settings accepted, a regression stays a regression."""
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
            "NOT COMPARABLE: *::test_weather trajectory_unordered_match: judged under other "
            "settings: mode strict -> unordered; passed -> failed",
        ]
    )
    accepted = project.runpytest(
        "--trajectory-baseline=main.json",
        "--trajectory-mode=unordered",
        "--trajectory-allow-changed-settings",
    )
    assert accepted.ret == pytest.ExitCode.TESTS_FAILED
    accepted.stdout.fnmatch_lines(
        [
            "REGRESSED: *::test_weather trajectory_unordered_match: passed -> failed "
            "(judged under other settings: mode strict -> unordered)",
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


LOOSENED = """
import os
import pytest
from conftest import REFERENCE, with_code

DELETE_ALL = {"role": "assistant", "content": "", "tool_calls": [
    {"function": {"name": "delete_all", "arguments": "{}"}}]}
CHANGE = os.environ.get("CHANGE")
AGENT = (
    REFERENCE + [DELETE_ALL] if CHANGE == "delete_all"
    else with_code("location-999") if CHANGE == "args"
    else REFERENCE
)
MARKER = pytest.mark.trajectory(mode=os.environ.get("MARKER_MODE", "strict"))


@(MARKER if os.environ.get("MARKER_MODE") != "none" else (lambda test: test))
def test_agent(assert_trajectory):
    assert_trajectory(AGENT, REFERENCE)
"""


@pytest.mark.parametrize(
    ("change", "marker", "args", "shown"),
    [
        ("delete_all", "superset", [], "mode strict -> superset"),
        ("delete_all", "superset", ["-n", "2"], "mode strict -> superset"),
        ("delete_all", "none", ["--trajectory-mode=superset"], "mode strict -> superset"),
        ("args", "none", ["--tool-args-mode=ignore"], "tool_args exact -> ignore"),
    ],
    ids=["marker", "marker-xdist", "mode-option", "args-option"],
)
def test_a_check_loosened_in_the_change_it_judges_fails_the_gate(
    project: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    change: str,
    marker: str,
    args: list[str],
    shown: str,
) -> None:
    """The baseline was made in strict mode with exact args; the change makes the agent do
    something else (a ``delete_all`` call, other arguments) and loosens the check so that the
    test passes: through its marker, or an option. The result is not comparable: the gate fails,
    naming the old and the new settings, and passes only when told to accept them."""
    project.makepyfile(test_agent=LOOSENED)
    monkeypatch.setenv("MARKER_MODE", "strict" if marker != "none" else "none")
    project.runpytest("--trajectory-report=main.json").assert_outcomes(passed=1)
    monkeypatch.setenv("CHANGE", change)
    monkeypatch.setenv("MARKER_MODE", marker)
    result = project.runpytest("--trajectory-baseline=main.json", *args)
    result.assert_outcomes(passed=1)  # the loosened check passes the test
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # but not the gate
    result.stdout.fnmatch_lines(
        [
            "NOT COMPARABLE: test_agent.py::test_agent trajectory_*_match: judged under other "
            f"settings: {shown}; passed -> passed",
            "baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 1 not comparable, 0 unchanged",
            "not comparable: judged under other settings than the baseline's, *"
            "--trajectory-allow-changed-settings to judge them anyway",
            "agenttraj: 1 result(s) regressed, failed new, vanished or are not comparable "
            "against the baseline: the session fails",
        ]
    )
    accepted = project.runpytest(
        "--trajectory-baseline=main.json", "--trajectory-allow-changed-settings", *args
    )
    assert accepted.ret == pytest.ExitCode.OK
    accepted.stdout.fnmatch_lines(
        [
            "other settings: test_agent.py::test_agent trajectory_*_match: passed -> passed "
            f"(judged under other settings: {shown})",
            "baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 1 unchanged",
        ]
    )


def test_a_check_tightened_in_the_change_is_compared(project: pytest.Pytester) -> None:
    """Exact args where the baseline ignored them: a pass now implies a pass then, so the
    result is compared as usual (and says its settings were tightened)."""
    project.makepyfile(test_agent=LOOSENED)
    project.runpytest("--trajectory-report=main.json", "--tool-args-mode=ignore")
    result = project.runpytest("--trajectory-baseline=main.json")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "other settings: *::test_agent trajectory_strict_match: passed -> passed "
            "(tightened: tool_args ignore -> exact)",
            "baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 1 unchanged",
        ]
    )


JUDGED = """
import os
import pytest
from pytest_agenttraj.core.matchers import Regex
from conftest import REFERENCE, with_code

PROMPT = os.environ.get("PROMPT", "Is this trajectory sensible? {outputs}")
PATTERN = os.environ.get("PATTERN", "location-[0-9]+")


def near(output_args, reference_args):
    return output_args.get("location_code", "").startswith("location-")


def test_judged(trajectory_judge, chat_model, reference):
    assert trajectory_judge(judge=chat_model, prompt=PROMPT)(outputs=reference)["score"]


@pytest.mark.trajectory(overrides={"get_weather": near}, forbidden=["delete_all"])
def test_callable_override(assert_trajectory):
    assert_trajectory(with_code("location-7"), REFERENCE)


def test_matcher(trajectory_evaluator):
    reference = with_code("x")
    reference[3]["tool_calls"][0]["function"]["arguments"] = {"location_code": Regex(PATTERN)}
    assert trajectory_evaluator(outputs=REFERENCE, reference_outputs=reference)["score"]


@pytest.mark.trajectory(repeat=2, pass_rule=os.environ.get("RULE", "all"), min_score=0.5)
def test_graded(tool_call_accuracy_evaluator):
    tool_call_accuracy_evaluator(outputs=REFERENCE, reference_outputs=REFERENCE)
"""


@pytest.fixture
def judged_project(project: pytest.Pytester) -> pytest.Pytester:
    from .test_judges import JUDGE_CONFTEST

    project.makeconftest(JUDGE_CONFTEST)
    project.makepyfile(test_judged=JUDGED)
    project.runpytest("--trajectory-report=main.json").assert_outcomes(passed=4)
    return project


@SERIAL_ONLY
def test_unchanged_settings_of_every_kind_meet_their_baseline(
    judged_project: pytest.Pytester, plugin_args: list[str]
) -> None:
    """A judge (model and prompt), a callable override, usage rules, a matcher, a repeated
    graded test: an unchanged run, in other processes, is judged under the same settings."""
    result = judged_project.runpytest("--trajectory-baseline=main.json", *plugin_args)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 5 unchanged"]
    )
    report = json.loads((judged_project.path / "main.json").read_text(encoding="utf-8"))
    settings = {(r["nodeid"].split("::")[1], r["key"]): r["settings"] for r in report["results"]}
    assert settings["test_callable_override", "trajectory_strict_match"]["overrides"] == {
        "get_weather": f"callable test_judged.near#{_digest_of('near', JUDGED)}"
    }
    assert settings["test_callable_override", "tool_usage"]["usage"] == {
        "required": [],
        "forbidden": ["delete_all"],
        "max_calls": {},
        "max_total_calls": None,
        "max_steps": None,
    }
    assert settings["test_matcher", "trajectory_strict_match"]["matchers"] == [
        "get_weather.location_code: Regex('location-[0-9]+')"
    ]
    assert settings["test_graded", "tool_call_accuracy"] == {
        "kind": "accuracy",
        "mode": "strict_order",
        "tool_args": "ragas",
        "allow_empty": True,
        "min_score": 0.5,
        "repeat": 2,
        "pass_rule": "all",
    }
    judge = settings["test_judged", "trajectory_accuracy"]["judge"]
    assert judge["model"] == "ToolJudge"
    assert set(judge) == {"model", "model_params", "prompt", "setup"}


def _digest_of(name: str, source: str) -> str:
    import hashlib

    lines = source.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(f"def {name}("))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == "")
    return hashlib.sha256("".join(lines[start:end]).encode()).hexdigest()[:8]


@pytest.mark.parametrize(
    ("variable", "value", "shown"),
    [
        (
            "PROMPT",
            "Is it good? {outputs}",
            "test_judged trajectory_accuracy: judged under other settings: judge.prompt ",
        ),
        (
            "PATTERN",
            ".*",
            "test_matcher trajectory_strict_match: judged under other settings: "
            "matchers [get_weather.location_code: Regex('location-[0-9]+')] -> "
            "[get_weather.location_code: Regex('.*')]",
        ),
        (
            "RULE",
            "any",
            "test_graded tool_call_accuracy: judged under other settings: pass_rule all -> any",
        ),
    ],
    ids=["judge-prompt", "matcher", "pass-rule"],
)
def test_a_changed_judge_prompt_matcher_or_pass_rule_is_not_comparable(
    judged_project: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
    shown: str,
) -> None:
    monkeypatch.setenv(variable, value)
    result = judged_project.runpytest("--trajectory-baseline=main.json")
    result.assert_outcomes(passed=4)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    (line,) = [line for line in result.outlines if line.startswith("NOT COMPARABLE: ")]
    assert line.startswith(f"NOT COMPARABLE: test_judged.py::{shown}")
    result.stdout.fnmatch_lines(["*1 not comparable, 4 unchanged"])
