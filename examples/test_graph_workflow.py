"""Graph trajectories: which nodes a LangGraph workflow ran, superstep by superstep.

``record_graph_trajectory`` runs a compiled graph (as ``invoke`` does) and records its path: one
list per invocation, where a list inside it holds the nodes of one superstep (they ran at the
same time, so their order means nothing). ``assert_graph_trajectory`` compares it with a
reference and fails with a diff naming the invocation, the superstep and the nodes.

References can live in files too: ``trajectories/long_path.yaml`` and
``trajectories/approval_thread.yaml`` beside this file hold ``steps:`` (one list per invocation,
a nested list per superstep) and may set a ``mode:``. ``pytest --trajectory-update`` writes
them from the recorded paths.
"""

from __future__ import annotations

import pytest
from graph_workflows import approval_workflow, map_reduce, workflow
from langgraph.types import Command

from pytest_agenttraj import (
    GraphTrajectoryMismatch,
    assert_graph_trajectory,
    graph_trajectory_strict_match,
)
from pytest_agenttraj.langgraph import record_graph_trajectory

# node4 and node5 share a superstep: the reference says so with a nested list
LONG_PATH = {"steps": [["__start__", "node1", "node3", ["node4", "node5"], "node6", "node7"]]}


@pytest.mark.parametrize("slow", ["node4", "node5"])
def test_the_long_path_matches_whichever_of_node4_and_node5_finishes_first(slow):
    state, trajectory = record_graph_trajectory(workflow(), {"shortcut": False, "slow": slow})
    first = "node5" if slow == "node4" else "node4"
    # the recording lists a superstep's nodes as they finished ...
    assert trajectory["steps"][0][3] == [first, slow]
    # ... and a superstep in the reference matches them in any order
    assert_graph_trajectory(trajectory, LONG_PATH)
    assert state["visited"][-1] == "node7"


def _flat(trajectory):
    """The path as one list of nodes in the order they finished: all a recording without
    supersteps (agentevals' extractor, a hand-written list) can keep."""
    return {
        "steps": [
            [node for entry in steps for node in ([entry] if isinstance(entry, str) else entry)]
            for steps in trajectory["steps"]
        ]
    }


def test_a_flat_strict_reference_accepts_only_one_order():
    """The reason supersteps exist: as one sequence, a fan-out has two valid orders."""
    flat_reference = {
        "steps": [["__start__", "node1", "node3", "node4", "node5", "node6", "node7"]]
    }
    node4_first = _flat(record_graph_trajectory(workflow(), {"slow": "node5"})[1])
    node5_first = _flat(record_graph_trajectory(workflow(), {"slow": "node4"})[1])

    accepted = graph_trajectory_strict_match(outputs=node4_first, reference_outputs=flat_reference)
    refused = graph_trajectory_strict_match(outputs=node5_first, reference_outputs=flat_reference)
    assert accepted["score"] is True
    assert refused["score"] is False
    assert refused["comment"] == (
        "Graph trajectory differs: invocation 0: expected node 'node4' at 3, got 'node5'."
    )
    # the superstep reference takes both
    assert_graph_trajectory(node4_first, LONG_PATH)
    assert_graph_trajectory(node5_first, LONG_PATH)


def test_the_shortcut_path_fails_with_a_diff_naming_the_nodes():
    _, trajectory = record_graph_trajectory(workflow(), {"shortcut": True})
    assert trajectory["steps"] == [["__start__", "node1", "node2", "node7"]]

    # an expected failure: the diff is the exception's text
    with pytest.raises(GraphTrajectoryMismatch) as mismatch:
        assert_graph_trajectory(trajectory, LONG_PATH)
    diff = str(mismatch.value)
    assert "invocation 0, superstep 2: expected node3, got node2" in diff
    assert "invocation 0: missing node node6" in diff
    assert "invocation 0: unexpected node node2" in diff


def test_subset_mode_accepts_the_shortcut_as_part_of_the_long_path():
    """``subset``: the output ran nothing the reference lacks, in the reference's order."""
    _, trajectory = record_graph_trajectory(workflow(), {"shortcut": True})
    everything = {"steps": [["__start__", "node1", "node2", "node3", "node6", "node7"]]}
    assert_graph_trajectory(trajectory, everything, mode="subset")


@pytest.mark.trajectory(mode="superset")
def test_the_marker_sets_the_mode(graph_trajectory_evaluator):
    """``superset``: the reference's nodes ran in its order; others may come between."""
    _, trajectory = record_graph_trajectory(workflow(), {"shortcut": False})
    must_pass = {"steps": [["node1", "node6", "node7"]]}
    result = graph_trajectory_evaluator(outputs=trajectory, reference_outputs=must_pass)
    assert result["key"] == "graph_trajectory_superset_match"
    assert result["score"], result["comment"]


def test_a_thread_with_an_interrupt_and_a_resume():
    """An interrupted invocation ends with ``__interrupt__``; resuming adds the next one (pass
    the trajectory so far as ``previous``). The interrupted node runs again when resumed."""
    graph = approval_workflow()
    thread = {"configurable": {"thread_id": "release-1"}}

    state, trajectory = record_graph_trajectory(graph, {"text": ""}, thread)
    assert "__interrupt__" in state  # as graph.invoke returns it
    state, trajectory = record_graph_trajectory(
        graph, Command(resume="approve"), thread, previous=trajectory
    )

    assert state["text"] == "Release notes (published)"
    assert_graph_trajectory(
        trajectory,
        {
            "steps": [
                ["__start__", "draft", "review", "__interrupt__"],
                ["review", "publish"],
            ]
        },
    )


def test_send_map_reduce_records_one_task_per_topic():
    state, trajectory = record_graph_trajectory(map_reduce(), {"topics": ["cpu", "disk", "net"]})
    assert state["report"] == "cpu: fine; disk: fine; net: fine"
    assert_graph_trajectory(
        trajectory,
        {"steps": [["__start__", "plan", ["summarize", "summarize", "summarize"], "combine"]]},
    )


@pytest.mark.parametrize("slow", ["node4", "node5"])
def test_the_long_path_against_its_file(slow):
    """``trajectories/long_path.yaml``: the superstep as a nested list, so either order of node4
    and node5 matches."""
    _, trajectory = record_graph_trajectory(workflow(), {"shortcut": False, "slow": slow})
    assert_graph_trajectory(trajectory, "long_path.yaml")


@pytest.mark.trajectory(reference="approval_thread.yaml")
def test_an_approval_thread_against_the_markers_file(graph_trajectory_evaluator):
    """The marker names the file; the fixture's evaluator reads it from ``trajectories/``."""
    graph, thread = approval_workflow(), {"configurable": {"thread_id": "release-2"}}
    _, trajectory = record_graph_trajectory(graph, {"text": ""}, thread)
    _, trajectory = record_graph_trajectory(
        graph, Command(resume="approve"), thread, previous=trajectory
    )
    result = graph_trajectory_evaluator(
        outputs=trajectory, reference_outputs="approval_thread.yaml"
    )
    assert result["score"], result["comment"]
