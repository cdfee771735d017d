"""Capture from running LangGraph graphs (``pytest_agenttraj.langgraph``): supersteps, nodes that
return nothing, ``Send``, ``Command``, subgraphs, interrupts, errors, async graphs, rebuilding
from a thread's checkpoints and agentevals' extractors. Every graph here is a real compiled
``StateGraph``."""

from __future__ import annotations

import asyncio
import operator
import subprocess
import sys
import textwrap
from typing import Annotated, Any, Literal, TypedDict

import pytest
from graph_workflows import approval_workflow, map_reduce, workflow
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from pytest_agenttraj import GraphTrajectory, match_graph_trajectories
from pytest_agenttraj.langgraph import (
    aextract_langgraph_trajectory_from_thread,
    agraph_trajectory_from_history,
    arecord_graph_trajectory,
    extract_langgraph_trajectory_from_snapshots,
    extract_langgraph_trajectory_from_thread,
    graph_trajectory_from_history,
    record_graph_trajectory,
)


class Log(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    answer: str
    items: list[int]
    item: int


def _writes(name: str) -> Any:
    def node(_state: Log) -> Log:
        return {"log": [name]}

    return node


def _thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


# ---------------------------------------------------------------- supersteps and the final state


def test_the_7_node_workflow_is_recorded_superstep_by_superstep() -> None:
    graph = workflow()
    state, trajectory = record_graph_trajectory(graph, {"shortcut": False})
    assert state == graph.invoke({"shortcut": False})
    assert trajectory["inputs"] == [{"shortcut": False}]
    assert trajectory["results"] == [state]
    steps = trajectory["steps"]
    assert len(steps) == 1
    assert steps[0][:3] == ["__start__", "node1", "node3"]
    assert sorted(steps[0][3]) == ["node4", "node5"]
    assert steps[0][4:] == ["node6", "node7"]
    _, shortcut = record_graph_trajectory(graph, {"shortcut": True})
    assert shortcut["steps"] == [["__start__", "node1", "node2", "node7"]]


def test_a_superstep_lists_its_nodes_as_they_finished() -> None:
    for slow, order in (("node4", ["node5", "node4"]), ("node5", ["node4", "node5"])):
        _, trajectory = record_graph_trajectory(workflow(), {"slow": slow})
        assert trajectory["steps"][0][3] == order


def test_nodes_that_return_nothing_and_command_routing() -> None:
    def route(_state: Log) -> Command[Literal["yes", "no"]]:
        return Command(goto="no", update={"log": ["route"]})

    graph = StateGraph(Log)
    graph.add_node("quiet", lambda _state: None)
    graph.add_node("route", route)
    graph.add_node("yes", _writes("yes"))
    graph.add_node("no", _writes("no"))
    graph.add_edge(START, "quiet")
    graph.add_edge("quiet", "route")
    graph.add_edge("no", END)
    graph.add_edge("yes", END)
    state, trajectory = record_graph_trajectory(graph.compile(), {"log": []})
    assert trajectory["steps"] == [["__start__", "quiet", "route", "no"]]
    assert state == {"log": ["route", "no"]}


def test_send_fan_out_records_every_task() -> None:
    _, trajectory = record_graph_trajectory(map_reduce(), {"topics": ["a", "b", "c"]})
    assert trajectory["steps"] == [
        ["__start__", "plan", ["summarize", "summarize", "summarize"], "combine"]
    ]


def _with_subgraph(*, checkpointer: Any = None, inner_interrupts: bool = False) -> Any:
    def ask(_state: Log) -> Log:
        return {"answer": interrupt("which?")}

    inner = StateGraph(Log)
    inner.add_node("inner_1", _writes("inner_1"))
    inner.add_node("inner_2", ask if inner_interrupts else _writes("inner_2"))
    inner.add_edge(START, "inner_1")
    inner.add_edge("inner_1", "inner_2")
    outer = StateGraph(Log)
    outer.add_node("before", _writes("before"))
    outer.add_node("inner", inner.compile())
    outer.add_node("after", _writes("after"))
    outer.add_edge(START, "before")
    outer.add_edge("before", "inner")
    outer.add_edge("inner", "after")
    return outer.compile(checkpointer=checkpointer)


def test_subgraph_nodes_are_named_parent_colon_child() -> None:
    graph = _with_subgraph()
    _, trajectory = record_graph_trajectory(graph, {"log": []})
    assert trajectory["steps"] == [
        [
            "__start__",
            "before",
            "inner",
            "inner:__start__",
            "inner:inner_1",
            "inner:inner_2",
            "after",
        ]
    ]
    _, flat = record_graph_trajectory(graph, {"log": []}, subgraphs=False)
    assert flat["steps"] == [["__start__", "before", "inner", "after"]]


def test_a_subgraph_in_a_subgraph() -> None:
    leaf = StateGraph(Log)
    leaf.add_node("leaf", _writes("leaf"))
    leaf.add_edge(START, "leaf")
    middle = StateGraph(Log)
    middle.add_node("inner", leaf.compile())
    middle.add_edge(START, "inner")
    outer = StateGraph(Log)
    outer.add_node("outer", middle.compile())
    outer.add_edge(START, "outer")
    _, trajectory = record_graph_trajectory(outer.compile(), {"log": []})
    assert trajectory["steps"] == [
        [
            "__start__",
            "outer",
            "outer:__start__",
            "outer:inner",
            "outer:inner:__start__",
            "outer:inner:leaf",
        ]
    ]


# ---------------------------------------------------------------- threads: interrupts, resumes


def test_an_interrupt_then_a_resume_accumulate_in_one_trajectory() -> None:
    graph, thread = approval_workflow(), _thread("t1")
    state, first = record_graph_trajectory(graph, {"text": ""}, thread)
    assert first["steps"] == [["__start__", "draft", "review", "__interrupt__"]]
    assert state["__interrupt__"][0].value == {"please review": "Release notes"}
    _, second = record_graph_trajectory(graph, Command(resume="redo"), thread, previous=first)
    state, third = record_graph_trajectory(
        graph, Command(resume="approve"), thread, previous=second
    )
    assert third["steps"] == [
        ["__start__", "draft", "review", "__interrupt__"],
        ["review", "draft", "review", "__interrupt__"],
        ["review", "publish"],
    ]
    assert len(third["inputs"]) == len(third["results"]) == 3
    assert third["results"][-1] == state == {"text": "Release notes (published)", "revisions": 2}
    assert first["steps"] == [["__start__", "draft", "review", "__interrupt__"]]  # unchanged


def test_an_interrupt_inside_a_subgraph() -> None:
    graph, thread = (
        _with_subgraph(checkpointer=InMemorySaver(), inner_interrupts=True),
        _thread("s"),
    )
    _, trajectory = record_graph_trajectory(graph, {"log": []}, thread)
    _, trajectory = record_graph_trajectory(
        graph, Command(resume="this"), thread, previous=trajectory
    )
    assert trajectory["steps"] == [
        [
            "__start__",
            "before",
            "inner",
            "inner:__start__",
            "inner:inner_1",
            "inner:inner_2",
            "__interrupt__",
        ],
        ["inner", "inner:inner_2", "after"],
    ]
    assert graph_trajectory_from_history(graph, thread)["steps"] == trajectory["steps"]


def test_a_breakpoint_and_a_continuation() -> None:
    graph = StateGraph(Log)
    graph.add_node("a", _writes("a"))
    graph.add_node("b", _writes("b"))
    graph.add_edge(START, "a")
    graph.add_edge("a", "b")
    compiled = graph.compile(checkpointer=InMemorySaver(), interrupt_before=["b"])
    thread = _thread("bp")
    state, trajectory = record_graph_trajectory(compiled, {"log": []}, thread)
    assert state == {"log": ["a"]}  # a breakpoint adds no __interrupt__ to the state
    _, trajectory = record_graph_trajectory(compiled, None, thread, previous=trajectory)
    assert trajectory["steps"] == [["__start__", "a", "__interrupt__"], ["b"]]
    assert graph_trajectory_from_history(compiled, thread)["steps"] == trajectory["steps"]


def test_a_second_input_on_a_thread_starts_afresh() -> None:
    graph = StateGraph(Log)
    graph.add_node("a", _writes("a"))
    graph.add_edge(START, "a")
    compiled, thread = graph.compile(checkpointer=InMemorySaver()), _thread("again")
    _, trajectory = record_graph_trajectory(compiled, {"log": []}, thread)
    _, trajectory = record_graph_trajectory(compiled, {"log": []}, thread, previous=trajectory)
    assert trajectory["steps"] == [["__start__", "a"], ["__start__", "a"]]
    assert graph_trajectory_from_history(compiled, thread)["steps"] == trajectory["steps"]


# ---------------------------------------------------------------- errors and bad arguments


def test_a_failing_graph_raises_its_own_error_with_the_trajectory_so_far() -> None:
    def boom(_state: Log) -> Log:
        raise KeyError("no such record")

    graph = StateGraph(Log)
    graph.add_node("fetch", _writes("fetch"))
    graph.add_node("parse", boom)
    graph.add_edge(START, "fetch")
    graph.add_edge("fetch", "parse")
    with pytest.raises(KeyError, match="no such record") as raised:
        record_graph_trajectory(graph.compile(), {"log": []})
    trajectory: GraphTrajectory = raised.value.recorded_trajectory  # type: ignore[attr-defined]
    assert trajectory == {
        "inputs": [{"log": []}],
        "results": [None],
        "steps": [["__start__", "fetch", "parse"]],
    }


class RecordNotFound(LookupError):
    """An application error carrying data of its own under the name ``trajectory``."""

    def __init__(self, trajectory: str) -> None:
        super().__init__("no such record")
        self.trajectory = trajectory


def _failing_graph(error: BaseException) -> Any:
    def fail(_state: Log) -> Log:
        raise error

    graph = StateGraph(Log)
    graph.add_node("fetch", _writes("fetch"))
    graph.add_node("fail", fail)
    graph.add_edge(START, "fetch")
    graph.add_edge("fetch", "fail")
    return graph.compile()


def test_the_recorded_path_leaves_the_errors_own_attributes_alone() -> None:
    error = RecordNotFound("the user's own flight path")
    with pytest.raises(RecordNotFound) as raised:
        record_graph_trajectory(_failing_graph(error), {"log": []})
    assert raised.value is error
    assert error.trajectory == "the user's own flight path"
    recorded: GraphTrajectory = error.recorded_trajectory  # type: ignore[attr-defined]
    assert recorded["steps"] == [["__start__", "fetch", "fail"]]
    # an attribute of that name the error already has is left alone too
    mine = RecordNotFound("mine")
    mine.recorded_trajectory = "set by the application"  # type: ignore[attr-defined]
    with pytest.raises(RecordNotFound):
        record_graph_trajectory(_failing_graph(mine), {"log": []})
    assert mine.recorded_trajectory == "set by the application"  # type: ignore[attr-defined]


def test_a_recording_nested_in_a_recorded_graph_keeps_the_failed_graphs_path() -> None:
    inner = _failing_graph(KeyError("inner failure"))

    def call_inner(_state: Log) -> Log:
        record_graph_trajectory(inner, {"log": []})
        return {"log": ["unreachable"]}

    outer = StateGraph(Log)
    outer.add_node("delegate", call_inner)
    outer.add_edge(START, "delegate")
    with pytest.raises(KeyError) as raised:
        record_graph_trajectory(outer.compile(), {"log": []})
    recorded = raised.value.recorded_trajectory  # type: ignore[attr-defined]
    assert recorded["steps"] == [["__start__", "fetch", "fail"]]


class ReadOnlyError(Exception):
    """An error whose class already defines ``recorded_trajectory``, read-only."""

    @property
    def recorded_trajectory(self) -> str:
        return "computed by the application"


def test_an_error_that_refuses_the_attribute_propagates_unchanged() -> None:
    error = ReadOnlyError("refused")
    with pytest.raises(ReadOnlyError) as raised:
        record_graph_trajectory(_failing_graph(error), {"log": []})
    assert raised.value is error
    assert error.recorded_trajectory == "computed by the application"


def test_options_go_to_stream_but_not_the_ones_capture_sets() -> None:
    with pytest.raises(TypeError, match="record_graph_trajectory sets stream_mode itself"):
        record_graph_trajectory(workflow(), {}, stream_mode="values")
    # checkpoints only when the graph stops: the recording does not need them
    graph, thread = approval_workflow(), _thread("exit")
    _, trajectory = record_graph_trajectory(graph, {"text": ""}, thread, durability="exit")
    _, trajectory = record_graph_trajectory(
        graph, Command(resume="approve"), thread, previous=trajectory, durability="exit"
    )
    assert trajectory["steps"] == [
        ["__start__", "draft", "review", "__interrupt__"],
        ["review", "publish"],
    ]


def test_a_bad_previous_trajectory_is_refused() -> None:
    with pytest.raises(ValueError, match=r"previous\['steps'\]\[0\] must be a list of node"):
        record_graph_trajectory(workflow(), {}, previous={"steps": ["node1"]})  # type: ignore[typeddict-item]


# ---------------------------------------------------------------- async graphs


def test_async_graphs_are_recorded_through_astream() -> None:
    async def fetch(_state: Log) -> Log:
        await asyncio.sleep(0)
        return {"log": ["fetch"]}

    graph = StateGraph(Log)
    graph.add_node("fetch", fetch)
    graph.add_node("a", _writes("a"))
    graph.add_node("b", _writes("b"))
    graph.add_edge(START, "fetch")
    graph.add_edge("fetch", "a")
    graph.add_edge("fetch", "b")
    compiled = graph.compile(checkpointer=InMemorySaver())
    thread = _thread("async")

    async def run() -> tuple[Any, GraphTrajectory, GraphTrajectory, Any]:
        state, trajectory = await arecord_graph_trajectory(compiled, {"log": []}, thread)
        history = await agraph_trajectory_from_history(compiled, thread)
        extracted = await aextract_langgraph_trajectory_from_thread(compiled, thread)
        return state, trajectory, history, extracted

    state, trajectory, history, extracted = asyncio.run(run())
    assert state == {"log": ["fetch", "a", "b"]}
    assert [s if isinstance(s, str) else sorted(s) for s in trajectory["steps"][0]] == [
        "__start__",
        "fetch",
        ["a", "b"],
    ]
    assert match_graph_trajectories(history, trajectory).matched
    # agentevals lists a superstep's nodes in the reverse of the checkpoint's order
    assert extracted == await_agentevals(compiled, thread)
    assert extracted["outputs"]["steps"] == [["__start__", "fetch", "b", "a"]]


def await_agentevals(graph: Any, thread: Any) -> Any:
    from agentevals.graph_trajectory.utils import aextract_langgraph_trajectory_from_thread

    return asyncio.run(aextract_langgraph_trajectory_from_thread(graph, thread))


def test_an_async_graph_that_fails_carries_the_trajectory() -> None:
    async def boom(_state: Log) -> Log:
        raise RuntimeError("async failure")

    graph = StateGraph(Log)
    graph.add_node("boom", boom)
    graph.add_edge(START, "boom")
    with pytest.raises(RuntimeError, match="async failure") as raised:
        asyncio.run(arecord_graph_trajectory(graph.compile(), {"log": []}))
    assert raised.value.recorded_trajectory["steps"] == [["__start__", "boom"]]  # type: ignore[attr-defined]


# ---------------------------------------------------------------- history and agentevals' shape


def test_history_rebuilds_what_recording_saw() -> None:
    graph, thread = approval_workflow(), _thread("h")
    _, trajectory = record_graph_trajectory(graph, {"text": ""}, thread)
    _, trajectory = record_graph_trajectory(
        graph, Command(resume="approve"), thread, previous=trajectory
    )
    history = graph_trajectory_from_history(graph, thread)
    assert history["steps"] == trajectory["steps"]
    assert history["inputs"] == [{"text": ""}, None]
    assert history["results"][-1] == trajectory["results"][-1]


def test_history_after_a_failure_and_a_state_update() -> None:
    def flaky(state: Log) -> Log:
        if state.get("answer") != "fixed":
            raise RuntimeError("not yet")
        return {"log": ["flaky"]}

    graph = StateGraph(Log)
    graph.add_node("a", _writes("a"))
    graph.add_node("flaky", flaky)
    graph.add_edge(START, "a")
    graph.add_edge("a", "flaky")
    compiled, thread = graph.compile(checkpointer=InMemorySaver()), _thread("f")
    with pytest.raises(RuntimeError) as raised:
        record_graph_trajectory(compiled, {"log": []}, thread)
    compiled.update_state(thread, {"answer": "fixed"})
    _, trajectory = record_graph_trajectory(
        compiled,
        None,
        thread,
        previous=raised.value.recorded_trajectory,  # type: ignore[attr-defined]
    )
    assert trajectory["steps"] == [["__start__", "a", "flaky"], ["flaky"]]
    assert graph_trajectory_from_history(compiled, thread)["steps"] == trajectory["steps"]


class Chat(TypedDict):
    messages: Annotated[list[Any], operator.add]


def _chat_agent() -> Any:
    """agent -> tools (which waits for a person) -> agent: the shape of agentevals' example."""

    def agent(state: Chat) -> Chat:
        return {"messages": [AIMessage(content=f"turn {len(state['messages'])}")]}

    def tools(_state: Chat) -> Chat:
        return {"messages": [HumanMessage(content=interrupt("weather?"))]}

    graph = StateGraph(Chat)
    graph.add_node("agent", agent)
    graph.add_node("tools", tools)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges(
        "agent", lambda state: END if len(state["messages"]) > 2 else "tools", ["tools", END]
    )
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=InMemorySaver())


