"""Options, ini keys and the marker: precedence and the errors for bad values."""

from __future__ import annotations

import pytest

SHOW_SETTINGS = """
import pytest

def test_settings(trajectory_config):
    print("SETTINGS", trajectory_config.mode, trajectory_config.tool_args,
          trajectory_config.sources["mode"], trajectory_config.sources["tool_args"])
"""


def _settings_line(result: pytest.RunResult) -> str:
    lines = [line[line.index("SETTINGS") :] for line in result.outlines if "SETTINGS" in line]
    assert len(lines) == 1, result.stdout.str()
    return lines[0].strip()


def test_defaults_are_strict_and_exact(project: pytest.Pytester) -> None:
    project.makepyfile(SHOW_SETTINGS)
    result = project.runpytest("-s")
    result.assert_outcomes(passed=1)
    assert _settings_line(result) == "SETTINGS strict exact default default"
    result.stdout.fnmatch_lines(["agenttraj: mode=strict, tool_args=exact"])


def test_ini_sets_defaults(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        """
        [pytest]
        asyncio_default_fixture_loop_scope = function
        trajectory_mode = unordered
        trajectory_tool_args_mode = ignore
        """
    )
    pytester.makepyfile(SHOW_SETTINGS)
    result = pytester.runpytest("-s")
    assert _settings_line(result) == "SETTINGS unordered ignore ini ini"
    result.stdout.fnmatch_lines(["agenttraj: mode=unordered (ini), tool_args=ignore (ini)"])


def test_command_line_beats_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        """
        [pytest]
        asyncio_default_fixture_loop_scope = function
        trajectory_mode = unordered
        trajectory_tool_args_mode = ignore
        """
    )
    pytester.makepyfile(SHOW_SETTINGS)
    result = pytester.runpytest("-s", "--trajectory-mode=superset", "--tool-args-mode=subset")
    assert _settings_line(result) == "SETTINGS superset subset command line command line"


def test_marker_beats_command_line_per_key(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import pytest

        @pytest.mark.trajectory(mode="subset")
        def test_settings(trajectory_config):
            print("SETTINGS", trajectory_config.mode, trajectory_config.tool_args,
                  trajectory_config.sources["mode"], trajectory_config.sources["tool_args"])
        """
    )
    result = project.runpytest("-s", "--trajectory-mode=superset", "--tool-args-mode=ignore")
    result.assert_outcomes(passed=1)
    assert _settings_line(result) == "SETTINGS subset ignore marker command line"


def test_marker_on_module_class_and_function_closest_wins(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import pytest

        pytestmark = pytest.mark.trajectory(mode="unordered", tool_args="ignore")

        def test_module(trajectory_config):
            assert (trajectory_config.mode, trajectory_config.tool_args) == ("unordered", "ignore")

        @pytest.mark.trajectory(mode="superset")
        class TestClass:
            def test_class(self, trajectory_config):
                assert trajectory_config.mode == "superset"
                assert trajectory_config.tool_args == "ignore"

            @pytest.mark.trajectory("subset", tool_args="exact")
            def test_function(self, trajectory_config):
                assert (trajectory_config.mode, trajectory_config.tool_args) == ("subset", "exact")
        """
    )
    project.runpytest("--strict-markers").assert_outcomes(passed=3)


def test_marker_settings_reach_evaluators_and_assert(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import pytest
        from pytest_agenttraj import assert_trajectory
        from conftest import with_code

        @pytest.mark.trajectory(tool_args="ignore")
        def test_ignore_args(reference, trajectory_evaluator, assert_trajectory):
            out = with_code("location-999")
            assert trajectory_evaluator(outputs=out, reference_outputs=reference)["score"]
            assert_trajectory(out, reference)

        @pytest.mark.trajectory(overrides={"get_weather": "ignore"})
        def test_importable_assert_uses_marker(reference):
            assert_trajectory(with_code("location-999"), reference)

        def test_explicit_argument_beats_marker(reference):
            assert_trajectory(with_code("location-999"), reference, tool_args="ignore")
        """
    )
    project.runpytest().assert_outcomes(passed=3)


def test_marker_is_registered_for_strict_markers(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import pytest

        @pytest.mark.trajectory(mode="strict")
        def test_x():
            pass
        """
    )
    project.runpytest("--strict-markers").assert_outcomes(passed=1)
    result = project.runpytest("--markers")
    result.stdout.fnmatch_lines(
        ["@pytest.mark.trajectory(mode=None, tool_args=None, overrides=None, *"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--trajectory-mode=strictt"],
            "ERROR: invalid --trajectory-mode 'strictt': must be one of 'strict', 'unordered', "
            "'subset', 'superset', 'in_order'",
        ),
        (
            ["--tool-args-mode=loose"],
            "ERROR: invalid --tool-args-mode 'loose': must be one of 'exact', 'ignore', "
            "'subset', 'superset'",
        ),
    ],
)
def test_bad_command_line_value_is_a_usage_error(
    project: pytest.Pytester, args: list[str], message: str
) -> None:
    project.makepyfile("def test_x(): pass")
    result = project.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_bad_ini_value_names_the_ini_key(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        """
        [pytest]
        asyncio_default_fixture_loop_scope = function
        trajectory_tool_args_mode = fuzzy
        """
    )
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: invalid trajectory_tool_args_mode 'fuzzy': must be one*"])


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ('mode="strictt"', "invalid mode 'strictt': must be one of 'strict', *"),
        ('tool_args="loose"', "invalid tool_args 'loose': must be one of 'exact', *"),
        (
            'overrides={"get_weather": "fuzzy"}',
            "invalid tool_args_match_overrides?'get_weather'? 'fuzzy'*",
        ),
        ('overrides={"get_weather": 3}', "invalid tool_args_match_overrides?'get_weather'? 3*"),
        ('reference_mode="x"', "*unknown argument(s) reference_mode; allowed: mode, tool_args*"),
        ('"strict", "exact"', "*takes at most one positional argument*"),
    ],
)
def test_bad_marker_is_a_usage_error_naming_the_test(
    project: pytest.Pytester, marker: str, message: str
) -> None:
    project.makepyfile(
        f"""
        import pytest

        def test_fine():
            pass

        @pytest.mark.trajectory({marker})
        def test_bad():
            pass
        """
    )
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: test_bad_marker_is_a_usage_error_naming_the_test.py::test_bad: {message}"]
    )
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_bad_marker_under_xdist_errors_the_test_with_its_id(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import pytest

        def test_fine():
            pass

        @pytest.mark.trajectory(mode="strictt")
        def test_bad():
            pass
        """
    )
    result = project.runpytest("-n", "2")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*test_bad: invalid mode 'strictt'*"])
    assert "INTERNALERROR" not in result.stdout.str()
