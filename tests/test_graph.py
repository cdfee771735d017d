"""``graph_trajectory_strict_match``: LangGraph node sequences per invocation, with supersteps."""

from __future__ import annotations

import asyncio
import inspect
import re
import uuid
from datetime import datetime, timezone
from typing import Any

import pytest
from langsmith.schemas import Example, Run

from pytest_agenttraj import (
    GraphTrajectory,
    create_async_graph_trajectory_match_evaluator,
    create_graph_trajectory_match_evaluator,
    graph_trajectory_strict_match,
    graph_trajectory_strict_match_async,
)
from pytest_agenttraj.core.graph import graph_steps_match

KEYS = {"key", "score", "comment", "metadata"}


def graph(*steps: list[Any], results: list[Any] | None = None) -> GraphTrajectory:
    return {
        "inputs": [{"messages": [{"role": "user", "content": "q"}]}] * len(steps),
        "results": results if results is not None else [{}] * len(steps),
        "steps": list(steps),
    }


AGENT_LOOP = ["__start__", "agent", "tools", "agent"]


def test_flat_steps_match_as_in_agentevals() -> None:
    result = graph_trajectory_strict_match(
        outputs=graph(AGENT_LOOP), reference_outputs=graph(AGENT_LOOP)
    )
    assert set(result) == KEYS
    assert result == {
        "key": "graph_trajectory_strict_match",
        "score": True,
        "comment": None,
        "metadata": None,
    }


def test_inputs_and_results_are_not_compared() -> None:
    output = graph(AGENT_LOOP, results=[{"answer": "a"}])
    reference = graph(AGENT_LOOP, results=[{"answer": "something else"}])
    reference["inputs"] = None
    assert graph_trajectory_strict_match(outputs=output, reference_outputs=reference)["score"]


@pytest.mark.parametrize(
    ("output", "reference", "comment"),
    [
        pytest.param(
            AGENT_LOOP,
            ["__start__", "agent", "agent"],
            "invocation 0: expected node 'agent' at 2, got 'tools'",
            id="different-node",
        ),
        pytest.param(
            ["__start__", "agent"],
            AGENT_LOOP,
            "invocation 0: expected node 'tools' at 2, got nothing",
            id="output-too-short",
        ),
        pytest.param(
            [*AGENT_LOOP, "tools", "agent"],
            AGENT_LOOP,
            "invocation 0: unexpected nodes after the reference's last: ['tools', 'agent']",
            id="output-too-long",
        ),
        pytest.param(
            ["__start__", "tools", "agent", "agent"],
            AGENT_LOOP,
            "invocation 0: expected node 'agent' at 1, got 'tools'",
            id="order-matters",
        ),
    ],
)
def test_flat_steps_mismatch_comments(
    output: list[Any], reference: list[Any], comment: str
) -> None:
    result = graph_trajectory_strict_match(
        outputs=graph(output), reference_outputs=graph(reference)
    )
    assert result["key"] == "graph_trajectory_strict_match"
    assert result["score"] is False
    assert result["comment"] == f"Graph trajectory differs: {comment}."


def test_several_invocations_of_a_thread() -> None:
    first, second = ["__start__", "agent"], AGENT_LOOP
    assert graph_trajectory_strict_match(
        outputs=graph(first, second), reference_outputs=graph(first, second)
    )["score"]
    swapped = graph_trajectory_strict_match(
        outputs=graph(second, first), reference_outputs=graph(first, second)
    )
    assert swapped["comment"] == (
        "Graph trajectory differs: invocation 0: unexpected nodes after the reference's last: "
        "['tools', 'agent']."
    )
    fewer = graph_trajectory_strict_match(
        outputs=graph(first), reference_outputs=graph(first, second)
    )
    assert fewer["comment"] == "Graph trajectory differs: expected 2 invocations, got 1."
    more = graph_trajectory_strict_match(
        outputs=graph(first, first), reference_outputs=graph(first)
    )
    assert more["comment"] == "Graph trajectory differs: expected 1 invocation, got 2."


def test_second_invocation_is_named_in_the_comment() -> None:
    result = graph_trajectory_strict_match(
        outputs=graph(["a"], ["a", "c"]), reference_outputs=graph(["a"], ["a", "b"])
    )
    assert (
        result["comment"]
        == "Graph trajectory differs: invocation 1: expected node 'b' at 1, got 'c'."
    )


# ---------------------------------------------------------------- supersteps

SUPERSTEP = ["plan", ["fetch_weather", "fetch_time"], "answer"]


@pytest.mark.parametrize(
    "ran",
    [
        ["plan", "fetch_weather", "fetch_time", "answer"],
        ["plan", "fetch_time", "fetch_weather", "answer"],
        ["plan", ["fetch_time", "fetch_weather"], "answer"],
        ("plan", ("fetch_weather", "fetch_time"), "answer"),
    ],
)
def test_superstep_group_matches_either_order(ran: list[Any]) -> None:
    result = graph_trajectory_strict_match(outputs=graph(ran), reference_outputs=graph(SUPERSTEP))
    assert result["score"] is True
    assert result["comment"] is None


