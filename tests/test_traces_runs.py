"""Trajectories from langsmith run trees: a real RunTree, @traceable, LangChain callbacks."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
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
    # the root run's wall time is the run's: what max_duration_s reads
    assert result["duration_s"] == pytest.approx(
        (root.end_time - root.start_time).total_seconds(), abs=1e-5
    )
    assert result["duration_s"] >= result.messages[2]["duration"]
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


class _ScriptedCompletions:
    """An OpenAI-compatible stand-in on 127.0.0.1: each POST /chat/completions gets the next
    scripted assistant message."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        import http.server
        import json
        import threading

        script = iter(replies)

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                message = next(script)
                finish = "tool_calls" if message.get("tool_calls") else "stop"
                body = json.dumps({
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 0,
                    "model": "scripted",
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }).encode()  # fmt: skip
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_wrap_openai_agent_against_a_local_stand_in() -> None:
    openai = pytest.importorskip("openai")
    with warnings.catch_warnings():  # langsmith.wrappers imports a module it deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        from langsmith.wrappers import wrap_openai

    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "SF"}'},
    }
    server = _ScriptedCompletions(
        [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "assistant", "content": "75F and sunny."},
        ]
    )
    try:
        client = wrap_openai(openai.OpenAI(base_url=server.url, api_key="unused"))

        @traceable(run_type="tool", name="get_weather")
        def weather(city: str) -> str:
            return "75F" if city == "SF" else "?"

        @traceable
        def agent(question: str) -> str:
            messages: list[Any] = [{"role": "user", "content": question}]
            reply = client.chat.completions.create(model="scripted", messages=messages)
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            for tool_call in message.tool_calls or []:
                result = weather(**json.loads(tool_call.function.arguments))
                messages.append({"role": "tool", "content": result, "tool_call_id": tool_call.id})
            final = client.chat.completions.create(model="scripted", messages=messages)
            return str(final.choices[0].message.content)

        collector = RunCollector()
        with tracing_context(enabled=True, client=collector):
            assert agent("Weather in SF?") == "75F and sunny."
    finally:
        server.close()
    result = trajectory_from_run_tree(collector.collected_runs())
    assert_trajectory(result, REFERENCE)
    assert result.messages[2]["tool_call_id"] == "call_1"


names = st.sampled_from(["search", "lookup"])
arguments = st.dictionaries(st.sampled_from(["q", "n"]), st.integers(0, 9) | st.text(max_size=3))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.tuples(names, arguments), min_size=1, max_size=3), max_size=3))
def test_round_trip_through_run_dicts(turns: list[list[tuple[str, dict[str, Any]]]]) -> None:
    """Tool-calling turns written as llm and tool runs (as wrap_openai and @traceable record
    them) read back as the same trajectory."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    children: list[dict[str, Any]] = []
    counter = 0
    for calls in [*turns, []]:
        ids = [f"call_{counter + i}" for i in range(len(calls))]
        counter += len(calls)
        reply: dict[str, Any] = {"role": "assistant", "content": "" if calls else "done"}
        if calls:
            reply["tool_calls"] = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, (n, a) in zip(ids, calls, strict=True)
            ]
        llm_inputs = {"messages": [dict(m) for m in history]}
        children.append({"name": "m", "run_type": "llm", "inputs": llm_inputs,
                         "outputs": {"choices": [{"message": reply}]}})  # fmt: skip
        history.append(reply)
        for call_id, (name, args) in zip(ids, calls, strict=True):
            children.append({"name": name, "run_type": "tool", "inputs": args,
                             "outputs": {"output": f"r{call_id}"}})  # fmt: skip
            history.append({"role": "tool", "content": f"r{call_id}", "tool_call_id": call_id})
    root = {"name": "agent", "run_type": "chain", "child_runs": children}
    result = trajectory_from_run_tree(root)
    assert_trajectory(result, history, mode="strict", tool_args="exact")
    assert [(m["role"], m["content"]) for m in result.messages] == [
        (m["role"], m["content"]) for m in history
    ]
    assert [m.get("tool_call_id") for m in result.messages] == [
        m.get("tool_call_id") for m in history
    ]
