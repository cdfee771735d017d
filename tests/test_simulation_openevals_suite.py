"""openevals' own simulator tests (its ``python/tests/simulators/test_multiturn.py``: the sync
and async simulation loops, LLM-simulated users, fixed replies, a stopping condition), run on
this package.

The scenarios and assertions are openevals'; what changed is the imports, and a scripted model
(no network, no API key) wherever openevals names an OpenAI model: for ``create_agent``'s model
and the simulated users' models, a ``ScriptedChatModel``; for the raw OpenAI clients, the real
``openai`` client talking to a scripted HTTP transport (``ScriptedOpenAI``); for the LLM judges
(openevals' ``create_llm_as_judge``, which this package does not replace), their verdict. Each
judge test checks besides that the judge was shown the conversation. LangSmith test tracking is
off (``LANGSMITH_TEST_TRACKING=false``), so ``t.log_outputs`` logs nothing anywhere. openevals'
test against a deployed chat-langchain server keeps its skip condition.
"""

from __future__ import annotations

import json
import os
import uuid
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from judge_models import RecordingModel, score_call
from langchain.agents import create_agent
from langgraph.checkpoint.memory import MemorySaver
from langsmith import testing as t
from openai import AsyncOpenAI as _AsyncOpenAI, OpenAI as _OpenAI
from openevals.llm import (
    create_async_llm_as_judge as _create_async_llm_as_judge,
    create_llm_as_judge as _create_llm_as_judge,
)
from openevals.simulators.prebuilts import _is_internal_message
from openevals.types import ChatCompletionMessage

from pytest_agenttraj import (
    create_async_llm_simulated_user,
    create_llm_simulated_user,
    run_multiturn_simulation,
    run_multiturn_simulation_async,
)
from pytest_agenttraj.testing import ScriptedChatModel, tool_call

with warnings.catch_warnings():  # langsmith.wrappers imports a module of its own it deprecates
    warnings.simplefilter("ignore", DeprecationWarning)
    from langsmith.wrappers import wrap_openai


@pytest.fixture(autouse=True)
def _no_langsmith_tracking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGSMITH_TEST_TRACKING", "false")
    monkeypatch.setenv("LANGSMITH_TRACING", "false")


# ------------------------------------------------------------------ the scripted stand-ins

_JUDGES: list[RecordingModel] = []


def _judge_verdict(score: bool) -> RecordingModel:
    judge = RecordingModel([score_call(reasoning="scripted verdict", score=score)])
    _JUDGES.append(judge)
    return judge


@pytest.fixture(autouse=True)
def _judges_saw_the_conversation() -> Iterator[None]:
    """After each test: every judge was asked once, and shown the simulated conversation."""
    _JUDGES.clear()
    yield
    for judge in _JUDGES:
        assert judge.calls_made == 1
        shown = "\n".join(str(message.content) for message in judge.seen[0])
        assert "user" in shown
        assert "assistant" in shown


def create_llm_as_judge(*, model: str, prompt: str, feedback_key: str, score: bool) -> Any:
    """openevals' judge with a scripted verdict in place of ``model``."""
    del model
    return _create_llm_as_judge(
        judge=_judge_verdict(score), prompt=prompt, feedback_key=feedback_key
    )


def create_async_llm_as_judge(*, model: str, prompt: str, feedback_key: str, score: bool) -> Any:
    del model
    return _create_async_llm_as_judge(
        judge=_judge_verdict(score), prompt=prompt, feedback_key=feedback_key
    )


class ScriptedOpenAI:
    """An HTTP transport answering OpenAI chat-completion requests with scripted texts, for the
    real ``openai`` client; ``requests`` keeps each request's body."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        text = self.replies[len(self.requests) - 1]
        return httpx.Response(
            200,
            json={
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": "scripted",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
            },
        )


def OpenAI(replies: list[str]) -> _OpenAI:
    transport = httpx.MockTransport(ScriptedOpenAI(replies))
    return _OpenAI(api_key="scripted", http_client=httpx.Client(transport=transport))


def AsyncOpenAI(replies: list[str]) -> _AsyncOpenAI:
    transport = httpx.MockTransport(ScriptedOpenAI(replies))
    return _AsyncOpenAI(api_key="scripted", http_client=httpx.AsyncClient(transport=transport))


def _create_tool_calling_model(script: list[Any]) -> ScriptedChatModel:
    """In place of ``ChatOpenAI(model="gpt-5.6-terra")``: the agent's replies, in order."""
    return ScriptedChatModel(script)


