"""--trajectory-update settles each reference file once per run: tests sharing a file, and the
attempts of a repeated test, must agree with it, serially and across pytest-xdist workers; with
value matchers in the file, and for graph reference files too. A ``trajectories/`` folder that
cannot take files stops the run once, before any test, naming the folder."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import SERIAL_ONLY

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


MATCHING = """
import os
from pytest_agenttraj import assert_trajectory

UNIT = os.environ.get("UNIT", "c")

def run(code):
    return [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "tool_calls": [
            {"name": "get_weather", "args": {"location_code": code, "unit": UNIT}}]},
    ]

def test_one():
    assert_trajectory(run("location-123"), "shared.yaml")

def test_two():
    assert_trajectory(run(os.environ.get("SECOND", "location-456")), "shared.yaml")
"""

WITH_MATCHER = """\
- content: Weather?
  role: user
- role: assistant
  tool_calls:
  - args:
      location_code: {$regex: "location-[0-9]+"}   # any location
      unit: c
    name: get_weather
"""


@SERIAL_ONLY
def test_tests_whose_values_both_match_a_matcher_agree(
    project: pytest.Pytester, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_shared=MATCHING)
    folder = project.path / "trajectories"
    folder.mkdir()
    shared = folder / "shared.yaml"
    shared.write_text(WITH_MATCHER, encoding="utf-8")
    kept = project.runpytest("--trajectory-update", *plugin_args)
    kept.assert_outcomes(passed=2)
    assert "wrote reference" not in kept.stdout.str()
    assert shared.read_text(encoding="utf-8") == WITH_MATCHER
    # the unit changed: the first test rewrites the file, keeping the matcher both codes match,
    # and the second agrees with what it wrote
    monkeypatch.setenv("UNIT", "f")
    rewritten = project.runpytest("--trajectory-update", *plugin_args)
    rewritten.assert_outcomes(passed=2)
    assert rewritten.stdout.str().count("wrote reference trajectories/shared.yaml") == 1
    assert shared.read_text(encoding="utf-8") == WITH_MATCHER.replace("unit: c", "unit: f")
    project.runpytest(*plugin_args).assert_outcomes(passed=2)


@SERIAL_ONLY
def test_a_value_outside_the_matcher_disagrees(
    project: pytest.Pytester, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_shared=MATCHING)
    folder = project.path / "trajectories"
    folder.mkdir()
    (folder / "shared.yaml").write_text(WITH_MATCHER, encoding="utf-8")
    monkeypatch.setenv("UNIT", "f")
    monkeypatch.setenv("SECOND", "place-9")
    result = project.runpytest("--trajectory-update", "-p", "no:randomly", *plugin_args)
    result.assert_outcomes(passed=1, failed=1)
    written = (folder / "shared.yaml").read_text(encoding="utf-8")
    if "by test_shared.py::test_one (written)" in result.stdout.str():
        # test_two compared with the file test_one wrote, whose matcher refuses place-9
        expected = ["*- location_code: Regex('location-[[]0-9]+')", "*+ location_code: 'place-9'"]
        assert '{$regex: "location-[0-9]+"}   # any location' in written
    else:  # (under xdist) test_two came first: place-9 does not match, so it was written
        expected = ["*- location_code: 'place-9'", "*+ location_code: 'location-123'"]
        assert "location_code: place-9" in written
    result.stdout.fnmatch_lines(
        ["*ReferenceConflict: reference file trajectories/shared.yaml was settled earlier *"]
    )
    result.stdout.fnmatch_lines(expected)


GRAPH_SHARED = """
import os
from pytest_agenttraj import assert_graph_trajectory

def run(second):
    return {"steps": [["__start__", "plan", second, "done"]]}

def test_one():
    assert_graph_trajectory(run("search"), "flow.yaml")

def test_two():
    assert_graph_trajectory(run(os.environ.get("SECOND", "search")), "flow.yaml")
"""


def test_graph_files_are_settled_once_per_run(
    project: pytest.Pytester, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_shared=GRAPH_SHARED)
    agreed = project.runpytest("--trajectory-update", *plugin_args)
    agreed.assert_outcomes(passed=2)
    assert agreed.stdout.str().count("agenttraj: wrote reference trajectories/flow.yaml") == 1
    monkeypatch.setenv("SECOND", "browse")
    (project.path / "trajectories" / "flow.yaml").unlink()
    result = project.runpytest("--trajectory-update", "-p", "no:randomly", *plugin_args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*ReferenceConflict: reference file trajectories/flow.yaml was settled earlier in "
            "this run by test_shared.py::test_* (written), and this trajectory does not match it.*",
            "*Graph trajectory does not match the reference (strict mode): *",
            "*invocation 0, superstep 2: expected *, got *",
        ]
    )
    written = (project.path / "trajectories" / "flow.yaml").read_text(encoding="utf-8")
    assert written in {
        "steps:\n- [__start__, plan, search, done]\n",
        "steps:\n- [__start__, plan, browse, done]\n",
    }


GRAPH_REPEATED = """
import itertools
import pytest
from pytest_agenttraj import assert_graph_trajectory

