"""Graph trajectories in pytest runs: ``assert_graph_trajectory`` and the
``graph_trajectory_evaluator`` fixture take the test's mode, their results reach the terminal
summary, the JSON report (with their mode) and baseline gating, and a failure shows the graph
diff. Serial and under pytest-xdist."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

GRAPH_TESTS = """
import os
import pytest
from pytest_agenttraj import assert_graph_trajectory, create_graph_trajectory_match_evaluator

LONG = {"steps": [["__start__", "node1", "node3", ["node4", "node5"], "node6", "node7"]]}
SHORTCUT = {"steps": [["__start__", "node1", "node2", "node7"]]}
BROKEN = os.environ.get("BROKEN") == "1"

def test_long_path():
    ran = SHORTCUT if BROKEN else {"steps": [["__start__", "node1", "node3", ["node5", "node4"],
                                              "node6", "node7"]]}
    assert_graph_trajectory(ran, LONG)

@pytest.mark.trajectory(mode="subset")
def test_shortcut_is_part_of_everything(graph_trajectory_evaluator):
    everything = {"steps": [["__start__", "node1", "node2", "node3", "node6", "node7"]]}
    result = graph_trajectory_evaluator(outputs=SHORTCUT, reference_outputs=everything)
    assert result["score"], result["comment"]

def test_recorded_not_asserted():
    evaluator = create_graph_trajectory_match_evaluator(mode="unordered")
    evaluator(outputs=SHORTCUT, reference_outputs=LONG)
