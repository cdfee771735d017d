"""agentevals' own graph-trajectory tests (its ``python/tests/graph_trajectory/``: the LLM judge,
strict matching and the thread extractor, sync and async), run on this package.

The scenarios and assertions are agentevals'; what changed is the imports, and a scripted chat
model (no network, no API key) wherever agentevals names an OpenAI model: for the agent, a
script of its replies; for the judge, its verdict. The judge tests check besides that the judge
was shown the extracted thread. agentevals' extractor test for a subgraph compiled with
``interrupt_before`` expects an answer this package deliberately does not give (see
``docs/differences.md``, LangGraph): there the test asserts this package's answer and that
agentevals' expected one is not it.
"""

from __future__ import annotations

import operator
import time
from typing import Annotated, Any, TypedDict

import pytest
from agentevals.graph_trajectory.utils import (
    extract_langgraph_trajectory_from_thread as agentevals_extract,
)
from judge_models import RecordingModel, score_call
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import StateGraph
from langgraph.prebuilt import create_react_agent
from langgraph.types import Command, interrupt
from scripted_agents import ScriptedChatModel, call

from pytest_agenttraj import (
    create_async_graph_trajectory_llm_as_judge,
    create_graph_trajectory_llm_as_judge,
    exact_match,
    graph_trajectory_strict_match,
    graph_trajectory_strict_match_async,
)
from pytest_agenttraj.langgraph import (
    aextract_langgraph_trajectory_from_thread,
    extract_langgraph_trajectory_from_thread,
)

# agentevals' scenarios build their agent with LangGraph's create_react_agent (its nodes are
# "agent" and "tools", as their references say), which LangGraph 1.x deprecates
pytestmark = pytest.mark.filterwarnings(
    "ignore:create_react_agent has been moved:langgraph.warnings.LangGraphDeprecatedSinceV10"
)

THREAD = {"configurable": {"thread_id": "1"}}
QUESTION = {"messages": [{"role": "user", "content": "what's the weather in sf?"}]}
ANSWER = "It is rainy and 70 degrees!"


@tool
def search(query: str) -> str:  # noqa: ARG001  (its schema's argument, unused as in agentevals)
    """Call to surf the web."""
    user_answer: str = interrupt("Tell me the answer to the question.")
    return user_answer


def weather_model() -> ScriptedChatModel:
    """In place of ``gpt-4o-mini``: searches once, then answers with what the search said."""
    return ScriptedChatModel(
        [AIMessage(content="", tool_calls=[call("search", query="weather in sf")]), ANSWER]
    )


def inefficient_model() -> ScriptedChatModel:
    """In place of ``gpt-4o-mini`` told to be inefficient: asks the same tool three times."""
    asks = [AIMessage(content="", tool_calls=[call("askjeeves", query="sf weather")])] * 3
    return ScriptedChatModel([*asks, "The weather in SF is foo."])


def _shown(judge: RecordingModel) -> str:
    """Everything the judge model was shown, as one text."""
    return "\n".join(str(message.content) for message in judge.seen[0])


def _askjeeves() -> Any:
    @tool
    def askjeeves(query: str) -> str:  # noqa: ARG001  (as in agentevals)
        """Call to surf the web."""
        return "foo"

    return askjeeves


UNSENSIBLE_PROMPT = """You are an expert data labeler.
Your task is to grade the accuracy of an AI agent's internal steps in resolving a user queries.

<Rubric>
  An accurate trajectory:
  - Makes logical sense between steps
  - Shows clear progression
  - Is perfectly efficient, with no more than one tool call
  - Is semantically equivalent to the provided reference trajectory, if present
</Rubric>

<Instructions>
  Grade the following thread, evaluating whether the agent's overall steps are logical and relatively efficient.
  For the trajectory, "__start__" denotes an initial entrypoint to the agent, and "__interrupt__" corresponds to the agent
  interrupting to await additional data from another source ("human-in-the-loop"):
</Instructions>

<thread>
{thread}
</thread>

{reference_outputs}
"""  # noqa: E501  (agentevals' prompt, as its test writes it)


# ---------------------------------------------------------------- test_graph_trajectory_llm.py


