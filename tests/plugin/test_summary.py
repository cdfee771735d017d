"""The terminal summary after the run."""

from __future__ import annotations

import pytest

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
