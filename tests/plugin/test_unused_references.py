"""Unused reference files: only a run of every test judges, a file any test names is kept, and
pruning never follows links."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from .conftest import SERIAL_ONLY

RUN = """
def run(code="location-123"):
    return [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "tool_calls": [
            {"name": "get_weather", "args": {"location_code": code}}]},
    ]
"""

TEST_A = (
    "import pytest\nfrom pytest_agenttraj import assert_trajectory\n"
    + RUN
    + """
def test_a():
    assert_trajectory(run(), "a.yaml")

@pytest.mark.skip(reason="later")
def test_c():
    assert_trajectory(run(), "c.yaml")
"""
)

TEST_B = (
    "from pytest_agenttraj import assert_trajectory\n"
    + RUN
    + """
def test_b():
    assert_trajectory(run(), "b.yaml")
"""
)

REFERENCE = """\
- content: Weather?
  role: user
- role: assistant
  tool_calls:
  - args:
      location_code: location-123
    name: get_weather
"""


NOT_CHECKED = "agenttraj: unused references were not checked, so nothing was deleted: "


@pytest.fixture
def three(every_plugin: pytest.Pytester) -> Path:
    project = every_plugin
    project.makepyfile(test_a=TEST_A, test_b=TEST_B)
    folder = project.path / "trajectories"
    folder.mkdir()
    for name in ("a", "b", "c"):
        (folder / f"{name}.yaml").write_text(REFERENCE, encoding="utf-8")
    return folder


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["test_a.py"], "1 test file(s) under the rootdir did not collect, *"),
        (["-k", "test_a"], "the run selected tests (-k)"),
        (["--deselect", "test_b.py::test_b"], "the run selected tests (--deselect)"),
        (["--lf"], "the run selected tests (--lf)"),
        (["--ff"], "the run selected tests (--ff)"),
        (["-x", "-p", "no:randomly", "--trajectory-mode=garbage"], None),
    ],
)
def test_a_selection_never_judges(
    every_plugin: pytest.Pytester, three: Path, args: list[str], reason: str | None
) -> None:
    project = every_plugin
    result = project.runpytest("--trajectory-prune-unused", *args)
    if reason is None:  # a usage error: nothing ran
        assert result.ret == pytest.ExitCode.USAGE_ERROR
    else:
        result.stdout.fnmatch_lines([f"{NOT_CHECKED}{reason}"])
    assert _names(three) == ["a.yaml", "b.yaml", "c.yaml"]


def test_a_run_stopped_early_never_judges(every_plugin: pytest.Pytester, three: Path) -> None:
    project = every_plugin
    (three / "a.yaml").write_text(REFERENCE.replace("location-123", "x"), encoding="utf-8")
    (three / "old.yaml").write_text(REFERENCE, encoding="utf-8")
    result = project.runpytest("--trajectory-prune-unused", "-x", "-p", "no:randomly")
    result.stdout.fnmatch_lines([f"{NOT_CHECKED}the run stopped early*"])
    assert "old.yaml" in _names(three)


def test_files_named_by_tests_that_did_not_evaluate_are_kept(
    every_plugin: pytest.Pytester, three: Path, plugin_args: list[str]
) -> None:
    project = every_plugin
    project.makepyfile(
        test_more=(
            "import pytest\nfrom pytest_agenttraj import assert_trajectory\n"
            + RUN
            + """
@pytest.mark.skipif(True, reason="not today")
def test_skipif():
    assert_trajectory(run(), "d.yaml")

def test_raises_first():
    raise RuntimeError("the agent broke before evaluating")
    assert_trajectory(run(), "e.yaml")

@pytest.mark.xfail(reason="known", strict=True)
def test_xfail():
    assert_trajectory(run("other"), "f.yaml")

@pytest.mark.trajectory(reference="g.yaml")
def test_marker(trajectory_reference):
    raise RuntimeError("broke")

def test_own_file(assert_trajectory):
    pytest.skip("not now")
