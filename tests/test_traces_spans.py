"""Trajectories from OpenTelemetry spans made by the real SDK in the conventions' shapes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from pytest_agenttraj import (
    BudgetError,
    ToolUsageViolation,
    TrajectoryFormatError,
    assert_graph_trajectory,
    assert_tool_call_f1,
    assert_tool_usage,
    assert_trajectory,
    create_tool_call_accuracy_evaluator,
    create_trajectory_llm_as_judge,
)
from pytest_agenttraj.testing import ScriptedChatModel
from pytest_agenttraj.traces import trajectory_from_spans


@pytest.fixture
def tracing() -> Iterator[tuple[Any, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider.get_tracer("test"), exporter
    provider.shutdown()


def genai_chat(tracer: Any, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]]) -> None:
    with tracer.start_as_current_span("chat gpt-test") as span:
        span.set_attribute("gen_ai.operation.name", "chat")
        span.set_attribute("gen_ai.input.messages", json.dumps(inputs))
        span.set_attribute("gen_ai.output.messages", json.dumps(outputs))


def genai_tool(
    tracer: Any,
    name: str,
    args: dict[str, Any],
    call_id: str | None,
    result: str,
    fail: bool = False,
) -> None:
    with tracer.start_as_current_span(f"execute_tool {name}") as span:
        span.set_attribute("gen_ai.operation.name", "execute_tool")
        span.set_attribute("gen_ai.tool.name", name)
        span.set_attribute("gen_ai.tool.call.arguments", json.dumps(args))
        if call_id is not None:
            span.set_attribute("gen_ai.tool.call.id", call_id)
        if fail:
            span.set_status(Status(StatusCode.ERROR, "tool failed: " + result))
        else:
            span.set_attribute("gen_ai.tool.call.result", result)


USER = {"role": "user", "parts": [{"type": "text", "content": "Weather in SF and NYC?"}]}
REFERENCE = [
    {"role": "user", "content": "Weather in SF and NYC?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"name": "get_weather", "arguments": '{"city": "SF"}'}},
            {"function": {"name": "get_weather", "arguments": '{"city": "NYC"}'}},
        ],
    },
    {"role": "tool", "content": "75F"},
    {"role": "tool", "content": "60F"},
    {"role": "assistant", "content": "SF 75F, NYC 60F."},
]


def weather_agent(tracer: Any, *, model_names_calls: bool, with_ids: bool = True) -> None:
    """A GenAI-convention agent: one chat span, two tool spans at once, a final chat span."""
    ids = ("call_1", "call_2") if with_ids else (None, None)
    calls = [
        {"type": "tool_call", "id": ids[0], "name": "get_weather", "arguments": {"city": "SF"}},
        {"type": "tool_call", "id": ids[1], "name": "get_weather", "arguments": {"city": "NYC"}},
    ]
    first_out = {"role": "assistant", "parts": calls if model_names_calls else []}
    with tracer.start_as_current_span("invoke_agent weather") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        root.set_attribute("gen_ai.agent.name", "weather")
        genai_chat(tracer, [USER], [first_out])
        genai_tool(tracer, "get_weather", {"city": "SF"}, ids[0], "75F")
        genai_tool(tracer, "get_weather", {"city": "NYC"}, ids[1], "60F")
        responses = [
            {"type": "tool_call_response", "id": ids[0], "response": "75F"},
            {"type": "tool_call_response", "id": ids[1], "response": "60F"},
        ]
        history = [USER, first_out, {"role": "tool", "parts": responses}]
        answer = {"role": "assistant", "parts": [{"type": "text", "content": "SF 75F, NYC 60F."}]}
        genai_chat(tracer, history, [answer])


@pytest.mark.parametrize("model_names_calls", [True, False], ids=["model+tools", "tools-only"])
def test_genai_agent_reads_as_the_reference(tracing: Any, model_names_calls: bool) -> None:
    tracer, exporter = tracing
    weather_agent(tracer, model_names_calls=model_names_calls)
    result = trajectory_from_spans(exporter.get_finished_spans())
    messages = result["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert len(messages[1]["tool_calls"]) == 2  # each call once, parallel calls in one message
    assert [m["tool_call_id"] for m in messages[2:4]] == ["call_1", "call_2"]
    assert all(m["status"] == "success" and m["duration"] >= 0 for m in messages[2:4])
    assert messages[-1]["content"] == "SF 75F, NYC 60F."
    assert_trajectory(result, REFERENCE)
    assert result.graph is not None
    assert_graph_trajectory(result.graph, {"inputs": None, "results": [], "steps": [["weather"]]})


def test_tool_spans_without_ids_pair_with_model_calls_by_name(tracing: Any) -> None:
    tracer, exporter = tracing
    weather_agent(tracer, model_names_calls=True, with_ids=False)
    messages = trajectory_from_spans(exporter.get_finished_spans()).messages
    assert len(messages[1]["tool_calls"]) == 2
    assert_trajectory(messages, REFERENCE)


def test_every_scorer_reads_a_trace(tracing: Any) -> None:
    tracer, exporter = tracing
    weather_agent(tracer, model_names_calls=False)
    result = trajectory_from_spans(exporter.get_finished_spans())
    assert_tool_usage(result, required=["get_weather"], max_calls={"get_weather": 2})
    assert_tool_call_f1(result, REFERENCE, min_score=1.0)
    accuracy = create_tool_call_accuracy_evaluator()
    assert accuracy(outputs=result, reference_outputs=REFERENCE)["score"] == 1.0
    judge = create_trajectory_llm_as_judge(
        judge=ScriptedChatModel(['{"reasoning": "ok", "score": true}']), continuous=False
    )
    verdict = judge(outputs=result)
    assert verdict["score"] is True
    with pytest.raises(AssertionError):
        assert_tool_usage(result, max_calls={"get_weather": 1})


def test_failed_tool_span_is_an_error_tool_message(tracing: Any) -> None:
    tracer, exporter = tracing
    genai_tool(tracer, "lookup", {"q": "x"}, "c1", "timeout", fail=True)
    messages = trajectory_from_spans(exporter.get_finished_spans()).messages
    assert messages[0]["tool_calls"][0]["function"]["name"] == "lookup"
    assert messages[1]["status"] == "error"
    assert messages[1]["content"] == "tool failed: timeout"


def test_openinference_spans(tracing: Any) -> None:
    tracer, exporter = tracing
    with tracer.start_as_current_span("agent") as root:
        root.set_attribute("openinference.span.kind", "CHAIN")
        with tracer.start_as_current_span("ChatOpenAI") as llm:
            llm.set_attribute("openinference.span.kind", "LLM")
            llm.set_attribute("llm.input_messages.0.message.role", "user")
            llm.set_attribute("llm.input_messages.0.message.content", "Weather in SF?")
            prefix = "llm.output_messages.0.message."
            llm.set_attribute(prefix + "role", "assistant")
            call = prefix + "tool_calls.0.tool_call."
            llm.set_attribute(call + "id", "call_1")
            llm.set_attribute(call + "function.name", "get_weather")
            llm.set_attribute(call + "function.arguments", '{"city": "SF"}')
        with tracer.start_as_current_span("get_weather") as tool:
            tool.set_attribute("openinference.span.kind", "TOOL")
            tool.set_attribute("tool.name", "get_weather")
            tool.set_attribute("input.value", '{"city": "SF"}')
            tool.set_attribute("output.value", "75F")
        with tracer.start_as_current_span("ChatOpenAI") as llm:
            llm.set_attribute("openinference.span.kind", "LLM")
            llm.set_attribute("llm.output_messages.0.message.role", "assistant")
            llm.set_attribute("llm.output_messages.0.message.content", "75F in SF.")
        with tracer.start_as_current_span("embed") as other:
            other.set_attribute("openinference.span.kind", "EMBEDDING")
    result = trajectory_from_spans(exporter.get_finished_spans())
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool", "assistant"]
    assert result.messages[2]["tool_call_id"] == "call_1"
    assert result.graph is None
    assert_trajectory(
        result,
        [
            {"role": "user", "content": "Weather in SF?"},
            {"role": "assistant", "tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}]},
            {"role": "tool", "content": "75F"},
            {"role": "assistant", "content": "75F in SF."},
        ],
    )


def test_older_prompt_completion_events(tracing: Any) -> None:
    tracer, exporter = tracing
    with tracer.start_as_current_span("chat") as span:
        span.set_attribute("gen_ai.operation.name", "chat")
        prompt = [{"role": "user", "content": "Hi"}]
        span.add_event("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(prompt)})
        completion = [{"role": "assistant", "content": "Hello"}]
        span.add_event("gen_ai.content.completion", {"gen_ai.completion": json.dumps(completion)})
    with tracer.start_as_current_span("chat") as span:
        span.set_attribute("gen_ai.operation.name", "chat")
        span.add_event("gen_ai.user.message", {"content": "And now?"})
        calls = [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
        span.add_event("gen_ai.choice", {"message": json.dumps({"tool_calls": calls})})
    messages = trajectory_from_spans(exporter.get_finished_spans()).messages
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "Hi"),
        ("assistant", "Hello"),
        ("user", "And now?"),
        ("assistant", ""),
    ]
    assert messages[-1]["tool_calls"][0]["function"]["name"] == "f"


def test_graph_nodes_and_supersteps(tracing: Any) -> None:
    tracer, exporter = tracing
    with tracer.start_as_current_span("LangGraph") as root:
        root.set_attribute("openinference.span.kind", "CHAIN")
        for step, nodes in enumerate([["plan"], ["search", "fetch"], ["answer"]], start=1):
            for node in nodes:
                with tracer.start_as_current_span(node) as span:
                    meta = {"langgraph_node": node, "langgraph_step": step}
                    span.set_attribute("metadata", json.dumps(meta))
                    with tracer.start_as_current_span("inner") as inner:  # inherits metadata
                        inner.set_attribute("metadata", json.dumps(meta))
    graph = trajectory_from_spans(exporter.get_finished_spans()).graph
    assert graph is not None
    assert graph["steps"] == [["plan", ["search", "fetch"], "answer"]]


def test_unknown_spans_are_ignored(tracing: Any) -> None:
    tracer, exporter = tracing
    with tracer.start_as_current_span("HTTP GET") as span:
        span.set_attribute("http.method", "GET")
    result = trajectory_from_spans(exporter.get_finished_spans())
    assert result.messages == []
    assert result.graph is None


@pytest.mark.parametrize(
    ("attribute", "value", "expected"),
    [
        ("gen_ai.tool.call.arguments", "{not json", "attribute 'gen_ai.tool.call.arguments'"),
        ("gen_ai.tool.call.arguments", "[1]", "must be a JSON object"),
        ("gen_ai.tool.call.id", 7, "attribute 'gen_ai.tool.call.id': expected a string"),
    ],
)
def test_malformed_tool_attribute_names_span_and_attribute(
    tracing: Any, attribute: str, value: Any, expected: str
) -> None:
    tracer, exporter = tracing
    with tracer.start_as_current_span("execute_tool f") as span:
        span.set_attribute("gen_ai.operation.name", "execute_tool")
        span.set_attribute(attribute, value)
    with pytest.raises(TrajectoryFormatError, match="span 0 'execute_tool f'") as info:
        trajectory_from_spans(exporter.get_finished_spans())
    assert expected in str(info.value)


def test_malformed_messages_name_span_and_place(tracing: Any) -> None:
    tracer, exporter = tracing
    with tracer.start_as_current_span("chat m") as span:
        span.set_attribute("gen_ai.operation.name", "chat")
        span.set_attribute("gen_ai.input.messages", json.dumps([{"role": "user", "parts": 3}]))
    with pytest.raises(TrajectoryFormatError) as info:
        trajectory_from_spans(exporter.get_finished_spans())
    assert "span 0 'chat m', attribute 'gen_ai.input.messages[0].parts'" in str(info.value)


def test_not_a_span_is_an_error() -> None:
    with pytest.raises(TrajectoryFormatError, match="span 0: expected an OpenTelemetry"):
        trajectory_from_spans([object()])


# --- round trip ------------------------------------------------------------------------------

names = st.sampled_from(["search", "lookup", "get_weather"])
args = st.dictionaries(st.sampled_from(["q", "city", "n"]), st.integers(0, 9) | st.text(max_size=3))
turn = st.tuples(st.lists(st.tuples(names, args), max_size=3), st.text(max_size=5))


def emit(tracer: Any, question: str, turns: list[Any], answer: str) -> list[dict[str, Any]]:
    """Spans for a trajectory of tool-calling turns; returns the same trajectory as chat dicts."""
    expected: list[dict[str, Any]] = [{"role": "user", "content": question}]
    history = [{"role": "user", "parts": [{"type": "text", "content": question}]}]
    counter = 0
    for calls, text in [*turns, ([], answer)]:
        parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
        ids = [f"call_{counter + i}" for i in range(len(calls))]
        counter += len(calls)
        parts += [
            {"type": "tool_call", "id": i, "name": n, "arguments": a}
            for i, (n, a) in zip(ids, calls, strict=True)
        ]
        output = {"role": "assistant", "parts": parts}
        genai_chat(tracer, history, [output])
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [
                {"id": i, "function": {"name": n, "arguments": json.dumps(a)}}
                for i, (n, a) in zip(ids, calls, strict=True)
            ]
        expected.append(message)
        history.append(output)
        for call_id, (name, arguments) in zip(ids, calls, strict=True):
            genai_tool(tracer, name, arguments, call_id, f"r{call_id}")
            expected.append({"role": "tool", "content": f"r{call_id}", "tool_call_id": call_id})
            response = {"type": "tool_call_response", "id": call_id, "response": f"r{call_id}"}
            history.append({"role": "tool", "parts": [response]})
        if not calls:
            break
    return expected


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=1, max_size=5), st.lists(turn, max_size=3), st.text(max_size=5))
def test_round_trip_through_spans(question: str, turns: list[Any], answer: str) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("roundtrip")
    turns = [t for t in turns if t[0]]  # a turn without calls would end the run
    with tracer.start_as_current_span("invoke_agent"):
        expected = emit(tracer, question, turns, answer)
    result = trajectory_from_spans(exporter.get_finished_spans())
    provider.shutdown()
    assert_trajectory(result, expected, mode="strict", tool_args="exact")
    assert [(m["role"], m["content"]) for m in result.messages] == [
        (m["role"], m["content"]) for m in expected
    ]


def test_agents_that_ran_at_once_share_a_superstep(tracing: Any) -> None:
    tracer, exporter = tracing

    def agent_span(name: str) -> Any:
        span = tracer.start_span(f"invoke_agent {name}")
        span.set_attribute("gen_ai.operation.name", "invoke_agent")
        span.set_attribute("gen_ai.agent.name", name)
        return span

    with tracer.start_as_current_span("invoke_agent supervisor") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        root.set_attribute("gen_ai.agent.name", "supervisor")
        agent_span("planner").end()
        researcher, writer = agent_span("researcher"), agent_span("critic")  # in parallel
        researcher.end()
        writer.end()
        agent_span("writer").end()
    graph = trajectory_from_spans(exporter.get_finished_spans()).graph
    assert graph is not None
    assert graph["steps"] == [["supervisor", "planner", ["researcher", "critic"], "writer"]]
    assert_graph_trajectory(
        graph,
        {
            "inputs": None,
            "results": [],
            "steps": [["supervisor", "planner", ["critic", "researcher"], "writer"]],
        },
        mode="strict",
    )


def test_spans_as_exported_json(tracing: Any) -> None:
    """``ReadableSpan.to_json()`` read back (ISO times, hex ids, status names) reads the same."""
    tracer, exporter = tracing
    weather_agent(tracer, model_names_calls=True)
    genai_tool(tracer, "lookup", {"q": "x"}, "c9", "down", fail=True)
    spans = exporter.get_finished_spans()
    as_json = [json.loads(span.to_json()) for span in spans]
    from_objects = trajectory_from_spans(spans)
    from_json = trajectory_from_spans(as_json)
    assert [(m["role"], m["content"]) for m in from_json.messages] == [
        (m["role"], m["content"]) for m in from_objects.messages
    ]
    assert from_json.messages[-1]["status"] == "error"
    assert from_json.graph == from_objects.graph


def _timed(tracer: Any, name: str, start: float, end: float, attributes: dict[str, Any]) -> None:
    """A finished span from ``start`` to ``end`` seconds (on a clock that starts at 1e9 s)."""
    span = tracer.start_span(name, start_time=int((1e9 + start) * 1e9), attributes=attributes)
    span.end(end_time=int((1e9 + end) * 1e9))


def _timed_agent(tracer: Any, slow_lookup: float) -> None:
    call = {"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"city": "SF"}}
    chat = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps([USER])}
    _timed(
        tracer,
        "chat m",
        0.0,
        0.5,
        {**chat, "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [call]}])},
    )
    tool = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.call.arguments": '{"city": "SF"}',
        "gen_ai.tool.call.result": "75F",
    }
    _timed(tracer, "execute_tool lookup", 0.5, 0.5 + slow_lookup, tool)
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "75F."}]}
    _timed(
        tracer,
        "chat m",
        0.5 + slow_lookup,
        1.0 + slow_lookup,
        {**chat, "gen_ai.output.messages": json.dumps([answer])},
    )


def test_a_traced_run_has_its_wall_time_and_each_tool_call_its_latency(tracing: Any) -> None:
    tracer, exporter = tracing
    _timed_agent(tracer, slow_lookup=3.0)
    trajectory = trajectory_from_spans(exporter.get_finished_spans())
    assert trajectory["duration_s"] == pytest.approx(4.0)
    (tool_message,) = [m for m in trajectory.messages if m["role"] == "tool"]
    assert tool_message["duration"] == pytest.approx(3.0)
    assert_tool_usage(trajectory, max_duration_s=4.5, max_tool_duration_s={"lookup": 3.5})
    with pytest.raises(ToolUsageViolation) as caught:
        assert_tool_usage(trajectory, max_duration_s=3.9, max_tool_duration_s={"lookup": 2.0})
    text = str(caught.value)
    assert "the run took 4 s, more than max_duration_s=3.9" in text
    assert "tool 'lookup' was slower than max_tool_duration_s=2 per call: message 2 took 3 s" in (
        text
    )
    # a tool the run never called has nothing to exceed
    assert_tool_usage(trajectory, max_tool_duration_s={"search": 0.1})


def test_a_tool_budget_on_an_untimed_run_is_an_error_naming_the_message() -> None:
    untimed = [
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "function": {"name": "lookup", "arguments": "{}"}}],
        },
        {"role": "tool", "content": "75F", "tool_call_id": "c1", "name": "lookup"},
    ]
    with pytest.raises(BudgetError, match=r"^message 2: the result of tool 'lookup' has no dur"):
        assert_tool_usage(untimed, max_tool_duration_s={"lookup": 1.0})
    with pytest.raises(ValueError, match=r"invalid max_tool_duration_s\['lookup'\] -1"):
        assert_tool_usage(untimed, max_tool_duration_s={"lookup": -1})