def test_sensible_trajectory() -> None:
    checkpointer = MemorySaver()
    graph = create_react_agent(model=weather_model(), checkpointer=checkpointer, tools=[search])
    graph.invoke(QUESTION, config=THREAD)
    graph.invoke(Command(resume=ANSWER), config=THREAD)
    extracted_trajectory = extract_langgraph_trajectory_from_thread(graph, THREAD)
    judge = RecordingModel([score_call(reasoning="searched once, then answered", score=True)])
    evaluator = create_graph_trajectory_llm_as_judge(judge=judge)
    res = evaluator(inputs=extracted_trajectory["inputs"], outputs=extracted_trajectory["outputs"])
    assert res["key"] == "graph_trajectory_accuracy"
    assert res["score"]
    assert "__start__, agent, tools, __interrupt__" in _shown(judge)
    assert ANSWER in _shown(judge)


def test_unsensible_trajectory() -> None:
    checkpointer = MemorySaver()
    graph = create_react_agent(
        model=inefficient_model(),
        checkpointer=checkpointer,
        tools=[_askjeeves()],
        prompt="You are an evil assistant who is inefficient and calls more tools than necessary.",
    )
    graph.invoke(QUESTION, config=THREAD)
    extracted_trajectory = extract_langgraph_trajectory_from_thread(graph, THREAD)
    judge = RecordingModel(
        [score_call(reasoning="three tool calls where one would do", score=False)]
    )
    evaluator = create_graph_trajectory_llm_as_judge(prompt=UNSENSIBLE_PROMPT, judge=judge)
    res = evaluator(inputs=extracted_trajectory["inputs"], outputs=extracted_trajectory["outputs"])
    assert res["key"] == "graph_trajectory_accuracy"
    assert not res["score"]
    assert "__start__, agent, tools, agent, tools, agent, tools, agent" in _shown(judge)


# ------------------------------------------------------------ test_graph_trajectory_llm_async.py


@pytest.mark.asyncio
async def test_sensible_trajectory_async() -> None:
    checkpointer = MemorySaver()
    graph = create_react_agent(model=weather_model(), checkpointer=checkpointer, tools=[search])
    await graph.ainvoke(QUESTION, config=THREAD)
    await graph.ainvoke(Command(resume=ANSWER), config=THREAD)
    extracted_trajectory = await aextract_langgraph_trajectory_from_thread(graph, THREAD)
    judge = RecordingModel([score_call(reasoning="searched once, then answered", score=True)])
    evaluator = create_async_graph_trajectory_llm_as_judge(judge=judge)
    res = await evaluator(
        inputs=extracted_trajectory["inputs"], outputs=extracted_trajectory["outputs"]
    )
    assert res["key"] == "graph_trajectory_accuracy"
    assert res["score"]
    assert "__start__, agent, tools, __interrupt__" in _shown(judge)


@pytest.mark.asyncio
async def test_unsensible_trajectory_async() -> None:
    checkpointer = MemorySaver()
    graph = create_react_agent(
        model=inefficient_model(),
        checkpointer=checkpointer,
        tools=[_askjeeves()],
        prompt="You are an evil assistant who is inefficient and calls more tools than necessary.",
    )
    await graph.ainvoke(QUESTION, config=THREAD)
    extracted_trajectory = await aextract_langgraph_trajectory_from_thread(graph, THREAD)
    judge = RecordingModel(
        [score_call(reasoning="three tool calls where one would do", score=False)]
    )
    evaluator = create_async_graph_trajectory_llm_as_judge(prompt=UNSENSIBLE_PROMPT, judge=judge)
    res = await evaluator(
        inputs=extracted_trajectory["inputs"], outputs=extracted_trajectory["outputs"]
    )
    assert res["key"] == "graph_trajectory_accuracy"
    assert not res["score"]


# ---------------------------------------------------------------- test_graph_trajectory_strict*.py

REFERENCE_TRAJECTORY = {
    "results": [],
    "steps": [["__start__", "agent", "tools", "__interrupt__"], ["agent"]],
}


def test_trajectory_match() -> None:
    checkpointer = MemorySaver()
    graph = create_react_agent(model=weather_model(), checkpointer=checkpointer, tools=[search])
    graph.invoke(QUESTION, config=THREAD)
    graph.invoke(Command(resume=ANSWER), config=THREAD)
    extracted_trajectory = extract_langgraph_trajectory_from_thread(graph, THREAD)
    res = graph_trajectory_strict_match(
        outputs=extracted_trajectory["outputs"], reference_outputs=REFERENCE_TRAJECTORY
    )
    assert res["score"]


