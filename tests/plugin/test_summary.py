"""The terminal summary after the run."""

from __future__ import annotations

import pytest

from .conftest import SERIAL_ONLY

TESTS = """
import pytest
from conftest import with_code

def test_pass(reference, trajectory_evaluator):
    trajectory_evaluator(outputs=reference, reference_outputs=reference)

@pytest.mark.trajectory(mode="unordered")
def test_fail(reference, trajectory_evaluator):
    trajectory_evaluator(outputs=with_code("location-999"), reference_outputs=reference)

def test_no_evaluation():
    pass
"""


def test_table_lists_failures_first_then_totals(project: pytest.Pytester) -> None:
    project.makepyfile(TESTS)
    result = project.runpytest()
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*= trajectory results =*",
            "test * key * mode * score  result",
            "*test_fail  trajectory_unordered_match  unordered/exact  false  FAIL",
            "*test_pass  trajectory_strict_match     strict/exact     true   PASS",
            "2 trajectory evaluations in 2 tests: 1 passed, 1 failed",
        ]
    )
    assert "test_no_evaluation" not in result.stdout.str().split("trajectory results")[1]


def test_quiet_shows_only_totals_and_qq_nothing(project: pytest.Pytester) -> None:
    project.makepyfile(TESTS)
    quiet = project.runpytest("-q")
    quiet.stdout.fnmatch_lines(
        ["*= trajectory results =*", "2 trajectory evaluations in 2 tests: 1 passed, 1 failed"]
    )
    assert "PASS" not in quiet.stdout.str()
    assert "trajectory evaluations" not in project.runpytest("-qq").stdout.str()


def test_verbose_adds_the_comment_of_each_failure(project: pytest.Pytester) -> None:
    project.makepyfile(TESTS)
    result = project.runpytest("-v")
    result.stdout.fnmatch_lines(
        [
            "*test_fail  * FAIL",
            "    Trajectory does not match the reference (unordered mode, exact args): message 3:"
            " tool call 'get_weather' args differ (exact): location_code expected "
            "'location-123', got 'location-999'.",
            "*test_pass  * PASS",
        ]
    )


def test_no_section_without_evaluations(project: pytest.Pytester) -> None:
    project.makepyfile("def test_x(): pass")
    assert "trajectory results" not in project.runpytest().stdout.str()


def test_long_tables_are_capped_by_default(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import pytest
        from pytest_agenttraj import exact_match

        @pytest.mark.parametrize("n", range(25))
        def test_n(n):
            exact_match(outputs=n, reference_outputs=n)
        """
    )
    result = project.runpytest()
    result.stdout.fnmatch_lines(["... 5 more rows (-v shows all)", "25 trajectory evaluations *"])
    assert "... 5 more rows" not in project.runpytest("-v").stdout.str()


REPEATED = """
import pytest

@pytest.mark.trajectory(repeat=2)
def test_repeated(reference, trajectory_evaluator):
    trajectory_evaluator(outputs=reference, reference_outputs=reference)
"""


@SERIAL_ONLY
def test_the_ini_key_turns_the_summary_off_and_nothing_else(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    """``trajectory_summary = false``: no results or repeats section; the evaluations are still
    recorded (the report has them, a gate judges them), and ``-o`` turns the summary back on."""
    project.makepyfile(TESTS, test_repeated=REPEATED)
    ini = project.path / "pytest.ini"
    ini.write_text(ini.read_text() + "\ntrajectory_summary = false\n")
    off = project.runpytest("--trajectory-report=report.json", *plugin_args)
    off.assert_outcomes(passed=4)
    for text in ("trajectory results", "trajectory repeats", "trajectory evaluations", "PASS"):
        assert text not in off.stdout.str()
    report = (project.path / "report.json").read_text()
    assert report.count('"nodeid"') == 3
    if plugin_args:
        return  # the controller prints the summary: one run under xdist says enough
    gate = project.runpytest("--trajectory-min-pass-rate=1.0")
    assert gate.ret == pytest.ExitCode.TESTS_FAILED  # the failed evaluation still counts
    on = project.runpytest("-o", "trajectory_summary=true")
    on.stdout.fnmatch_lines(
        [
            "*= trajectory repeats =*",
            "*= trajectory results =*",
            "3 trajectory evaluations in 3 tests: 2 passed, 1 failed*",
        ]
    )


def test_a_bad_summary_value_is_a_usage_error(project: pytest.Pytester) -> None:
    project.makepyfile(TESTS)
    result = project.runpytest("-o", "trajectory_summary=sometimes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*invalid trajectory_summary (*'sometimes'*): use true or false*"])


def test_the_projects_own_suite_prints_no_summary_of_the_evaluations_it_provokes(
    request: pytest.FixtureRequest,
) -> None:
    """This suite's tests call the evaluators on purpose (thousands of evaluations, half of
    them failing by design); its configuration turns the plugin's terminal summary off, so a
    green run does not end with an alarming table. Inner pytester runs have their own ini."""
    assert request.config.getini("trajectory_summary") is False