@pytest.mark.parametrize(
    ("ran", "comment"),
    [
        pytest.param(
            ["plan", "fetch_time", "answer", "fetch_weather"],
            "invocation 0: superstep ['fetch_weather', 'fetch_time'] expected at node 1, got "
            "['fetch_time', 'answer']",
            id="node-left-the-superstep",
        ),
        pytest.param(
            ["plan", "fetch_weather", "answer"],
            "invocation 0: superstep ['fetch_weather', 'fetch_time'] expected at node 1, got "
            "['fetch_weather', 'answer']",
            id="node-missing",
        ),
        pytest.param(
            ["plan", "fetch_weather", "fetch_weather", "answer"],
            "invocation 0: superstep ['fetch_weather', 'fetch_time'] expected at node 1, got "
            "['fetch_weather', 'fetch_weather']",
            id="duplicate-instead-of-other",
        ),
        pytest.param(
            ["fetch_time", "plan", "fetch_weather", "answer"],
            "invocation 0: expected node 'plan' at 0, got 'fetch_time'",
            id="order-outside-the-superstep-still-matters",
        ),
        pytest.param(
            ["plan", "fetch_time", "fetch_weather"],
            "invocation 0: expected node 'answer' at 3, got nothing",
            id="short",
        ),
    ],
)
def test_superstep_group_mismatch(ran: list[Any], comment: str) -> None:
    result = graph_trajectory_strict_match(outputs=graph(ran), reference_outputs=graph(SUPERSTEP))
    assert result["score"] is False
    assert result["comment"] == f"Graph trajectory differs: {comment}."


def test_without_supersteps_a_fan_out_has_one_accepted_order() -> None:
    flat_reference = graph(["plan", "fetch_weather", "fetch_time", "answer"])
    other_order = graph(["plan", "fetch_time", "fetch_weather", "answer"])
    result = graph_trajectory_strict_match(outputs=other_order, reference_outputs=flat_reference)
    assert result["score"] is False


def test_graph_steps_match_directly() -> None:
    assert graph_steps_match([["a", "b"]], [[["b", "a"]]]) is None
    assert graph_steps_match([["a"]], [["b"]]) == "invocation 0: expected node 'b' at 0, got 'a'"


# ---------------------------------------------------------------- async, kwargs, bad input


def test_async_twin() -> None:
    for ran, score in ((SUPERSTEP, True), (["plan"], False)):
        awaited = asyncio.run(
            graph_trajectory_strict_match_async(
                outputs=graph(ran), reference_outputs=graph(SUPERSTEP)
            )
        )
        assert awaited == graph_trajectory_strict_match(
            outputs=graph(ran), reference_outputs=graph(SUPERSTEP)
        )
        assert awaited["score"] is score


def test_extra_keyword_arguments_are_accepted() -> None:
    result = graph_trajectory_strict_match(
        outputs=graph(AGENT_LOOP), reference_outputs=graph(AGENT_LOOP), inputs=None, run_id="r"
    )
    assert result["score"] is True


