"""Record/replay below the plugin: the canonical request and its differences (core), their
rendering, cassettes read as untrusted input, and, through the interception itself, a property:
recording any scripted conversation of a ``create_agent`` agent and replaying it reproduces the
same trajectory exactly, without the model answering."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool

from pytest_agenttraj import CassetteError, ReplayMismatch
from pytest_agenttraj.core.replay import ReplayReport, request_differences, request_key
from pytest_agenttraj.integrations.replay import intercept
from pytest_agenttraj.integrations.replay.recorder import Recorder
from pytest_agenttraj.references.cassette import MAX_BYTES, dump_cassette, load_cassette
from pytest_agenttraj.render import render_text
from pytest_agenttraj.testing import ScriptedChatModel

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


def _request(**changes: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "messages": [
            {"role": "system", "content": "You help."},
            {"role": "human", "content": "Weather in SF?"},
        ],
        "tools": [TOOL],
        "params": {"temperature": 0},
    }
    request.update(changes)
    return request


def test_the_key_ignores_dict_order() -> None:
    shuffled = {"params": {"temperature": 0}, "tools": [TOOL], "messages": _request()["messages"]}
    assert request_key(shuffled) == request_key(_request())
    assert request_key(_request(params={"temperature": 1})) != request_key(_request())


def test_differences_name_the_message_field_tool_and_parameter() -> None:
    changed_tool = json.loads(json.dumps(TOOL))
    changed_tool["function"]["parameters"]["properties"]["city"]["type"] = "integer"
    live = _request(tools=[changed_tool], params={"temperature": 0.5})
    live["messages"][1]["content"] = "Weather in NYC?"
    texts = [d.text() for d in request_differences(_request(), live)]
    assert texts == [
        'message 1 (human).content: recorded "Weather in SF?", now "Weather in NYC?"',
        'tool get_weather: function.parameters.properties.city.type: recorded "string", '
        'now "integer"',
        "params.temperature: recorded 0, now 0.5",
    ]


def test_added_and_removed_messages_and_tools() -> None:
    live = _request(tools=[])
    live["messages"].append({"role": "human", "content": "And NYC?"})
    texts = [d.text() for d in request_differences(_request(), live)]
    assert texts == [
        'message 2 (human): recorded (absent), now {"content": "And NYC?", "role": "human"}',
        "tool get_weather (no longer bound): recorded "
        + json.dumps(TOOL, sort_keys=True)
        + ", now (absent)",
    ]


def test_a_mismatch_renders_its_differences_and_the_command() -> None:
    live = _request()
    live["messages"][0]["content"] = "You are terse."
    report = ReplayReport(
        "differs",
        "cassettes/test_x.yaml",
        test="test_a.py::test_x",
        command="pytest --trajectory-record=all 'test_a.py::test_x'",
        model="ChatOpenAI/gpt-4o",
        call=1,
        differences=tuple(request_differences(_request(), live)),
        live=live,
    )
    assert render_text(report).splitlines() == [
        "Call 1 to ChatOpenAI/gpt-4o differs from the recorded one in cassettes/test_x.yaml: "
        "1 difference, first at message 0 (system).content.",
        "test: test_a.py::test_x",
        "  message 0 (system).content:",
        '    - recorded "You help."',
        '    + now      "You are terse."',
        "the request: 2 message(s), 1 tool(s)",
        "  [0] system: You are terse.",
        "  [1] human: Weather in SF?",
        "If the change is intended, record the test again:",
        "    pytest --trajectory-record=all 'test_a.py::test_x'",
    ]
    assert not report.passed
    assert report.settings() == {"cassette": "cassettes/test_x.yaml", "problem": "differs"}


def _call(content: str = "hi") -> dict[str, Any]:
    return {"model": "M", "request": _request(), "response": {"content": content}}


def test_a_cassette_reads_back_what_was_written(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(dump_cassette([[_call("a"), _call("b")]], test="t", record="r"))
    assert [c["response"]["content"] for c in load_cassette(path).attempts[0]] == ["a", "b"]
    path.write_text(dump_cassette([[_call("a")], [_call("b")]], test="t", record="r"))
    assert len(load_cassette(path).attempts) == 2


def test_a_call_keeps_its_recorded_time_and_a_bad_one_names_the_call(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    timed = {**_call("a"), "duration_s": 1.25}
    path.write_text(dump_cassette([[timed, _call("b")]], test="t", record="r"))
    calls = load_cassette(path).attempts[0]
    assert [c.get("duration_s") for c in calls] == [1.25, None]
    for bad in (-1, "1s", True):
        path.write_text(dump_cassette([[{**_call(), "duration_s": bad}]], test="t", record="r"))
        with pytest.raises(CassetteError, match=r"calls\[0\]\.duration_s: seconds \(a number"):
            load_cassette(path)


def test_a_conversation_is_written_once_and_read_back_whole(tmp_path: Path) -> None:
    first = _call("a")
    second = _call("b")
    second["request"] = _request()
    second["request"]["messages"] += [
        {"role": "ai", "content": "a"},
        {"role": "human", "content": "?"},
    ]
    text = dump_cassette([[first, second]], test="t", record="r")
    written = json.loads(text)["calls"][1]["request"]
    assert written["continues"] == 1
    assert written["messages"] == [
        {"role": "ai", "content": "a"},
        {"role": "human", "content": "?"},
    ]
    path = tmp_path / "c.yaml"
    path.write_text(text)
    assert load_cassette(path).attempts[0][1]["request"] == second["request"]
    path.write_text(text.replace('"continues": 1', '"continues": 2'))
    with pytest.raises(CassetteError, match=r"calls\[1\].request.continues: 2 is not the number"):
        load_cassette(path)


def test_a_call_nested_too_deep_fails_when_it_is_replayed(tmp_path: Path) -> None:
    deep: Any = "x"
    for _ in range(120):
        deep = {"a": deep}
    call = _call()
    call["request"]["params"] = {"response_format": deep}
    path = tmp_path / "c.yaml"
    path.write_text(dump_cassette([[call]], test="t", record="r"))
    calls = load_cassette(path).attempts[0]  # the call is checked when first used
    recorder = Recorder(mode="none", recorded=calls, cassette="c.yaml", test="t", command="c")
    with pytest.raises(ReplayMismatch) as raised:
        recorder.replayed("M", _request())
    assert raised.value.report.problem == "invalid"
    assert "c.yaml: call 1: values nest more than 100 levels deep" in str(raised.value)


def test_a_hand_written_yaml_cassette_reads(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "calls:\n- model: M\n  request:\n    messages:\n    - {role: human, content: hi}\n"
        "  response:\n    content: |\n      two\n      lines\n"
    )
    assert load_cassette(path).attempts[0][0]["response"]["content"] == "two\nlines\n"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("calls: &a [*a]\n", "anchors and aliases"),
        ("{" + '"x": [' * 150 + "]" * 150 + "}", "nest more than 100 levels"),
        ("[1, 2]", "a cassette is a mapping with 'calls' or 'attempts'"),
        ('{"calls": [{"model": "M", "request": {}, "response": {}}]}', "calls[0].request"),
        ('{"calls": [], "extra": 1}', "unknown key(s) extra"),
        (
            '{"calls": [{"model": "M", "request": {"messages": []}, '
            '"response": {"tool_calls": 3}}]}',
            "calls[0].response.tool_calls",
        ),
        ("calls: [\n", "c.yaml:2"),
    ],
)
def test_a_bad_cassette_is_refused_naming_the_file(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(CassetteError) as raised:
        load_cassette(path)
    assert str(path) in str(raised.value)
    assert problem in str(raised.value)


def test_bytes_that_are_not_utf8_or_too_many_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(b'{"calls": []}\n\xff')
    with pytest.raises(CassetteError, match=r"c.yaml:2: not UTF-8"):
        load_cassette(path)
    with path.open("wb") as stream:
        stream.truncate(MAX_BYTES + 1)
    with pytest.raises(CassetteError, match="more than the"):
        load_cassette(path)


# ------------------------------------------------------------------ record, then replay


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return f"{len(city) * 7}F in {city}"


@tool
def get_time(city: str) -> str:
    """Get the local time in a city."""
    return f"{len(city) % 12}:00 in {city}"


CITIES = st.sampled_from(["SF", "NYC", "Paris", "東京", "São Paulo"])
TOOL_CALL = st.builds(
    lambda name, city: {"name": name, "args": {"city": city}},
    st.sampled_from(["get_weather", "get_time"]),
    CITIES,
)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
TURN = st.one_of(
    st.builds(lambda calls: {"tool_calls": calls}, st.lists(TOOL_CALL, min_size=1, max_size=3)),
    st.builds(
        lambda text, calls: {"content": text, "tool_calls": calls},
        TEXT,
        st.lists(TOOL_CALL, min_size=1, max_size=2),
    ),
)
SCRIPT = st.builds(lambda turns, last: [*turns, last], st.lists(TURN, max_size=4), TEXT)


def _run(model: ScriptedChatModel, question: str, streamed: bool) -> list[BaseMessage]:
    agent = create_agent(model, [get_weather, get_time], system_prompt="Answer briefly.")
    request = {"messages": [("user", question)]}
    if streamed:
        states = list(agent.stream(request, stream_mode="values"))
        return list(states[-1]["messages"])
    return list(agent.invoke(request)["messages"])


def _shape(messages: list[BaseMessage]) -> list[tuple[Any, ...]]:
    shaped = []
    for message in messages:
        calls = message.tool_calls if isinstance(message, AIMessage) else []
        link = message.tool_call_id if isinstance(message, ToolMessage) else None
        shaped.append((message.type, message.content, json.dumps(calls, sort_keys=True), link))
    return shaped


def _with(recorder: Recorder, run: Any) -> Any:
    intercept.activate(recorder)
    try:
        return run()
    finally:
        intercept.deactivate()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=SCRIPT, question=TEXT.filter(str.strip), streamed=st.booleans())
def test_record_then_replay_reproduces_the_trajectory(
    script: list[Any], question: str, streamed: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    recording = Recorder(mode="all", recorded=None, cassette="c.yaml", test="t", command="c")
    recorded = _with(recording, lambda: _run(ScriptedChatModel(script), question, streamed))
    assert len(recording.made) == len(script)
    path = tmp_path_factory.mktemp("cassette") / "c.yaml"
    path.write_text(dump_cassette([recording.made], test="t", record="c"), encoding="utf-8")
    calls = load_cassette(path).attempts[0]
    replaying = Recorder(mode="none", recorded=calls, cassette="c.yaml", test="t", command="c")
    silent = ScriptedChatModel([])  # answers nothing: every reply comes from the cassette
    replayed = _with(replaying, lambda: _run(silent, question, streamed))
    assert _shape(replayed) == _shape(recorded)
    assert replaying.failure is None
    assert replaying.unused() is None
    assert silent.calls_made == 0


def test_a_replay_that_differs_raises_inside_the_agent_and_stays_the_failure() -> None:
    recording = Recorder(mode="all", recorded=None, cassette="c.yaml", test="t", command="c")
    _with(recording, lambda: _run(ScriptedChatModel(["hello"]), "Hi?", False))
    replaying = Recorder(
        mode="none", recorded=recording.made, cassette="c.yaml", test="t", command="c"
    )
    with pytest.raises(ReplayMismatch) as raised:
        _with(replaying, lambda: _run(ScriptedChatModel([]), "Hello?", False))
    assert raised.value is replaying.failure
    assert raised.value.report.differences[0].where == "message 1 (human).content"


def test_the_interception_is_gone_once_deactivated() -> None:
    from langchain_core.language_models import BaseChatModel

    before = {name: BaseChatModel.__dict__[name] for name in ("stream", "_generate_with_cache")}
    streams = ScriptedChatModel.__dict__["_stream"]
    recorder = Recorder(mode="all", recorded=None, cassette="c.yaml", test="t", command="c")
    _with(recorder, lambda: list(ScriptedChatModel(["a b"]).stream("x")))
    assert len(recorder.made) == 1
    assert {name: BaseChatModel.__dict__[name] for name in before} == before
    assert ScriptedChatModel.__dict__["_stream"] is streams
