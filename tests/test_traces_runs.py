"""Trajectories from langsmith run trees: a real RunTree, @traceable, LangChain callbacks."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.tools import tool
from langchain_core.tracers.langchain import LangChainTracer
from langsmith import Client, traceable, tracing_context
from langsmith.run_trees import RunTree

from pytest_agenttraj import (
    TrajectoryFormatError,
    assert_tool_call_f1,
    assert_tool_usage,
    assert_trajectory,
)
from pytest_agenttraj.integrations.traces.langsmith_runs import RunCollector
from pytest_agenttraj.testing import ScriptedChatModel
from pytest_agenttraj.traces import trajectory_from_run_tree

REFERENCE = [
    {"role": "user", "content": "Weather in SF?"},
    {"role": "assistant", "tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}]},
    {"role": "tool", "content": "75F"},
    {"role": "assistant", "content": "75F and sunny."},
]


def unsent_client() -> Client:
    """A client pointed at a port nothing listens on; the RunTree below never posts."""
    return Client(api_url="http://127.0.0.1:9", api_key="unused")


def test_run_tree_built_by_hand() -> None:
    root = RunTree(name="agent", run_type="chain", inputs={}, client=unsent_client())
    user = {"role": "user", "content": "Weather in SF?"}
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "SF"}'},
    }
    llm = root.create_child(name="openai", run_type="llm", inputs={"messages": [user]})
    llm.end(outputs={"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]})
    weather = root.create_child(name="get_weather", run_type="tool", inputs={"city": "SF"})
    weather.end(outputs={"output": "75F"})
    final = root.create_child(name="openai", run_type="llm", inputs={"messages": [user]})
    final.end(
        outputs={"choices": [{"message": {"role": "assistant", "content": "75F and sunny."}}]}
    )
    root.end(outputs={})
    result = trajectory_from_run_tree(root)
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool", "assistant"]
    assert result.messages[2]["tool_call_id"] == "call_1"
    assert result.messages[2]["status"] == "success"
    assert isinstance(result.messages[2]["duration"], float)
    assert_trajectory(result, REFERENCE)


def test_traceable_agent_through_the_collector() -> None:
    @traceable(run_type="tool")
    def get_weather(city: str) -> str:
        if city == "Mars":
            raise ValueError("no weather on Mars")
        return "75F"

    @traceable(run_type="llm")
    def model(messages: list[dict[str, Any]]) -> dict[str, Any]:
        if messages[-1]["role"] == "user":
            calls = [("a", "SF"), ("b", "Mars")]
            return {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": i,
                        "function": {"name": "get_weather", "arguments": f'{{"city": "{c}"}}'},
                    }
                    for i, c in calls
                ],
            }
        return {"role": "assistant", "content": "75F and sunny."}

    @traceable
    def agent(question: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
        reply = model(messages)
        messages.append(reply)
        for call in reply["tool_calls"]:
            try:
                result = get_weather("SF" if call["id"] == "a" else "Mars")
            except ValueError as error:
                result = str(error)
            messages.append({"role": "tool", "content": result, "tool_call_id": call["id"]})
        return str(model(messages)["content"])

    collector = RunCollector()
    with tracing_context(enabled=True, client=collector):
        agent("Weather in SF?")
    result = trajectory_from_run_tree(collector.collected_runs())
    roles = [m["role"] for m in result.messages]
    assert roles == ["user", "assistant", "tool", "tool", "assistant"]
    assert [m["status"] for m in result.messages[2:4]] == ["success", "error"]
    assert "no weather on Mars" in result.messages[3]["content"]
    assert_tool_usage(result, max_calls={"get_weather": 2})
    assert_tool_call_f1(result, REFERENCE, min_score=0.6)


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "75F" if city else "?"


def test_langchain_callbacks_of_create_agent() -> None:
    model = ScriptedChatModel(
        [
            {"tool_calls": [{"name": "get_weather", "args": {"city": "SF"}, "id": "call_1"}]},
            "75F and sunny.",
        ]
    )
    agent = create_agent(model, tools=[get_weather])
    collector = RunCollector()
    tracer = LangChainTracer(client=collector, project_name="test")
    state = agent.invoke(
        {"messages": [{"role": "user", "content": "Weather in SF?"}]},
        config={"callbacks": [tracer]},
    )
    tracer.wait_for_futures()
    result = trajectory_from_run_tree(collector.collected_runs())
    assert_trajectory(result, REFERENCE)
    assert_trajectory(result, state["messages"])
    assert result.messages[2]["tool_call_id"] == "call_1"
    graph = result.graph
    assert graph is not None
    assert [n for n in graph["steps"][0] if n in ("model", "tools")] == ["model", "tools", "model"]


def test_not_a_run_is_an_error() -> None:
    with pytest.raises(TrajectoryFormatError, match="run: expected a langsmith RunTree"):
        trajectory_from_run_tree(42)


def test_malformed_tool_run_names_the_run() -> None:
    run = {"name": "agent", "run_type": "chain", "child_runs": [
        {"name": "search", "run_type": "tool", "inputs": "not a dict"}]}  # fmt: skip
    with pytest.raises(TrajectoryFormatError) as info:
        trajectory_from_run_tree(run)
    assert "run 'agent' (chain) child 0 'search' (tool), field 'inputs'" in str(info.value)