@pytest.mark.parametrize(
    ("outputs", "reference_outputs", "message"),
    [
        pytest.param(None, graph(AGENT_LOOP), "requires outputs and reference_outputs", id="none"),
        pytest.param(
            graph(AGENT_LOOP), None, "requires outputs and reference_outputs", id="none-ref"
        ),
        pytest.param(
            [AGENT_LOOP], graph(AGENT_LOOP), "outputs must be a GraphTrajectory dict", id="a-list"
        ),
        pytest.param(
            graph(AGENT_LOOP),
            {"results": []},
            "reference_outputs must be a GraphTrajectory dict with 'steps'",
            id="no-steps",
        ),
        pytest.param(
            {"steps": "agent"},
            graph(AGENT_LOOP),
            "outputs['steps'] must be a list of node-name lists",
            id="steps-not-a-list",
        ),
        pytest.param(
            graph(AGENT_LOOP),
            {"inputs": [], "results": [], "steps": AGENT_LOOP},
            "reference_outputs['steps'][0] must be a list of node names (one list per "
            "invocation), got '__start__'",
            id="missing-per-invocation-list",
        ),
    ],
)
def test_bad_input_raises_value_error(outputs: Any, reference_outputs: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        graph_trajectory_strict_match(outputs=outputs, reference_outputs=reference_outputs)


# ---------------------------------------------------------------- the factories: five modes


SEVEN = ["__start__", "node1", "node3", ["node4", "node5"], "node6", "node7"]


@pytest.mark.parametrize(
    ("mode", "output", "score"),
    [
        ("strict", ["__start__", "node1", "node3", ["node5", "node4"], "node6", "node7"], True),
        ("unordered", ["node7", "node6", "node5", "node4", "node3", "node1", "__start__"], True),
        (
            "superset",
            ["__start__", "node1", "node3", "node4", "node5", "node6", "x", "node7"],
            True,
        ),
        (
            "in_order",
            ["__start__", "node1", "node3", "node4", "node5", "node6", "x", "node7"],
            True,
        ),
        ("superset", ["__start__", "node1", "node3", "node4", "node6", "node7"], False),
        ("subset", ["__start__", "node1", "node3", "node6", "node7"], True),
        ("subset", ["__start__", "node1", "node2", "node7"], False),
    ],
)
def test_factory_modes_keys_and_result_shape(mode: str, output: list[Any], score: bool) -> None:
    evaluator = create_graph_trajectory_match_evaluator(mode=mode)  # type: ignore[arg-type]
    result = evaluator(outputs=graph(output), reference_outputs=graph(SEVEN), inputs=None)
    assert set(result) == KEYS
    assert result["key"] == f"graph_trajectory_{mode}_match"
    assert result["score"] is score
    assert (result["comment"] is None) is score
    assert result["metadata"] is None
    assert evaluator.__name__ == f"graph_trajectory_{mode}_match"


def test_the_strict_factory_answers_as_graph_trajectory_strict_match() -> None:
    evaluator = create_graph_trajectory_match_evaluator()
    for ran in (SUPERSTEP, ["plan"], AGENT_LOOP):
        assert evaluator(outputs=graph(ran), reference_outputs=graph(SUPERSTEP)) == (
            graph_trajectory_strict_match(outputs=graph(ran), reference_outputs=graph(SUPERSTEP))
        )


def test_agentevals_keyword_for_the_mode() -> None:
    evaluator = create_graph_trajectory_match_evaluator(trajectory_match_mode="unordered")
    assert evaluator(outputs=graph(SEVEN), reference_outputs=graph(SEVEN))["key"] == (
        "graph_trajectory_unordered_match"
    )
    with pytest.raises(ValueError, match="disagree"):
        create_graph_trajectory_match_evaluator(mode="subset", trajectory_match_mode="superset")


@pytest.mark.parametrize(
    "factory",
    [create_graph_trajectory_match_evaluator, create_async_graph_trajectory_match_evaluator],
)
def test_unknown_modes_fail_when_the_evaluator_is_built(factory: Any) -> None:
    with pytest.raises(ValueError, match=re.escape("invalid graph mode 'fuzzy': must be one of")):
        factory(mode="fuzzy")
    with pytest.raises(ValueError, match="'in_order'"):
        factory(trajectory_match_mode="exact")


def test_the_async_factory_returns_a_coroutine_function() -> None:
    evaluator = create_async_graph_trajectory_match_evaluator(mode="superset")
    assert inspect.iscoroutinefunction(evaluator)
    assert inspect.iscoroutinefunction(graph_trajectory_strict_match_async)
    awaited = asyncio.run(evaluator(outputs=graph(SEVEN), reference_outputs=graph(["node6"])))
    assert awaited["key"] == "graph_trajectory_superset_match"
    assert awaited["score"] is True


def _run_and_example(output: list[Any], reference: list[Any]) -> tuple[Run, Example]:
    run = Run(
        id=uuid.uuid4(),
        name="workflow",
        start_time=datetime.now(timezone.utc),
        run_type="chain",
        inputs={"shortcut": False},
        outputs=dict(graph(output)),
        trace_id=uuid.uuid4(),
    )
    example = Example(id=uuid.uuid4(), inputs={"shortcut": False}, outputs=dict(graph(reference)))
    return run, example


def test_langsmith_runs_the_sync_and_async_evaluators(monkeypatch: pytest.MonkeyPatch) -> None:
    """langsmith's ``run_evaluator`` passes ``outputs`` / ``reference_outputs`` from a Run and an
    Example and picks the async path by ``inspect.iscoroutinefunction``."""
    from langsmith.evaluation.evaluator import run_evaluator

    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    monkeypatch.setenv("LANGCHAIN_TRACING_V2", "false")
    passing = _run_and_example(SEVEN, SEVEN)
    failing = _run_and_example(["__start__", "node1", "node2", "node7"], SEVEN)

    sync_evaluator = run_evaluator(create_graph_trajectory_match_evaluator(mode="strict"))
    result = sync_evaluator.evaluate_run(*passing)
    assert (result.key, result.score) == ("graph_trajectory_strict_match", True)
    result = sync_evaluator.evaluate_run(*failing)
    assert result.score is False
    assert result.comment == (
        "Graph trajectory differs: invocation 0: expected node 'node3' at 2, got 'node2'."
    )

    async_evaluator = run_evaluator(create_async_graph_trajectory_match_evaluator(mode="subset"))
    assert hasattr(async_evaluator, "afunc")
    result = asyncio.run(async_evaluator.aevaluate_run(*failing))
    assert (result.key, result.score) == ("graph_trajectory_subset_match", False)
    assert result.comment == "Graph trajectory differs: invocation 0: unexpected node node2."
