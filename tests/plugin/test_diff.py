"""What a failing trajectory test shows in pytest's report."""

from __future__ import annotations

import pytest


def test_assert_trajectory_failure_shows_mode_problem_and_aligned_view(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        """
        from pytest_agenttraj import assert_trajectory
        from conftest import with_code

        def test_weather(reference):
            assert_trajectory(with_code("location-999"), reference)
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       *TrajectoryMismatch: Trajectory does not match the reference "
            "(strict mode, exact args): 1 problem",
            "E         1. message 3: tool call 'get_weather' args differ (exact)",
            "E              - location_code: 'location-123'",
            "E              + location_code: 'location-999'",
            "E       output vs reference (! marks rows with problems; "
            "message text is not compared):",
            "E           out ref  output * reference",
            "E             0   0  user: What's the weather in 苏州? * =",
            "E         !   3   3  assistant -> get_weather(*'location-999')* "
            "assistant -> get_weather(*'location-123')",
        ]
    )


@pytest.mark.parametrize(
    ("body", "lines"),
    [
        pytest.param(
            """
            out = copy.deepcopy(reference)
            out[2] = {"role": "assistant", "content": "location-123"}
            assert_trajectory(out, reference)
            """,
            ["E         1. message 2: expected role 'tool', got 'assistant'"],
            id="role",
        ),
        pytest.param(
            """
            assert_trajectory(reference[:4] + reference[5:], reference)
            """,
            [
                "E         1. expected 6 messages, got 5",
                "E         2. reference message 4 (tool: 'Sunny, 22°C') is missing from the output",
                "E         !   -   4  -  * tool: Sunny, 22°C",
            ],
            id="missing-message",
        ),
        pytest.param(
            """
            extra = {"role": "assistant", "content": "Let me check."}
            assert_trajectory(reference[:1] + [extra] + reference[1:], reference)
            """,
            [
                "E         1. expected 6 messages, got 7",
                "E         2. message 1 (assistant: 'Let me check.') is not in the reference",
            ],
            id="extra-message",
        ),
        pytest.param(
            """
            out = copy.deepcopy(reference)
            out[3] = {"role": "assistant", "content": "I don't know."}
            assert_trajectory(out, reference)
            """,
            ["E         1. message 3: expected tool calls [[]get_weather[]], got none"],
            id="no-tool-calls",
        ),
        pytest.param(
            """
            out = copy.deepcopy(reference)
            out[3]["tool_calls"][0]["function"]["name"] = "get_forecast"
            assert_trajectory(out, reference, mode="unordered")
            """,
            [
                "E         1. message 3: unexpected tool call "
                "get_forecast(location_code='location-123'); "
                "the reference has no call to 'get_forecast'",
                "E         2. reference message 3: tool call "
                "get_weather(location_code='location-123') "
                "is missing; the output has no call to 'get_weather'",
            ],
            id="unordered-unpaired",
        ),
        pytest.param(
            """
            out = copy.deepcopy(reference)
            call = out[3]["tool_calls"][0]
            out[3]["tool_calls"].append(copy.deepcopy(call))
            assert_trajectory(out, reference, mode="subset")
            """,
            [
                "E         1. message 3: unexpected tool call "
                "get_weather(location_code='location-123'); "
                "every reference call to 'get_weather' already pairs with another call",
                "E              closest reference call: reference message 3 "
                "get_weather(location_code='location-123'), already paired with another call",
            ],
            id="subset-closest-already-paired",
        ),
        pytest.param(
            """
            out = copy.deepcopy(reference)
            out[3]["tool_calls"][0]["function"]["arguments"] = (
                '{"location_code": "location-123", "units": {"temp": "F", "wind": "kph"}}')
            ref = copy.deepcopy(reference)
            ref[3]["tool_calls"][0]["function"]["arguments"] = (
                '{"location_code": "location-123", "units": {"temp": "C", "wind": "kph"}}')
            assert_trajectory(out, ref, tool_args="superset")
            """,
            [
                "E         1. message 3: tool call 'get_weather' args differ (superset)",
                "E              - units.temp: 'C'",
                "E              + units.temp: 'F'",
            ],
            id="nested-dotted-path",
        ),
    ],
)
def test_each_kind_of_problem_is_located(
    project: pytest.Pytester, body: str, lines: list[str]
) -> None:
    import textwrap

    project.makepyfile(
        "import copy\nfrom pytest_agenttraj import assert_trajectory\n\n"
        "def test_agent(reference):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(lines, consecutive=False)


def test_long_trajectories_are_shortened_unless_vv(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_agenttraj import assert_trajectory

        def turn(i, code):
            return [
                {"role": "assistant", "content": "", "tool_calls": [
                    {"name": "get_weather", "args": {"location_code": code}}]},
                {"role": "tool", "content": f"result {i}"},
            ]

        def trajectory(bad):
            messages = [{"role": "user", "content": "go"}]
            for i in range(30):
                messages += turn(i, "location-999" if (bad and i == 15) else f"location-{i}")
            return messages

        def test_long():
            assert_trajectory(trajectory(True), trajectory(False))
        """
    )
    short = project.runpytest()
    short.stdout.fnmatch_lines(["E *... 29 matching rows ...", "E *!  31  31  *"])
    assert "  0   0  user: go" not in short.stdout.str()
    whole = project.runpytest("-vv")
    whole.stdout.fnmatch_lines(["E *  0   0  user: go*", "E *!  31  31  *"])
    assert "matching rows" not in whole.stdout.str()