@pytest.mark.asyncio
async def test_trajectory_match_async() -> None:
    checkpointer = MemorySaver()
    graph = create_react_agent(model=weather_model(), checkpointer=checkpointer, tools=[search])
    await graph.ainvoke(QUESTION, config=THREAD)
    await graph.ainvoke(Command(resume=ANSWER), config=THREAD)
    extracted_trajectory = await aextract_langgraph_trajectory_from_thread(graph, THREAD)
    res = await graph_trajectory_strict_match_async(
        outputs=extracted_trajectory["outputs"], reference_outputs=REFERENCE_TRAJECTORY
    )
    assert res["score"]


# ---------------------------------------------------------------- test_graph_trajectory_utils.py


class InnerState(TypedDict):
    my_key: Annotated[str, operator.add]
    my_other_key: str


class State(TypedDict):
    my_key: Annotated[str, operator.add]


def nested_interrupt_app() -> Any:
    """agentevals' graph: ``inner`` (a subgraph compiled with a breakpoint before ``inner_2``)
    and ``outer_1`` run from the start, ``outer_2`` joins them."""

    def inner_1(state: InnerState) -> dict[str, Any]:
        time.sleep(0.1)
        return {"my_key": "got here", "my_other_key": state["my_key"]}

    def inner_2(state: InnerState) -> dict[str, Any]:
        return {"my_key": " and there", "my_other_key": state["my_key"]}

    inner = StateGraph(InnerState)
    inner.add_node("inner_1", inner_1)
    inner.add_node("inner_2", inner_2)
    inner.add_edge("inner_1", "inner_2")
    inner.set_entry_point("inner_1")
    inner.set_finish_point("inner_2")

    def outer_1(_state: State) -> dict[str, Any]:
        return {"my_key": " and parallel"}

    def outer_2(_state: State) -> dict[str, Any]:
        return {"my_key": " and back again"}

    graph = StateGraph(State)
    graph.add_node("inner", inner.compile(interrupt_before=["inner_2"]))
    graph.add_node("outer_1", outer_1)
    graph.add_node("outer_2", outer_2)
    graph.add_edge("__start__", "inner")
    graph.add_edge("__start__", "outer_1")
    graph.add_edge(["inner", "outer_1"], "outer_2")
    graph.set_finish_point("outer_2")
    return graph.compile(checkpointer=MemorySaver())


# What agentevals' test expects: the subgraph's end taken for the end of an invocation (so
# inner_2, which ran in the second invocation, is listed in the first), the subgraph's input
# taken for the second invocation's input, and the subgraph's state for the first's result.
AGENTEVALS_EXPECTED = {
    "inputs": [{"__start__": {"my_key": ""}}, {"__start__": {"my_key": ""}}],
    "outputs": {
        "inputs": [],
        "results": [
            {"my_key": "got here and there", "my_other_key": "got here"},
            {"my_key": "got here and there and parallel and back again"},
        ],
        "steps": [
            ["__start__", "outer_1", "inner", "inner:__start__", "inner:inner_1", "inner:inner_2"],
            ["outer_2"],
        ],
    },
}

# This package's answer: the first invocation stops at the subgraph's breakpoint, the second
# (``invoke(None)``) resumes there and runs inner_2, then outer_2.
EXPECTED = {
    "inputs": [{"__start__": {"my_key": ""}}, "__resuming__"],
    "outputs": {
        "inputs": [],
        "results": [{}, {"my_key": "got here and there and parallel and back again"}],
        "steps": [
            ["__start__", "outer_1", "inner", "inner:__start__", "inner:inner_1", "__interrupt__"],
            ["inner:inner_2", "outer_2"],
        ],
    },
}


def test_trajectory_match_of_a_nested_interrupt() -> None:
    app = nested_interrupt_app()
    config = THREAD
    app.invoke({"my_key": ""}, config)
    assert app.invoke(None, config) == {
        "my_key": "got here and there and parallel and back again",
    }
    extracted = extract_langgraph_trajectory_from_thread(app, THREAD)
    assert exact_match(outputs=extracted, reference_outputs=EXPECTED)["score"]
    assert extracted != AGENTEVALS_EXPECTED
    assert agentevals_extract(app, THREAD) == AGENTEVALS_EXPECTED  # what agentevals gives


@pytest.mark.asyncio
async def test_trajectory_match_of_a_nested_interrupt_async() -> None:
    app = nested_interrupt_app()
    config = THREAD
    await app.ainvoke({"my_key": ""}, config)
    assert await app.ainvoke(None, config) == {
        "my_key": "got here and there and parallel and back again",
    }
    extracted = await aextract_langgraph_trajectory_from_thread(app, THREAD)
    assert exact_match(outputs=extracted, reference_outputs=EXPECTED)["score"]
    assert extracted != AGENTEVALS_EXPECTED
