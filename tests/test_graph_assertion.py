"""``assert_graph_trajectory`` without the plugin: a match returns the result, a mismatch
raises ``GraphTrajectoryMismatch`` whose text is the diff, where the mode comes from, and graph
reference files given by path."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from pytest_agenttraj import (
    GraphTrajectoryMismatch,
    ReferenceFileError,
    TrajectoryMismatch,
    assert_graph_trajectory,
)
from pytest_agenttraj.evaluators import scope

LONG = {"steps": [["__start__", "node1", "node3", ["node4", "node5"], "node6", "node7"]]}
SHORTCUT = {"steps": [["__start__", "node1", "node2", "node7"]]}


def test_a_match_returns_the_result() -> None:
    result = assert_graph_trajectory(LONG, LONG)
    assert result == {
        "key": "graph_trajectory_strict_match",
        "score": True,
        "comment": None,
        "metadata": None,
    }


def test_a_mismatch_is_an_assertion_error_whose_text_is_the_diff() -> None:
    with pytest.raises(GraphTrajectoryMismatch) as raised:
        assert_graph_trajectory(SHORTCUT, LONG)
    mismatch = raised.value
    assert isinstance(mismatch, TrajectoryMismatch)
    assert isinstance(mismatch, AssertionError)
    text = str(mismatch)
    assert text.startswith("Graph trajectory does not match the reference (strict mode)")
    assert "invocation 0, superstep 2: expected node3, got node2" in text
    assert mismatch.result["score"] is False
    assert mismatch.report.comment() == mismatch.result["comment"]
    for copied in (copy.copy(mismatch), pickle.loads(pickle.dumps(mismatch))):
        assert str(copied) == text


def test_the_mode_explicit_then_the_references_own() -> None:
    with pytest.raises(GraphTrajectoryMismatch, match=r"\(subset mode\)"):
        assert_graph_trajectory(SHORTCUT, {**LONG, "mode": "subset"})
    assert_graph_trajectory(LONG, {"steps": [["node1", "node7"]], "mode": "superset"})
    with pytest.raises(GraphTrajectoryMismatch, match=r"\(strict mode\)"):
        assert_graph_trajectory(
            LONG, {"steps": [["node1", "node7"]], "mode": "superset"}, mode="strict"
        )
    with pytest.raises(ValueError, match="invalid graph mode 'loose'"):
        assert_graph_trajectory(LONG, LONG, mode="loose")


def _scope(mode: str, marker: bool, seen: list[scope.Evaluation]) -> scope.TestScope:
    return scope.TestScope(
        on_evaluation=seen.append,
        mode=mode,
        marker_keys=frozenset({"mode"}) if marker else frozenset(),
    )


def test_inside_a_test_the_marker_wins_then_the_reference_then_the_options() -> None:
    seen: list[scope.Evaluation] = []
    superset_reference = {"steps": [["node1", "node7"]], "mode": "superset"}
    marked = scope.test_scope(_scope("unordered", True, seen))  # @pytest.mark.trajectory(mode=)
    with marked, pytest.raises(GraphTrajectoryMismatch, match=r"\(unordered mode\)"):
        assert_graph_trajectory(LONG, superset_reference)
    with scope.test_scope(_scope("unordered", False, seen)):  # --trajectory-mode / ini
        assert_graph_trajectory(LONG, superset_reference)
        assert_graph_trajectory({"steps": [["node7", "node1"]]}, {"steps": [["node1", "node7"]]})
    assert [e.result["key"] for e in seen] == [
        "graph_trajectory_unordered_match",
        "graph_trajectory_superset_match",
        "graph_trajectory_unordered_match",
    ]
    assert [e.origin for e in seen] == ["assert_graph_trajectory"] * 3
    assert seen[0].report is not None
    assert seen[0].report.mode == "unordered"
    assert seen[0].outputs is LONG


def test_a_graph_reference_file_by_path_where_no_test_resolves_names(tmp_path: Path) -> None:
    path = tmp_path / "flow.yaml"
    path.write_text("mode: superset  # the reference's nodes, in order\nsteps:\n- [node1, node7]\n")
    seen: list[scope.Evaluation] = []
    with scope.test_scope(scope.TestScope(on_evaluation=seen.append)):  # no reference resolver
        assert_graph_trajectory(LONG, str(path))  # in the file's mode
        with pytest.raises(GraphTrajectoryMismatch, match=r"\(strict mode\)"):
            assert_graph_trajectory(LONG, path, mode="strict")
        with pytest.raises(ReferenceFileError, match=r"does not exist\. Outside a pytest run"):
            assert_graph_trajectory(LONG, tmp_path / "missing.yaml")
        with pytest.raises(ValueError, match="assert_graph_trajectory needs a reference outside"):
            assert_graph_trajectory(LONG)
    assert [e.result["key"] for e in seen] == [
        "graph_trajectory_superset_match",
        "graph_trajectory_strict_match",
        "graph_trajectory_strict_match",
        "graph_trajectory_strict_match",
    ]
    assert seen[0].extra == {"reference_file": str(path)}
    assert seen[0].reference_outputs == {"steps": [["node1", "node7"]]}
    assert "error" in seen[2].extra