"""
        )
    )
    for name in ("d", "e", "f", "g", "test_own_file", "stale"):
        (three / f"{name}.yaml").write_text(REFERENCE, encoding="utf-8")
    result = project.runpytest("--trajectory-prune-unused", *plugin_args)
    result.assert_outcomes(passed=2, skipped=3, failed=2, xfailed=1)
    assert _names(three) == [
        "a.yaml",
        "b.yaml",
        "c.yaml",
        "d.yaml",
        "e.yaml",
        "f.yaml",
        "g.yaml",
        "test_own_file.yaml",
    ]
    result.stdout.fnmatch_lines(
        [
            "agenttraj: deleted unused reference trajectories/stale.yaml",
            "agenttraj: kept 5 reference file(s) that no evaluation read but a test file names:",
            "    trajectories/c.yaml: a string in test_a.py names it",  # skipped
            "    trajectories/d.yaml: a string in test_more.py names it",  # skipif
            "    trajectories/e.yaml: a string in test_more.py names it",  # raised first
            "    trajectories/g.yaml: test_more.py::test_marker: its marker's reference",
            "    trajectories/test_own_file.yaml: test_more.py::test_own_file: its own file",
        ]
    )


def test_prune_never_follows_links(every_plugin: pytest.Pytester, three: Path) -> None:
    project = every_plugin
    (three / "nested").mkdir()
    (three / "nested" / "old2.yaml").write_text(REFERENCE, encoding="utf-8")
    ini = project.path / "pytest.ini"
    outside = project.path / "elsewhere"
    outside.mkdir()
    (outside / "precious.yaml").write_text(REFERENCE, encoding="utf-8")
    os.symlink("../pytest.ini", three / "old3.yml")
    os.symlink("../elsewhere", three / "linked_folder")
    os.symlink("../elsewhere/precious.yaml", three / "old4.yaml")
    result = project.runpytest("--trajectory-prune-unused")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(
        ["agenttraj: deleted unused reference trajectories/nested/old2.yaml"]
    )
    assert ini.exists()
    assert (outside / "precious.yaml").exists()
    assert (three / "old3.yml").is_symlink()
    assert (three / "old4.yaml").is_symlink()
    assert not (three / "nested" / "old2.yaml").exists()
    assert "old3" not in result.stdout.str()
    assert "precious" not in result.stdout.str()


def test_a_string_in_the_module_keeps_a_file(every_plugin: pytest.Pytester, three: Path) -> None:
    project = every_plugin
    project.makepyfile(
        test_helpers=(
            "from pytest_agenttraj import assert_trajectory\n"
            + RUN
            + """
NAMES = {"later": "h.yaml"}

def test_nothing_yet():
    pass
"""
        )
    )
    (three / "h.yaml").write_text(REFERENCE, encoding="utf-8")
    (three / "i.yaml").write_text(REFERENCE, encoding="utf-8")
    result = project.runpytest()
    result.stdout.fnmatch_lines(
        [
            "agenttraj: 1 reference file(s) no test used (--trajectory-prune-unused deletes them):",
            "    trajectories/i.yaml",
            "agenttraj: kept 2 reference file(s) that no evaluation read but a test file names:",
        ]
    )


GRAPH_TESTS = """
import pytest
from pytest_agenttraj import assert_graph_trajectory

PATH = {"steps": [["__start__", "plan", "done"]]}

def test_by_name():
    assert_graph_trajectory(PATH, "-".join(["long", "path"]) + ".yaml")  # no string names it

def test_fixture(graph_trajectory_evaluator):
    name = "".join(["fix", "ture.json"])
    assert graph_trajectory_evaluator(outputs=PATH, reference_outputs=name)["score"]

def test_own_file():
    assert_graph_trajectory(PATH)

@pytest.mark.skip(reason="later")
@pytest.mark.trajectory(reference="later.yaml")
def test_later():
    assert_graph_trajectory(PATH)
