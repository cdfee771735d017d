"""Reference trajectories in files: loading, --trajectory-update, unused files, bad files."""

from __future__ import annotations

import pytest

AGENT = """
import os
import pytest
from pytest_agenttraj import assert_trajectory

def run_agent():
    code = os.environ.get("AGENT_CODE", "location-123")
    return [
        {"role": "user", "content": "Weather in 苏州?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "function": {"name": "get_weather",
             "arguments": '{"location_code": "%s"}' % code}}]},
        {"role": "tool", "content": "Sunny", "tool_call_id": "call_1"},
        {"role": "assistant", "content": "Sunny."},
    ]

def test_by_name():
    assert_trajectory(run_agent(), "weather.yaml")

@pytest.mark.trajectory(reference="weather.yaml")
def test_by_marker(trajectory_reference):
    assert_trajectory(run_agent(), trajectory_reference)

def test_default_name(assert_trajectory):
    assert_trajectory(run_agent())
"""


def test_missing_file_fails_with_a_hint(project: pytest.Pytester) -> None:
    project.makepyfile(AGENT)
    result = project.runpytest()
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "E   *ReferenceFileError: reference file */trajectories/weather.yaml does not exist; "
            "run pytest with --trajectory-update to write it*"
        ]
    )


def test_update_writes_stable_files_then_rerun_passes(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(AGENT)
    result = project.runpytest("--trajectory-update")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "agenttraj: wrote reference trajectories/*.yaml",
            "agenttraj: wrote reference trajectories/*.yaml",
        ]
    )
    folder = project.path / "trajectories"
    assert sorted(p.name for p in folder.iterdir()) == ["test_default_name.yaml", "weather.yaml"]
    text = (folder / "weather.yaml").read_text(encoding="utf-8")
    assert text == (
        "- content: Weather in 苏州?\n"
        "  role: user\n"
        "- role: assistant\n"
        "  tool_calls:\n"
        "  - args:\n"
        "      location_code: location-123\n"
        "    name: get_weather\n"
        "- content: Sunny\n"
        "  role: tool\n"
        "- content: Sunny.\n"
        "  role: assistant\n"
    )
    assert "call_1" not in text
    project.runpytest().assert_outcomes(passed=3)
    # the agent regresses: the files catch it, and an update rewrites them
    monkeypatch.setenv("AGENT_CODE", "location-999")
    failing = project.runpytest()
    failing.assert_outcomes(failed=3)
    failing.stdout.fnmatch_lines(["E              + location_code: 'location-999'"])
    project.runpytest("--trajectory-update").assert_outcomes(passed=3)
    assert "location-999" in (folder / "weather.yaml").read_text(encoding="utf-8")


def test_header_sets_mode_unless_the_marker_does(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import pytest
        from pytest_agenttraj import assert_trajectory

        OUT = [{"role": "assistant", "content": "", "tool_calls": [
            {"name": "a", "args": {}}, {"name": "b", "args": {"x": 1}}]}]

        def test_header_mode():
            assert_trajectory(OUT, "loose.yaml")

        @pytest.mark.trajectory(mode="strict")
        def test_marker_wins():
            assert_trajectory(OUT, "loose.yaml")
        """
    )
    (project.path / "trajectories").mkdir()
    (project.path / "trajectories" / "loose.yaml").write_text(
        "mode: superset\n"
        "tool_args: ignore\n"
        "messages:\n"
        "  - role: assistant\n"
        "    tool_calls:\n"
        "      - name: b\n"
        "        args: {x: 2}\n",
        encoding="utf-8",
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*TrajectoryMismatch: * (strict mode, ignore args): *"])


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("broken.yaml", "- {role: user, content: x\n", "*broken.yaml:2: *expected ',' or '}'*"),
        (
            "evil.yaml",
            "- !!python/object/apply:os.system [echo hacked]\n",
            "*evil.yaml:1: could not determine a constructor for the tag*python/object/apply*",
        ),
        (
            "noname.yaml",
            "- role: user\n  content: q\n- role: assistant\n  tool_calls:\n    - args: {}\n",
            "*noname.yaml:3: message 1, field 'tool_calls[[]0[]].name': a tool call needs a name*",
        ),
        ("empty.yaml", "", "*empty.yaml: expected a list of messages*got NoneType"),
        ("header.yaml", "mode: loose\nmessages: []\n", "*header.yaml: header: invalid mode*"),
        ("broken.json", '[{"role": "user",', "*broken.json:1: Expecting*"),
    ],
)
def test_bad_files_name_the_file_and_line(
    project: pytest.Pytester, name: str, content: str, message: str
) -> None:
    project.makepyfile(
        f"""
        from pytest_agenttraj import assert_trajectory

        def test_it():
            assert_trajectory([], "{name}")
        """
    )
    (project.path / "trajectories").mkdir()
    (project.path / "trajectories" / name).write_text(content, encoding="utf-8")
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"E   *ReferenceFileError: {message}"])
    assert not (project.path / "hacked").exists()


def test_a_path_escaping_the_project_is_refused(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_agenttraj import assert_trajectory

        def test_it():
            assert_trajectory([], "../../outside.yaml")
        """
    )
    result = project.runpytest("--trajectory-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*outside the project root*: refused"])
    assert not (project.path.parent.parent / "outside.yaml").exists()


