"""Runnable example agents for pytest-agenttraj that need no API key.

Everything here is real LangChain / LangGraph machinery: the agents are built with
``langchain.agents.create_agent`` and run the genuine tool loop (model -> tools -> model ...),
and ``weather_graph`` is a hand-built ``langgraph`` ``StateGraph``. Only the LLM is fake:
``ScriptedChatModel`` replays a fixed list of ``AIMessage`` objects, one per model call, so
every run produces the same trajectory.

Use these agents to learn how to test your own: swap ``ScriptedChatModel`` for a real chat
model and the trajectory your tests see has exactly the same shape::

    agent = weather_agent()
    result = agent.invoke({"messages": [{"role": "user", "content": WEATHER_QUESTION}]})
    result["messages"]  # Human -> AI(tool call) -> Tool -> AI(tool call) -> Tool -> AI(answer)
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.caches import BaseCache
from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, ToolCall
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer
from pydantic import PrivateAttr

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
# The scripted LLM.
# --------------------------------------------------------------------------------------


class ScriptExhaustedError(RuntimeError):
    """Raised when a ScriptedChatModel is called more times than its script has replies."""


def call(name: str, id: str | None = None, /, **args: Any) -> ToolCall:
    """Build a tool call for a script, e.g. ``call("get_weather", location_code="location-1")``.

    Leave ``id`` out to have ``ScriptedChatModel`` assign ``call_1``, ``call_2``, ... in order.
    """
    return ToolCall(name=name, args=args, id=id, type="tool_call")


class ScriptedChatModel(BaseChatModel):
    """A chat model that replays a fixed script of replies, one per call.

    Each script entry is an ``AIMessage`` (optionally with ``tool_calls``; several calls in one
    message are parallel tool calls) or a plain string, shorthand for a text-only reply.
    Tool calls without an id get ``call_1``, ``call_2``, ... numbered across the whole script.

    The model keeps its position in the script, so one instance serves one agent run; build a
    fresh model (or call ``reset()``) to run again. Calling it more often than the script allows
    raises ``ScriptExhaustedError``. If tools are bound, every scripted tool call must name one
    of them, so a typo in a script fails loudly instead of producing a confusing trajectory.
    """

    script: list[AIMessage]
    # A global LLM cache (``set_llm_cache``) would short-circuit replays of identical prompts;
    # a script must always advance, so caching is off unless explicitly requested.
    cache: BaseCache | bool | None = False

    _position: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, script: Sequence[AIMessage | str], **kwargs: Any) -> None:
        kwargs["script"] = _number_tool_calls(script)
        super().__init__(**kwargs)

    @property
    def _llm_type(self) -> str:
        return "scripted-chat-model"

    @property
    def calls_made(self) -> int:
        """How many replies have been consumed so far."""
        return self._position

    def reset(self) -> None:
        """Rewind to the start of the script."""
        with self._lock:
            self._position = 0

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools the way a real provider model does: as call-time kwargs.

        ``create_agent`` calls this before every model step (the base class raises
        ``NotImplementedError``). The tool names reach ``_generate``, which uses them only to
        check that the script calls tools the agent actually has.
        """
        names = [_tool_name(t) for t in tools]
        return self.bind(tool_names=names, tool_choice=tool_choice, **kwargs)

    def _next_reply(self, tool_names: Sequence[str | None] | None) -> AIMessage:
        with self._lock:
            self._position += 1
            number = self._position
        if number > len(self.script):
            msg = (
                f"ScriptedChatModel call #{number} overran the script: it has only "
                f"{len(self.script)} scripted replies. The agent asked the model for more "
                "steps than expected (e.g. a tool result led to another round)."
            )
            raise ScriptExhaustedError(msg)
        reply = self.script[number - 1].model_copy(deep=True)
        if tool_names is not None and None not in tool_names:
            unknown = [tc["name"] for tc in reply.tool_calls if tc["name"] not in tool_names]
            if unknown:
                msg = (
                    f"ScriptedChatModel call #{number} calls tool(s) {unknown} that are not "
                    f"bound to the model; bound tools: {list(tool_names)}"
                )
                raise ValueError(msg)
        return reply

    # langchain-core calls these with messages, stop and run_manager by keyword; a script needs
    # none of them.
    def _generate(
        self,
        messages: list[BaseMessage],  # noqa: ARG002
        stop: list[str] | None = None,  # noqa: ARG002
        run_manager: CallbackManagerForLLMRun | None = None,  # noqa: ARG002
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._next_reply(kwargs.get("tool_names"))
        return ChatResult(generations=[ChatGeneration(message=reply)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,  # noqa: ARG002
        **kwargs: Any,
    ) -> ChatResult:
        # Nothing to await: replaying is instant, so skip the default thread-pool hop.
        return self._generate(messages, stop, **kwargs)


def _tool_name(tool_: dict[str, Any] | type | Callable[..., Any] | BaseTool) -> str | None:
    """Name of a tool as the model sees it; None for provider built-ins without one."""
    if isinstance(tool_, BaseTool):
        return tool_.name
    if isinstance(tool_, dict) and "function" not in tool_ and "name" not in tool_:
        return None  # e.g. {"type": "web_search"}: cannot validate calls against it
    name = convert_to_openai_tool(tool_).get("function", {}).get("name")
    return name if isinstance(name, str) else None


def _number_tool_calls(script: Sequence[AIMessage | str]) -> list[AIMessage]:
    """Turn strings into AIMessages and give id-less tool calls ids call_1, call_2, ..."""
    numbered: list[AIMessage] = []
    counter = 0
    for entry in script:
        message = AIMessage(content=entry) if isinstance(entry, str) else entry
        tool_calls: list[ToolCall] = []
        for tc in message.tool_calls:
            counter += 1
            tool_calls.append({**tc, "id": tc["id"] or f"call_{counter}"})
        numbered.append(message.model_copy(update={"tool_calls": tool_calls}, deep=True))
    return numbered


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
            AIMessage(content="", tool_calls=[call("look_up_location_code", city="苏州")]),
            AIMessage(content="", tool_calls=[call("get_weather", location_code=code)]),
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
            AIMessage(content="", tool_calls=[call("look_up_location_code", city="San Francisco")]),
            AIMessage(
                content="",
                tool_calls=[
                    call("get_weather", location_code="location-415"),
                    call("get_time", location_code="location-415"),
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
            AIMessage(content="", tool_calls=[call("look_up_location_code", city="San Francisco")]),
            AIMessage(content="", tool_calls=[call("get_weather", location_code="location-415")]),
            AIMessage(content="", tool_calls=[call("look_up_location_code", city="苏州")]),
            AIMessage(content="", tool_calls=[call("get_weather", location_code="location-123")]),
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
            call("get_weather", "plan_weather", location_code=code),
            call("get_time", "plan_time", location_code=code),
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