"""


@SERIAL_ONLY
def test_graph_files_count_as_used_like_message_files(
    every_plugin: pytest.Pytester, plugin_args: list[str]
) -> None:
    project = every_plugin
    project.makepyfile(test_workflow_files=GRAPH_TESTS)
    folder = project.path / "trajectories"
    folder.mkdir()
    graph = "steps:\n- [__start__, plan, done]\n"
    for name in ("long-path.yaml", "test_own_file.yaml", "later.yaml", "stale.yaml"):
        (folder / name).write_text(graph, encoding="utf-8")
    (folder / "fixture.json").write_text('{"steps": [["__start__", "plan", "done"]]}')
    result = project.runpytest("--trajectory-prune-unused", *plugin_args)
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "agenttraj: deleted unused reference trajectories/stale.yaml",
            "agenttraj: kept 1 reference file(s) that no evaluation read but a test file names:",
            "    trajectories/later.yaml: test_workflow_files.py::test_later: its marker's "
            "reference",
        ]
    )
    assert _names(folder) == ["fixture.json", "later.yaml", "long-path.yaml", "test_own_file.yaml"]


BUILT_NAMES = (
    "import pytest\nfrom pytest_agenttraj import assert_trajectory\n"
    + RUN
    + """
@pytest.mark.parametrize("case", ["one", pytest.param("two", marks=pytest.mark.skip)])
def test_cases(case):
    assert_trajectory(run(), f"case_{case}.yaml")

def test_joined():
    assert_trajectory(run(), "-".join(["x", "y"]) + ".json")
"""
)


def test_a_name_built_at_run_time_keeps_what_it_could_be_while_its_test_did_not_pass(
    every_plugin: pytest.Pytester,
) -> None:
    project = every_plugin
    project.makepyfile(test_built=BUILT_NAMES)
    folder = project.path / "trajectories"
    folder.mkdir()
    for name in ("case_one.yaml", "case_two.yaml", "case_old.json", "stale.yaml"):
        (folder / name).write_text(REFERENCE, encoding="utf-8")
    (folder / "x-y.json").write_text(json.dumps(yaml.safe_load(REFERENCE)), encoding="utf-8")
    result = project.runpytest("--trajectory-prune-unused")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "agenttraj: deleted unused reference trajectories/case_old.json",
            "agenttraj: deleted unused reference trajectories/stale.yaml",
            "agenttraj: kept 1 reference file(s) that no evaluation read but a test file names:",
            "    trajectories/case_two.yaml: a name built at test_built.py:13 (case_*.yaml) could "
            "be it, and test_built.py::test_cases[two] did not pass",
        ]
    )
    assert _names(folder) == ["case_one.yaml", "case_two.yaml", "x-y.json"]


def test_a_marker_names_a_file_from_a_folder_without_one(every_plugin: pytest.Pytester) -> None:
    """The marker of a test whose file has no ``trajectories/`` beside it, after plain tests of
    the same module, still names the file it points to elsewhere."""
    pytester = every_plugin
    pytester.makepyfile(test_root="def test_root():\n    pass\n")
    sub = pytester.mkpydir("sub")
    (sub / "test_sub.py").write_text(
        """
import pytest


def test_plain():
    pass


def test_plain_too():
    pass


@pytest.mark.skip(reason="later")
@pytest.mark.trajectory(reference="../../trajectories/" + "kept.yaml")
def test_later():
    pass
""",
        encoding="utf-8",
    )
    folder = pytester.path / "trajectories"
    folder.mkdir()
    for name in ("kept.yaml", "stale.yaml"):
        (folder / name).write_text(REFERENCE, encoding="utf-8")
    result = pytester.runpytest("--trajectory-prune-unused", "-p", "no:randomly")
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "agenttraj: deleted unused reference trajectories/stale.yaml",
            "agenttraj: kept 1 reference file(s) that no evaluation read but a test file names:",
            "    trajectories/kept.yaml: sub/test_sub.py::test_later: its marker's reference",
        ]
    )
    assert _names(folder) == ["kept.yaml"]
