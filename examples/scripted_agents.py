"""Runnable example agents for pytest-agenttraj that need no API key.

Everything here is real LangChain / LangGraph machinery: the agents are built with
``langchain.agents.create_agent`` and run the genuine tool loop (model -> tools -> model ...),
and ``weather_graph`` is a hand-built ``langgraph`` ``StateGraph``. Only the LLM is fake:
``pytest_agenttraj.testing.ScriptedChatModel`` answers each model call with the next reply of a
script, so every run produces the same trajectory.

Use these agents to learn how to test your own: swap ``ScriptedChatModel`` for a real chat
model and the trajectory your tests see has exactly the same shape::

    agent = weather_agent()
    result = agent.invoke({"messages": [{"role": "user", "content": WEATHER_QUESTION}]})
    result["messages"]  # Human -> AI(tool call) -> Tool -> AI(tool call) -> Tool -> AI(answer)
"""

from __future__ import annotations

import copy
import json
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langchain_core.tools import BaseTool, tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from pytest_agenttraj.testing import ScriptedChatModel, ScriptExhaustedError, tool_call

# The name the examples and the package's tests have long imported from here.
call = tool_call

__all__ = [
    "PARALLEL_QUESTION",
    "TRAVEL_QUESTION",
    "WEATHER_QUESTION",
    "WEATHER_REFERENCE",
    "AgentGraph",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "call",
    "get_time",
    "get_weather",
    "look_up_location_code",
    "parallel_agent",
    "tool_call",
    "travel_agent",
    "weather_agent",
    "weather_graph",
    "weather_reference",
]

WEATHER_QUESTION = "What's the weather in 苏州?"
PARALLEL_QUESTION = "Weather and time in San Francisco?"
TRAVEL_QUESTION = "Compare the weather in 苏州 and San Francisco."

# What the weather agent should do, as a reference trajectory written by hand in the OpenAI
# chat format (no ids): the one copy that the examples and the package's own tests share.
WEATHER_REFERENCE: list[dict[str, Any]] = [
    {"role": "user", "content": WEATHER_QUESTION},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"name": "look_up_location_code", "arguments": '{"city": "苏州"}'}}
        ],
    },
    {"role": "tool", "content": "location-123"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"name": "get_weather", "arguments": '{"location_code": "location-123"}'}}
        ],
    },
    {"role": "tool", "content": "Sunny, 22°C"},
    {"role": "assistant", "content": "The weather in 苏州 is: Sunny, 22°C."},
]


def weather_reference(location_code: str = "location-123") -> list[dict[str, Any]]:
    """A fresh copy of ``WEATHER_REFERENCE``, with ``get_weather`` asked for ``location_code``."""
    reference = copy.deepcopy(WEATHER_REFERENCE)
    call = reference[3]["tool_calls"][0]["function"]
    call["arguments"] = json.dumps({"location_code": location_code})
    return reference


# --------------------------------------------------------------------------------------
# Deterministic "world" the tools read from.
# --------------------------------------------------------------------------------------

_LOCATION_CODES: dict[str, str] = {
    "苏州": "location-123",
    "suzhou": "location-123",
    "san francisco": "location-415",
    "london": "location-020",
    "tokyo": "location-813",
}
_WEATHER: dict[str, str] = {
    "location-123": "Sunny, 22°C",
    "location-415": "Foggy, 15°C",
    "location-020": "Rainy, 11°C",
    "location-813": "Cloudy, 18°C",
}
_LOCAL_TIME: dict[str, str] = {
    "location-123": "14:30 (UTC+8)",
    "location-415": "23:30 (UTC-7)",
    "location-020": "07:30 (UTC+1)",
    "location-813": "15:30 (UTC+9)",
}


def _location_code(city: str) -> str:
    return _LOCATION_CODES.get(city.strip().casefold(), "unknown")


def _weather(location_code: str) -> str:
    return _WEATHER.get(location_code, f"No weather data for {location_code}")