"""


def test_results_in_the_summary_with_their_mode(project: pytest.Pytester) -> None:
    project.makepyfile(GRAPH_TESTS)
    result = project.runpytest("-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*= trajectory results =*",
            "test * key * mode * score  result",
            "*::test_recorded_not_asserted  graph_trajectory_unordered_match  unordered  false"
            "  FAIL",
            "    Graph trajectory differs: invocation 0: missing node node3, missing node node4, "
            "missing node node5, missing node node6 and 1 more.",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*::test_long_path * graph_trajectory_strict_match * strict * true * PASS",
            "*::test_shortcut_is_part_of_everything * graph_trajectory_subset_match * subset *"
            " true * PASS",
        ],
        consecutive=False,
    )
    result.stdout.fnmatch_lines(["3 trajectory evaluations in 3 tests: 2 passed, 1 failed"])


def test_results_in_the_json_report(project: pytest.Pytester, plugin_args: list[str]) -> None:
    project.makepyfile(GRAPH_TESTS)
    project.runpytest("--trajectory-report=report.json", *plugin_args).assert_outcomes(passed=3)
    document = json.loads((project.path / "report.json").read_text(encoding="utf-8"))
    results = {r["key"]: r for r in document["results"]}
    assert {key: (r["mode"], r["passed"], r["origin"]) for key, r in results.items()} == {
        "graph_trajectory_strict_match": ("strict", True, "assert_graph_trajectory"),
        "graph_trajectory_subset_match": ("subset", True, "graph_trajectory_evaluator"),
        "graph_trajectory_unordered_match": (
            "unordered",
            False,
            "graph_trajectory_unordered_match",
        ),
    }
    assert results["graph_trajectory_subset_match"]["tool_args_mode"] is None
    failed = results["graph_trajectory_unordered_match"]
    assert failed["diff"].splitlines()[:2] == [
        "Graph trajectory does not match the reference (unordered mode): 5 differences",
        "  1. invocation 0: missing node node3",
    ]
    assert document["summary"]["by_key"]["graph_trajectory_strict_match"] == {
        "passed": 1,
        "failed": 0,
    }


def test_the_baseline_catches_a_graph_regression(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(GRAPH_TESTS)
    project.runpytest("--trajectory-report=main.json").assert_outcomes(passed=3)
    monkeypatch.setenv("BROKEN", "1")
    result = project.runpytest("--trajectory-baseline=main.json")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "REGRESSED: *::test_long_path graph_trajectory_strict_match: passed -> failed",
            "baseline: 1 regressed, 0 improved, 0 new, 0 vanished, 2 unchanged",
        ]
    )


def test_a_failing_assertion_shows_the_graph_diff(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(GRAPH_TESTS)
    monkeypatch.setenv("BROKEN", "1")
    result = project.runpytest("-k", "long_path")
    assert result.parseoutcomes()["failed"] == 1  # xdist does not count the deselected ones
    result.stdout.fnmatch_lines(
        [
            "E   *GraphTrajectoryMismatch: Graph trajectory does not match the reference "
            "(strict mode): 6 differences",
            "E * 1. invocation 0, superstep 2: expected node3, got node2",
            "E * 2. invocation 0: missing node node3",
            "E * 6. invocation 0: unexpected node node2",
            "E * !    2  node2 * node3",
        ]
    )


def test_an_asserted_score_shows_the_graph_diff_too(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_agenttraj import graph_trajectory_strict_match

        def test_score():
            result = graph_trajectory_strict_match(
                outputs={"steps": [["a", "c"]]}, reference_outputs={"steps": [["a", "b"]]}
            )
            assert result["score"]
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*- agenttraj: trajectory mismatch -*",
            "graph_trajectory_strict_match [[]0[]]",
            "Graph trajectory does not match the reference (strict mode): 3 differences",
            "  1. invocation 0, superstep 1: expected b, got c",
        ]
    )


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ([], "graph_trajectory_strict_match"),
        (["--trajectory-mode=superset"], "graph_trajectory_superset_match"),
        (["--trajectory-mode=in_order"], "graph_trajectory_in_order_match"),
    ],
)
def test_the_command_line_mode_applies_to_graphs(
    project: pytest.Pytester, options: list[str], key: str
) -> None:
    project.makepyfile(
        """
        from pytest_agenttraj import assert_graph_trajectory

        def test_fixture(graph_trajectory_evaluator):
            result = graph_trajectory_evaluator(
                outputs={"steps": [["a", "b", "c"]]}, reference_outputs={"steps": [["a", "c"]]}
            )
            print("KEY", result["key"], result["score"])

        def test_assertion():
            assert_graph_trajectory({"steps": [["a", "b", "c"]]}, {"steps": [["a", "c"]]})
        """
    )
    result = project.runpytest("-s", *options)
    passed = key != "graph_trajectory_strict_match"  # the output's superstep holds more nodes
    result.assert_outcomes(passed=2 if passed else 1, failed=0 if passed else 1)
    result.stdout.fnmatch_lines([f"*KEY {key} {passed}*"])


def test_the_fixture_is_documented(project: pytest.Pytester) -> None:
    result = project.runpytest("--fixtures")
    result.stdout.fnmatch_lines(
        ["graph_trajectory_evaluator -- *", "*A graph trajectory match evaluator in this test*"]
    )


def test_a_recorded_langgraph_run(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import operator
        from typing import Annotated, TypedDict

        from langgraph.graph import START, StateGraph

        from pytest_agenttraj import assert_graph_trajectory
        from pytest_agenttraj.langgraph import record_graph_trajectory

        class State(TypedDict, total=False):
            log: Annotated[list[str], operator.add]

        def graph():
            builder = StateGraph(State)
            for name in ("plan", "left", "right", "join"):
                builder.add_node(name, lambda _state, name=name: {"log": [name]})
            builder.add_edge(START, "plan")
            builder.add_edge("plan", "left")
            builder.add_edge("plan", "right")
            builder.add_edge(["left", "right"], "join")
            return builder.compile()

        def test_fan_out():
            _, trajectory = record_graph_trajectory(graph(), {"log": []})
            assert_graph_trajectory(
                trajectory, {"steps": [["__start__", "plan", ["right", "left"], "join"]]}
            )
        """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*::test_fan_out  graph_trajectory_strict_match  strict  true*"])