REFUND = tool_call("give_refund")


# ── sync: unique patterns ──────────────────────────────────────────────────────


@pytest.mark.langsmith
def test_multiturn_message_with_openai():
    """Sync raw OpenAI client app; agent refuses refunds so user is unsatisfied."""
    client = wrap_openai(OpenAI(["I'm sorry, I cannot grant refunds under any circumstances."]))
    history = {}

    def app(inputs: ChatCompletionMessage, *, thread_id: str):
        if thread_id not in history:
            history[thread_id] = []
        history[thread_id] = history[thread_id] + [inputs]
        res = client.chat.completions.create(
            model="gpt-5.6-terra",
            messages=[
                {
                    "role": "system",
                    "content": "You are a customer service agent. You are not allowed to grant refunds under any circumstances.",  # noqa: E501
                }
            ]
            + history[thread_id],
        )
        response = res.choices[0].message
        history[thread_id].append(response)
        return response

    user = create_llm_simulated_user(
        system="You are an aggressive and hostile customer who wants a refund for their car.",
        client=ScriptedChatModel([]),
        fixed_responses=[{"role": "user", "content": "I want a refund!"}],
    )
    trajectory_evaluator = create_llm_as_judge(
        model="openai:gpt-5.6-terra",
        prompt="Based on the below conversation, was the user satisfied?\n{outputs}",
        feedback_key="satisfaction",
        score=False,
    )

    res = run_multiturn_simulation(
        app=app,
        user=user,
        trajectory_evaluators=[trajectory_evaluator],
        max_turns=1,
        thread_id="1",
    )
    t.log_outputs(res)
    assert not res["evaluator_results"][0]["score"]


# ── async tests ────────────────────────────────────────────────────────────────


@pytest.mark.asyncio
@pytest.mark.langsmith
async def test_multiturn_failure_async():
    def give_refund():
        """Gives a refund."""
        return "Refunds are not permitted."

    agent = create_agent(
        _create_tool_calling_model(["I understand, but I cannot help.", "Stop wasting my time."]),
        tools=[give_refund],
        system_prompt="You are an overworked customer service agent. If the user is rude, be polite only once, then be rude back and tell them to stop wasting your time.",  # noqa: E501
        checkpointer=MemorySaver(),
    )

    thread_id = str(uuid.uuid4())

    async def app(inputs: ChatCompletionMessage, *, thread_id: str):
        res = await agent.ainvoke(
            {"messages": [inputs]}, config={"configurable": {"thread_id": thread_id}}
        )
        return res["messages"][-1]

    user = create_async_llm_simulated_user(
        system="You are an angry user who wants a refund and keeps making additional demands.",
        client=ScriptedChatModel([]),
        fixed_responses=[
            "I want a refund right now!",
            "This is completely unacceptable!",
            "You are useless, give me my money back!",
        ],
    )
    trajectory_evaluator = create_async_llm_as_judge(
        model="openai:gpt-5.6-terra",
        prompt="Based on the below conversation, has the user been satisfied?\n{outputs}",
        feedback_key="satisfaction",
        score=False,
    )

    res = await run_multiturn_simulation_async(
        app=app,
        user=user,
        trajectory_evaluators=[trajectory_evaluator],
        max_turns=2,
        thread_id=thread_id,
    )
    t.log_outputs(res)
    assert not res["evaluator_results"][0]["score"]


@pytest.mark.asyncio
@pytest.mark.langsmith
async def test_multiturn_success_async():
    def give_refund():
        """Gives a refund."""
        return "Refunds granted."

    agent = create_agent(
        _create_tool_calling_model(
            [{"tool_calls": [REFUND]}, "Your refund has been granted.", "You're welcome!"]
        ),
        tools=[give_refund],
        checkpointer=MemorySaver(),
    )

    thread_id = str(uuid.uuid4())

    async def app(inputs: ChatCompletionMessage, *, thread_id: str):
        res = await agent.ainvoke(
            {"messages": [inputs]}, config={"configurable": {"thread_id": thread_id}}
        )
        return res["messages"][-1]

    user = create_async_llm_simulated_user(
        system="You are a happy and reasonable person who wants a refund.",
        client=ScriptedChatModel([]),
        fixed_responses=[
            "Hi, I'd like a refund please.",
            "Thank you so much, that's great!",
        ],
    )
    trajectory_evaluator = create_async_llm_as_judge(
        model="openai:gpt-5.6-terra",
        prompt="Based on the below conversation, has the user been satisfied?\n{outputs}",
        feedback_key="satisfaction",
        score=True,
    )

    res = await run_multiturn_simulation_async(
        app=app,
        user=user,
        trajectory_evaluators=[trajectory_evaluator],
        max_turns=2,
        thread_id=thread_id,
    )
    t.log_outputs(res)
    assert res["evaluator_results"][0]["score"]