def test_agentevals_extractor_shape() -> None:
    graph, thread = _chat_agent(), _thread("ae")
    question = {"messages": [HumanMessage(content="what's the weather in sf?")]}
    graph.invoke(question, thread)
    graph.invoke(Command(resume="It is rainy and 70 degrees!"), thread)
    extracted = extract_langgraph_trajectory_from_thread(graph, thread)
    assert extracted == {
        "inputs": [{"__start__": question}, "__resuming__"],
        "outputs": {
            "inputs": [],
            "results": [
                {},
                {"messages": [{"role": "assistant", "content": "turn 3"}]},
            ],
            "steps": [["__start__", "agent", "tools", "__interrupt__"], ["agent"]],
        },
    }
    snapshots = extract_langgraph_trajectory_from_snapshots(graph.get_state_history(thread))
    assert snapshots == extracted
    # our own trajectory lists the interrupted node again: it does run again when resumed
    assert graph_trajectory_from_history(graph, thread)["steps"] == [
        ["__start__", "agent", "tools", "__interrupt__"],
        ["tools", "agent"],
    ]


def test_agentevals_extractor_splices_subgraph_snapshots_in() -> None:
    graph, thread = _with_subgraph(checkpointer=InMemorySaver()), _thread("sub")
    graph.invoke({"log": []}, thread)
    extracted = extract_langgraph_trajectory_from_thread(graph, thread)
    assert extracted["outputs"]["steps"] == [
        [
            "__start__",
            "before",
            "inner",
            "inner:__start__",
            "inner:inner_1",
            "inner:inner_2",
            "after",
        ]
    ]
    assert extracted["outputs"]["results"] == [graph.get_state(thread).values]


# ---------------------------------------------------------------- without LangGraph


@pytest.mark.subprocess
def test_without_langgraph_the_import_names_the_extra() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["langgraph"] = None  # as if it were not installed
        try:
            import pytest_agenttraj.langgraph
        except ImportError as error:
            print(error)
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert "install the 'langgraph' extra" in completed.stdout
    assert "pip install 'pytest-agenttraj[langgraph]'" in completed.stdout