def test_a_graph_mismatch_in_colour(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PY_COLORS", "1")
    monkeypatch.setenv("BROKEN", "1")
    project.makepyfile(GRAPH_TESTS)
    text = project.runpytest("-k", "long_path").stdout.str()
    assert "\x1b[31m  !    2  node2" in text
    assert "\x1b[31minvocation 0: unexpected node node2\x1b[0m" in text
    failures = text.split("short test summary info")[0]
    assert failures.count("unexpected node node2") == 1  # the plain copy was replaced


@pytest.fixture
def langsmith_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """As in the LangSmith tests: no ambient LangSmith settings, their one known API key."""
    from .test_langsmith import KEY

    for name in list(os.environ):
        if name.startswith(("LANGSMITH_", "LANGCHAIN_", "PYTEST_XDIST_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("LANGSMITH_API_KEY", KEY)
    monkeypatch.setenv("LANGSMITH_TEST_SUITE", "agenttraj-graph-tests")
    return monkeypatch


def test_graph_results_are_logged_to_langsmith(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    from langsmith_server import FakeLangSmith

    from .test_langsmith import _project, _run

    _project(pytester, GRAPH_TESTS)
    langsmith_env.setenv("BROKEN", "1")
    with FakeLangSmith() as server:
        run = _run(pytester, langsmith_env, server.url, "--trajectory-langsmith")
    run.result.assert_outcomes(passed=2, failed=1)
    assert server.errors == []
    runs = {r["name"]: r for r in server.runs().values()}
    names = {r["id"]: name for name, r in runs.items()}
    feedback = {
        (names[f["run_id"]], f["key"]): (f["score"], f["comment"])
        for f in server.feedback()
        if f["key"] != "pass"
    }
    assert feedback == {
        ("test_recorded_not_asserted", "graph_trajectory_unordered_match"): (
            False,
            "Graph trajectory differs: invocation 0: missing node node3, missing node node4, "
            "missing node node5, missing node node6 and 1 more.",
        ),
        ("test_long_path", "graph_trajectory_strict_match"): (
            False,
            "Graph trajectory differs: invocation 0: expected node 'node3' at 2, got 'node2'.",
        ),
        ("test_shortcut_is_part_of_everything", "graph_trajectory_subset_match"): (True, None),
    }
    assert runs["test_long_path"]["outputs"]["trajectory"] == {
        "steps": [["__start__", "node1", "node2", "node7"]]
    }


# ---------------------------------------------------------------- graph reference files

WORKFLOWS = Path(__file__).resolve().parents[2] / "examples" / "graph_workflows.py"

GRAPH_FILE_TESTS = """
import os

import pytest
from graph_workflows import approval_workflow, workflow
from langgraph.types import Command

from pytest_agenttraj import assert_graph_trajectory
from pytest_agenttraj.langgraph import record_graph_trajectory

SHORTCUT = os.environ.get("SHORTCUT") == "1"


def run():
    return record_graph_trajectory(workflow(), {"shortcut": SHORTCUT})[1]


def test_by_name():
    assert_graph_trajectory(run(), "long_path.yaml")


@pytest.mark.trajectory(reference="long_path.yaml")
def test_by_marker(trajectory_reference):
    assert_graph_trajectory(run(), trajectory_reference)
    assert_graph_trajectory(run())  # the marker's file is the test's own


def test_fixture(graph_trajectory_evaluator):
    result = graph_trajectory_evaluator(outputs=run(), reference_outputs="long_path.yaml")
    assert result["score"], result["comment"]


def test_default_name():
    graph, thread = approval_workflow(), {"configurable": {"thread_id": "t-1"}}
    _, trajectory = record_graph_trajectory(graph, {"text": ""}, thread)
    verdict = "reject" if SHORTCUT else "approve"
    _, trajectory = record_graph_trajectory(
        graph, Command(resume=verdict), thread, previous=trajectory
    )
    assert_graph_trajectory(trajectory)  # trajectories/test_default_name.yaml
"""


@pytest.fixture
def graph_project(project: pytest.Pytester) -> pytest.Pytester:
    """A project with the example workflows (real LangGraph graphs) beside its tests."""
    (project.path / "graph_workflows.py").write_text(
        WORKFLOWS.read_text(encoding="utf-8"), encoding="utf-8"
    )
    return project


def test_graph_files_are_written_checked_and_rewritten(
    graph_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph_project.makepyfile(GRAPH_FILE_TESTS)
    missing = graph_project.runpytest()
    missing.assert_outcomes(failed=4)
    missing.stdout.fnmatch_lines(
        [
            "E   *ReferenceFileError: reference file */trajectories/long_path.yaml does not "
            "exist; run pytest with --trajectory-update to write it*"
        ]
    )
    written = graph_project.runpytest("--trajectory-update")
    written.assert_outcomes(passed=4)
    written.stdout.fnmatch_lines_random(
        [
            "agenttraj: wrote reference trajectories/long_path.yaml",
            "agenttraj: wrote reference trajectories/test_default_name.yaml",
        ]
    )
    assert written.stdout.str().count("wrote reference trajectories/long_path.yaml") == 1
    folder = graph_project.path / "trajectories"
    long_path = (folder / "long_path.yaml").read_text(encoding="utf-8")
    assert long_path.startswith("steps:\n- [__start__, node1, node3, [node")
    assert len(long_path.splitlines()) == 2  # one line per invocation
    assert (folder / "test_default_name.yaml").read_text(encoding="utf-8") == (
        "steps:\n- [__start__, draft, review, __interrupt__]\n- [review, publish]\n"
    )
    graph_project.runpytest().assert_outcomes(passed=4)

    monkeypatch.setenv("SHORTCUT", "1")
    failing = graph_project.runpytest("-p", "no:randomly")
    failing.assert_outcomes(failed=4)
    failing.stdout.fnmatch_lines(
        [
            "E   *GraphTrajectoryMismatch: Graph trajectory does not match the reference "
            "(strict mode): 6 differences",
            "E * 1. invocation 0, superstep 2: expected node3, got node2",
        ]
    )
    graph_project.runpytest("--trajectory-update").assert_outcomes(passed=4)
    assert (folder / "long_path.yaml").read_text(encoding="utf-8") == (
        "steps:\n- [__start__, node1, node2, node7]\n"
    )
    assert (folder / "test_default_name.yaml").read_text(encoding="utf-8") == (
        "steps:\n- [__start__, draft, review, __interrupt__]\n"
        "- [review, draft, review, __interrupt__]\n"
    )


def test_rewriting_a_graph_file_keeps_its_header_and_comments(
    graph_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph_project.makepyfile(GRAPH_FILE_TESTS)
    folder = graph_project.path / "trajectories"
    folder.mkdir()
    reviewed = (
        "# the long path, reviewed\n"
        "mode: unordered   # node order may change\n"
        "steps:\n"
        "- [__start__, node1, node3, [node4, node5], node6, node7]   # the first invocation\n"
    )
    (folder / "long_path.yaml").write_text(reviewed, encoding="utf-8")
    graph_project.runpytest("-k", "by_name", "--trajectory-update").assert_outcomes(passed=1)
    assert (folder / "long_path.yaml").read_text(encoding="utf-8") == reviewed  # kept
    monkeypatch.setenv("SHORTCUT", "1")
    result = graph_project.runpytest("-k", "by_name", "--trajectory-update")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["agenttraj: wrote reference trajectories/long_path.yaml"])
    lines = (folder / "long_path.yaml").read_text(encoding="utf-8").splitlines()
    assert lines[:3] == reviewed.splitlines()[:3]
    # the comment stays in its column
    assert re.fullmatch(r"- \[__start__, node1, node2, node7\] +# the first invocation", lines[3])
    assert len(lines) == 4


MODE_TESTS = """
import pytest
from pytest_agenttraj import assert_graph_trajectory

LONG = {"steps": [["__start__", "node1", "node3", ["node4", "node5"], "node6", "node7"]]}

def test_header():
    assert_graph_trajectory(LONG, "loose.yaml")

@pytest.mark.trajectory(mode="strict")
def test_marker_over_header():
    assert_graph_trajectory(LONG, "loose.yaml")

@pytest.mark.trajectory(mode="strict")
def test_argument_over_marker():
    assert_graph_trajectory(LONG, "loose.yaml", mode="superset")

def test_argument_over_header():
    assert_graph_trajectory(LONG, "loose.yaml", mode="strict")

def test_fixture_header(graph_trajectory_evaluator):
    assert graph_trajectory_evaluator(outputs=LONG, reference_outputs="loose.yaml")["score"]

@pytest.mark.trajectory(mode="strict")
def test_fixture_marker(graph_trajectory_evaluator):
    assert graph_trajectory_evaluator(outputs=LONG, reference_outputs="loose.yaml")["score"]

@pytest.mark.trajectory(reference="loose.yaml")
def test_own_file_header(graph_trajectory_evaluator, trajectory_config):
    assert trajectory_config.sources["mode"] == "reference file header"
    assert graph_trajectory_evaluator(outputs=LONG, reference_outputs=LONG)["key"] == (
        "graph_trajectory_superset_match"
    )
"""


@pytest.mark.parametrize("options", [[], ["--trajectory-mode=strict"]], ids=["default", "cli"])
def test_graph_file_mode_precedence(project: pytest.Pytester, options: list[str]) -> None:
    """argument > marker > the file's mode: > command line / ini > strict."""
    project.makepyfile(MODE_TESTS)
    folder = project.path / "trajectories"
    folder.mkdir()
    (folder / "loose.yaml").write_text(
        "mode: superset\nsteps:\n- [node1, node6, node7]\n", encoding="utf-8"
    )
    result = project.runpytest("--trajectory-report=report.json", *options)
    result.assert_outcomes(passed=4, failed=3)
    report = json.loads((project.path / "report.json").read_text(encoding="utf-8"))
    failed = {r["nodeid"].split("::")[1] for r in report["results"] if not r["passed"]}
    assert failed == {"test_marker_over_header", "test_argument_over_header", "test_fixture_marker"}
    modes = {r["nodeid"].split("::")[1]: r["mode"] for r in report["results"]}
    assert modes == {
        "test_header": "superset",
        "test_marker_over_header": "strict",
        "test_argument_over_marker": "superset",
        "test_argument_over_header": "strict",
        "test_fixture_header": "superset",
        "test_fixture_marker": "strict",
        "test_own_file_header": "superset",
    }
    files = {r["nodeid"].split("::")[1]: r.get("reference_file") for r in report["results"]}
    assert files["test_header"] == files["test_fixture_header"] == "trajectories/loose.yaml"


def test_a_file_of_the_other_kind_says_which_function_to_use(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_agenttraj import assert_graph_trajectory, assert_trajectory

        def test_messages_against_a_graph_file():
            assert_trajectory([{"role": "user", "content": "q"}], "flow.yaml")

        def test_graph_against_a_message_file(graph_trajectory_evaluator):
            graph_trajectory_evaluator(outputs={"steps": [["a"]]}, reference_outputs="chat.yaml")

        def test_a_broken_graph_file():
            assert_graph_trajectory({"steps": [["a"]]}, "broken.yaml")
        """
    )
    folder = project.path / "trajectories"
    folder.mkdir()
    (folder / "flow.yaml").write_text("steps:\n- [a]\n", encoding="utf-8")
    (folder / "chat.yaml").write_text("- {role: user, content: q}\n", encoding="utf-8")
    (folder / "broken.yaml").write_text("mode: strict\nsteps:\n- [a, [b, [c]]]\n")
    # under --trajectory-update too: a file of the other kind is never overwritten
    result = project.runpytest("--trajectory-update", "-p", "no:randomly")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines_random(
        [
            "E   *ReferenceFileError: reference file trajectories/flow.yaml holds a graph path "
            "(steps): compare a graph trajectory with it through assert_graph_trajectory or the "
            "graph_trajectory_evaluator fixture, or give assert_trajectory a file of messages",
            "E   *ReferenceFileError: reference file trajectories/chat.yaml holds messages, not a "
            "graph path (steps): compare a message trajectory with it through assert_trajectory "
            "or the trajectory_evaluator fixture*",
            "E   *ReferenceFileError: */trajectories/broken.yaml:3: broken.yaml[[]'steps'][[]0]"
            "[[]1] (invocation 0, step 1) must list node names, got *; supersteps do not nest*",
        ]
    )
    assert (folder / "flow.yaml").read_text(encoding="utf-8") == "steps:\n- [a]\n"
    assert (folder / "chat.yaml").read_text(encoding="utf-8") == "- {role: user, content: q}\n"