@pytest.mark.asyncio
@pytest.mark.langsmith
async def test_multiturn_preset_responses_async():
    def give_refund():
        """Gives a refund."""
        return "Refunds granted."

    agent = create_agent(
        _create_tool_calling_model(
            [{"tool_calls": [REFUND]}, "Refund granted.", "Ok.", "Ok.", "Ok.", "Ok."]
        ),
        tools=[give_refund],
        checkpointer=MemorySaver(),
    )

    thread_id = str(uuid.uuid4())

    async def app(inputs: ChatCompletionMessage, *, thread_id: str):
        res = await agent.ainvoke(
            {"messages": [inputs]}, config={"configurable": {"thread_id": thread_id}}
        )
        return res["messages"][-1]

    trajectory_evaluator = create_async_llm_as_judge(
        model="openai:gpt-5.6-terra",
        prompt="Based on the below conversation, has the user been satisfied?\n{outputs}",
        feedback_key="satisfaction",
        score=True,
    )

    res = await run_multiturn_simulation_async(
        app=app,
        user=[
            {"role": "user", "content": "Give me a refund!"},
            "All work and no play makes Jack a dull boy 1.",
            "All work and no play makes Jack a dull boy 2.",
            "All work and no play makes Jack a dull boy 3.",
            "All work and no play makes Jack a dull boy 4.",
        ],
        trajectory_evaluators=[trajectory_evaluator],
        max_turns=5,
        thread_id=thread_id,
    )
    t.log_outputs(res)
    filtered_trajectory = [msg for msg in res["trajectory"] if not _is_internal_message(msg)]
    assert filtered_trajectory[2]["content"] == "All work and no play makes Jack a dull boy 1."
    assert filtered_trajectory[4]["content"] == "All work and no play makes Jack a dull boy 2."
    assert filtered_trajectory[6]["content"] == "All work and no play makes Jack a dull boy 3."
    assert filtered_trajectory[8]["content"] == "All work and no play makes Jack a dull boy 4."


@pytest.mark.langsmith
@pytest.mark.asyncio
async def test_multiturn_message_with_openai_async():
    """Async raw OpenAI client app; angry parrots should be detected as angry."""
    client = wrap_openai(AsyncOpenAI([f"SQUAWK {n}! No crackers!" for n in range(1, 6)]))
    history = {}

    async def app(inputs: ChatCompletionMessage, *, thread_id: str):
        if thread_id not in history:
            history[thread_id] = []
        history[thread_id] = history[thread_id] + [inputs]
        res = await client.chat.completions.create(
            model="gpt-5.6-terra",
            messages=[
                {
                    "role": "system",
                    "content": "You are an angry parrot named Polly who is angry at everything. Squawk a lot.",  # noqa: E501
                }
            ]
            + history[thread_id],
        )
        response = res.choices[0].message
        history[thread_id].append(response)
        return response

    user_model = ScriptedChatModel([f"SQUAWK! Cracker {n}, now!" for n in range(1, 5)])
    user = create_async_llm_simulated_user(
        system="You are an angry parrot named Anna who is angry at everything. Squawk a lot.",
        client=user_model,
        fixed_responses=[{"role": "user", "content": "Give me a cracker!"}],
    )
    trajectory_evaluator = create_async_llm_as_judge(
        model="openai:gpt-5.6-terra",
        prompt="Based on the below conversation, are the parrots angry?\n{outputs}",
        feedback_key="anger",
        score=True,
    )

    res = await run_multiturn_simulation_async(
        app=app,
        user=user,
        trajectory_evaluators=[trajectory_evaluator],
        max_turns=5,
        thread_id="1",
    )
    t.log_outputs(res)
    assert res["evaluator_results"][0]["score"]
    # the persona's model spoke in turns 2 to 5, shown the conversation with roles swapped
    assert user_model.calls_made == 4
    last = user_model.requests[-1].messages
    assert last[0].content.startswith("You are an angry parrot named Anna")
    assert [m.type for m in last[1:3]] == ["ai", "human"]