def test_unused_files_are_listed_and_pruned_only_on_request(
    every_plugin: pytest.Pytester,
) -> None:
    project = every_plugin
    project.makepyfile(AGENT)
    project.runpytest("--trajectory-update").assert_outcomes(passed=3)
    stale = project.path / "trajectories" / "old_agent.yaml"
    stale.write_text("[]\n", encoding="utf-8")
    for args in ([], ["-n", "2"]):  # under xdist, the controller lists them
        listed = project.runpytest(*args)
        listed.stdout.fnmatch_lines(
            [
                "agenttraj: 1 reference file(s) no test used (--trajectory-prune-unused deletes "
                "them):",
                "    trajectories/old_agent.yaml",
            ]
        )
    assert stale.exists()
    partial = project.runpytest("-k", "by_name", "--trajectory-prune-unused")
    partial.stdout.fnmatch_lines(
        [
            "agenttraj: unused references were not checked, so nothing was deleted: "
            "the run selected tests (-k)"
        ]
    )
    assert stale.exists()
    pruned = project.runpytest("--trajectory-prune-unused")
    pruned.stdout.fnmatch_lines(["agenttraj: deleted unused reference trajectories/old_agent.yaml"])
    assert not stale.exists()
    assert (project.path / "trajectories" / "weather.yaml").exists()


HEADER_TESTS = """
import pytest

PERMUTED = [
    {"role": "user", "content": "q"},
    {"role": "assistant", "tool_calls": [{"name": "b", "args": {}}]},
    {"role": "assistant", "tool_calls": [{"name": "a", "args": {}}]},
]

@pytest.mark.trajectory(reference="h.yaml")
def test_sources(trajectory_config):
    assert trajectory_config.mode == "unordered"
    assert trajectory_config.sources["mode"] == "reference file header"
    assert trajectory_config.sources["tool_args"] == "command line"

@pytest.mark.trajectory(reference="h.yaml", mode="strict")
def test_marker_wins(trajectory_config):
    assert trajectory_config.mode == "strict"
    assert trajectory_config.sources["mode"] == "marker"

def test_evaluator_applies_the_header(trajectory_evaluator):
    result = trajectory_evaluator(outputs=PERMUTED, reference_outputs="h.yaml")
    assert result["key"] == "trajectory_unordered_match"
    assert result["score"] is True
"""


def test_the_header_is_a_setting_with_its_source(project: pytest.Pytester) -> None:
    project.makepyfile(test_header=HEADER_TESTS)
    folder = project.path / "trajectories"
    folder.mkdir()
    (folder / "h.yaml").write_text(
        "mode: unordered\nmessages:\n- {role: user, content: q}\n"
        "- {role: assistant, tool_calls: [{name: a, args: {}}]}\n"
        "- {role: assistant, tool_calls: [{name: b, args: {}}]}\n",
        encoding="utf-8",
    )
    project.runpytest("--tool-args-mode=exact", "--trajectory-mode=superset").assert_outcomes(
        passed=3
    )


def test_without_the_plugin_a_file_name_says_what_it_needs(project: pytest.Pytester) -> None:
    project.makepyfile(AGENT)
    project.runpytest("--trajectory-update").assert_outcomes(passed=3)
    # a subprocess: inline, this very test's scope would be the current one
    result = project.runpytest_subprocess("-p", "no:agenttraj", "-k", "by_name")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*ReferenceFileError: reference file weather.yaml does not exist. Outside a pytest "
            "run with this plugin (it may be disabled with -p no:agenttraj)*"
        ]
    )


def test_input_errors_show_the_users_line_not_the_packages_frames(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_errors="""
        from pytest_agenttraj import assert_trajectory, create_trajectory_match_evaluator

        def test_broken_file():
            assert_trajectory([{"role": "user", "content": "x"}], "broken.yaml")

        def test_not_a_trajectory(trajectory_evaluator):
            trajectory_evaluator(outputs=[{"role": "robot"}], reference_outputs=[])

        def test_public_evaluator():
            create_trajectory_match_evaluator()(outputs=[{"role": 7}], reference_outputs=[])

        def test_deep_arguments():
            args = deep = {}
            for _ in range(2000):
                deep["a"] = deep = {}
            calls = [{"role": "assistant", "tool_calls": [{"name": "f", "args": args}]}]
            assert_trajectory(calls, calls)
        """
    )
    folder = project.path / "trajectories"
    folder.mkdir()
    (folder / "broken.yaml").write_text("- {role: user, content: x\n", encoding="utf-8")
    result = project.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=4)
    text = result.stdout.str()
    assert "pytest_agenttraj/" not in text  # no frame of the package's own files
    assert "RecursionError" not in text  # nor of the error that found the nesting
    result.stdout.fnmatch_lines(
        [
            '>       assert_trajectory([{"role": "user", "content": "x"}], "broken.yaml")',
            "E       pytest_agenttraj.errors.ReferenceFileError: */broken.yaml:2: *",
            '>       trajectory_evaluator(outputs=[{"role": "robot"}], reference_outputs=[])',
            "E       pytest_agenttraj.errors.TrajectoryFormatError: outputs, message 0, *",
            ">       create_trajectory_match_evaluator()(outputs=*, reference_outputs=[])",
            "E       pytest_agenttraj.errors.TrajectoryFormatError: outputs, message 0, *",
            ">       assert_trajectory(calls, calls)",
            "E       pytest_agenttraj.errors.TrajectoryFormatError: outputs, message 0, field "
            "'tool_calls?0?.args': arguments of tool 'f' nest more than 100 levels deep*",
        ]
    )
    assert len(result.outlines) < 80


