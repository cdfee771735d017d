"""Differential tests of the LangGraph extractors: agentevals' own
``extract_langgraph_trajectory_from_thread`` (agentevals 0.0.9, installed for the suite) against
``pytest_agenttraj.langgraph``'s, on real compiled graphs with checkpointers, one thread each.

Each scenario is recorded with ``record_graph_trajectory`` and then extracted from the same
thread's checkpoints. Three things are checked: the package's agentevals-compatible extractor
gives agentevals' answer (or, where agentevals is wrong, the answer ``docs/differences.md``
lists, with agentevals' answer pinned beside it); the recording strict-matches the flat reference
agentevals' extractor gives (where it re-runs no interrupted node); and the path rebuilt from the
checkpoints (``graph_trajectory_from_history``) is the recorded one.
"""

from __future__ import annotations

import itertools
import operator
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import pytest
from agentevals.graph_trajectory.utils import (
    extract_langgraph_trajectory_from_thread as agentevals_extract,
)
from graph_workflows import approval_workflow
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

from pytest_agenttraj import (
    GraphTrajectory,
    graph_trajectory_strict_match,
    match_graph_trajectories,
)
from pytest_agenttraj.langgraph import (
    extract_langgraph_trajectory_from_snapshots,
    extract_langgraph_trajectory_from_thread,
    graph_trajectory_from_history,
    record_graph_trajectory,
)


