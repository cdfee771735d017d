"""``pytest_agenttraj.testing.ScriptedChatModel`` drives real LangChain and LangGraph agents:
``create_agent`` with tools and structured output, a ``StateGraph`` with ``ToolNode``, streaming,
async, threads; and it fails clearly when its script runs out or a reply cannot be used."""

from __future__ import annotations

import asyncio
import functools
import json
import operator
import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain.agents import create_agent
from langchain.agents.structured_output import ProviderStrategy, ToolStrategy
from langchain_core.caches import InMemoryCache
from langchain_core.globals import get_llm_cache, set_llm_cache
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
    message_chunk_to_message,
)
from langchain_core.messages.tool import invalid_tool_call
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from pydantic import BaseModel
from typing_extensions import TypedDict

from pytest_agenttraj import ScriptedReplyError, ScriptError, ScriptExhaustedError
from pytest_agenttraj.testing import ScriptedChatModel, ScriptedRequest, tool_call


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return {"SF": "75F, sunny", "Paris": "60F, rain"}.get(city, "unknown")


@tool
def get_time(city: str) -> str:
    """The local time in a city."""
    return {"SF": "09:00", "Paris": "18:00"}.get(city, "unknown")


class Weather(BaseModel):
    """A weather report."""

    city: str
    temperature: int


class WeatherDict(TypedDict):
    """A weather report."""

    city: str
    temperature: int


WEATHER_JSON_SCHEMA = {
    "title": "WeatherReport",
    "description": "A weather report.",
    "type": "object",
    "properties": {"city": {"type": "string"}, "temperature": {"type": "integer"}},
    "required": ["city", "temperature"],
}


def ask(question: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": question}]}


def answer_from_tool_result(request: ScriptedRequest) -> str:
    """A reply that reads the last tool result, as a real model would."""
    assert request.last_tool_message is not None
    return f"It is {request.last_tool_message.content}."


def shape(messages: list[BaseMessage]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for m in messages:
        if isinstance(m, AIMessage):
            out.append(("ai", m.text, [(c["name"], c["args"], c["id"]) for c in m.tool_calls]))
        elif isinstance(m, ToolMessage):
            out.append(("tool", m.text, m.tool_call_id))
        else:
            out.append((m.type, m.text))
    return out


# ---------------------------------------------------------------- create_agent and LangGraph


def test_create_agent_runs_its_tool_loop_on_the_script() -> None:
    model = ScriptedChatModel(
        [
            {"tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}]},
            answer_from_tool_result,
        ]
    )
    result = create_agent(model, [get_weather, get_time]).invoke(ask("Weather in SF?"))
    assert shape(result["messages"]) == [
        ("human", "Weather in SF?"),
        ("ai", "", [("get_weather", {"city": "SF"}, "call_1")]),
        ("tool", "75F, sunny", "call_1"),
        ("ai", "It is 75F, sunny.", []),
    ]
    first, second = model.requests
    assert (first.index, second.index) == (0, 1)
    assert [m.type for m in first.messages] == ["human"]
    assert [m.type for m in second.messages] == ["human", "ai", "tool"]
    assert first.tool_names == ("get_weather", "get_time")
    assert first.tools[0]["function"]["parameters"]["properties"] == {"city": {"type": "string"}}
    assert second.tool_results == (second.messages[2],)
    assert model.replies_left == 0


def test_a_state_graph_with_tool_node_and_tools_condition() -> None:
    model = ScriptedChatModel(
        [
            AIMessage("", tool_calls=[tool_call("get_weather", city="Paris")]),
            answer_from_tool_result,
        ]
    )
    tools = [get_weather]
    bound = model.bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [bound.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    result = builder.compile().invoke(ask("Weather in Paris?"))
    assert shape(result["messages"])[1:] == [
        ("ai", "", [("get_weather", {"city": "Paris"}, "call_1")]),
        ("tool", "60F, rain", "call_1"),
        ("ai", "It is 60F, rain.", []),
    ]


def test_parallel_tool_calls_run_in_one_step_and_a_reply_sees_all_their_results() -> None:
    def summary(request: ScriptedRequest) -> str:
        return " / ".join(f"{m.name}={m.content}" for m in request.tool_results)

    model = ScriptedChatModel(
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "SF"}'},
                    },
                    {"function": {"name": "get_time", "arguments": {"city": "SF"}}},
                ],
            },
            summary,
        ]
    )
    result = create_agent(model, [get_weather, get_time]).invoke(ask("SF?"))
    assert shape(result["messages"])[1:] == [
        (
            "ai",
            "",
            [("get_weather", {"city": "SF"}, "call_1"), ("get_time", {"city": "SF"}, "call_2")],
        ),
        ("tool", "75F, sunny", "call_1"),
        ("tool", "09:00", "call_2"),
        ("ai", "get_weather=75F, sunny / get_time=09:00", []),
    ]


