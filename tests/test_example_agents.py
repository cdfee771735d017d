"""The example agents (examples/scripted_agents.py) run for real and give the documented
trajectories.

Plain pytest asserts only: these tests check the examples themselves, not the plugin.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import scripted_agents as agents  # on sys.path through the root conftest.py
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver


def ask(question: str) -> Any:
    """The input every agent and graph here takes: one user message."""
    return {"messages": [{"role": "user", "content": question}]}


def shape(messages: list[BaseMessage]) -> list[tuple[Any, ...]]:
    """Reduce messages to comparable tuples: (type, content, tool calls or tool_call_id/name)."""
    out: list[tuple[Any, ...]] = []
    for m in messages:
        if isinstance(m, AIMessage):
            calls = [(tc["name"], tc["args"], tc["id"]) for tc in m.tool_calls]
            out.append(("ai", m.content, calls))
        elif isinstance(m, ToolMessage):
            out.append(("tool", m.content, m.name, m.tool_call_id))
        elif isinstance(m, HumanMessage):
            out.append(("human", m.content))
        else:  # pragma: no cover - would mean an unexpected message type
            out.append((m.type, m.content))
    return out


def weather_trajectory(code: str, weather: str) -> list[tuple[Any, ...]]:
    return [
        ("human", agents.WEATHER_QUESTION),
        ("ai", "", [("look_up_location_code", {"city": "苏州"}, "call_1")]),
        ("tool", "location-123", "look_up_location_code", "call_1"),
        ("ai", "", [("get_weather", {"location_code": code}, "call_2")]),
        ("tool", weather, "get_weather", "call_2"),
        ("ai", f"The weather in 苏州 is: {weather}.", []),
    ]


PARALLEL_TRAJECTORY = [
    ("human", agents.PARALLEL_QUESTION),
    ("ai", "", [("look_up_location_code", {"city": "San Francisco"}, "call_1")]),
    ("tool", "location-415", "look_up_location_code", "call_1"),
    (
        "ai",
        "",
        [
            ("get_weather", {"location_code": "location-415"}, "call_2"),
            ("get_time", {"location_code": "location-415"}, "call_3"),
        ],
    ),
    ("tool", "Foggy, 15°C", "get_weather", "call_2"),
    ("tool", "23:30 (UTC-7)", "get_time", "call_3"),
    ("ai", "In San Francisco it is Foggy, 15°C and the local time is 23:30 (UTC-7).", []),
]

TRAVEL_TRAJECTORY = [
    ("human", agents.TRAVEL_QUESTION),
    ("ai", "", [("look_up_location_code", {"city": "San Francisco"}, "call_1")]),
    ("tool", "location-415", "look_up_location_code", "call_1"),
    ("ai", "", [("get_weather", {"location_code": "location-415"}, "call_2")]),
    ("tool", "Foggy, 15°C", "get_weather", "call_2"),
    ("ai", "", [("look_up_location_code", {"city": "苏州"}, "call_3")]),
    ("tool", "location-123", "look_up_location_code", "call_3"),
    ("ai", "", [("get_weather", {"location_code": "location-123"}, "call_4")]),
    ("tool", "Sunny, 22°C", "get_weather", "call_4"),
    ("ai", "苏州 is Sunny, 22°C; San Francisco is Foggy, 15°C. 苏州 is warmer.", []),
]


# --- tools ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("city", "code"),
    [("苏州", "location-123"), ("San Francisco", "location-415"), ("Atlantis", "unknown")],
)
def test_look_up_location_code(city: str, code: str) -> None:
    assert agents.look_up_location_code.invoke({"city": city}) == code


def test_weather_and_time_tools_are_deterministic() -> None:
    assert agents.get_weather.invoke({"location_code": "location-123"}) == "Sunny, 22°C"
    assert agents.get_weather.invoke({"location_code": "location-415"}) == "Foggy, 15°C"
    assert agents.get_time.invoke({"location_code": "location-415"}) == "23:30 (UTC-7)"
    assert "location-999" in agents.get_weather.invoke({"location_code": "location-999"})


# --- create_agent agents ---------------------------------------------------------------


def test_weather_agent_trajectory() -> None:
    result = agents.weather_agent().invoke(ask(agents.WEATHER_QUESTION))
    assert shape(result["messages"]) == weather_trajectory("location-123", "Sunny, 22°C")


def test_weather_agent_wrong_code_changes_get_weather_arg() -> None:
    result = agents.weather_agent(wrong_code=True).invoke(ask(agents.WEATHER_QUESTION))
    messages = result["messages"]
    assert shape(messages) == weather_trajectory("location-999", "No weather data for location-999")
    assert messages[3].tool_calls[0]["args"] == {"location_code": "location-999"}


def test_parallel_agent_makes_two_calls_in_one_message() -> None:
    result = agents.parallel_agent().invoke(ask(agents.PARALLEL_QUESTION))
    messages = result["messages"]
    assert shape(messages) == PARALLEL_TRAJECTORY
    second_ai = [m for m in messages if isinstance(m, AIMessage)][1]
    assert len(second_ai.tool_calls) == 2
    assert [type(m) for m in messages[4:6]] == [ToolMessage, ToolMessage]
    assert {m.tool_call_id for m in messages[4:6]} == {tc["id"] for tc in second_ai.tool_calls}


def test_travel_agent_visits_cities_in_reverse_order() -> None:
    result = agents.travel_agent().invoke(ask(agents.TRAVEL_QUESTION))
    assert shape(result["messages"]) == TRAVEL_TRAJECTORY


@pytest.mark.parametrize(
    ("build", "question", "expected"),
    [
        (
            agents.weather_agent,
            agents.WEATHER_QUESTION,
            weather_trajectory("location-123", "Sunny, 22°C"),
        ),
        (agents.parallel_agent, agents.PARALLEL_QUESTION, PARALLEL_TRAJECTORY),
        (agents.travel_agent, agents.TRAVEL_QUESTION, TRAVEL_TRAJECTORY),
    ],
)
def test_agents_run_async(build: Any, question: str, expected: list[tuple[Any, ...]]) -> None:
    result = asyncio.run(build().ainvoke(ask(question)))
    assert shape(result["messages"]) == expected


def test_agent_with_checkpointer_keeps_thread_state() -> None:
    agent = agents.weather_agent(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t1"}}
    agent.invoke(ask(agents.WEATHER_QUESTION), config)
    state = agent.get_state(config)
    assert shape(state.values["messages"]) == weather_trajectory("location-123", "Sunny, 22°C")


# --- the scripted model under the agents ----------------------------------------------
# (``ScriptedChatModel`` itself is tested in tests/test_testing.py)


def test_reusing_an_agent_overruns_its_script() -> None:
    agent = agents.weather_agent()
    agent.invoke(ask(agents.WEATHER_QUESTION))
    with pytest.raises(
        agents.ScriptExhaustedError, match=r"^the agent asked a 4th time; the script has 3 replies"
    ):
        agent.invoke(ask(agents.WEATHER_QUESTION))


def test_the_names_the_examples_import_are_the_public_ones() -> None:
    from pytest_agenttraj import testing

    assert agents.ScriptedChatModel is testing.ScriptedChatModel
    assert agents.ScriptExhaustedError is testing.ScriptExhaustedError
    assert agents.call is agents.tool_call is testing.tool_call


# --- hand-built LangGraph graph --------------------------------------------------------


def test_weather_graph_trajectory() -> None:
    result = agents.weather_graph().invoke(ask(agents.PARALLEL_QUESTION))
    assert shape(result["messages"]) == [
        ("human", agents.PARALLEL_QUESTION),
        (
            "ai",
            "",
            [
                ("get_weather", {"location_code": "location-415"}, "plan_weather"),
                ("get_time", {"location_code": "location-415"}, "plan_time"),
            ],
        ),
        # Same-superstep writes are applied sorted by node name: fetch_time before fetch_weather.
        ("tool", "23:30 (UTC-7)", "get_time", "plan_time"),
        ("tool", "Foggy, 15°C", "get_weather", "plan_weather"),
        ("ai", "Weather: Foggy, 15°C. Local time: 23:30 (UTC-7).", []),
    ]


def test_weather_graph_streams_one_update_per_node() -> None:
    chunks = list(agents.weather_graph().stream(ask("Weather in London?"), stream_mode="updates"))
    nodes = [node for chunk in chunks for node in chunk]
    assert nodes[0] == "plan"
    assert sorted(nodes[1:3]) == ["fetch_time", "fetch_weather"]
    assert nodes[3] == "answer"
    assert chunks[-1]["answer"]["messages"][0].content == (
        "Weather: Rainy, 11°C. Local time: 07:30 (UTC+1)."
    )


def test_weather_graph_fetches_run_in_the_same_superstep() -> None:
    graph = agents.weather_graph(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t1"}}
    supersteps: list[set[str]] = []
    current: set[str] = set()
    # A "checkpoints" event is emitted at the end of every superstep, closing the group.
    for mode, chunk in graph.stream(
        ask("Weather in London?"), config, stream_mode=["updates", "checkpoints"]
    ):
        if mode == "updates":
            current.update(chunk)
        elif current:
            supersteps.append(current)
            current = set()
    assert supersteps == [{"plan"}, {"fetch_weather", "fetch_time"}, {"answer"}]


def test_weather_graph_debug_stream_reports_step_numbers() -> None:
    steps: dict[str, int] = {}
    for event in agents.weather_graph().stream(ask("Weather in Tokyo?"), stream_mode="debug"):
        if event["type"] == "task_result":
            steps[event["payload"]["name"]] = event["step"]
    assert steps["fetch_weather"] == steps["fetch_time"] == steps["plan"] + 1
    assert steps["answer"] == steps["fetch_time"] + 1


def test_weather_graph_runs_async() -> None:
    result = asyncio.run(agents.weather_graph().ainvoke(ask("Weather and time in 苏州?")))
    assert result["messages"][-1].content == "Weather: Sunny, 22°C. Local time: 14:30 (UTC+8)."