class Log(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    answer: str
    topic: str
    count: int


def _writes(name: str) -> Callable[[Log], Log]:
    def node(_state: Log) -> Log:
        return {"log": [name]}

    return node


def _asks(_state: Log) -> Log:
    return {"answer": interrupt("which one?")}


def _graph(*nodes: str, asking: tuple[str, ...] = ()) -> StateGraph[Log, Any, Any, Any]:
    graph = StateGraph(Log)
    for name in nodes:
        graph.add_node(name, _asks if name in asking else _writes(name))
    return graph


def _chain(graph: StateGraph[Log, Any, Any, Any], *names: str) -> None:
    for first, second in itertools.pairwise(names):
        graph.add_edge(first, second)


# ---------------------------------------------------------------- the graphs


def linear() -> Any:
    graph = _graph("a", "b", "c")
    _chain(graph, START, "a", "b", "c", END)
    return graph.compile(checkpointer=InMemorySaver())


def branches() -> Any:
    """``route`` goes to ``short`` or ``long`` on the first letter of ``topic``."""
    graph = _graph("route", "short", "long", "done")
    graph.add_edge(START, "route")
    graph.add_conditional_edges(
        "route", lambda state: "short" if state["topic"] < "m" else "long", ["short", "long"]
    )
    graph.add_edge("short", "done")
    graph.add_edge("long", "done")
    return graph.compile(checkpointer=InMemorySaver())


def loop() -> Any:
    """``work -> check`` until ``check`` has counted three rounds."""

    def check(state: Log) -> Log:
        return {"log": ["check"], "count": state.get("count", 0) + 1}

    graph = _graph("work", "report")
    graph.add_node("check", check)
    _chain(graph, START, "work", "check")
    graph.add_conditional_edges(
        "check", lambda state: "report" if state["count"] >= 3 else "work", ["work", "report"]
    )
    return graph.compile(checkpointer=InMemorySaver())


def map_reduce() -> Any:
    """``plan`` sends each of three topics to ``summarize`` (``Send``), ``combine`` joins."""
    graph = _graph("plan", "summarize", "combine")
    graph.add_edge(START, "plan")
    graph.add_conditional_edges(
        "plan", lambda _state: [Send("summarize", {"topic": t}) for t in "xyz"], ["summarize"]
    )
    _chain(graph, "summarize", "combine", END)
    return graph.compile(checkpointer=InMemorySaver())


def fan_out() -> Any:
    """``plan -> search, browse -> answer``: a static fan-out joined again."""
    graph = _graph("plan", "search", "browse", "answer")
    _chain(graph, START, "plan", "search")
    graph.add_edge("plan", "browse")
    graph.add_edge(["search", "browse"], "answer")
    return graph.compile(checkpointer=InMemorySaver())


def fan_out_asking(first: str) -> Callable[[], Any]:
    """``plan -> ask, search -> answer`` where ``ask`` waits for a person; ``first`` is the
    branch added first (it decides the order of the superstep's tasks in the checkpoint)."""

    def build() -> Any:
        second = "search" if first == "ask" else "ask"
        graph = _graph("plan", first, second, "answer", asking=("ask",))
        _chain(graph, START, "plan", first)
        graph.add_edge("plan", second)
        graph.add_edge(["ask", "search"], "answer")
        return graph.compile(checkpointer=InMemorySaver())

    return build


def breakpoint_before() -> Any:
    graph = _graph("a", "b", "c")
    _chain(graph, START, "a", "b", "c", END)
    return graph.compile(checkpointer=InMemorySaver(), interrupt_before=["b"])


def breakpoint_after() -> Any:
    graph = _graph("a", "b", "c")
    _chain(graph, START, "a", "b", "c", END)
    return graph.compile(checkpointer=InMemorySaver(), interrupt_after=["b"])


def _inner(
    *,
    asking: bool = False,
    interrupt_before: tuple[str, ...] = (),
    interrupt_after: tuple[str, ...] = (),
) -> Any:
    inner = _graph("inner_1", "inner_2", asking=("inner_2",) if asking else ())
    _chain(inner, START, "inner_1", "inner_2")
    return inner.compile(
        interrupt_before=list(interrupt_before), interrupt_after=list(interrupt_after)
    )


def subgraph(**inner: Any) -> Callable[[], Any]:
    """``before -> inner (inner_1 -> inner_2) -> after``."""

    def build() -> Any:
        graph = _graph("before", "after")
        graph.add_node("inner", _inner(**inner))
        _chain(graph, START, "before", "inner", "after", END)
        return graph.compile(checkpointer=InMemorySaver())

    return build


def subgraph_beside_a_node() -> Any:
    """agentevals' own example: ``inner`` (with a breakpoint before ``inner_2``) and
    ``outer_1`` from the start, joined at ``outer_2``."""
    graph = StateGraph(Log)
    graph.add_node("inner", _inner(interrupt_before=("inner_2",)))
    graph.add_node("outer_1", _writes("outer_1"))
    graph.add_node("outer_2", _writes("outer_2"))
    graph.add_edge(START, "inner")
    graph.add_edge(START, "outer_1")
    graph.add_edge(["inner", "outer_1"], "outer_2")
    return graph.compile(checkpointer=InMemorySaver())


def nested_subgraphs() -> Any:
    """``outer`` is a subgraph whose ``inner`` is a subgraph whose ``leaf`` is a node."""
    leaf = _graph("leaf")
    leaf.add_edge(START, "leaf")
    middle = StateGraph(Log)
    middle.add_node("inner", leaf.compile())
    middle.add_edge(START, "inner")
    graph = StateGraph(Log)
    graph.add_node("outer", middle.compile())
    graph.add_edge(START, "outer")
    return graph.compile(checkpointer=InMemorySaver())


class Flaky(RuntimeError):
    """What ``fetch`` raises the first time it runs."""


def failing_once() -> Any:
    """``a -> fetch``, where ``fetch`` fails the first time and works when run again."""
    runs: list[int] = []

    def fetch(_state: Log) -> Log:
        runs.append(1)
        if len(runs) == 1:
            raise Flaky("the service is down")
        return {"log": ["fetch"]}

    graph = _graph("a")
    graph.add_node("fetch", fetch)
    _chain(graph, START, "a", "fetch", END)
    return graph.compile(checkpointer=InMemorySaver())


# ---------------------------------------------------------------- the scenarios


@dataclass
class Scenario:
    """A graph, the inputs of its thread's invocations in turn, and, where agentevals' answer
    is wrong (``docs/differences.md``), both answers' steps."""

    build: Callable[[], Any]
    inputs: list[Any]
    reruns: int = 0  # entries a resumed invocation's recording starts with: nodes run again
    # agentevals puts ``__interrupt__`` right after the interrupted node, before other nodes of
    # its superstep; a recording, after the superstep
    marker_inside: bool = False
    ours: list[list[str]] | None = None
    agentevals: list[list[str]] | None = None


FRESH: dict[str, Any] = {"log": []}
INTERRUPT = "__interrupt__"

SCENARIOS = {
    "linear": Scenario(linear, [FRESH]),
    "branches": Scenario(branches, [{"topic": "cats"}, {"topic": "zebras"}]),
    "loop": Scenario(loop, [FRESH]),
    "send map-reduce": Scenario(map_reduce, [FRESH]),
    "static fan-out": Scenario(fan_out, [FRESH]),
    "several invocations": Scenario(linear, [FRESH, FRESH, {"log": ["again"]}]),
    "interrupt and resume": Scenario(
        approval_workflow,
        [{"text": ""}, Command(resume="redo"), Command(resume="approve")],
        reruns=1,
    ),
    "interrupt in a fan-out, asking first": Scenario(
        fan_out_asking("ask"), [FRESH, Command(resume="this")], reruns=1
    ),
    "interrupt in a fan-out, asking second": Scenario(
        fan_out_asking("search"), [FRESH, Command(resume="this")], reruns=1, marker_inside=True
    ),
    "interrupt_before": Scenario(
        breakpoint_before,
        [FRESH, None],
        ours=[["__start__", "a", "__interrupt__"], ["b", "c"]],
        agentevals=[["__start__", "a", "b", "c"]],
    ),
    "interrupt_after": Scenario(
        breakpoint_after,
        [FRESH, None],
        ours=[["__start__", "a", "b", "__interrupt__"], ["c"]],
        agentevals=[["__start__", "a", "b", "c"]],
    ),
    "waiting at interrupt_before": Scenario(
        breakpoint_before,
        [FRESH],
        ours=[["__start__", "a", "__interrupt__"]],
        agentevals=[],
    ),
    "waiting in a fan-out, asking second": Scenario(
        fan_out_asking("search"), [FRESH], marker_inside=True
    ),
    "a failure, then a retry": Scenario(
        failing_once,
        [FRESH, None],
        ours=[["__start__", "a", "fetch"], ["fetch"]],
        agentevals=[["__start__", "a", "fetch"]],
    ),
    "a failure, not retried": Scenario(
        failing_once, [FRESH], ours=[["__start__", "a", "fetch"]], agentevals=[]
    ),
    "nested subgraphs": Scenario(
        nested_subgraphs,
        [FRESH],
        ours=[
            [
                *("__start__", "outer", "outer:__start__", "outer:inner"),
                *("outer:inner:__start__", "outer:inner:leaf"),
            ]
        ],
        agentevals=[
            [
                *("__start__", "outer", "outer:__start__", "outer:inner"),
                *("outer:__start__", "outer:leaf"),
            ],
            [],
            [],
        ],
    ),
    "subgraph": Scenario(
        subgraph(),
        [FRESH],
        ours=[
            [
                *("__start__", "before", "inner"),
                *("inner:__start__", "inner:inner_1", "inner:inner_2", "after"),
            ]
        ],
        agentevals=[
            ["__start__", "before", "inner", "inner:__start__", "inner:inner_1", "inner:inner_2"],
            ["after"],
        ],
    ),
    "interrupt in a subgraph": Scenario(
        subgraph(asking=True),
        [FRESH, Command(resume="this")],
        reruns=2,
        ours=[
            [
                *("__start__", "before", "inner"),
                *("inner:__start__", "inner:inner_1", "inner:inner_2", "__interrupt__"),
            ],
            ["after"],
        ],
        agentevals=[
            ["__start__", "before", "inner", "__interrupt__"],
            ["inner:__start__", "inner:inner_1", "inner:inner_2", "__interrupt__"],
            [],
            ["after"],
        ],
    ),
    "subgraph with interrupt_before": Scenario(
        subgraph(interrupt_before=("inner_2",)),
        [FRESH, None],
        reruns=1,
        ours=[
            ["__start__", "before", "inner", "inner:__start__", "inner:inner_1", "__interrupt__"],
            ["inner:inner_2", "after"],
        ],
        agentevals=[
            ["__start__", "before", "inner", "inner:__start__", "inner:inner_1", "inner:inner_2"],
            ["after"],
        ],
    ),
    "subgraph with interrupt_after": Scenario(
        subgraph(interrupt_after=("inner_1",)),
        [FRESH, None],
        reruns=1,
        ours=[
            ["__start__", "before", "inner", "inner:__start__", "inner:inner_1", "__interrupt__"],
            ["inner:inner_2", "after"],
        ],
        agentevals=[
            ["__start__", "before", "inner", "inner:__start__", "inner:inner_1", "inner:inner_2"],
            ["after"],
        ],
    ),
    "subgraph with interrupt_before beside a node": Scenario(
        subgraph_beside_a_node,
        [FRESH, None],
        reruns=1,
        ours=[
            ["__start__", "outer_1", "inner", "inner:__start__", "inner:inner_1", "__interrupt__"],
            ["inner:inner_2", "outer_2"],
        ],
        agentevals=[
            ["__start__", "outer_1", "inner", "inner:__start__", "inner:inner_1", "inner:inner_2"],
            ["outer_2"],
        ],
    ),
}


@dataclass
class Run:
    graph: Any
    thread: dict[str, Any]
    recorded: GraphTrajectory
    agentevals: Any
    ours: Any


def _run(scenario: Scenario) -> Run:
    graph, thread = scenario.build(), {"configurable": {"thread_id": "differential"}}
    recorded: GraphTrajectory | None = None
    for value in scenario.inputs:
        try:
            _, recorded = record_graph_trajectory(graph, value, thread, previous=recorded)
        except Flaky as error:
            recorded = error.recorded_trajectory  # type: ignore[attr-defined]
    assert recorded is not None
    with warnings.catch_warnings():
        # agentevals warns where its own answer has more results than inputs
        warnings.filterwarnings("ignore", "Trajectory parsing may be incomplete")
        theirs = agentevals_extract(graph, thread)
    return Run(
        graph, thread, recorded, theirs, extract_langgraph_trajectory_from_thread(graph, thread)
    )


@pytest.fixture(scope="module", params=list(SCENARIOS), ids=list(SCENARIOS))
def scenario_run(request: pytest.FixtureRequest) -> tuple[Scenario, Run]:
    scenario = SCENARIOS[request.param]
    return scenario, _run(scenario)


def test_the_extractor_gives_agentevals_answer(scenario_run: tuple[Scenario, Run]) -> None:
    scenario, run = scenario_run
    if scenario.ours is None:
        assert run.ours == run.agentevals
        return
    # a documented difference: both answers pinned, so a change on either side shows here
    assert run.agentevals["outputs"]["steps"] == scenario.agentevals
    assert run.ours["outputs"]["steps"] == scenario.ours
    assert len(run.ours["inputs"]) == len(run.ours["outputs"]["results"]) == len(scenario.ours)


def test_the_recording_strictly_matches_agentevals_flat_reference(
    scenario_run: tuple[Scenario, Run],
) -> None:
    scenario, run = scenario_run
    reference = run.ours["outputs"]
    if scenario.ours is None:  # agentevals' own flat reference, where it is right
        assert reference == run.agentevals["outputs"]
    recorded = run.recorded
    if scenario.reruns:
        # a resumed invocation runs the interrupted node again, and the recording says so; the
        # extractors, as agentevals', leave it out
        recorded = {"steps": _without_reruns(scenario, recorded["steps"])}
    if scenario.marker_inside:
        inside = match_graph_trajectories(recorded, reference)
        assert not inside.matched
        # the recorded superstep lists its nodes as they finished: either may come first
        assert (inside.comment() or "").startswith(
            "Graph trajectory differs: invocation 0: expected node '__interrupt__' at 3, got '"
        )
        reference = {"steps": [_marker_last(path) for path in reference["steps"]]}
    forward = graph_trajectory_strict_match(outputs=recorded, reference_outputs=reference)
    backward = graph_trajectory_strict_match(outputs=reference, reference_outputs=recorded)
    assert forward["score"], forward["comment"]
    assert backward["score"], backward["comment"]


def _without_reruns(scenario: Scenario, steps: list[list[Any]]) -> list[list[Any]]:
    """Each resumed invocation's path without the entries it starts with by running again."""
    resumed = [value is None or isinstance(value, Command) for value in scenario.inputs]
    return [
        path[scenario.reruns :] if again else path
        for again, path in zip(resumed, steps, strict=True)
    ]


def _marker_last(path: list[str]) -> list[str]:
    if INTERRUPT not in path:
        return path
    return [name for name in path if name != INTERRUPT] + [INTERRUPT]


def test_the_history_rebuilds_the_recording(scenario_run: tuple[Scenario, Run]) -> None:
    _, run = scenario_run
    rebuilt = graph_trajectory_from_history(run.graph, run.thread)

    def canonical(steps: list[list[Any]]) -> list[list[Any]]:  # a superstep's order aside
        return [[e if isinstance(e, str) else sorted(e) for e in path] for path in steps]

    assert canonical(rebuilt["steps"]) == canonical(run.recorded["steps"])


def test_the_fan_out_order_is_agentevals() -> None:
    """The static fan-out the compatibility of flat references hangs on, spelled out."""
    run = _run(SCENARIOS["static fan-out"])
    assert run.agentevals["outputs"]["steps"] == [
        ["__start__", "plan", "browse", "search", "answer"]
    ]
    assert run.ours == run.agentevals


def test_where_agentevals_counts_invocations_wrong() -> None:
    """The counts ``docs/differences.md`` quotes: a subgraph run once is two invocations to
    agentevals (the second input the subgraph's), an interrupt inside one gives 4 results for
    3 inputs; here, one and two invocations."""
    once = _run(SCENARIOS["subgraph"])
    assert once.agentevals["inputs"] == [{"__start__": FRESH}, {"__start__": {"log": ["before"]}}]
    assert once.ours["inputs"] == [{"__start__": FRESH}]
    asked = _run(SCENARIOS["interrupt in a subgraph"])
    assert (len(asked.agentevals["inputs"]), len(asked.agentevals["outputs"]["results"])) == (3, 4)
    assert asked.ours["inputs"] == [{"__start__": FRESH}, "__resuming__"]
    assert asked.ours["outputs"]["results"][0] == {}


def test_from_snapshots_alone_breakpoints_are_not_known() -> None:
    """Without the graph, a thread continued past a breakpoint reads as one invocation."""
    run = _run(SCENARIOS["interrupt_before"])
    snapshots = list(run.graph.get_state_history(run.thread))
    extracted = extract_langgraph_trajectory_from_snapshots(snapshots)
    assert extracted["outputs"]["steps"] == [["__start__", "a", "b", "c"]]
    assert extracted == run.agentevals