# --------------------------------------------------------------------------------------
# Tools: ordinary LangChain tools, exactly what you would give a real agent.
# --------------------------------------------------------------------------------------


@tool
def look_up_location_code(city: str) -> str:
    """Look up the location code of a city (e.g. "苏州" or "San Francisco")."""
    return _location_code(city)


@tool
def get_weather(location_code: str) -> str:
    """Get the current weather for a location code returned by look_up_location_code."""
    return _weather(location_code)


@tool
def get_time(location_code: str) -> str:
    """Get the current local time for a location code returned by look_up_location_code."""
    return _LOCAL_TIME.get(location_code, f"No time data for {location_code}")


# --------------------------------------------------------------------------------------
# Agents built with the real create_agent.
# --------------------------------------------------------------------------------------

AgentGraph = CompiledStateGraph[Any, Any, Any, Any]


def weather_agent(*, wrong_code: bool = False, checkpointer: Checkpointer = None) -> AgentGraph:
    """Agent answering WEATHER_QUESTION: look up the code for 苏州, get its weather, answer.

    With ``wrong_code=True`` it simulates a regression: it asks for the weather of
    ``location-999`` instead of the code the look-up returned.
    Pass a ``checkpointer`` (e.g. ``InMemorySaver()``) to keep the run's thread history.
    """
    code = "location-999" if wrong_code else "location-123"
    weather = _weather(code)  # what get_weather will return, for the scripted final answer
    model = ScriptedChatModel(
        [
            AIMessage(content="", tool_calls=[tool_call("look_up_location_code", city="苏州")]),
            AIMessage(content="", tool_calls=[tool_call("get_weather", location_code=code)]),
            f"The weather in 苏州 is: {weather}.",
        ]
    )
    return create_agent(
        model=model, tools=[look_up_location_code, get_weather], checkpointer=checkpointer
    )


def parallel_agent(*, checkpointer: Checkpointer = None) -> AgentGraph:
    """Agent answering PARALLEL_QUESTION with two parallel tool calls in one model step.

    create_agent runs both calls as separate tasks of one superstep; their ToolMessages
    follow the AIMessage in the order of its ``tool_calls`` (get_weather, then get_time).
    """
    model = ScriptedChatModel(
        [
            AIMessage(
                content="", tool_calls=[tool_call("look_up_location_code", city="San Francisco")]
            ),
            AIMessage(
                content="",
                tool_calls=[
                    tool_call("get_weather", location_code="location-415"),
                    tool_call("get_time", location_code="location-415"),
                ],
            ),
            "In San Francisco it is Foggy, 15°C and the local time is 23:30 (UTC-7).",
        ]
    )
    return create_agent(
        model=model,
        tools=[look_up_location_code, get_weather, get_time],
        checkpointer=checkpointer,
    )


def travel_agent(*, checkpointer: Checkpointer = None) -> AgentGraph:
    """Agent answering TRAVEL_QUESTION, handling the cities in the *opposite* order asked.

    The question names 苏州 first, so a natural reference trajectory is::

        look_up_location_code(city="苏州"), get_weather(location_code="location-123"),
        look_up_location_code(city="San Francisco"), get_weather(location_code="location-415")

    but this agent does San Francisco first. Strict (ordered) matching fails; ``unordered``
    matches; ``superset`` matches a reference listing only some of the calls (e.g. just the two
    ``get_weather`` calls); ``subset`` matches a reference that also allows extra calls
    (e.g. ``get_time``).
    """
    model = ScriptedChatModel(
        [
            AIMessage(
                content="", tool_calls=[tool_call("look_up_location_code", city="San Francisco")]
            ),
            AIMessage(
                content="", tool_calls=[tool_call("get_weather", location_code="location-415")]
            ),
            AIMessage(content="", tool_calls=[tool_call("look_up_location_code", city="苏州")]),
            AIMessage(
                content="", tool_calls=[tool_call("get_weather", location_code="location-123")]
            ),
            "苏州 is Sunny, 22°C; San Francisco is Foggy, 15°C. 苏州 is warmer.",
        ]
    )
    return create_agent(
        model=model, tools=[look_up_location_code, get_weather], checkpointer=checkpointer
    )


