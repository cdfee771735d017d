"""--trajectory-min-pass-rate: the session (or a marker's tests) fails below a share of passing
evaluations, counting errors and skips as stated in the summary."""

from __future__ import annotations

import json

import pytest

from pytest_agenttraj.gating.pass_rate import TestFacts, Threshold, parse_thresholds, tally

from .conftest import INNER_ADDOPTS

INI = f"""
[pytest]
asyncio_default_fixture_loop_scope = function
{INNER_ADDOPTS}
markers =
    smoke: quick checks
"""

HALF = """
import pytest
from pytest_agenttraj import exact_match

@pytest.mark.smoke
def test_good():
    exact_match(outputs=1, reference_outputs=1)

def test_recorded_not_asserted():
    exact_match(outputs=1, reference_outputs=2)
"""


@pytest.fixture
def gated(project: pytest.Pytester) -> pytest.Pytester:
    project.makefile(".ini", pytest=INI)
    return project


def test_met_rate_passes(gated: pytest.Pytester) -> None:
    gated.makepyfile(HALF)
    result = gated.runpytest("--trajectory-min-pass-rate=0.5")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "agenttraj: min pass rate 50% (the session)",
            "*= trajectory pass rate =*",
            "session: 50% of 2 evaluations passed (1 passed, 1 failed; 95% CI 9.5-90.5%); "
            "needs 50%: ok",
        ]
    )


def test_missed_rate_fails_the_session_although_every_test_passes(
    gated: pytest.Pytester,
) -> None:
    gated.makepyfile(HALF)
    result = gated.runpytest("--trajectory-min-pass-rate", "0.8")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "session: 50% of 2 evaluations passed (1 passed, 1 failed; *); needs 80%: MISSED",
            "agenttraj: pass rate 50% is below --trajectory-min-pass-rate 0.8 for the session: "
            "the session fails",
        ]
    )


def test_group_rate_from_the_ini_file(gated: pytest.Pytester) -> None:
    gated.makefile(
        ".ini", pytest=INI + "trajectory_min_pass_rate =\n    0.5\n    smoke=1\n    other=0\n"
    )
    gated.makepyfile(
        HALF
        + """
@pytest.mark.smoke
def test_smoke_fails():
    exact_match(outputs=[1], reference_outputs=[2])
"""
    )
    result = gated.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "session: 33.33% of 3 evaluations passed (1 passed, 2 failed; 95% CI 6.1-79.2%); "
            "needs 50%: MISSED",
            "group smoke: 50% of 2 evaluations passed (1 passed, 1 failed; *); needs 100%: MISSED",
            "group other: no evaluations counted; needs 0%: ok",
            "agenttraj: pass rate 33.33% is below --trajectory-min-pass-rate 0.5 for the session:*",
            "agenttraj: pass rate 50% is below --trajectory-min-pass-rate smoke=1 for group smoke "
            "(tests marked @pytest.mark.smoke): the session fails",
        ]
    )


ERRORS = """
import pytest
from pytest_agenttraj import exact_match

@pytest.fixture
def agent():
    raise ConnectionError("agent unreachable")

@pytest.mark.smoke
def test_passes(trajectory_evaluator, reference):
    trajectory_evaluator(outputs=reference, reference_outputs=reference)

@pytest.mark.smoke
def test_setup_error(trajectory_evaluator, agent):
    pass

def test_call_error(assert_trajectory):
    raise ConnectionError("agent unreachable")

@pytest.mark.trajectory(repeat=3, pass_rule="all")
def test_repeated_error(agent):
    pass

def test_evaluated_then_failed():
    exact_match(outputs=1, reference_outputs=1)
    raise ConnectionError("agent unreachable")

@pytest.mark.smoke
@pytest.mark.skip(reason="agent offline")
def test_skipped(trajectory_evaluator):
    pass

@pytest.mark.trajectory(repeat=4, pass_rule="majority")
def test_repeated(trajectory_config, request):
    exact_match(outputs=1, reference_outputs=1)

def test_uses_the_plugin_without_evaluating(trajectory_config):
    pass

def test_unrelated_error():
    raise ConnectionError("not a trajectory test")
"""