def test_asserting_an_evaluator_score_shows_the_diff_section(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from conftest import with_code

        def test_weather(reference, trajectory_evaluator):
            result = trajectory_evaluator(
                outputs=with_code("location-999"), reference_outputs=reference
            )
            assert result["score"]
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*- agenttraj: trajectory mismatch -*",
            "trajectory_strict_match [[]0[]]",
            "Trajectory does not match the reference (strict mode, exact args): 1 problem",
            "       - location_code: 'location-123'",
            "       + location_code: 'location-999'",
        ]
    )


def test_plain_text_without_colour_and_same_under_assert_plain(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_agenttraj import assert_trajectory
        from conftest import with_code

        def test_weather(reference):
            assert_trajectory(with_code("location-999"), reference)
        """
    )
    for args in ([], ["--assert=plain"]):
        result = project.runpytest(*args)
        text = result.stdout.str()
        assert "\x1b[" not in text
        result.stdout.fnmatch_lines(["E              + location_code: 'location-999'"])


def test_colour_through_the_terminal_writer(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PY_COLORS", "1")
    project.makepyfile(
        """
        from pytest_agenttraj import assert_trajectory
        from conftest import with_code

        def test_weather(reference):
            assert_trajectory(with_code("location-999"), reference)
        """
    )
    result = project.runpytest()
    text = result.stdout.str()
    assert "\x1b[32m- location_code: 'location-123'\x1b[0m" in text
    assert "\x1b[31m+ location_code: 'location-999'\x1b[0m" in text
    # the plain copy of the diff in the traceback is replaced, not repeated (the short summary
    # below it repeats the message on CI, where pytest does not truncate it)
    failures = text.split("short test summary info")[0]
    assert failures.count("location_code: 'location-999'") == 1
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("PY_COLORS")
    assert "\x1b[" not in project.runpytest().stdout.str()


def test_junit_xml_carries_the_plain_diff(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_agenttraj import assert_trajectory
        from conftest import with_code

        def test_weather(reference):
            assert_trajectory(with_code("location-999"), reference)
        """
    )
    project.runpytest("--junitxml=junit.xml")
    xml = (project.path / "junit.xml").read_text()
    assert "+ location_code: 'location-999'" in xml
    assert "\x1b[" not in xml


@pytest.mark.parametrize("columns", ["60", "80", "160"])
def test_rows_keep_roles_and_tool_names_at_any_terminal_width(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, columns: str
) -> None:
    import re

    monkeypatch.setenv("PY_COLORS", "1")  # the coloured diff is drawn to the terminal's width
    monkeypatch.setenv("COLUMNS", columns)
    project.makepyfile(
        """
        import json
        from pytest_agenttraj import assert_trajectory
        from conftest import with_code

        def city(trajectory, name):
            call = trajectory[1]["tool_calls"][0]["function"]
            call["arguments"] = json.dumps({"city": name})
            return trajectory

        def test_weather(reference):
            assert_trajectory(
                city(with_code("location-999"), "San Francisco"), city(reference, "SF")
            )
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    text = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout.str())
    # the failure's own section: under CI (the CI variable set) pytest prints the whole message
    # again, newlines included, in the short test summary
    failure = text.split("short test summary info")[0]
    rows = [line for line in failure.splitlines() if line.startswith("  !   ")]
    assert len(rows) == 2, text
    # both cells of both rows keep their role and tool name
    assert rows[0].count("assistant -> look_up_location_code(") == 2, rows[0]
    assert rows[1].count("assistant -> get_weather(") == 2, rows[1]
    if columns == "160":  # room for the differing values on both sides
        assert "city='San Francisco'" in rows[0], rows[0]
        assert "city='SF'" in rows[0], rows[0]
        assert "'location-999'" in rows[1], rows[1]
        assert "'location-123'" in rows[1], rows[1]