def test_async_agent_and_abatch() -> None:
    model = ScriptedChatModel(
        [{"tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}]}, answer_from_tool_result]
    )
    result = asyncio.run(create_agent(model, [get_weather]).ainvoke(ask("SF?")))
    assert result["messages"][-1].content == "It is 75F, sunny."
    batch_model = ScriptedChatModel(["a", "b", "c"])
    answers = asyncio.run(batch_model.abatch(["1", "2", "3"]))
    assert sorted(a.text for a in answers) == ["a", "b", "c"]
    assert batch_model.replies_left == 0


# ---------------------------------------------------------------- structured output


def test_create_agent_response_format_through_tool_calling() -> None:
    model = ScriptedChatModel(
        [
            {"tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}]},
            lambda request: Weather(city="SF", temperature=int(request.last_tool_message.text[:2])),
        ]
    )
    agent = create_agent(model, [get_weather], response_format=Weather)
    result = agent.invoke(ask("SF?"))
    assert result["structured_response"] == Weather(city="SF", temperature=75)
    last = model.requests[-1]
    assert last.tool_names == ("get_weather", "Weather")
    assert last.tool_choice == "any"  # create_agent forces a tool call for its tool strategy


@pytest.mark.parametrize("schema", [WeatherDict, WEATHER_JSON_SCHEMA], ids=["typeddict", "json"])
def test_create_agent_tool_strategy_with_dict_schemas(schema: Any) -> None:
    name = "WeatherDict" if schema is WeatherDict else "WeatherReport"
    model = ScriptedChatModel(
        [{"tool_calls": [{"name": name, "args": {"city": "SF", "temperature": 75}}]}]
    )
    result = create_agent(model, [], response_format=ToolStrategy(schema)).invoke(ask("SF?"))
    assert result["structured_response"] == {"city": "SF", "temperature": 75}


def test_create_agent_provider_strategy_answers_in_json_text() -> None:
    model = ScriptedChatModel([Weather(city="SF", temperature=75)])
    agent = create_agent(model, [], response_format=ProviderStrategy(Weather))
    result = agent.invoke(ask("SF?"))
    assert result["structured_response"] == Weather(city="SF", temperature=75)
    assert json.loads(result["messages"][-1].text) == {"city": "SF", "temperature": 75}
    [request] = model.requests
    assert request.structured_output is not None
    assert request.structured_output["title"] == "Weather"
    assert request.options["response_format"]["type"] == "json_schema"


@pytest.mark.parametrize("method", ["function_calling", "json_schema"])
def test_with_structured_output_pydantic(method: str) -> None:
    model = ScriptedChatModel([Weather(city="SF", temperature=75)])
    parsed = model.with_structured_output(Weather, method=method).invoke("SF?")
    assert parsed == Weather(city="SF", temperature=75)
    [request] = model.requests
    assert request.structured_output is not None
    assert request.structured_output["title"] == "Weather"
    assert request.structured_output["required"] == ["city", "temperature"]


@pytest.mark.parametrize("schema", [WeatherDict, WEATHER_JSON_SCHEMA], ids=["typeddict", "json"])
def test_with_structured_output_dict_schemas(schema: Any) -> None:
    name = "WeatherDict" if schema is WeatherDict else "WeatherReport"
    model = ScriptedChatModel(
        [
            AIMessage("", tool_calls=[tool_call(name, city="SF", temperature=75)]),
            '{"city": "Paris", "temperature": 60}',
        ]
    )
    assert model.with_structured_output(schema).invoke("SF?") == {"city": "SF", "temperature": 75}
    by_json = model.with_structured_output(schema, method="json_mode").invoke("Paris?")
    assert by_json == {"city": "Paris", "temperature": 60}
    assert model.requests[1].options["response_format"] == {"type": "json_object"}


def test_with_structured_output_include_raw_keeps_the_message_and_the_parsing_error() -> None:
    model = ScriptedChatModel(
        [
            Weather(city="SF", temperature=75),
            AIMessage("", tool_calls=[tool_call("Weather", city="SF", temperature="warm")]),
        ]
    )
    structured = model.with_structured_output(Weather, include_raw=True)
    good = structured.invoke("SF?")
    assert good["parsed"] == Weather(city="SF", temperature=75)
    assert good["raw"].tool_calls[0]["args"] == {"city": "SF", "temperature": 75}
    assert good["parsing_error"] is None
    bad = structured.invoke("SF?")
    assert bad["parsed"] is None
    assert "temperature" in str(bad["parsing_error"])


def test_a_pydantic_reply_to_a_request_that_asks_no_structure_is_an_error() -> None:
    model = ScriptedChatModel([Weather(city="SF", temperature=75)])
    with pytest.raises(
        ScriptedReplyError, match=r"script\[0\]: a Weather instance .* bound: get_weather"
    ):
        model.bind_tools([get_weather]).invoke("SF?")


# ---------------------------------------------------------------- streaming

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
TOOL_CALLS = st.lists(
    st.builds(
        lambda name, args, id_: tool_call(name, id_, **args),
        st.sampled_from(["get_weather", "get_time"]),
        st.dictionaries(st.text(min_size=1), JSON_VALUES, max_size=3),
        st.none() | st.text(min_size=1, max_size=8),
    ),
    max_size=3,
)
CONTENT = st.text() | st.lists(
    st.builds(lambda text: {"type": "text", "text": text}, st.text()), max_size=3
)
USAGE = st.none() | st.builds(
    lambda i, o: {"input_tokens": i, "output_tokens": o, "total_tokens": i + o},
    st.integers(0, 10**6),
    st.integers(0, 10**6),
)
REPLIES = st.builds(
    lambda content, calls, usage, metadata: AIMessage(
        content=content,
        tool_calls=calls,
        usage_metadata=usage,
        response_metadata=metadata,
        id="reply-1",
    ),
    CONTENT,
    TOOL_CALLS,
    USAGE,
    st.sampled_from([{}, {"model_name": "scripted", "finish_reason": "stop"}]),
)


def summed(chunks: list[AIMessageChunk]) -> BaseMessage:
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    return message_chunk_to_message(functools.reduce(operator.add, chunks))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REPLIES)
def test_the_sum_of_streamed_chunks_is_the_invoked_message(reply: AIMessage) -> None:
    invoked = ScriptedChatModel([reply]).invoke("hi")
    streamed = list(ScriptedChatModel([reply]).stream("hi"))
    assert summed(streamed) == invoked
    astreamed = asyncio.run(_collect(ScriptedChatModel([reply])))
    assert summed(astreamed) == invoked


async def _collect(model: ScriptedChatModel) -> list[AIMessageChunk]:
    return [chunk async for chunk in model.astream("hi")]


def test_stream_cuts_text_into_words_and_tool_calls_into_pieces() -> None:
    model = ScriptedChatModel(
        [AIMessage("Let me  check.", tool_calls=[tool_call("get_weather", city="SF")])]
    )
    chunks = list(model.bind_tools([get_weather]).stream("SF?"))
    assert [c.content for c in chunks] == ["Let ", "me  ", "check.", "", ""]
    pieces = [c.tool_call_chunks for c in chunks[3:]]
    assert pieces == [
        [
            {
                "name": "get_weather",
                "args": '{"city"',
                "id": "call_1",
                "index": 0,
                "type": "tool_call_chunk",
            }
        ],
        [{"name": None, "args": ': "SF"}', "id": None, "index": 0, "type": "tool_call_chunk"}],
    ]
    assert chunks[-1].chunk_position == "last"


def test_invalid_tool_calls_are_kept_when_invoked_and_refused_when_streamed() -> None:
    broken = invalid_tool_call(name="get_weather", args='{"city": "S', id="c1", error="cut off")
    reply = AIMessage("", invalid_tool_calls=[broken])
    assert ScriptedChatModel([reply]).invoke("q").invalid_tool_calls == [broken]
    with pytest.raises(ScriptedReplyError, match=r"script\[0\]: a reply with invalid tool calls"):
        list(ScriptedChatModel([reply]).stream("q"))


def test_an_agent_streamed_in_messages_mode_streams_the_scripted_replies() -> None:
    model = ScriptedChatModel(
        [
            {
                "tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}],
                "usage": {"input_tokens": 5},
            },
            "It is sunny in SF.",
        ],
        usage={"input_tokens": 10, "output_tokens": 3},
    )
    agent = create_agent(model, [get_weather])
    by_id: dict[str, list[AIMessageChunk]] = {}
    for chunk, _metadata in agent.stream(ask("SF?"), stream_mode="messages"):
        if isinstance(chunk, AIMessageChunk):
            by_id.setdefault(str(chunk.id), []).append(chunk)
    assert len(by_id) == 2
    answers = [summed(chunks) for chunks in by_id.values()]
    assert answers[1].text == "It is sunny in SF."
    assert len(by_id[str(answers[1].id)]) == 5  # "It ", "is ", "sunny ", "in ", "SF."
    assert answers[0].tool_calls == [
        {"name": "get_weather", "args": {"city": "SF"}, "id": "call_1", "type": "tool_call"}
    ]
    assert [a.usage_metadata for a in answers] == [
        {"input_tokens": 5, "output_tokens": 0, "total_tokens": 5},
        {"input_tokens": 10, "output_tokens": 3, "total_tokens": 13},
    ]
    assert model.calls_made == 2


# ---------------------------------------------------------------- running out


def test_running_out_says_how_often_the_agent_asked_and_shows_the_request() -> None:
    model = ScriptedChatModel(
        [
            {"tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}]},
            {"tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}}]},
            {"tool_calls": [{"name": "get_time", "args": {"city": "Paris"}}]},
        ]
    )
    with pytest.raises(ScriptExhaustedError) as raised:
        create_agent(model, [get_weather, get_time]).invoke(ask("SF and Paris?"))
    text = str(raised.value)
    assert text.splitlines()[:9] == [
        "the agent asked a 4th time; the script has 3 replies.",
        "The 4th request: 7 messages; tools: get_weather, get_time",
        "  ... 1 earlier message",
        '  [1] ai: calls get_weather({"city": "SF"})',
        "  [2] tool get_weather: 75F, sunny",
        '  [3] ai: calls get_weather({"city": "Paris"})',
        "  [4] tool get_weather: 60F, rain",
        '  [5] ai: calls get_time({"city": "Paris"})',
        "  [6] tool get_time: 18:00",
    ]
    assert isinstance(raised.value, ScriptError)
    assert raised.value.replies == 3
    assert raised.value.request is model.requests[-1]
    assert raised.value.request.index == 3
    assert model.calls_made == 4


def test_running_out_on_the_async_and_streaming_paths() -> None:
    model = ScriptedChatModel([])
    with pytest.raises(
        ScriptExhaustedError, match=r"^the agent asked a 1st time; the script has 0 replies"
    ):
        asyncio.run(create_agent(model, [get_weather]).ainvoke(ask("SF?")))
    with pytest.raises(ScriptExhaustedError, match=r"asked a 2nd time"):
        list(model.stream("again"))
    one = ScriptedChatModel(["only"])
    one.invoke("a")
    with pytest.raises(ScriptExhaustedError, match=r"a 2nd time; the script has 1 reply\.\n"):
        asyncio.run(_collect(one))


@pytest.mark.parametrize(
    ("asked", "ordinal"),
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (22, "22nd"),
        (101, "101st"),
        (111, "111th"),
        (112, "112th"),
    ],
)
def test_the_count_reads_as_english(asked: int, ordinal: str) -> None:
    model = ScriptedChatModel(["x"] * (asked - 1))
    for _ in range(asked - 1):
        model.invoke("q")
    with pytest.raises(ScriptExhaustedError, match=rf"^the agent asked a {ordinal} time;"):
        model.invoke("q")


def test_a_long_message_is_cut_in_the_rendering() -> None:
    model = ScriptedChatModel([])
    with pytest.raises(ScriptExhaustedError) as raised:
        model.invoke([HumanMessage("word " * 100)])
    line = str(raised.value).splitlines()[2]
    assert line.startswith("  [0] human: word word")
    assert line.endswith("...")
    assert len(line) < 120


# ---------------------------------------------------------------- replies


def test_reply_forms_are_equivalent() -> None:
    forms: list[Any] = [
        AIMessage("", tool_calls=[tool_call("get_weather", "c1", city="SF")]),
        {
            "content": "",
            "tool_calls": [{"name": "get_weather", "args": {"city": "SF"}, "id": "c1"}],
        },
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "SF"}'},
                }
            ],
        },
        lambda _request: {
            "tool_calls": [{"name": "get_weather", "args": {"city": "SF"}, "id": "c1"}]
        },
    ]
    answers = [ScriptedChatModel([form]).bind_tools([get_weather]).invoke("SF?") for form in forms]
    assert {json.dumps(a.tool_calls) for a in answers} == {
        json.dumps(
            [{"name": "get_weather", "args": {"city": "SF"}, "id": "c1", "type": "tool_call"}]
        )
    }
    assert ScriptedChatModel(["text"]).invoke("q").content == "text"