@pytest.mark.parametrize("args", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_errors_and_skips_are_counted_and_explained(
    gated: pytest.Pytester, args: list[str]
) -> None:
    gated.makepyfile(ERRORS)
    result = gated.runpytest(
        "--trajectory-min-pass-rate=0.5", "--trajectory-min-pass-rate=smoke=0.3", *args
    )
    result.assert_outcomes(passed=3, failed=3, errors=2, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # passed: 1 + 1 (made before the error) + 3 (repeated: 3 attempts of 4 settle "majority")
    # failed: setup error, call error, repeated setup error (1 attempt: "all" is settled)
    # skipped: 1; not counted: the unrelated error and the passing test without evaluations
    result.stdout.fnmatch_lines(
        [
            "session: 55.56% of 9 evaluations passed (5 passed, 3 failed, 1 skipped; "
            "95% CI 26.7-81.1%); needs 50%: ok",
            "group smoke: 33.33% of 3 evaluations passed (1 passed, 1 failed, 1 skipped; *); "
            "needs 30%: ok",
            "counted as failed: 3 evaluations for 3 trajectory tests that failed or errored "
            "before evaluating",
            "counted as skipped, against the rate: 1 evaluation for 1 skipped trajectory test",
            "counted as they were: 1 evaluation made by tests that then failed or errored",
            "repeated tests count every attempt: 3 of 3 attempt evaluations passed",
            "not counted: 1 passing trajectory test without evaluations",
        ]
    )
    assert "is below" not in result.stdout.str()


def test_threshold_zero_never_fails_but_nothing_counted_misses_a_real_one(
    gated: pytest.Pytester,
) -> None:
    gated.makepyfile("def test_x():\n    pass\n")
    assert gated.runpytest("--trajectory-min-pass-rate=0").ret == pytest.ExitCode.OK
    result = gated.runpytest("--trajectory-min-pass-rate=0.9")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "session: no evaluations counted; needs 90%: MISSED",
            "agenttraj: no evaluations counted for the session, so --trajectory-min-pass-rate 0.9 "
            "is missed: the session fails",
        ]
    )


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (["1.5"], "invalid --trajectory-min-pass-rate '1.5': expected RATE from 0 to 1*"),
        (["-0.1"], "invalid --trajectory-min-pass-rate '-0.1': expected RATE*"),
        (["most"], "invalid --trajectory-min-pass-rate 'most': expected RATE*"),
        (["smoke="], "invalid --trajectory-min-pass-rate 'smoke=': expected RATE*"),
        (["2x=0.5"], "invalid --trajectory-min-pass-rate '2x=0.5': GROUP must be a marker name*"),
        (
            ["t.py::test_a[1]=0.5"],
            "invalid --trajectory-min-pass-rate 't.py::test_a?1?=0.5': GROUP must be a marker "
            "name or a test family (path::test_name, without parameters)*",
        ),
        (["lower:"], "invalid --trajectory-min-pass-rate 'lower:': expected RATE*"),
        (["smoke=lower:2"], "invalid --trajectory-min-pass-rate 'smoke=lower:2': expected*"),
        (
            ["0.5", "0.6"],
            "invalid --trajectory-min-pass-rate '0.6': the session has a threshold already*",
        ),
    ],
)
def test_bad_values_are_usage_errors(
    gated: pytest.Pytester, values: list[str], message: str
) -> None:
    gated.makepyfile("def test_x(): pass")
    result = gated.runpytest(*[f"--trajectory-min-pass-rate={value}" for value in values])
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


def test_bad_ini_value_names_the_ini_key(gated: pytest.Pytester) -> None:
    gated.makefile(".ini", pytest=INI + "trajectory_min_pass_rate = 80%\n")
    gated.makepyfile("def test_x(): pass")
    result = gated.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: invalid ini trajectory_min_pass_rate '80%': *"])


