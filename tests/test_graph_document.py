"""Graph references as plain documents (``core.graph.document``): checked and normalised on the
way in, built from a captured trajectory on the way out."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_agenttraj import GraphTrajectoryFormatError
from pytest_agenttraj.core.graph import check_graph_reference, graph_reference_document


def test_a_reference_is_normalised_to_plain_lists() -> None:
    document = {"steps": (("node1", ("node4", "node5")), ["node7"]), "mode": "superset"}
    assert check_graph_reference(document) == {
        "steps": [["node1", ["node4", "node5"]], ["node7"]],
        "mode": "superset",
    }
    assert check_graph_reference({"steps": []}) == {"steps": []}


@pytest.mark.parametrize(
    ("document", "message", "invocation", "step"),
    [
        pytest.param(
            {"steps": [["node1"], ["node2", 7]]},
            "weather.yaml['steps'][1][1] (invocation 1, step 1) must be a node name or a list",
            1,
            1,
            id="a-number-step",
        ),
        pytest.param(
            {"steps": [["node1", []]]},
            "weather.yaml['steps'][0][1] (invocation 0, step 1) is an empty superstep",
            0,
            1,
            id="an-empty-superstep",
        ),
        pytest.param(
            {"steps": ["node1"]},
            "weather.yaml['steps'][0] must be a list of node names (one list per invocation)",
            0,
            None,
            id="no-invocation-list",
        ),
        pytest.param(
            {"step": [["node1"]]},
            "weather.yaml must be a mapping with 'steps'",
            None,
            None,
            id="misspelt-steps",
        ),
        pytest.param(
            {"steps": [["node1"]], "results": []},
            "weather.yaml has unknown key(s) results; a graph reference holds steps and mode",
            None,
            None,
            id="unknown-key",
        ),
        pytest.param(
            {"steps": [["node1"]], "mode": "loose"},
            "weather.yaml: invalid graph mode 'loose': must be one of 'strict'",
            None,
            None,
            id="bad-mode",
        ),
    ],
)
def test_a_bad_reference_says_where(
    document: Any, message: str, invocation: int | None, step: int | None
) -> None:
    with pytest.raises(GraphTrajectoryFormatError) as raised:
        check_graph_reference(document, source="weather.yaml")
    assert message in str(raised.value)
    assert (raised.value.invocation, raised.value.step) == (invocation, step)


def test_a_captured_trajectory_becomes_the_document_to_write() -> None:
    captured = {
        "inputs": [{"shortcut": False}, None],
        "results": [{"visited": ["node1"]}, {}],
        "steps": [["__start__", "node1", ("node4", "node5")], ["review", "__interrupt__"]],
    }
    document = graph_reference_document(captured, mode="strict")
    assert document == {
        "steps": [["__start__", "node1", ["node4", "node5"]], ["review", "__interrupt__"]],
        "mode": "strict",
    }
    # what is written reads back as the same reference
    assert check_graph_reference(document) == document
    with pytest.raises(ValueError, match="invalid graph mode"):
        graph_reference_document(captured, mode="loose")
