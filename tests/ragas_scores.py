"""Scores cases with Ragas itself, for the differential tests (tests/test_ragas_differential.py).

Runs in the separate Ragas environment (``make .venv-ragas``; Ragas needs packages that conflict
with the development environment), never in the suite's: it reads ``{"cases": [...]}`` as JSON
on standard input and writes one ``{"collections": score, "legacy": score}`` per case on
standard output, scored by both of Ragas' classes of each metric (``ragas.metrics.collections``
and the older ``ragas.metrics``). The LLM metrics get their judges' verdicts from a script, so
nothing calls a model or the network.

A case is one of::

    {"metric": "tool_call_accuracy", "strict_order": bool, "messages": [[call, ...], ...],
     "reference": [call, ...]}
    {"metric": "tool_call_f1", "messages": ..., "reference": ...}
    {"metric": "topic_adherence", "mode": "precision" | "recall" | "f1", "topics": [str],
     "refused": [bool], "classifications": [bool], "reference_topics": [str]}
    {"metric": "agent_goal_accuracy", "reference": str | None, "user_goal": str,
     "end_state": str, "verdict": "0" | "1"}

where a call is ``{"name": str, "args": {...}}`` and ``messages`` lists the tool calls of each
assistant message of the conversation.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import warnings
from collections.abc import Iterator
from typing import Any


def _conversation(case: dict[str, Any]) -> list[Any]:
    from ragas.messages import AIMessage, HumanMessage, ToolCall

    messages: list[Any] = [HumanMessage(content="Please help.")]
    for made in case.get("messages", []):
        calls = [ToolCall(name=c["name"], args=c["args"]) for c in made]
        messages.append(AIMessage(content="", tool_calls=calls or None))
    return messages


def _reference_calls(case: dict[str, Any]) -> list[Any]:
    from ragas.messages import ToolCall

    return [ToolCall(name=c["name"], args=c["args"]) for c in case["reference"]]


class _Script:
    """The verdicts a judge gives, one structured answer per request, in order."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self._answers: Iterator[dict[str, Any]] = iter(answers)

    def next(self) -> dict[str, Any]:
        answer = next(self._answers, None)
        if answer is None:
            raise RuntimeError("Ragas asked its judge more often than the case scripts")
        return answer


def _instructor_llm(answers: list[dict[str, Any]]) -> Any:
    """A stand-in for the modern Ragas LLM: each request gets the next scripted answer."""
    from ragas.llms.base import InstructorBaseRagasLLM

    script = _Script(answers)

    class ScriptedLLM(InstructorBaseRagasLLM):
        def generate(self, prompt: str, response_model: Any) -> Any:
            del prompt
            return response_model(**script.next())

        async def agenerate(self, prompt: str, response_model: Any) -> Any:
            return self.generate(prompt, response_model)

    return ScriptedLLM()


def _langchain_llm(answers: list[dict[str, Any]]) -> Any:
    """The older Ragas LLM interface over a langchain fake model replying with JSON texts."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from ragas.llms import LangchainLLMWrapper

    texts = [json.dumps(answer) for answer in answers]
    return LangchainLLMWrapper(FakeListChatModel(responses=texts))


def _topic_answers(case: dict[str, Any], *, legacy: bool) -> list[dict[str, Any]]:
    """The topics, a refusal verdict per topic, then the classifications (which the newer class
    does not ask for when there are no topics)."""
    answers: list[dict[str, Any]] = [{"topics": case["topics"]}]
    answers += [{"refused_to_answer": refused} for refused in case["refused"]]
    if case["topics"] or legacy:
        answers.append({"classifications": case["classifications"]})
    return answers


def _goal_answers(case: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"user_goal": case["user_goal"], "end_state": case["end_state"]},
        {"reason": "scripted", "verdict": case["verdict"]},
    ]


async def _collections(case: dict[str, Any]) -> float:
    from ragas.metrics import collections as modern

    metric = case["metric"]
    if metric == "tool_call_accuracy":
        accuracy = modern.ToolCallAccuracy(strict_order=case["strict_order"])
        result = await accuracy.ascore(
            user_input=_conversation(case), reference_tool_calls=_reference_calls(case)
        )
    elif metric == "tool_call_f1":
        result = await modern.ToolCallF1().ascore(
            user_input=_conversation(case), reference_tool_calls=_reference_calls(case)
        )
    elif metric == "topic_adherence":
        topics = modern.TopicAdherence(
            llm=_instructor_llm(_topic_answers(case, legacy=False)), mode=case["mode"]
        )
        result = await topics.ascore(
            user_input=_conversation(case), reference_topics=case["reference_topics"]
        )
    else:
        llm = _instructor_llm(_goal_answers(case))
        if case["reference"] is None:
            result = await modern.AgentGoalAccuracyWithoutReference(llm=llm).ascore(
                user_input=_conversation(case)
            )
        else:
            result = await modern.AgentGoalAccuracyWithReference(llm=llm).ascore(
                user_input=_conversation(case), reference=case["reference"]
            )
    return float(result.value)


async def _legacy(case: dict[str, Any]) -> float:
    from ragas import metrics as legacy
    from ragas.dataset_schema import MultiTurnSample

    metric = case["metric"]
    sample: dict[str, Any] = {"user_input": _conversation(case)}
    scorer: Any
    if metric == "tool_call_accuracy":
        scorer = legacy.ToolCallAccuracy(strict_order=case["strict_order"])
        sample["reference_tool_calls"] = _reference_calls(case)
    elif metric == "tool_call_f1":
        scorer = legacy.ToolCallF1()
        sample["reference_tool_calls"] = _reference_calls(case)
    elif metric == "topic_adherence":
        scorer = legacy.TopicAdherenceScore(
            llm=_langchain_llm(_topic_answers(case, legacy=True)), mode=case["mode"]
        )
        sample["reference_topics"] = case["reference_topics"]
    elif case["reference"] is None:
        scorer = legacy.AgentGoalAccuracyWithoutReference(llm=_langchain_llm(_goal_answers(case)))
    else:
        scorer = legacy.AgentGoalAccuracyWithReference(llm=_langchain_llm(_goal_answers(case)))
        sample["reference"] = case["reference"]
    return float(await scorer.multi_turn_ascore(MultiTurnSample(**sample)))


async def _score_all(cases: list[dict[str, Any]]) -> list[dict[str, float]]:
    scores = []
    for case in cases:
        scores.append({"collections": await _collections(case), "legacy": await _legacy(case)})
    return scores


def main() -> None:
    os.environ["RAGAS_DO_NOT_TRACK"] = "true"  # no usage report sent anywhere
    cases = json.load(sys.stdin)["cases"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Ragas warns on every length mismatch and empty side
        scores = asyncio.run(_score_all(cases))
    json.dump(scores, sys.stdout)


if __name__ == "__main__":
    main()