def test_tool_call_ids_are_numbered_in_the_order_handed_out_unless_given() -> None:
    script = [
        AIMessage("", tool_calls=[tool_call("a"), tool_call("b", "mine")]),
        lambda _request: {"tool_calls": [{"name": "c"}]},
        AIMessage("", tool_calls=[tool_call("d")]),
    ]
    model = ScriptedChatModel(script)
    ids = [[c["id"] for c in model.invoke("q").tool_calls] for _ in script]
    assert ids == [["call_1", "mine"], ["call_3"], ["call_4"]]
    assert [[c["id"] for c in ScriptedChatModel(script).invoke("q").tool_calls]] == [ids[0]]
    model.reset()
    assert [c["id"] for c in model.invoke("q").tool_calls] == ["call_1", "mine"]
    assert model.calls_made == 1


def test_usage_per_reply_and_by_default() -> None:
    model = ScriptedChatModel(
        [
            {"content": "a", "usage": {"input_tokens": 7, "output_tokens": 2}},
            AIMessage(
                "b", usage_metadata={"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
            ),
            "c",
        ],
        usage={"input_tokens": 100, "output_tokens": 20},
    )
    usages = [model.invoke("q").usage_metadata for _ in range(3)]
    assert usages == [
        {"input_tokens": 7, "output_tokens": 2, "total_tokens": 9},
        {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
        {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120},
    ]
    assert ScriptedChatModel(["no usage"]).invoke("q").usage_metadata is None


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (
            {"content": "x", "tool_call": []},
            r"script\[1\]: unknown key\(s\) \['tool_call'\] in a reply",
        ),
        (
            {"role": "user", "content": "x"},
            r"script\[1\]: a reply has role 'assistant', not 'user'",
        ),
        (
            {"tool_calls": [{"name": "f", "arguments": "{}"}]},
            r"script\[1\]\.tool_calls\[0\]: unknown key\(s\) \['arguments'\]",
        ),
        (
            {"tool_calls": [{"function": {"name": "f", "arguments": "{oops"}}]},
            r"script\[1\]\.tool_calls\[0\]: arguments are not JSON",
        ),
        ({"tool_calls": [{"args": {}}]}, r"script\[1\]\.tool_calls\[0\]: a tool call needs a name"),
        (
            {"content": "x", "usage": {"input_tokens": -1}},
            r"script\[1\]: usage\['input_tokens'\] must be",
        ),
        ({"content": "x", "usage": {"tokens": 3}}, r"script\[1\]: usage has unknown key"),
        (
            AIMessage("", tool_calls=[tool_call("f", when=object())]),
            r"script\[1\]\.tool_calls\[0\]: arguments must be JSON data",
        ),
        (HumanMessage("x"), r"script\[1\]: a reply is an AI message, not a human message"),
        (Weather, r"script\[1\]: Weather is a class; a reply is an instance of one"),
        (42, r"script\[1\]: a reply is an AIMessage, a dict, a str, .* got int 42"),
    ],
)
def test_a_reply_that_is_not_one_is_refused_when_the_model_is_made(
    reply: Any, message: str
) -> None:
    with pytest.raises(ScriptedReplyError, match=message) as raised:
        ScriptedChatModel(["fine", reply])
    assert raised.value.index == 1