MATCHER_FILE = """\
# any location code will do; the unit is Celsius or Fahrenheit
mode: strict
messages:
- content: Weather in 苏州?
  role: user
- role: assistant
  tool_calls:
  - args:
      location_code: {$regex: "location-[0-9]+"}
    name: get_weather
- content: Sunny
  role: tool
- content: Sunny.
  role: assistant
"""

MATCHER_TESTS = (
    AGENT
    + """

def test_evaluator(trajectory_evaluator):
    result = trajectory_evaluator(outputs=run_agent(), reference_outputs="weather.yaml")
    assert result["score"], result["comment"]
"""
)


def test_matchers_in_a_file_match_through_every_way_of_naming_it(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(MATCHER_TESTS)
    folder = project.path / "trajectories"
    folder.mkdir()
    for name in ("weather.yaml", "test_default_name.yaml"):
        (folder / name).write_text(MATCHER_FILE, encoding="utf-8")
    for code in ("location-123", "location-9"):
        monkeypatch.setenv("AGENT_CODE", code)
        project.runpytest().assert_outcomes(passed=4)
    monkeypatch.setenv("AGENT_CODE", "place-1")
    failing = project.runpytest("-k", "by_name")
    failing.assert_outcomes(failed=1)
    failing.stdout.fnmatch_lines(
        [
            "E   *TrajectoryMismatch: Trajectory does not match the reference (strict mode, "
            "exact args): 1 problem",
            "E * 1. message 1: tool call 'get_weather' args differ (exact)",
            "E *      - location_code: Regex('location-[[]0-9]+')",
            "E *      + location_code: 'place-1'",
        ]
    )


def test_an_invalid_matcher_in_a_file_names_file_line_and_path(project: pytest.Pytester) -> None:
    project.makepyfile(AGENT)
    folder = project.path / "trajectories"
    folder.mkdir()
    (folder / "weather.yaml").write_text(
        MATCHER_FILE.replace('{$regex: "location-[0-9]+"}', '{$regex: "location-[0-9"}'),
        encoding="utf-8",
    )
    result = project.runpytest("-k", "by_name")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E   *ReferenceFileError: */trajectories/weather.yaml:9: message 1, "
            "tool_calls[[]0].args.location_code: invalid Regex 'location-[[]0-9': unterminated "
            "character set*"
        ]
    )


def test_a_pathological_regex_in_a_file_decides_a_long_argument(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference's ``(a+)+$`` against an agent's 100,000 ``a`` and a ``!`` (what a prompt
    injection could make an agent send) fails the test at once, instead of backtracking for
    longer than the universe has existed."""
    from deadline import deadline

    project.makepyfile(AGENT)
    folder = project.path / "trajectories"
    folder.mkdir()
    (folder / "weather.yaml").write_text(
        MATCHER_FILE.replace('"location-[0-9]+"', '"(a+)+$"'), encoding="utf-8"
    )
    monkeypatch.setenv("AGENT_CODE", "a" * 100_000 + "!")
    with deadline(60.0, "the test run"):  # generous: RE2 takes milliseconds
        result = project.runpytest("-k", "by_name")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["E *      - location_code: Regex('(a+)+$')"])


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("(a)\\\\1", r"invalid Regex '(a)\\1': a backreference (\1 or (?P=name)) is not supported"),
        ("(?<=x)y", "invalid Regex '(?<=x)y': a lookbehind is not supported"),
    ],
)
def test_a_regex_that_needs_backtracking_is_refused_naming_file_and_line(
    project: pytest.Pytester, pattern: str, problem: str
) -> None:
    project.makepyfile(AGENT)
    folder = project.path / "trajectories"
    folder.mkdir()
    (folder / "weather.yaml").write_text(
        MATCHER_FILE.replace('"location-[0-9]+"', f'"{pattern}"'), encoding="utf-8"
    )
    result = project.runpytest("-k", "by_name")
    result.assert_outcomes(failed=1)
    escaped = problem.replace("[", "[[]").replace("?", "[?]").replace("*", "[*]")
    result.stdout.fnmatch_lines(
        [
            "E   *ReferenceFileError: */trajectories/weather.yaml:9: message 1, "
            f"tool_calls[[]0].args.location_code: {escaped}*"
        ]
    )
