"""The public fixtures, sync and async (pytest-asyncio in strict and auto mode)."""

from __future__ import annotations

import pytest

ASYNC_TESTS = """
import pytest
from pytest_agenttraj import assert_trajectory
from conftest import with_code

{decorator}
async def test_async_evaluator(reference, async_trajectory_evaluator):
    result = await async_trajectory_evaluator(outputs=reference, reference_outputs=reference)
    assert result == {{"key": "trajectory_strict_match", "score": True, "comment": None,
                      "metadata": None}}

{decorator}
@pytest.mark.trajectory(tool_args="ignore")
async def test_async_uses_marker(reference, async_trajectory_evaluator):
    result = await async_trajectory_evaluator(
        outputs=with_code("location-999"), reference_outputs=reference)
    assert result["score"] is True
    assert_trajectory(with_code("location-999"), reference)

{decorator}
async def test_async_failure(reference, async_trajectory_evaluator):
    result = await async_trajectory_evaluator(
        outputs=with_code("location-999"), reference_outputs=reference)
    assert result["score"]
"""


@pytest.mark.parametrize(
    ("asyncio_mode", "decorator"), [("strict", "@pytest.mark.asyncio"), ("auto", "")]
)
def test_async_fixture_under_pytest_asyncio(
    pytester: pytest.Pytester, asyncio_mode: str, decorator: str
) -> None:
    from tests.plugin.conftest import PROJECT_CONFTEST

    pytester.makeconftest(PROJECT_CONFTEST)
    pytester.makeini(
        f"""
        [pytest]
        asyncio_mode = {asyncio_mode}
        asyncio_default_fixture_loop_scope = function
        """
    )
    pytester.makepyfile(ASYNC_TESTS.format(decorator=decorator))
    result = pytester.runpytest("--trajectory-report=report.json")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*- agenttraj: trajectory mismatch -*"])
    import json

    report = json.loads((pytester.path / "report.json").read_text())
    assert [(r["nodeid"].split("::")[1], r["passed"]) for r in report["results"]] == [
        ("test_async_evaluator", True),
        ("test_async_failure", False),
        ("test_async_uses_marker", True),
        ("test_async_uses_marker", True),
    ]


def test_sync_fixtures(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import pytest
        from conftest import with_code
        from pytest_agenttraj import TrajectoryMismatch

        @pytest.mark.trajectory(mode="superset", tool_args="subset")
        def test_all(reference, trajectory_config, trajectory_evaluator, assert_trajectory):
            assert trajectory_config.mode == "superset"
            assert trajectory_config.tool_args == "subset"
            assert trajectory_config.sources == {"mode": "marker", "tool_args": "marker"}
            assert repr(trajectory_evaluator) == (
                "TrajectoryMatchEvaluator(trajectory_match_mode='superset', "
                "tool_args_match_mode='subset')")
            assert trajectory_evaluator(outputs=reference, reference_outputs=reference)["key"] == (
                "trajectory_superset_match")
            assert assert_trajectory(reference, reference)["score"] is True
            with pytest.raises(TrajectoryMismatch) as caught:
                assert_trajectory(with_code("location-999"), reference)
            assert "superset mode, subset args" in str(caught.value)
            # an explicit argument beats the test's settings
            assert assert_trajectory(with_code("location-999"), reference, tool_args="ignore")
        """
    )
    project.runpytest().assert_outcomes(passed=1)


def test_the_assertion_fixture_called_from_a_thread_keeps_the_tests_settings(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        """
        import threading
        import pytest
        from conftest import with_code

        def in_thread(function, *args):
            outcome = []
            def run():
                try:
                    outcome.append(function(*args)["score"])
                except AssertionError as error:
                    outcome.append(type(error).__name__)
            thread = threading.Thread(target=run)
            thread.start()
            thread.join()
            return outcome[0]

        @pytest.mark.trajectory(tool_args="ignore")
        def test_marked(reference, assert_trajectory):
            assert in_thread(assert_trajectory, with_code("location-999"), reference) is True

        def test_unmarked(reference, assert_trajectory):
            outcome = in_thread(assert_trajectory, with_code("location-999"), reference)
            assert outcome == "TrajectoryMismatch"
        """
    )
    project.runpytest("-p", "no:randomly").assert_outcomes(passed=2)


def test_fixtures_are_documented(project: pytest.Pytester) -> None:
    result = project.runpytest("--fixtures")
    documented = [
        ("trajectory_config -- *", "*marker > the header of the test's*"),
        ("trajectory_evaluator -- *", "*configured from this test's settings*"),
        ("async_trajectory_evaluator -- *", "*awaitable twin*"),
        # one function for the run: a session fixture costs a test next to nothing
        (
            "assert_trajectory [[]session scope[]] -- *",
            "*bound to the running test's settings: returns the result on a",
        ),
        ("trajectory_reference -- *", "*the marker's ``reference=``*"),
    ]
    for name, doc in documented:  # in whatever order pytest lists them
        result.stdout.fnmatch_lines([name, doc])


def test_evaluations_outside_a_test_are_not_recorded(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_agenttraj import create_trajectory_match_evaluator
        from conftest import REFERENCE

        AT_IMPORT = create_trajectory_match_evaluator()(
            outputs=REFERENCE, reference_outputs=REFERENCE)

        def test_x():
            assert AT_IMPORT["score"]
        """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    assert "trajectory results" not in result.stdout.str()