def test_a_default_usage_that_is_not_one_is_refused() -> None:
    with pytest.raises(ScriptedReplyError, match=r"^ScriptedChatModel\(usage=...\): usage has"):
        ScriptedChatModel(["x"], usage={"prompt_tokens": 3})


def test_a_script_must_be_a_list_of_replies() -> None:
    with pytest.raises(TypeError, match="a script is a list of replies, not one str"):
        ScriptedChatModel("hello")  # type: ignore[arg-type]  # the mistake under test
    assert ScriptedChatModel(script=["by keyword"]).invoke("q").text == "by keyword"


def test_a_call_to_a_tool_that_is_not_bound_names_the_reply() -> None:
    model = ScriptedChatModel(["thinking", {"tool_calls": [{"name": "get_wether", "args": {}}]}])
    agent = create_agent(model, [get_weather, get_time])
    model.invoke("warm up")  # takes script[0]
    with pytest.raises(ScriptedReplyError) as raised:
        agent.invoke(ask("SF?"))
    assert str(raised.value).startswith(
        "script[1].tool_calls[0]: calls 'get_wether', which is not a tool bound to the model "
        "(the 2nd reply); bound: get_weather, get_time"
    )
    assert raised.value.index == 1


def test_a_function_reply_returning_nonsense_is_named() -> None:
    def confused(_request: ScriptedRequest) -> Any:
        return 3.5

    with pytest.raises(
        ScriptedReplyError, match=r"script\[0\] \(returned by confused\): a reply is"
    ):
        ScriptedChatModel([confused]).invoke("q")