# --------------------------------------------------------------------------------------
# A hand-built LangGraph graph with a parallel fan-out (no LLM at all).
# --------------------------------------------------------------------------------------


def _plan(state: MessagesState) -> dict[str, list[AnyMessage]]:
    """Resolve the city in the question and plan two parallel tool calls for it."""
    question = next(m for m in reversed(state["messages"]) if isinstance(m, HumanMessage))
    text = question.text.casefold()
    city = next((c for c in _LOCATION_CODES if c in text), text)
    code = _location_code(city)
    plan = AIMessage(
        content="",
        tool_calls=[
            tool_call("get_weather", "plan_weather", location_code=code),
            tool_call("get_time", "plan_time", location_code=code),
        ],
    )
    return {"messages": [plan]}


def _run_planned(state: MessagesState, planned_tool: BaseTool) -> dict[str, list[AnyMessage]]:
    """Execute the planned call to ``planned_tool``; invoking a tool with a ToolCall
    returns a ToolMessage carrying the matching tool_call_id."""
    plan = state["messages"][-1]
    assert isinstance(plan, AIMessage)
    tool_call = next(tc for tc in plan.tool_calls if tc["name"] == planned_tool.name)
    return {"messages": [planned_tool.invoke(tool_call)]}


def _fetch_weather(state: MessagesState) -> dict[str, list[AnyMessage]]:
    return _run_planned(state, get_weather)


def _fetch_time(state: MessagesState) -> dict[str, list[AnyMessage]]:
    return _run_planned(state, get_time)


def _answer(state: MessagesState) -> dict[str, list[AnyMessage]]:
    """Summarise the two tool results."""
    results = {m.name: m.text for m in state["messages"] if m.type == "tool"}
    text = f"Weather: {results['get_weather']}. Local time: {results['get_time']}."
    return {"messages": [AIMessage(content=text)]}


def weather_graph(*, checkpointer: Checkpointer = None) -> AgentGraph:
    """A StateGraph: ``plan`` -> (``fetch_weather`` | ``fetch_time``) in parallel -> ``answer``.

    Invoke with ``{"messages": [{"role": "user", "content": "Weather and time in London?"}]}``.
    ``plan`` resolves the city itself and emits one AIMessage with two tool calls
    (ids ``plan_weather``, ``plan_time``); ``fetch_weather`` and ``fetch_time`` then run in the
    same superstep. LangGraph applies that superstep's writes sorted by node name, so the
    ``get_time`` ToolMessage comes before the ``get_weather`` one.

    ``stream(..., stream_mode="updates")`` yields one ``{node: update}`` chunk per node, without
    step numbers. To see which nodes shared a superstep, compile with a ``checkpointer`` and
    stream ``["updates", "checkpoints"]`` (a checkpoint closes each superstep), or read
    ``get_state_history``; ``stream_mode="debug"`` also reports each task's ``step``.
    """
    builder = StateGraph(MessagesState)
    builder.add_node("plan", _plan)
    builder.add_node("fetch_weather", _fetch_weather)
    builder.add_node("fetch_time", _fetch_time)
    builder.add_node("answer", _answer)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "fetch_weather")
    builder.add_edge("plan", "fetch_time")
    builder.add_edge(["fetch_weather", "fetch_time"], "answer")
    builder.add_edge("answer", END)
    return builder.compile(checkpointer=checkpointer)


if __name__ == "__main__":
    for build, question in [
        (weather_agent, WEATHER_QUESTION),
        (parallel_agent, PARALLEL_QUESTION),
        (travel_agent, TRAVEL_QUESTION),
        (weather_graph, PARALLEL_QUESTION),
    ]:
        print(f"== {build.__name__}: {question}")
        result = build().invoke({"messages": [{"role": "user", "content": question}]})
        for message in result["messages"]:
            message.pretty_print()
