"""--trajectory-update settles each reference file once per run: tests sharing a file, and the
attempts of a repeated test, must agree with it, serially and across pytest-xdist workers."""

from __future__ import annotations

import pytest

SHARED = """
import os
import pytest
from pytest_agenttraj import assert_trajectory

def run(code):
    return [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "tool_calls": [
            {"name": "get_weather", "args": {"location_code": code}}]},
    ]

def test_one():
    assert_trajectory(run("location-123"), "shared.yaml")

def test_two():
    assert_trajectory(run(os.environ.get("SECOND", "location-123")), "shared.yaml")
"""


def test_two_tests_that_agree_share_one_write(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(test_shared=SHARED)
    result = project.runpytest("--trajectory-update", *plugin_args)
    result.assert_outcomes(passed=2)
    assert result.stdout.str().count("agenttraj: wrote reference trajectories/shared.yaml") == 1
    project.runpytest(*plugin_args).assert_outcomes(passed=2)


def test_two_tests_that_disagree_fail_the_second_with_a_diff(
    project: pytest.Pytester, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_shared=SHARED)
    monkeypatch.setenv("SECOND", "location-999")
    result = project.runpytest("--trajectory-update", "-p", "no:randomly", *plugin_args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*ReferenceConflict: reference file trajectories/shared.yaml was settled earlier in "
            "this run by test_shared.py::test_* (written), and this trajectory does not match it.*",
            "*- location_code: 'location-*'",
            "*+ location_code: 'location-*'",
        ]
    )
    # what was written is one of the two, whole, and the next run says which test disagrees
    written = (project.path / "trajectories" / "shared.yaml").read_text(encoding="utf-8")
    assert written.count("location_code:") == 1
    project.runpytest(*plugin_args).assert_outcomes(passed=1, failed=1)


def test_a_file_kept_as_it_was_is_settled_too(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_shared=SHARED)
    project.runpytest("--trajectory-update").assert_outcomes(passed=2)
    before = (project.path / "trajectories" / "shared.yaml").read_text(encoding="utf-8")
    monkeypatch.setenv("SECOND", "location-999")
    result = project.runpytest("--trajectory-update", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*settled earlier in this run by *::test_one (kept as it was)*"])
    assert (project.path / "trajectories" / "shared.yaml").read_text(encoding="utf-8") == before


REPEATED = """
import itertools
import pytest
from pytest_agenttraj import assert_trajectory

codes = itertools.cycle({codes!r})

@pytest.mark.trajectory(repeat=3, pass_rule="{rule}")
def test_agent():
    code = next(codes)
    assert_trajectory(
        [{{"role": "assistant", "tool_calls": [{{"name": "f", "args": {{"code": code}}}}]}}],
        "agent.yaml",
    )
"""


@pytest.mark.parametrize("rule", ["all", "majority"])
def test_repeated_attempts_must_agree(project: pytest.Pytester, rule: str) -> None:
    project.makepyfile(test_repeat=REPEATED.format(codes=["a", "b", "a"], rule=rule))
    result = project.runpytest("--trajectory-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*settled earlier in this run by test_repeat.py::test_agent (attempt 1) (written)*",
            "*attempt 2 disagreed with a reference file an earlier attempt wrote under "
            "--trajectory-update: the attempts must agree",
        ]
    )


def test_repeated_attempts_that_agree_write_once(project: pytest.Pytester) -> None:
    project.makepyfile(test_repeat=REPEATED.format(codes=["a"], rule="all"))
    result = project.runpytest("--trajectory-update")
    result.assert_outcomes(passed=1)
    assert result.stdout.str().count("wrote reference trajectories/agent.yaml") == 1
    project.runpytest().assert_outcomes(passed=1)