def test_without_bound_tools_any_call_is_allowed_and_built_in_tools_skip_the_check() -> None:
    reply = {"tool_calls": [{"name": "anything", "args": {}}]}
    assert ScriptedChatModel([reply]).invoke("q").tool_calls[0]["name"] == "anything"
    web_search = {"type": "web_search"}
    bound = ScriptedChatModel([reply]).bind_tools([get_weather, web_search])
    assert bound.invoke("q").tool_calls[0]["name"] == "anything"


# ---------------------------------------------------------------- binding and requests


def lookup(code: str, units: str = "metric") -> str:
    """Look up a code."""
    return f"{code} ({units})"


def test_bind_tools_accepts_every_kind_of_tool_and_records_options() -> None:
    openai_dict = {
        "type": "function",
        "function": {"name": "raw", "parameters": {"type": "object", "properties": {}}},
    }
    model = ScriptedChatModel(["done"])
    bound = model.bind_tools(
        [get_weather, lookup, Weather, WeatherDict, WEATHER_JSON_SCHEMA, openai_dict],
        tool_choice="lookup",
        parallel_tool_calls=False,
    )
    bound.invoke([HumanMessage("q")], stop=["END"], temperature=0.0)
    [request] = model.requests
    assert request.tool_names == (
        "get_weather",
        "lookup",
        "Weather",
        "WeatherDict",
        "WeatherReport",
        "raw",
    )
    assert request.tools[1]["function"]["parameters"]["required"] == ["code"]
    assert request.tool_choice == "lookup"
    assert request.stop == ("END",)
    assert request.options == {"parallel_tool_calls": False, "temperature": 0.0}
    assert request.structured_output is None
    assert repr(request) == (
        "ScriptedRequest(index=0, messages=1, tools=['get_weather', 'lookup', 'Weather', "
        "'WeatherDict', 'WeatherReport', 'raw'])"
    )