@pytest.mark.langsmith
@pytest.mark.asyncio
async def test_multiturn_stopping_condition_async():
    def give_refund():
        """Gives a refund."""
        return "Refunds granted."

    agent = create_agent(
        _create_tool_calling_model([{"tool_calls": [REFUND]}, "Your refund has been granted."]),
        tools=[give_refund],
        checkpointer=MemorySaver(),
    )

    thread_id = str(uuid.uuid4())

    async def app(inputs: ChatCompletionMessage, *, thread_id: str):
        res = await agent.ainvoke(
            {"messages": [inputs]}, config={"configurable": {"thread_id": thread_id}}
        )
        return res["messages"][-1]

    user = create_async_llm_simulated_user(
        system="You are a happy and reasonable person who wants a refund.",
        client=ScriptedChatModel([]),
        fixed_responses=[{"role": "user", "content": "Give me a refund!"}],
    )
    trajectory_evaluator = create_async_llm_as_judge(
        model="openai:gpt-5.6-terra",
        prompt="Based on the below conversation, was a refund granted?\n{outputs}",
        feedback_key="satisfaction",
        score=True,
    )
    client = wrap_openai(AsyncOpenAI(['{"refund_granted": true}']))

    async def stopping_condition(current_trajectory, **kwargs):
        res = await client.chat.completions.create(
            model="gpt-5.6-terra",
            messages=[  # noqa: RUF005  (openevals' code)
                {
                    "role": "system",
                    "content": "Your job is to determine if a refund has been granted in the following conversation. Respond only with JSON with a single boolean key named 'refund_granted'.",  # noqa: E501
                }
            ]
            + current_trajectory,
            response_format={"type": "json_object"},
        )
        return json.loads(res.choices[0].message.content)["refund_granted"]

    res = await run_multiturn_simulation_async(
        app=app,
        user=user,
        trajectory_evaluators=[trajectory_evaluator],
        stopping_condition=stopping_condition,
        max_turns=10,
        thread_id=thread_id,
    )
    t.log_outputs(res)
    assert res["evaluator_results"][0]["score"]
    assert len(res["trajectory"]) < 20


@pytest.mark.langsmith
@pytest.mark.asyncio
@pytest.mark.skipif(
    not os.getenv("CHAT_LANGCHAIN_API_KEY") or not os.getenv("CHAT_LANGCHAIN_ENDPOINT"),
    reason="Requires additional auth.",
)
async def test_multiturn_message_with_chat_langchain():
    from langgraph_sdk import get_client

    client = get_client(
        url=os.getenv("CHAT_LANGCHAIN_ENDPOINT"),
        api_key=os.getenv("CHAT_LANGCHAIN_API_KEY"),
    )

    thread_id = str(uuid.uuid4())

    await client.threads.create(thread_id=thread_id, graph_id="chat")

    async def app(inputs: ChatCompletionMessage, *, thread_id: str):
        res = await client.runs.wait(thread_id, "chat", input={"messages": [inputs]})
        return res["messages"][-1]

    user = create_async_llm_simulated_user(
        system="Be belligerent and hostile. Keep asking followup questions, pretending your question hasn't been answered.",  # noqa: E501
        client=ScriptedChatModel(["And what about handoffs?", "That does not answer it."]),
        fixed_responses=[
            {
                "role": "user",
                "content": "Tell me how to use LangGraph to build a swarm-style agent.",
            },
        ],
    )
    trajectory_evaluator = create_async_llm_as_judge(
        model="openai:gpt-5.6-terra",
        prompt="Based on the below conversation, has the assistant been calm and helpful?\n{outputs}",  # noqa: E501
        feedback_key="calmness",
        score=True,
    )

    res = await run_multiturn_simulation_async(
        app=app,
        user=user,
        trajectory_evaluators=[trajectory_evaluator],
        max_turns=3,
        thread_id=thread_id,
    )
    t.log_outputs(res)
    assert res["evaluator_results"][0]["score"]
