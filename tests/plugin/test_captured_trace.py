"""The captured_trace fixture in real pytest runs (serially: capture happens inside the test)."""

from __future__ import annotations

import pytest

from .conftest import SERIAL_ONLY

AGENTS = """
import json

from langsmith import traceable
from opentelemetry import trace

from pytest_agenttraj import assert_trajectory

REFERENCE = [
    {"role": "user", "content": "Weather in SF?"},
    {"role": "assistant", "tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}]},
    {"role": "tool", "content": "75F"},
    {"role": "assistant", "content": "75F."},
]


def otel_agent(question):
    tracer = trace.get_tracer("agent")
    with tracer.start_as_current_span("invoke_agent weather") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        with tracer.start_as_current_span("chat") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            user = {"role": "user", "parts": [{"type": "text", "content": question}]}
            chat.set_attribute("gen_ai.input.messages", json.dumps([user]))
        with tracer.start_as_current_span("execute_tool get_weather") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.name", "get_weather")
            tool.set_attribute("gen_ai.tool.call.arguments", '{"city": "SF"}')
            tool.set_attribute("gen_ai.tool.call.result", "75F")
        with tracer.start_as_current_span("chat") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            answer = {"role": "assistant", "parts": [{"type": "text", "content": "75F."}]}
            chat.set_attribute("gen_ai.output.messages", json.dumps([answer]))


@traceable(run_type="tool")
def get_weather(city):
    return "75F"


@traceable(run_type="llm")
def model(messages):
    if messages[-1]["role"] == "user":
        call = {"id": "c1", "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "SF"}'}}
        return {"role": "assistant", "content": "", "tool_calls": [call]}
    return {"role": "assistant", "content": "75F."}


@traceable
def langsmith_agent(question):
    messages = [{"role": "user", "content": question}]
    messages.append(model(messages))
    messages.append({"role": "tool", "content": get_weather("SF"), "tool_call_id": "c1"})
    return model(messages)["content"]
"""

TESTS = """
import pytest
from agents import REFERENCE, langsmith_agent, otel_agent
from pytest_agenttraj import assert_trajectory


@pytest.mark.parametrize("n", range(4))
def test_otel(captured_trace, n):
    otel_agent("Weather in SF?")
    assert len(captured_trace.spans) == 4  # this test's spans only
    assert_trajectory(captured_trace.trajectory(), REFERENCE)


@pytest.mark.parametrize("n", range(4))
def test_langsmith(captured_trace, n):
    langsmith_agent("Weather in SF?")
    assert len(captured_trace.runs) == 1
    assert_trajectory(captured_trace.trajectory(), REFERENCE)


def test_mismatch_fails(captured_trace):
    otel_agent("Weather in SF?")
    assert_trajectory(captured_trace.trajectory(), REFERENCE[:2])
"""

INI = "[pytest]\nasyncio_default_fixture_loop_scope = function\n"


@SERIAL_ONLY
def test_captured_trace(pytester: pytest.Pytester, plugin_args: list[str]) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(agents=AGENTS, test_agents=TESTS)
    result = pytester.runpytest(*plugin_args, "-p", "no:randomly")
    result.assert_outcomes(passed=8, failed=1)
    result.stdout.fnmatch_lines(["*expected 2 messages, got 4*"])


def test_nothing_is_sent(pytester: pytest.Pytester) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(agents=AGENTS)
    pytester.makepyfile(
        test_sent="""
        import socket
        from agents import langsmith_agent

        def test_no_connection(captured_trace, monkeypatch):
            def refuse(*args, **kwargs):
                raise AssertionError("a connection was opened")
            monkeypatch.setattr(socket, "create_connection", refuse)
            langsmith_agent("Weather in SF?")
            assert captured_trace.trajectory().messages[-1]["content"] == "75F."
        """
    )
    result = pytester.runpytest("-rA", "-o", "log_level=WARNING")
    result.assert_outcomes(passed=1)
    assert "Failed to get info" not in result.stdout.str() + result.stderr.str()