def test_requests_keep_the_messages_as_received() -> None:
    model = ScriptedChatModel(["one", "two"])
    history: list[BaseMessage] = [HumanMessage("first")]
    history.append(model.invoke(history))
    history[0].content = "changed afterwards"
    model.invoke([*history, HumanMessage("second")])
    first, second = model.requests
    assert [m.text for m in first.messages] == ["first"]
    assert [m.text for m in second.messages] == ["changed afterwards", "one", "second"]
    assert second.last_message == HumanMessage("second")
    assert second.tool_results == ()
    assert second.last_tool_message is None


def test_threads_share_one_model_each_request_taking_the_next_reply() -> None:
    replies = 64
    model = ScriptedChatModel(
        [
            AIMessage(str(n), tool_calls=[tool_call("get_weather", city=str(n))])
            for n in range(replies)
        ]
    )
    answers: list[AIMessage] = []
    start = threading.Barrier(8)

    def work() -> None:
        start.wait()
        for _ in range(replies // 8):
            answers.append(model.invoke("q"))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(int(a.text) for a in answers) == list(range(replies))
    assert sorted(a.tool_calls[0]["id"] for a in answers) == sorted(
        f"call_{n}" for n in range(1, replies + 1)
    )
    assert [r.index for r in model.requests] == list(range(replies))
    # each reply keeps the id handed out with it: the n-th reply has the n-th call
    assert all(a.tool_calls[0]["id"] == f"call_{int(a.text) + 1}" for a in answers)


def test_batch_answers_every_input() -> None:
    model = ScriptedChatModel([lambda request: f"echo {request.last_message.text}"] * 4)
    answers = model.batch(["a", "b", "c", "d"], config={"max_concurrency": 2})
    assert [a.text for a in answers] == ["echo a", "echo b", "echo c", "echo d"]


def test_a_global_llm_cache_does_not_stop_the_script() -> None:
    previous = get_llm_cache()
    set_llm_cache(InMemoryCache())
    try:
        model = ScriptedChatModel(["first", "second"])
        assert [model.invoke("same").text for _ in range(2)] == ["first", "second"]
    finally:
        set_llm_cache(previous)


def test_the_model_is_a_langchain_chat_model_of_its_own_type() -> None:
    from langchain_core.language_models import BaseChatModel

    model = ScriptedChatModel(["x"])
    assert isinstance(model, BaseChatModel)
    assert model._llm_type == "scripted-chat-model"


def test_a_reply_nested_deeper_than_json_can_write_is_kept_as_given() -> None:
    """A hostile model's reply (arguments 50,000 levels deep) can be scripted, so that what
    reads replies can be tested against it."""
    deep: list[Any] = []
    for _ in range(50_000):
        deep = [deep]
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("score", deep=deep)])])
    reply = model.invoke("hi")
    assert reply.tool_calls[0]["args"]["deep"] is deep
