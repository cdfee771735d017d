"""Agent goal accuracy (the Ragas metric), binary: did the conversation end where the user
wanted? Without a reference the judge infers the goal from the conversation; with one
(``reference_outputs``: the desired outcome, as text or ``{"reference": ...}``) it compares the
end state with it. One model call answers the user goal, the end state and the verdict."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import TrajectoryFormatError
from ..faces import AsyncEvaluator, Evaluator
from ..result import EvaluatorResult
from .engine import DEFAULT_MAX_CONCURRENCY, Judge, Verdict
from .model import JudgeModel
from .prompts import AGENT_GOAL_ACCURACY_PROMPT, AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE
from .replies import goal_spec
from .scoring import async_judge_evaluator, judge_evaluator
from .templates import build_messages, check_examples, check_prompt, with_examples
from .text import format_trajectory, format_value
from .trajectory import check_key

__all__ = ["create_agent_goal_accuracy_evaluator", "create_async_agent_goal_accuracy_evaluator"]


def desired_outcome(reference_outputs: Any) -> str | None:
    """The desired outcome as text: a string, a dict's ``reference`` / ``outcome``, else JSON;
    ``None`` for none (LangSmith passes ``{}`` for an example without outputs)."""
    if not reference_outputs:
        return None
    if isinstance(reference_outputs, Mapping):
        for key in ("reference", "outcome", "desired_outcome"):
            value = reference_outputs.get(key)
            if isinstance(value, str):
                return value
    return format_value(reference_outputs)


@dataclass(frozen=True)
class _GoalSteps:
    prompt: Any
    key: str
    examples: tuple[Mapping[str, Any], ...]

    def prepare(
        self, outputs: Any, reference_outputs: Any, inputs: Any, extra: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        if outputs is None:
            raise TrajectoryFormatError(
                "agent goal accuracy needs outputs (the conversation)", side="outputs"
            )
        outcome = desired_outcome(reference_outputs)
        params = {"outputs": format_trajectory(outputs, side="outputs")}
        if outcome is not None:
            params["reference_outputs"] = outcome
        if inputs:
            params["inputs"] = format_value(inputs)
        params.update({k: format_value(v) for k, v in extra.items() if k not in params})
        prompt = self.prompt
        if prompt is None:
            prompt = (
                AGENT_GOAL_ACCURACY_PROMPT
                if outcome is None
                else AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE
            )
        messages = with_examples(build_messages(prompt, params), self.examples)
        return messages, {"desired_outcome": outcome}

    def finish(self, verdict: Verdict, notes: Mapping[str, Any]) -> EvaluatorResult:
        answer = verdict.answer
        return {
            "key": self.key,
            "score": 1.0 if answer["achieved"] else 0.0,
            "comment": answer["reasoning"] or None,
            "metadata": {
                "user_goal": answer["user_goal"],
                "end_state": answer["end_state"],
                **notes,
                **verdict.metadata(),
            },
        }


def _build(
    prompt: Any,
    model: Any,
    judge: Any,
    feedback_key: Any,
    examples: Any,
    cache: Any,
    bound: int,
    timeout: float | None = None,
) -> tuple[Judge, _GoalSteps]:
    if prompt is not None:
        check_prompt(prompt)
    steps = _GoalSteps(prompt, check_key(feedback_key), check_examples(examples))
    evaluation = Judge(
        JudgeModel(judge=judge, model=model),
        goal_spec(),
        cache=cache,
        max_concurrency=bound,
        timeout=timeout,
    )
    return evaluation, steps


def create_agent_goal_accuracy_evaluator(
    *,
    model: str | None = None,
    judge: Any = None,
    prompt: Any = None,
    feedback_key: str = "agent_goal_accuracy",
    few_shot_examples: list[Mapping[str, Any]] | None = None,
    cache: Any = None,
    timeout: float | None = None,
) -> Evaluator:
    """An evaluator asking an LLM whether the agent achieved the user's goal (key
    ``agent_goal_accuracy``, score 1.0 or 0.0). Call it with ``outputs`` (the conversation) and
    optionally ``reference_outputs`` (the desired outcome); ``metadata`` holds the user goal and
    end state the judge saw. The model, prompt, cache and errors work as in
    ``create_trajectory_llm_as_judge`` (the default prompt depends on whether a reference is
    given).

    Example::

        goal = create_agent_goal_accuracy_evaluator(judge=chat_model)
        result = goal(outputs=messages, reference_outputs="A table for two is booked at 8pm")
    """
    evaluation, steps = _build(
        prompt,
        model,
        judge,
        feedback_key,
        few_shot_examples,
        cache,
        DEFAULT_MAX_CONCURRENCY,
        timeout,
    )
    return judge_evaluator(evaluation, steps, steps.key, "agent_goal_accuracy")


def create_async_agent_goal_accuracy_evaluator(
    *,
    model: str | None = None,
    judge: Any = None,
    prompt: Any = None,
    feedback_key: str = "agent_goal_accuracy",
    few_shot_examples: list[Mapping[str, Any]] | None = None,
    cache: Any = None,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    timeout: float | None = None,
) -> AsyncEvaluator:
    """The async twin of ``create_agent_goal_accuracy_evaluator``."""
    evaluation, steps = _build(
        prompt, model, judge, feedback_key, few_shot_examples, cache, max_concurrency, timeout
    )
    return async_judge_evaluator(evaluation, steps, steps.key, "agent_goal_accuracy")