def test_parse_and_tally_without_pytest_runs() -> None:
    assert parse_thresholds([" 0.8 ", "smoke = 1"], where="x") == [
        Threshold(0.8),
        Threshold(1.0, "smoke"),
    ]
    tests = {
        "a": TestFacts(records=[{"passed": True}, {"passed": False}], groups=frozenset({"g"})),
        "b": TestFacts(
            records=[{"passed": False, "attempts": 5, "passed_attempts": 4}], outcome="failed"
        ),
        "c": TestFacts(outcome="failed", uses_plugin=True, attempts=2),
        "d": TestFacts(outcome="skipped", uses_plugin=True, groups=frozenset({"g"})),
        "e": TestFacts(outcome="failed"),
    }
    counted = tally(tests)
    assert (counted.passed, counted.failed, counted.skipped) == (5, 4, 1)
    assert (counted.in_failed_tests, counted.failed_for_tests, counted.repeated) == (5, 2, 5)
    assert counted.meets(0.5)
    assert not counted.meets(0.51)
    grouped = tally(tests, "g")
    assert (grouped.passed, grouped.failed, grouped.skipped) == (1, 1, 1)
    assert parse_thresholds(["t.py::test_a=lower:0.5"], where="x", confidence=0.9) == [
        Threshold(0.5, "t.py::test_a", lower=True, confidence=0.9)
    ]
    family = {
        "t.py::test_a[1]": TestFacts(records=[{"passed": True}]),
        "t.py::test_a[2]": TestFacts(records=[{"passed": False}]),
        "t.py::test_ab": TestFacts(records=[{"passed": False}]),
    }
    assert (tally(family, "t.py::test_a").passed, tally(family, "t.py::test_a").total) == (1, 2)


FAMILY = """
import pytest
from pytest_agenttraj import exact_match

@pytest.mark.parametrize("city", range(20))
def test_city(city):
    exact_match(outputs=city < 18, reference_outputs=True)

@pytest.mark.parametrize("n", range(3))
def test_other(n):
    exact_match(outputs=1, reference_outputs=2)
"""


def test_family_and_lower_bound_thresholds(gated: pytest.Pytester) -> None:
    gated.makepyfile(test_family=FAMILY)
    family = "test_family.py::test_city"
    # 18 of 20: rate 90%, Wilson lower bound 69.9%
    met = gated.runpytest(f"--trajectory-min-pass-rate={family}=lower:0.65", "-p", "no:randomly")
    assert met.ret == pytest.ExitCode.OK, met.stdout.str()
    met.stdout.fnmatch_lines(
        [
            f"agenttraj: min pass rate lower bound 65% (family {family})",
            # the results' summary gives each family's numbers, the weakest first
            "family test_family.py::test_other: 0/3 passed (0%, 95% CI 0.0-56.1%)",
            f"family {family}: 18/20 passed (90%, 95% CI 69.9-97.2%)",
            "*= trajectory pass rate =*",
            f"family {family}: 90% of 20 evaluations passed (18 passed, 2 failed; "
            "95% CI 69.9-97.2%); needs a lower bound of 65%: ok",
        ]
    )
    missed = gated.runpytest(
        f"--trajectory-min-pass-rate={family}=lower:0.8", "--trajectory-min-pass-rate=0.5"
    )
    assert missed.ret == pytest.ExitCode.TESTS_FAILED
    missed.stdout.fnmatch_lines(
        [
            f"family {family}: * needs a lower bound of 80%: MISSED",
            "session: 78.26% of 23 evaluations passed (*); needs 50%: ok",
            f"agenttraj: the lower bound 69.9% of pass rate 90% is below "
            f"--trajectory-min-pass-rate {family}=lower:0.8 for family {family} (its "
            "parametrized tests): the session fails",
        ]
    )
    # the plain rate meets 0.8 where its lower bound does not
    plain = gated.runpytest(
        f"--trajectory-min-pass-rate={family}=0.8", "--trajectory-report=r.json"
    )
    assert plain.ret == pytest.ExitCode.OK
    families = json.loads((gated.path / "r.json").read_text(encoding="utf-8"))["summary"][
        "families"
    ]
    assert families[family] == {
        "tests": 20,
        "evaluations": 20,
        "attempts": 20,
        "passed_attempts": 18,
        "pass_rate": 0.9,
        "pass_rate_interval": pytest.approx([0.699, 0.972], abs=5e-4),
    }
    assert set(families) == {family, "test_family.py::test_other"}


def test_a_missed_gate_fails_a_run_that_collected_nothing(project: pytest.Pytester) -> None:
    project.makepyfile(test_nothing="")
    assert project.runpytest().ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result = project.runpytest("--trajectory-min-pass-rate=0.5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*no evaluations counted for the session*: the session fails"])


def test_collect_only_is_not_judged(gated: pytest.Pytester) -> None:
    gated.makepyfile(
        "from pytest_agenttraj import exact_match\n"
        "def test_x():\n    exact_match(outputs=1, reference_outputs=2)\n"
    )
    result = gated.runpytest("--trajectory-min-pass-rate=1.0", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert "trajectory pass rate" not in result.stdout.str()