nodes = itertools.cycle({nodes!r})

@pytest.mark.trajectory(repeat=3, pass_rule="majority")
def test_workflow():
    assert_graph_trajectory({{"steps": [["__start__", next(nodes)]]}}, "workflow.yaml")
"""


def test_repeated_graph_attempts_must_agree(project: pytest.Pytester) -> None:
    project.makepyfile(test_repeat=GRAPH_REPEATED.format(nodes=["a", "b", "a"]))
    result = project.runpytest("--trajectory-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*settled earlier in this run by test_repeat.py::test_workflow (attempt 1) (written)*",
            "*attempt 2 disagreed with a reference file an earlier attempt wrote under "
            "--trajectory-update: the attempts must agree",
        ]
    )
    project.makepyfile(test_repeat=GRAPH_REPEATED.format(nodes=["a"]))
    again = project.runpytest("--trajectory-update")
    again.assert_outcomes(passed=1)
    assert "wrote reference" not in again.stdout.str()  # the file already says "a"


FOLDER_TESTS = """
import pytest
from pytest_agenttraj import assert_trajectory

def run():
    return [{"role": "user", "content": "Weather?"}, {"role": "assistant", "content": "Sunny."}]

def test_one():
    assert_trajectory(run(), "one.yaml")

def test_two():
    assert_trajectory(run())

@pytest.mark.trajectory(reference="deep/three.yaml")
def test_three(trajectory_reference):
    assert_trajectory(run(), trajectory_reference)
"""

UPDATE_REFUSED = (
    "ERROR: --trajectory-update cannot write reference files into the trajectories/ folder "
    "beside the tests: {folder} {problem}"
)


def _refused_once(result: pytest.RunResult, folder: Path, problem: str) -> None:
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output
    assert output.count(UPDATE_REFUSED.format(folder=folder, problem=problem)) == 1, output
    assert "FileExistsError" not in output, output
    assert "PermissionError" not in output, output
    result.assert_outcomes()  # no test ran


def test_a_reference_folder_that_is_a_file_stops_the_run_once(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(test_folder=FOLDER_TESTS)
    folder = project.path / "trajectories"
    folder.write_text("not a folder\n", encoding="utf-8")
    result = project.runpytest("--trajectory-update", *plugin_args)
    _refused_once(result, folder, "is a regular file, not a folder")
    assert folder.read_text(encoding="utf-8") == "not a folder\n"


@contextlib.contextmanager
def _unwritable(folder: Path) -> Iterator[str]:
    """Make ``folder`` refuse new files, even to root (who ignores a read-only mode): an
    immutable folder (``chattr +i``) as root, a read-only one otherwise. Yields how the
    refusal reads; skips where the file system offers neither."""
    root = os.geteuid() == 0
    if root:
        chattr = shutil.which("chattr")
        made = chattr and subprocess.run([chattr, "+i", str(folder)], check=False).returncode
        if made != 0:
            pytest.skip("chattr +i is not available here, and root writes into any folder")
    else:
        folder.chmod(0o555)
    try:
        try:
            handle, probe = tempfile.mkstemp(dir=folder)
        except OSError as error:
            yield error.strerror
        else:
            os.close(handle)
            os.unlink(probe)
            pytest.skip(f"{folder} still takes files")
    finally:
        if root:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        else:
            folder.chmod(0o755)


@SERIAL_ONLY
def test_a_reference_folder_that_cannot_be_written_stops_the_run_once(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(test_folder=FOLDER_TESTS)
    folder = project.path / "trajectories"
    folder.mkdir()
    with _unwritable(folder) as refusal:
        result = project.runpytest("--trajectory-update", *plugin_args)
    _refused_once(result, folder, f"cannot be written ({refusal})")
    assert list(folder.iterdir()) == []


def test_a_reference_sub_folder_that_is_a_file_fails_its_test_saying_so(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(test_folder=FOLDER_TESTS)
    (project.path / "trajectories").mkdir()
    deep = project.path / "trajectories" / "deep"
    deep.write_text("not a folder\n", encoding="utf-8")
    result = project.runpytest("--trajectory-update", "-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "E   *ReferenceFileError: reference file trajectories/deep/three.yaml cannot be "
            f"written: its folder {deep} is a regular file, not a folder"
        ]
    )
    assert "FileExistsError" not in result.stdout.str()
